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
