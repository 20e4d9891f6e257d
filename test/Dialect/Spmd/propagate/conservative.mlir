// RUN: tessera-opt %s -split-input-file --spmd-propagate="conservative=true" | FileCheck %s
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4, "e"=8]>

// Tests that conservative propagation never creates sub-axes: the split
// that would need "d":(1)2 gets nothing.
// CHECK-LABEL: func.func @no_sub_axes(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d"}]>}) -> tensor<2x4xf32>
func.func @no_sub_axes(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d"}]>}) -> tensor<2x4xf32> {
  %0 = tensor.expand_shape %arg0 [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4, "e"=8]>

// Tests that full axes still propagate conservatively.
// CHECK-LABEL: func.func @full_axes_still_propagate(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "d"}]>}) -> (tensor<2x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"d", ?}]>})
// CHECK: %{{.*}} = tensor.expand_shape %{{.*}} {{\[\[}}0, 1{{\]\]}} output_shape [2, 4] {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"d", ?}]>]>} : tensor<8xf32> into tensor<2x4xf32>
func.func @full_axes_still_propagate(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "d"}]>}) -> tensor<2x4xf32> {
  %0 = tensor.expand_shape %arg0 [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4, "e"=8]>

// Tests that conservative propagation does not propagate along
// permutation factors (the sliced dim of extract_slice).
// CHECK-LABEL: func.func @no_permutation_factors(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}) -> (tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"b", ?}]>})
// CHECK: %{{.*}} = tensor.extract_slice %{{.*}}[2, 0] [4, 8] [1, 1] {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{?}, {"b", ?}]>]>} : tensor<8x8xf32> to tensor<4x8xf32>
func.func @no_permutation_factors(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}) -> tensor<4x8xf32> {
  %0 = tensor.extract_slice %arg0[2, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----
spmd.mesh @mesh = <["p"=8, "q"=2]>

// Tests that a strided slice's dimension (a need-replication factor the
// source and the result share) takes no axis conservatively, as in Shardy,
// while the unsliced dimension does.
// CHECK-LABEL: func.func @no_strided_slice_dims(
// CHECK-SAME: -> (tensor<16x1x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"p", ?}, {?}, {?}]>})
func.func @no_strided_slice_dims(%arg0: tensor<16x6x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"p"}, {}, {"q"}]>}) -> tensor<16x1x2xf32> {
  %0 = tensor.extract_slice %arg0[0, 3, 2] [16, 1, 2] [1, 1, 3] : tensor<16x6x8xf32> to tensor<16x1x2xf32>
  return %0 : tensor<16x1x2xf32>
}

// -----
spmd.mesh @mesh = <["p"=4, "q"=2]>

// Tests that the concatenated dimension takes no axis conservatively (in
// either direction), as in Shardy; the other dimension does.
// CHECK-LABEL: func.func @no_concat_dim(
// CHECK-SAME: %{{.*}}: tensor<4x5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"p", ?}, {?}]>}) -> (tensor<4x7xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"p", ?}, {?}]>})
func.func @no_concat_dim(%arg0: tensor<4x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"p"}, {"q"}]>}, %arg1: tensor<4x5xf32>) -> tensor<4x7xf32> {
  %0 = tensor.concat dim(1) %arg0, %arg1 : (tensor<4x2xf32>, tensor<4x5xf32>) -> tensor<4x7xf32>
  return %0 : tensor<4x7xf32>
}

// -----
spmd.mesh @mesh = <["p"=4, "q"=2]>

// Tests the reshapes of Shardy's conservative mode. A split that would cut
// "p" into sub-axes: nothing propagates (the op gets no sharding).
// CHECK-LABEL: func.func @split_needs_sub_axes(
// CHECK-SAME: -> tensor<2x12xf32>
// CHECK-NOT: spmd.sharding
// CHECK: return
func.func @split_needs_sub_axes(%arg0: tensor<24xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"p"}]>}) -> tensor<2x12xf32> {
  %0 = tensor.expand_shape %arg0 [[0, 1]] output_shape [2, 12] : tensor<24xf32> into tensor<2x12xf32>
  return %0 : tensor<2x12xf32>
}

// -----
spmd.mesh @mesh = <["p"=4, "q"=2]>

// Both axes fit the major dimension of the split.
// CHECK-LABEL: func.func @split_major_takes_all(
// CHECK-SAME: -> (tensor<24x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"p", "q", ?}, {?}]>})
func.func @split_major_takes_all(%arg0: tensor<48xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"p", "q"}]>}) -> tensor<24x2xf32> {
  %0 = tensor.expand_shape %arg0 [[0, 1]] output_shape [24, 2] : tensor<48xf32> into tensor<24x2xf32>
  return %0 : tensor<24x2xf32>
}

// -----
spmd.mesh @mesh = <["p"=2, "q"=8]>

// "q" would have to be cut between the two dimensions: only "p" goes.
// CHECK-LABEL: func.func @split_major_partly(
// CHECK-SAME: -> (tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"p", ?}, {?}]>})
func.func @split_major_partly(%arg0: tensor<32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"p", "q"}]>}) -> tensor<4x8xf32> {
  %0 = tensor.expand_shape %arg0 [[0, 1]] output_shape [4, 8] : tensor<32xf32> into tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----
spmd.mesh @mesh = <["p"=8, "q"=2]>

// Each axis is exactly one dimension of the split.
// CHECK-LABEL: func.func @split_axis_per_dim(
// CHECK-SAME: -> (tensor<8x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"p", ?}, {"q", ?}]>})
func.func @split_axis_per_dim(%arg0: tensor<16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"p", "q"}]>}) -> tensor<8x2xf32> {
  %0 = tensor.expand_shape %arg0 [[0, 1]] output_shape [8, 2] : tensor<16xf32> into tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}
