// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// Tests that comm.all_to_all reports every verifier error and parse error it can.

spmd.mesh @mesh = <["x"=2, "y"=8]>

// Tests that overlapping sub-axes are rejected.
func.func @overlapping_sub_axes(%x: tensor<16x4xf32>) -> tensor<2x32xf32> {
  // expected-error @+1 {{'comm.all_to_all' op overlapping sub-axes: "y":(1)4, "y":(2)2}}
  %0 = comm.all_to_all %x over @mesh {"y":(1)4, "y":(2)2} split 0 concat 1 : tensor<16x4xf32> -> tensor<2x32xf32>
  return %0 : tensor<2x32xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that all_to_all needs at least one axis.
func.func @empty_axes_all_to_all(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'comm.all_to_all' op expected a non-empty list of mesh axes}}
  %0 = comm.all_to_all %x over @mesh {} split 0 concat 0 : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that the split dim must be divisible by the group size.
func.func @all_to_all_not_divisible(%x: tensor<6x4xf32>) -> tensor<1x16xf32> {
  // expected-error @+1 {{'comm.all_to_all' op operand split dim 0 of size 6 is not divisible by the group size 4}}
  %0 = comm.all_to_all %x over @mesh {"y"} split 0 concat 1 : tensor<6x4xf32> -> tensor<1x16xf32>
  return %0 : tensor<1x16xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that the split dim of the result is divided by the group size.
func.func @all_to_all_wrong_split(%x: tensor<8x4xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'comm.all_to_all' op result dim 0 has size 8, expected 4 (operand size 8 / group size 2)}}
  %0 = comm.all_to_all %x over @mesh {"x"} split 0 concat 1 : tensor<8x4xf32> -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that the concat dim of the result is multiplied by the group size.
func.func @all_to_all_wrong_concat(%x: tensor<8x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'comm.all_to_all' op result dim 1 has size 4, expected 8 (operand size 4 * group size 2)}}
  %0 = comm.all_to_all %x over @mesh {"x"} split 0 concat 1 : tensor<8x4xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that with a dynamic operand, a static concat dim is a multiple of the group size.
func.func @all_to_all_concat_not_multiple(%x: tensor<8x?xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'comm.all_to_all' op result dim 1 has size 6, which is not a multiple of the group size 4}}
  %0 = comm.all_to_all %x over @mesh {"y"} split 0 concat 1 : tensor<8x?xf32> -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that split == concat keeps the shape.
func.func @all_to_all_same_dim(%x: tensor<8x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'comm.all_to_all' op result dim 0 has size 4, expected 8 (the operand's size)}}
  %0 = comm.all_to_all %x over @mesh {"x"} split 0 concat 0 : tensor<8x4xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that all_to_all keeps the other dims.
func.func @all_to_all_other_dim(%x: tensor<8x4x3xf32>) -> tensor<4x8x5xf32> {
  // expected-error @+1 {{'comm.all_to_all' op result dim 2 has size 5, expected 3 (the operand's size)}}
  %0 = comm.all_to_all %x over @mesh {"x"} split 0 concat 1 : tensor<8x4x3xf32> -> tensor<4x8x5xf32>
  return %0 : tensor<4x8x5xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that the split dim must be a dimension of the operand.
func.func @all_to_all_split_range(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'comm.all_to_all' op split dim 2 is out of range for rank 2}}
  %0 = comm.all_to_all %x over @mesh {"x"} split 2 concat 1 : tensor<8x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that the concat dim must be a dimension of the operand.
func.func @all_to_all_concat_range(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'comm.all_to_all' op concat dim -1 is out of range for rank 2}}
  %0 = comm.all_to_all %x over @mesh {"x"} split 0 concat -1 : tensor<8x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that all_to_all keeps the element type.
func.func @all_to_all_element_type(%x: tensor<8x4xf32>) -> tensor<4x8xi32> {
  // expected-error @+1 {{'comm.all_to_all' op expected operand and result of the same element type, got 'f32' and 'i32'}}
  %0 = comm.all_to_all %x over @mesh {"x"} split 0 concat 1 : tensor<8x4xf32> -> tensor<4x8xi32>
  return %0 : tensor<4x8xi32>
}
