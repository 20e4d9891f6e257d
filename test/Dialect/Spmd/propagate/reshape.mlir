// RUN: tessera-opt %s -split-input-file --spmd-propagate | FileCheck %s
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4, "e"=8]>

// Tests that splitting a dim hands its axes to the new dims major to minor,
// cutting "d" into sub-axes where the major dim is smaller than the axis.
// CHECK-LABEL: func.func @split_with_sub_axes(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d", "a"}]>}) -> (tensor<2x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d":(1)2, ?}, {"d":(2)2, "a", ?}]>})
// CHECK: %{{.*}} = tensor.expand_shape %{{.*}} {{\[\[}}0, 1{{\]\]}} output_shape [2, 4] {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"d":(1)2, ?}, {"d":(2)2, "a", ?}]>]>} : tensor<8xf32> into tensor<2x4xf32>
func.func @split_with_sub_axes(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d", "a"}]>}) -> tensor<2x4xf32> {
  %0 = tensor.expand_shape %arg0 [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4, "e"=8]>

// Tests that merging dims concatenates their axes when the major dim is
// fully sharded.
// CHECK-LABEL: func.func @merge_fully_sharded_major(
// CHECK-SAME: %{{.*}}: tensor<2x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"d"}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "d", ?}]>})
// CHECK: %{{.*}} = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1{{\]\]}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", "d", ?}]>]>} : tensor<2x4xf32> into tensor<8xf32>
func.func @merge_fully_sharded_major(%arg0: tensor<2x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"d"}]>}) -> tensor<8xf32> {
  %0 = tensor.collapse_shape %arg0 [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4, "e"=8]>

// Tests that merging stops after a major dim that is not fully sharded (the
// minor dim's axes would need a strided view).
// CHECK-LABEL: func.func @merge_partially_sharded_major(
// CHECK-SAME: %{{.*}}: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}) -> (tensor<16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>})
// CHECK: %{{.*}} = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1{{\]\]}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>} : tensor<4x4xf32> into tensor<16xf32>
func.func @merge_partially_sharded_major(%arg0: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}) -> tensor<16xf32> {
  %0 = tensor.collapse_shape %arg0 [[0, 1]] : tensor<4x4xf32> into tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4, "e"=8]>

// Tests backward propagation into a split: the merged dim's "e" (size 8)
// splits over the factors 4 and 2 as "e":(1)4 and "e":(4)2.
// CHECK-LABEL: func.func @merge_backward_sub_axes(
// CHECK-SAME: %{{.*}}: tensor<4x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"e":(1)4, ?}, {"e":(4)2, ?}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"e"}]>})
// CHECK: %{{.*}} = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1{{\]\]}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"e", ?}]>]>} : tensor<4x2xf32> into tensor<8xf32>
func.func @merge_backward_sub_axes(%arg0: tensor<4x2xf32>) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"e"}]>}) {
  %0 = tensor.collapse_shape %arg0 [[0, 1]] : tensor<4x2xf32> into tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4, "e"=8]>

// Tests that sub-axes coming back together merge into the full axis.
// CHECK-LABEL: func.func @sub_axes_merge_back(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d"}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d", ?}]>})
// CHECK: %{{.*}} = tensor.expand_shape %{{.*}} {{\[\[}}0, 1{{\]\]}} output_shape [2, 4] {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"d":(1)2, ?}, {"d":(2)2, ?}]>]>} : tensor<8xf32> into tensor<2x4xf32>
// CHECK: %{{.*}} = math.exp %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"d":(1)2, ?}, {"d":(2)2, ?}]>]>} : tensor<2x4xf32>
// CHECK: %{{.*}} = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1{{\]\]}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"d", ?}]>]>} : tensor<2x4xf32> into tensor<8xf32>
func.func @sub_axes_merge_back(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d"}]>}) -> tensor<8xf32> {
  %0 = tensor.expand_shape %arg0 [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  %1 = math.exp %0 : tensor<2x4xf32>
  %2 = tensor.collapse_shape %1 [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
  return %2 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4, "e"=8]>

// Tests that an axis that does not divide a non-minor factor becomes
// overflow: 6 = 3x2 with "a" (2) on the merged dim: gcd(3, 2) = 1, so the
// major dim cannot take "a" and the factors after it are closed.
// CHECK-LABEL: func.func @overflow_non_divisible(
// CHECK-SAME: %{{.*}}: tensor<6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}) -> tensor<3x2xf32>
func.func @overflow_non_divisible(%arg0: tensor<6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}) -> tensor<3x2xf32> {
  %0 = tensor.expand_shape %arg0 [[0, 1]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4, "e"=8]>

// Tests a reshape with a size-1 dim: it never takes an axis.
// CHECK-LABEL: func.func @size_one_dim_reshape(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}]>}) -> (tensor<1x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"b", ?}]>})
// CHECK: %{{.*}} = tensor.expand_shape %{{.*}} {{\[\[}}0, 1{{\]\]}} output_shape [1, 8] {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{?}, {"b", ?}]>]>} : tensor<8xf32> into tensor<1x8xf32>
func.func @size_one_dim_reshape(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}]>}) -> tensor<1x8xf32> {
  %0 = tensor.expand_shape %arg0 [[0, 1]] output_shape [1, 8] : tensor<8xf32> into tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4, "e"=8]>

// Tests tensor.reshape (with a shape operand) like expand_shape.
// CHECK-LABEL: func.func @tensor_reshape(
// CHECK-SAME: %{{.*}}: tensor<16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}]>}) -> (tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", ?}, {?}]>})
// CHECK: %{{.*}} = tensor.reshape %{{.*}}(%{{.*}}) {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", "b", ?}, {?}]>]>} : (tensor<16xf32>, tensor<2xi64>) -> tensor<4x4xf32>
func.func @tensor_reshape(%arg0: tensor<16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}]>}) -> tensor<4x4xf32> {
  %shape = arith.constant dense<[4, 4]> : tensor<2xi64>
  %0 = tensor.reshape %arg0(%shape) : (tensor<16xf32>, tensor<2xi64>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
