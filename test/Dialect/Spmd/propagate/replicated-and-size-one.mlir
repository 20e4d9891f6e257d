// RUN: tessera-opt %s -split-input-file --spmd-propagate | FileCheck %s
// RUN: tessera-opt %s -split-input-file --spmd-propagate="strategy=basic op-priorities=false" | FileCheck %s

// When propagation leaves a value without a sharding attribute, and how
// dimensions of size 1 take axes (the rules of Shardy's propagation).

spmd.mesh @mesh = <["a"=2, "b"=4]>

// Tests that a chain of unary ops fed by a closed, fully replicated
// argument stays unannotated: a value without a sharding only gets one
// when it would hold an axis, so neither `[{}, {}]` nor `[{?}, {?}]` is
// written on the ops or on the function result.
// CHECK-LABEL: func.func @replicated_chain(
// CHECK-SAME: -> tensor<4x6xf32> {
// CHECK-NEXT: math.sqrt %{{.*}} : tensor<4x6xf32>
// CHECK-NEXT: arith.negf %{{.*}} : tensor<4x6xf32>
func.func @replicated_chain(%x: tensor<4x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) -> tensor<4x6xf32> {
  %0 = math.sqrt %x : tensor<4x6xf32>
  %1 = arith.negf %0 : tensor<4x6xf32>
  return %1 : tensor<4x6xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=4]>

// Tests that explicitly replicated axes do not travel either, and that an
// open, empty sharding an op already has is kept as it is.
// CHECK-LABEL: func.func @replicated_axes_stay(
// CHECK-SAME: -> tensor<4x6xf32> {
// CHECK-NEXT: math.absf %{{.*}} : tensor<4x6xf32>
// CHECK-NEXT: math.cos %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{?}, {?}]>]>} : tensor<4x6xf32>
func.func @replicated_axes_stay(%x: tensor<4x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}], replicated={"a"}>}) -> tensor<4x6xf32> {
  %0 = math.absf %x : tensor<4x6xf32>
  %1 = math.cos %0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{?}, {?}]>]>} : tensor<4x6xf32>
  return %1 : tensor<4x6xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=4]>

// Tests that when one result of a multi-result op gets a sharding, the
// results that get no axis are written fully open, while the function
// result fed by such a result stays unannotated.
// CHECK-LABEL: func.func @other_results_open(
// CHECK-SAME: -> (tensor<6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}, tensor<4xf32>)
// CHECK: linalg.generic
// CHECK-SAME: {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>, <@mesh, [{?}]>]>}
func.func @other_results_open(%m: tensor<6x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {}]>}, %rows: tensor<6xf32>, %cols: tensor<4xf32>) -> (tensor<6xf32>, tensor<4xf32>) {
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "reduction"]}
      ins(%m : tensor<6x4xf32>) outs(%rows, %cols : tensor<6xf32>, tensor<4xf32>) {
  ^bb0(%v: f32, %p: f32, %q: f32):
    %s = arith.addf %v, %p : f32
    %t = arith.maximumf %v, %q : f32
    linalg.yield %s, %t : f32, f32
  } -> (tensor<6xf32>, tensor<4xf32>)
  return %r#0, %r#1 : tensor<6xf32>, tensor<4xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=4]>

// Tests that a dimension of size 1 is not special to elementwise ops: its
// factor of size 1 is the dimension's only (minor-most) factor, which may
// take axes it does not divide (a padded block), so "a" moves along it.
// CHECK-LABEL: func.func @size_one_dim_elementwise(
// CHECK-SAME: -> (tensor<1x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>})
// CHECK: math.tanh %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>}
func.func @size_one_dim_elementwise(%x: tensor<1x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}) -> tensor<1x8xf32> {
  %0 = math.tanh %x : tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=4]>

// Tests that a reshape gives every dimension of size 1 a factor of its own
// tensor: the axis on the operand's size-1 dimension stays there, and the
// size-1 dimension of the result is backed by nothing the operand has.
// CHECK-LABEL: func.func @size_one_dims_reshape(
// CHECK-SAME: -> (tensor<8x1xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}, {?}]>})
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1{{\]\]}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}]>]>}
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1{{\]\]}} output_shape [8, 1] {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}, {?}]>]>}
func.func @size_one_dims_reshape(%x: tensor<1x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}) -> tensor<8x1xf32> {
  %0 = tensor.collapse_shape %x [[0, 1]] : tensor<1x8xf32> into tensor<8xf32>
  %1 = tensor.expand_shape %0 [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
  return %1 : tensor<8x1xf32>
}

// -----
spmd.mesh @ones = <["p"=1, "q"=2, "r"=1]>

// Tests that axes of size 1 stay in the factor they are listed with (a
// non-minor factor takes them whatever its size) and move with it.
// CHECK-LABEL: func.func @size_one_axes_reshape(
// CHECK-SAME: -> (tensor<2x1x3xf32> {spmd.sharding = #spmd.sharding<@ones, [{"p", "q", "r", ?}, {?}, {?}]>})
func.func @size_one_axes_reshape(%x: tensor<6xf32> {spmd.sharding = #spmd.sharding<@ones, [{"p", "q", "r"}]>}) -> tensor<2x1x3xf32> {
  %0 = tensor.expand_shape %x [[0, 1, 2]] output_shape [2, 1, 3] : tensor<6xf32> into tensor<2x1x3xf32>
  return %0 : tensor<2x1x3xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=4]>

// Tests that a slice down to one row keeps the sliced dimension's axes:
// its factor has the source's size (a permutation factor), not 1.
// CHECK-LABEL: func.func @slice_to_one_row(
// CHECK-SAME: -> (tensor<1x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", ?}, {?}]>})
func.func @slice_to_one_row(%x: tensor<8x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}, {}]>}) -> tensor<1x6xf32> {
  %0 = tensor.extract_slice %x[3, 0] [1, 6] [1, 1] : tensor<8x6xf32> to tensor<1x6xf32>
  return %0 : tensor<1x6xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=4]>

// Tests that a reshape of a tensor without elements has no rule, so
// nothing propagates through it.
// CHECK-LABEL: func.func @empty_tensor_reshape(
// CHECK-SAME: -> tensor<0xf32> {
// CHECK-NEXT: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1{{\]\]}} : tensor<0x8xf32> into tensor<0xf32>
func.func @empty_tensor_reshape(%x: tensor<0x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"b"}]>}) -> tensor<0xf32> {
  %0 = tensor.collapse_shape %x [[0, 1]] : tensor<0x8xf32> into tensor<0xf32>
  return %0 : tensor<0xf32>
}
