// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// Tests that comm.all_gather reports every verifier error and parse error it can.

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that an axis that is not in the mesh is rejected.
func.func @unknown_axis(%x: tensor<4x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'comm.all_gather' op unknown axis name: "w"}}
  %0 = comm.all_gather %x over @mesh {"w"} dim 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that any op that binds manual axes restricts the collectives inside it.
func.func @unbound_axis_generic_binder(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @+1 {{enclosing manual computation binds these axes}}
  %0 = scf.execute_region -> tensor<4xf32> {
    // expected-error @+1 {{'comm.all_gather' op unbound axis name: x. The following axis names (e.g. defined by pmap) are available to collective operations: ['y']}}
    %1 = comm.all_gather %x over @mesh {"x"} dim 0 : tensor<4xf32> -> tensor<8xf32>
    %2 = tensor.extract_slice %1[0] [4] [1] : tensor<8xf32> to tensor<4xf32>
    scf.yield %2 : tensor<4xf32>
  } {manual_axes = #spmd.manual_axes<{"y"}>}
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that all_gather needs at least one axis.
func.func @empty_axes_all_gather(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'comm.all_gather' op expected a non-empty list of mesh axes}}
  %0 = comm.all_gather %x over @mesh {} dim 0 : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that all_gather keeps the rank.
func.func @all_gather_rank(%x: tensor<4x8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'comm.all_gather' op expected operand and result of the same rank, got 2 and 1}}
  %0 = comm.all_gather %x over @mesh {"x"} dim 0 : tensor<4x8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that all_gather keeps the element type.
func.func @all_gather_element_type(%x: tensor<4x8xf32>) -> tensor<8x8xf16> {
  // expected-error @+1 {{'comm.all_gather' op expected operand and result of the same element type, got 'f32' and 'f16'}}
  %0 = comm.all_gather %x over @mesh {"x"} dim 0 : tensor<4x8xf32> -> tensor<8x8xf16>
  return %0 : tensor<8x8xf16>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that the gather dim must be a dimension of the operand.
func.func @all_gather_dim_too_large(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'comm.all_gather' op gather dim 2 is out of range for rank 2}}
  %0 = comm.all_gather %x over @mesh {"x"} dim 2 : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a negative gather dim is rejected.
func.func @all_gather_dim_negative(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'comm.all_gather' op gather dim -1 is out of range for rank 2}}
  %0 = comm.all_gather %x over @mesh {"x"} dim -1 : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a scalar cannot be gathered.
func.func @all_gather_scalar(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'comm.all_gather' op gather dim 0 is out of range for rank 0}}
  %0 = comm.all_gather %x over @mesh {"x"} dim 0 : tensor<f32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that the gathered dim is the operand's times the group size.
func.func @all_gather_wrong_size(%x: tensor<4x8xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{'comm.all_gather' op result dim 1 has size 6, expected 64 (operand size 8 * group size 8)}}
  %0 = comm.all_gather %x over @mesh {"x", "y"} dim 1 : tensor<4x8xf32> -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a static gathered dim of a dynamic operand is a multiple of the group size.
func.func @all_gather_not_multiple(%x: tensor<?x8xf32>) -> tensor<7x8xf32> {
  // expected-error @+1 {{'comm.all_gather' op result dim 0 has size 7, which is not a multiple of the group size 2}}
  %0 = comm.all_gather %x over @mesh {"x"} dim 0 : tensor<?x8xf32> -> tensor<7x8xf32>
  return %0 : tensor<7x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that all_gather keeps the other dims.
func.func @all_gather_other_dim(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'comm.all_gather' op result dim 1 has size 4, expected 8 (the operand's size)}}
  %0 = comm.all_gather %x over @mesh {"x"} dim 0 : tensor<4x8xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a gathered size that overflows is rejected.
func.func @all_gather_overflow(%x: tensor<4611686018427387904xi8>) -> tensor<8xi8> {
  // expected-error @+1 {{'comm.all_gather' op result dim 0 has size 8, expected a size that overflows (operand size 4611686018427387904 * group size 2)}}
  %0 = comm.all_gather %x over @mesh {"x"} dim 0 : tensor<4611686018427387904xi8> -> tensor<8xi8>
  return %0 : tensor<8xi8>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a group whose sub-axis sizes multiply past int64 is rejected
// with the sub-axis rule, not an overflowing group size.
func.func @group_size_overflow(%x: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'comm.all_gather' op sub-axis next pre-size 4611686018427387904 doesn't divide the size of the full axis 2: "x":(1)4611686018427387904}}
  %0 = comm.all_gather %x over @mesh {"x":(1)4611686018427387904, "y":(1)4} dim 0 : tensor<4xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4]>

// Tests the valid size of a gather of padded blocks: positive, the result's
// size, at most what the blocks hold.
func.func @valid_not_positive(%x: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'comm.all_gather' op valid size must be positive, got 0}}
  %0 = comm.all_gather %x over @mesh {"x"} dim 0 valid 0 : tensor<4xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4]>

func.func @valid_not_result(%x: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'comm.all_gather' op result dim 0 has size 8, expected the valid size 7}}
  %0 = comm.all_gather %x over @mesh {"x"} dim 0 valid 7 : tensor<4xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4]>

func.func @valid_too_large(%x: tensor<4xf32>) -> tensor<9xf32> {
  // expected-error @+1 {{'comm.all_gather' op valid size 9 exceeds the 8 elements the group's blocks hold along dim 0}}
  %0 = comm.all_gather %x over @mesh {"x"} dim 0 valid 9 : tensor<4xf32> -> tensor<9xf32>
  return %0 : tensor<9xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4]>

func.func @valid_other_dim_changed(%x: tensor<4x3xf32>) -> tensor<7x4xf32> {
  // expected-error @+1 {{'comm.all_gather' op result dim 1 has size 4, expected 3 (the operand's size)}}
  %0 = comm.all_gather %x over @mesh {"x"} dim 0 valid 7 : tensor<4x3xf32> -> tensor<7x4xf32>
  return %0 : tensor<7x4xf32>
}
