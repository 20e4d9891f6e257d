// RUN: tessera-opt %s -split-input-file --spmd-propagate="user-priorities=false" | FileCheck %s
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a matmul propagates in a later stage than elementwise ops and
// still shards its result with the rows of %arg0 and the columns of %arg1,
// which the elementwise op after it then takes.
// CHECK-LABEL: func.func @elementwise_before_matmul(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {}]>}, %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"b"}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>})
// CHECK: %{{.*}} = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} : tensor<8x8xf32>
// CHECK: %{{.*}} = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} ins(%{{.*}}, %{{.*}} : tensor<8x8xf32>, tensor<8x8xf32>) outs(%{{.*}} : tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} : tensor<8x8xf32>
func.func @elementwise_before_matmul(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {}]>}, %arg1: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"b"}]>}) -> tensor<8x8xf32> {
  %0 = tensor.empty() : tensor<8x8xf32>
  %1 = linalg.matmul ins(%arg0, %arg1 : tensor<8x8xf32>, tensor<8x8xf32>) outs(%0 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %2 = arith.negf %1 : tensor<8x8xf32>
  return %2 : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a broadcast propagates forward only in the last stage: the
// elementwise op after it takes the sharding of its other operand first
// ("b"), which then reaches the broadcast's result; the broadcast's closed
// operand keeps "a".
// CHECK-LABEL: func.func @broadcast_forward_last(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}, %{{.*}}: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}, {}]>}) -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}, {?}]>})
// CHECK: %{{.*}} = linalg.broadcast ins(%{{.*}} : tensor<8xf32>) outs(%{{.*}} : tensor<8x16xf32>) dimensions = [1]  {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}, {?}]>]>}
// CHECK: %{{.*}} = arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}, {?}]>]>} : tensor<8x16xf32>
func.func @broadcast_forward_last(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}, %arg1: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}, {}]>}) -> tensor<8x16xf32> {
  %0 = tensor.empty() : tensor<8x16xf32>
  %1 = linalg.broadcast ins(%arg0 : tensor<8xf32>) outs(%0 : tensor<8x16xf32>) dimensions = [1]
  %2 = arith.addf %1, %arg1 : tensor<8x16xf32>
  return %2 : tensor<8x16xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that an elementwise op whose operand has several uses waits for the
// second stage: the single-use chain from %arg1 wins %1 first.
// CHECK-LABEL: func.func @multi_use_operand_waits(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}]>}, tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}]>]>} : tensor<8xf32>
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}]>]>} : tensor<8xf32>
// CHECK: %{{.*}} = arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}]>]>} : tensor<8xf32>
// CHECK: %{{.*}} = arith.mulf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>} : tensor<8xf32>
func.func @multi_use_operand_waits(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}, %arg1: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}]>}) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = arith.negf %arg0 : tensor<8xf32>
  %1 = arith.negf %arg1 : tensor<8xf32>
  %2 = arith.addf %0, %1 : tensor<8xf32>
  %3 = arith.mulf %arg0, %arg0 : tensor<8xf32>
  return %2, %3 : tensor<8xf32>, tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a reshape is a pass-through op of the first stage.
// CHECK-LABEL: func.func @reshape_first_stage(
// CHECK-SAME: %{{.*}}: tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}) -> (tensor<32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>})
// CHECK: %{{.*}} = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1{{\]\]}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>} : tensor<4x8xf32> into tensor<32xf32>
// CHECK: %{{.*}} = math.exp %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>} : tensor<32xf32>
func.func @reshape_first_stage(%arg0: tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}) -> tensor<32xf32> {
  %0 = tensor.collapse_shape %arg0 [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  %1 = math.exp %0 : tensor<32xf32>
  return %1 : tensor<32xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2]>

// Tests that an op with more factors than a 64-bit direction signature
// holds (33: 2 bits each) still propagates in the stage that moves only its
// pass-through factor (factor 0; the other 32 are reductions). %arg1 gets
// "a" backward through @many_factors's second generic in the pass-through
// stage, before the first generic (stage 3, non-pass-through factor) could
// give it "b" from %arg2. A signature that dropped factor 0's bits read as
// "nothing moves" and skipped the op.
// CHECK-LABEL: func.func @many_factors(
// CHECK-SAME: %{{.*}}: tensor<2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {?}, {?}, {?}, {?}, {?}, {?}, {?}, {?}, {?}, {?}, {?}, {?}, {?}, {?}, {?}, {?}]>}
func.func @many_factors(%a: tensor<2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2xf32>, %b: tensor<2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2xf32>,
    %w: tensor<2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}]>},
    %c: tensor<2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}) -> (tensor<2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2xf32>, tensor<2xf32>) {
  %e0 = tensor.empty() : tensor<2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11, d12, d13, d14, d15, d16) -> (d0, d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11, d12, d13, d14, d15, d16)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11, d12, d13, d14, d15, d16) -> (d0)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11, d12, d13, d14, d15, d16) -> (d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11, d12, d13, d14, d15, d16)>], iterator_types = ["reduction", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%b, %w : tensor<2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2xf32>, tensor<2xf32>) outs(%e0 : tensor<2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %m = arith.mulf %x, %y : f32
      %s = arith.addf %m, %o : f32
      linalg.yield %s : f32
  } -> tensor<2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2xf32>
  %e = tensor.empty() : tensor<2xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11, d12, d13, d14, d15, d16, d17, d18, d19, d20, d21, d22, d23, d24, d25, d26, d27, d28, d29, d30, d31, d32) -> (d0, d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11, d12, d13, d14, d15, d16)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11, d12, d13, d14, d15, d16, d17, d18, d19, d20, d21, d22, d23, d24, d25, d26, d27, d28, d29, d30, d31, d32) -> (d0, d17, d18, d19, d20, d21, d22, d23, d24, d25, d26, d27, d28, d29, d30, d31, d32)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11, d12, d13, d14, d15, d16, d17, d18, d19, d20, d21, d22, d23, d24, d25, d26, d27, d28, d29, d30, d31, d32) -> (d0)>], iterator_types = ["parallel", "reduction", "reduction", "reduction", "reduction", "reduction", "reduction", "reduction", "reduction", "reduction", "reduction", "reduction", "reduction", "reduction", "reduction", "reduction", "reduction", "reduction", "reduction", "reduction", "reduction", "reduction", "reduction", "reduction", "reduction", "reduction", "reduction", "reduction", "reduction", "reduction", "reduction", "reduction", "reduction"]}
      ins(%a, %b : tensor<2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2xf32>, tensor<2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2xf32>) outs(%e : tensor<2xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %m = arith.mulf %x, %y : f32
      %s = arith.addf %m, %o : f32
      linalg.yield %s : f32
  } -> tensor<2xf32>
  %h = arith.addf %g, %c : tensor<2xf32>
  return %r, %h : tensor<2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2xf32>, tensor<2xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=4]>

// Tests that a transpose which only moves a dimension of size 1 (4x1 to
// 1x4 here, its other factor keeping its place) still counts as a
// pass-through op: it moves "a" in the first stage, so the add takes "a"
// from it before the contraction's "b" arrives in a later stage, and the
// contraction's result follows the add.
// CHECK-LABEL: func.func @size_one_transpose_is_pass_through(
// CHECK-SAME: -> (tensor<1x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"a", ?}]>})
// CHECK: linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{?}, {"a", ?}]>]>}
// CHECK: linalg.transpose {{.*}} permutation = [1, 0]  {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{?}, {"a", ?}]>]>}
// CHECK: arith.subf {{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{?}, {"a", ?}]>]>}
func.func @size_one_transpose_is_pass_through(%col: tensor<4x1xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {}]>}, %lhs: tensor<1x6xf32>, %rhs: tensor<6x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"b"}]>}, %acc: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %prod = linalg.matmul ins(%lhs, %rhs : tensor<1x6xf32>, tensor<6x4xf32>) outs(%acc : tensor<1x4xf32>) -> tensor<1x4xf32>
  %empty = tensor.empty() : tensor<1x4xf32>
  %row = linalg.transpose ins(%col : tensor<4x1xf32>) outs(%empty : tensor<1x4xf32>) permutation = [1, 0]
  %diff = arith.subf %row, %prod : tensor<1x4xf32>
  return %diff : tensor<1x4xf32>
}
