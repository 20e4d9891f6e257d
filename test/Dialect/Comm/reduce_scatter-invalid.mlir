// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// Tests that comm.reduce_scatter reports every verifier error and parse error it can.

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a repeated axis is rejected.
func.func @duplicate_axis(%x: tensor<8xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'comm.reduce_scatter' op duplicate axis ref: "x"}}
  %0 = comm.reduce_scatter sum %x over @mesh {"x", "x"} dim 0 : tensor<8xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that reduce_scatter needs at least one axis.
func.func @empty_axes_reduce_scatter(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'comm.reduce_scatter' op expected a non-empty list of mesh axes}}
  %0 = comm.reduce_scatter sum %x over @mesh {} dim 0 : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that reduce_scatter checks the element type of its reduction.
func.func @reduce_scatter_i1(%x: tensor<4xi1>) -> tensor<2xi1> {
  // expected-error @+1 {{'comm.reduce_scatter' op 'sum' reduction of i1 elements is not supported (JAX's psum counts booleans: extend them to a wider integer type first)}}
  %0 = comm.reduce_scatter sum %x over @mesh {"x"} dim 0 : tensor<4xi1> -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that reduce_scatter max rejects complex numbers.
func.func @reduce_scatter_max_complex(%x: tensor<4xcomplex<f64>>) -> tensor<2xcomplex<f64>> {
  // expected-error @+1 {{'comm.reduce_scatter' op 'max' reduction is not supported for element type 'complex<f64>'}}
  %0 = comm.reduce_scatter max %x over @mesh {"x"} dim 0 : tensor<4xcomplex<f64>> -> tensor<2xcomplex<f64>>
  return %0 : tensor<2xcomplex<f64>>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that the scattered dim must be divisible by the group size.
func.func @reduce_scatter_not_divisible(%x: tensor<6x8xf32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{'comm.reduce_scatter' op operand scatter dim 0 of size 6 is not divisible by the group size 4}}
  %0 = comm.reduce_scatter sum %x over @mesh {"y"} dim 0 : tensor<6x8xf32> -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that the scattered dim is the operand's divided by the group size.
func.func @reduce_scatter_wrong_size(%x: tensor<8x8xf32>) -> tensor<3x8xf32> {
  // expected-error @+1 {{'comm.reduce_scatter' op result dim 0 has size 3, expected 2 (operand size 8 / group size 4)}}
  %0 = comm.reduce_scatter sum %x over @mesh {"y"} dim 0 : tensor<8x8xf32> -> tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that reduce_scatter keeps the other dims.
func.func @reduce_scatter_other_dim(%x: tensor<8x8xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{'comm.reduce_scatter' op result dim 1 has size 2, expected 8 (the operand's size)}}
  %0 = comm.reduce_scatter max %x over @mesh {"x"} dim 0 : tensor<8x8xf32> -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that the scatter dim must be a dimension of the operand.
func.func @reduce_scatter_dim(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'comm.reduce_scatter' op scatter dim 1 is out of range for rank 1}}
  %0 = comm.reduce_scatter sum %x over @mesh {"x"} dim 1 : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that reduce_scatter keeps the rank.
func.func @reduce_scatter_rank(%x: tensor<8xf32>) -> tensor<4x1xf32> {
  // expected-error @+1 {{'comm.reduce_scatter' op expected operand and result of the same rank, got 1 and 2}}
  %0 = comm.reduce_scatter sum %x over @mesh {"x"} dim 0 : tensor<8xf32> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}
