// RUN: tessera-opt %s -split-input-file --spmd-propagate="strategy=basic op-priorities=false user-priorities=false" | FileCheck %s
spmd.mesh @mesh3 = <["x"=3]>

// Tests that a single-factor dim takes an axis that does not divide it
// (the partitioner pads), as Shardy does.
// CHECK-LABEL: func.func @single_factor_non_divisible(
// CHECK-SAME: %{{.*}}: tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh3, [{}, {"x"}]>}) -> (tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh3, [{?}, {"x", ?}]>})
// CHECK: %{{.*}} = math.exp %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh3, [{?}, {"x", ?}]>]>} : tensor<4x8xf32>
func.func @single_factor_non_divisible(%arg0: tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh3, [{}, {"x"}]>}) -> tensor<4x8xf32> {
  %0 = math.exp %arg0 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----
spmd.mesh @mesh8 = <["x"=8, "y"=2]>

// Tests that an axis larger than its dim still propagates on a single
// factor.
// CHECK-LABEL: func.func @single_factor_larger_axis(
// CHECK-SAME: %{{.*}}: tensor<2x4xf32> {spmd.sharding = #spmd.sharding<@mesh8, [{"x"}, {}]>}) -> (tensor<2x4xf32> {spmd.sharding = #spmd.sharding<@mesh8, [{"x", ?}, {?}]>})
// CHECK: %{{.*}} = math.exp %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh8, [{"x", ?}, {?}]>]>} : tensor<2x4xf32>
func.func @single_factor_larger_axis(%arg0: tensor<2x4xf32> {spmd.sharding = #spmd.sharding<@mesh8, [{"x"}, {}]>}) -> tensor<2x4xf32> {
  %0 = math.exp %arg0 : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----
spmd.mesh @mesh6 = <["x"=6]>

// Tests a split whose minor factor gets the part of the axis that the major
// factor cannot hold: 8 = 2 x 4 with x=6 gives "x":(1)2 on the major dim
// and "x":(2)3 (not dividing 4) on the minor one.
// CHECK-LABEL: func.func @split_minor_non_divisible(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh6, [{"x"}]>}) -> (tensor<2x4xf32> {spmd.sharding = #spmd.sharding<@mesh6, [{"x":(1)2, ?}, {"x":(2)3, ?}]>})
// CHECK: %{{.*}} = tensor.expand_shape %{{.*}} {{\[\[}}0, 1{{\]\]}} output_shape [2, 4] {spmd.sharding = #spmd.sharding_per_value<[<@mesh6, [{"x":(1)2, ?}, {"x":(2)3, ?}]>]>} : tensor<8xf32> into tensor<2x4xf32>
func.func @split_minor_non_divisible(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh6, [{"x"}]>}) -> tensor<2x4xf32> {
  %0 = tensor.expand_shape %arg0 [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----
spmd.mesh @mesh3 = <["x"=3]>

// Tests a split whose major factor is not divided by the axis at all: the
// axis is overflow and nothing propagates.
// CHECK-LABEL: func.func @split_major_non_divisible(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh3, [{"x"}]>}) -> tensor<2x4xf32>
func.func @split_major_non_divisible(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh3, [{"x"}]>}) -> tensor<2x4xf32> {
  %0 = tensor.expand_shape %arg0 [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----
spmd.mesh @mesh = <["x"=16, "y"=2]>

// Tests a split where the axis overflows the whole dim: the major factor
// takes "x":(1)2, the minor one the rest.
// CHECK-LABEL: func.func @split_axis_overflows(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> (tensor<2x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x":(1)2, ?}, {"x":(2)8, ?}]>})
// CHECK: %{{.*}} = tensor.expand_shape %{{.*}} {{\[\[}}0, 1{{\]\]}} output_shape [2, 4] {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x":(1)2, ?}, {"x":(2)8, ?}]>]>} : tensor<8xf32> into tensor<2x4xf32>
func.func @split_axis_overflows(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<2x4xf32> {
  %0 = tensor.expand_shape %arg0 [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=3]>

// Tests a merge whose minor factor is not divided: the major factor's axis
// and then the minor one's.
// CHECK-LABEL: func.func @merge_minor_non_divisible(
// CHECK-SAME: %{{.*}}: tensor<2x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y", ?}]>})
// CHECK: %{{.*}} = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1{{\]\]}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x", "y", ?}]>]>} : tensor<2x4xf32> into tensor<8xf32>
func.func @merge_minor_non_divisible(%arg0: tensor<2x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<8xf32> {
  %0 = tensor.collapse_shape %arg0 [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----
spmd.mesh @mesh3 = <["x"=3]>

// Tests a merge whose major factor is not divided: nothing propagates.
// CHECK-LABEL: func.func @merge_major_non_divisible(
// CHECK-SAME: %{{.*}}: tensor<2x4xf32> {spmd.sharding = #spmd.sharding<@mesh3, [{"x"}, {}]>}) -> tensor<8xf32>
func.func @merge_major_non_divisible(%arg0: tensor<2x4xf32> {spmd.sharding = #spmd.sharding<@mesh3, [{"x"}, {}]>}) -> tensor<8xf32> {
  %0 = tensor.collapse_shape %arg0 [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

// Tests a merge where two axes fit the major factor only in part: the
// major dim's ["b", "a"] on size 4 propagates "b" and "a":(1)2.
// CHECK-LABEL: func.func @merge_major_sub_axis(
// CHECK-SAME: %{{.*}}: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", "a"}, {}]>}) -> (tensor<16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", "a":(1)2, ?}]>})
// CHECK: %{{.*}} = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1{{\]\]}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", "a":(1)2, ?}]>]>} : tensor<4x4xf32> into tensor<16xf32>
func.func @merge_major_sub_axis(%arg0: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", "a"}, {}]>}) -> tensor<16xf32> {
  %0 = tensor.collapse_shape %arg0 [[0, 1]] : tensor<4x4xf32> into tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----
spmd.mesh @mesh = <["a"=4, "b"=2]>

// Tests that a full axis reaches a dim that only takes part of it through a
// reshape, and the sub-axis comes back as the full axis.
// CHECK-LABEL: func.func @full_to_sub_axis_and_back(
// CHECK-SAME: %{{.*}}: tensor<32x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {}]>}) -> (tensor<32x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {?}]>})
// CHECK: %{{.*}} = tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2{{\]\]}} output_shape [2, 16, 8] {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a":(1)2, ?}, {"a":(2)2, ?}, {?}]>]>} : tensor<32x8xf32> into tensor<2x16x8xf32>
// CHECK: %{{.*}} = math.exp %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a":(1)2, ?}, {"a":(2)2, ?}, {?}]>]>} : tensor<2x16x8xf32>
// CHECK: %{{.*}} = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2{{\]\]}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {?}]>]>} : tensor<2x16x8xf32> into tensor<32x8xf32>
func.func @full_to_sub_axis_and_back(%arg0: tensor<32x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {}]>}) -> tensor<32x8xf32> {
  %0 = tensor.expand_shape %arg0 [[0, 1], [2]] output_shape [2, 16, 8] : tensor<32x8xf32> into tensor<2x16x8xf32>
  %1 = math.exp %0 : tensor<2x16x8xf32>
  %2 = tensor.collapse_shape %1 [[0, 1], [2]] : tensor<2x16x8xf32> into tensor<32x8xf32>
  return %2 : tensor<32x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=4, "b"=2]>

// Tests that size-1 dims created by a reshape take nothing and the axis
// lands on the one dim of size 8.
// CHECK-LABEL: func.func @size_one_axis_and_reshape(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}]>}) -> (tensor<1x8x1xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"b", ?}, {?}]>})
// CHECK: %{{.*}} = tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2{{\]\]}} output_shape [1, 8, 1] {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{?}, {"b", ?}, {?}]>]>} : tensor<8xf32> into tensor<1x8x1xf32>
func.func @size_one_axis_and_reshape(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}]>}) -> tensor<1x8x1xf32> {
  %0 = tensor.expand_shape %arg0 [[0, 1, 2]] output_shape [1, 8, 1] : tensor<8xf32> into tensor<1x8x1xf32>
  return %0 : tensor<1x8x1xf32>
}
