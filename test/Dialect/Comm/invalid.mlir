// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// Tests every verifier rule and parse error of the comm ops.

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that an unknown mesh symbol is rejected.
func.func @unknown_mesh(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'comm.all_reduce' op unknown mesh: @other}}
  %0 = comm.all_reduce sum %x over @other {"x"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a symbol that is not an spmd.mesh is rejected.
func.func @not_a_mesh() -> index {
  // expected-error @+1 {{'comm.axis_size' op unknown mesh: @not_a_mesh}}
  %0 = comm.axis_size over @not_a_mesh {} : index
  return %0 : index
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that an axis that is not in the mesh is rejected.
func.func @unknown_axis(%x: tensor<4x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'comm.all_gather' op unknown axis name: "w"}}
  %0 = comm.all_gather %x over @mesh {"w"} dim 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a repeated axis is rejected.
func.func @duplicate_axis(%x: tensor<8xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'comm.reduce_scatter' op duplicate axis ref: "x"}}
  %0 = comm.reduce_scatter sum %x over @mesh {"x", "x"} dim 0 : tensor<8xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a repeated sub-axis is rejected.
func.func @duplicate_sub_axis(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'comm.permute' op duplicate axis ref: "y":(1)2}}
  %0 = comm.permute %x over @mesh {"y":(1)2, "y":(1)2} pairs [] : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=8]>

// Tests that overlapping sub-axes are rejected.
func.func @overlapping_sub_axes(%x: tensor<16x4xf32>) -> tensor<2x32xf32> {
  // expected-error @+1 {{'comm.all_to_all' op overlapping sub-axes: "y":(1)4, "y":(2)2}}
  %0 = comm.all_to_all %x over @mesh {"y":(1)4, "y":(2)2} split 0 concat 1 : tensor<16x4xf32> -> tensor<2x32xf32>
  return %0 : tensor<2x32xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a sub-axis next to its full axis is rejected.
func.func @sub_and_full_axis() -> index {
  // expected-error @+1 {{'comm.axis_index' op both sub-axis and full-axis are used for axis name: "y"}}
  %0 = comm.axis_index over @mesh {"y", "y":(1)2} : index
  return %0 : index
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that consecutive sub-axes that can be merged are rejected.
func.func @mergeable_sub_axes() -> index {
  // expected-error @+1 {{'comm.axis_size' op two consecutive sub-axes can be merged: "y":(1)2, "y":(2)2}}
  %0 = comm.axis_size over @mesh {"y":(1)2, "y":(2)2} : index
  return %0 : index
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a sub-axis pre-size below 1 is rejected.
func.func @sub_axis_pre_size(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'comm.all_reduce' op sub-axis pre-size must be at least 1: "y":(0)2}}
  %0 = comm.all_reduce sum %x over @mesh {"y":(0)2} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a sub-axis of size 1 is rejected.
func.func @sub_axis_size_one(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'comm.all_reduce' op sub-axis sizes must be greater than 1: "y":(1)1}}
  %0 = comm.all_reduce sum %x over @mesh {"y":(1)1} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a sub-axis that does not divide its axis is rejected.
func.func @sub_axis_not_dividing(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'comm.all_reduce' op sub-axis next pre-size 6 doesn't divide the size of the full axis 4: "y":(2)3}}
  %0 = comm.all_reduce sum %x over @mesh {"y":(2)3} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a sub-axis as large as its axis is rejected.
func.func @sub_axis_full_size(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'comm.all_reduce' op sub-axis size is equal to the full axis size: "y":(1)4}}
  %0 = comm.all_reduce sum %x over @mesh {"y":(1)4} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a collective inside a manual computation can only use its manual axes.
func.func @unbound_axis(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-note @+1 {{enclosing manual computation binds these axes}}
  %0 = spmd.manual_computation(%x) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%l: tensor<4xf32>) {
    // expected-error @+1 {{'comm.all_reduce' op unbound axis name: y. The following axis names (e.g. defined by pmap) are available to collective operations: ['x']}}
    %1 = comm.all_reduce sum %l over @mesh {"x", "y"} : tensor<4xf32>
    spmd.return %1 : tensor<4xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=2]>

// Tests that the axes bound by every enclosing manual computation are available, in mesh order.
func.func @unbound_axis_nested(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = spmd.manual_computation(%x) in_shardings=[<@mesh, [{}, {"y"}]>] out_shardings=[<@mesh, [{}, {"y"}]>] manual_axes={"y"} (%l: tensor<8x2xf32>) {
    // expected-note @+1 {{enclosing manual computation binds these axes}}
    %1 = spmd.manual_computation(%l) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%m: tensor<4x2xf32>) {
      // expected-error @+1 {{'comm.axis_index' op unbound axis name: z. The following axis names (e.g. defined by pmap) are available to collective operations: ['x', 'y']}}
      %i = comm.axis_index over @mesh {"x", "z"} : index
      spmd.return %m : tensor<4x2xf32>
    } : (tensor<8x2xf32>) -> tensor<8x2xf32>
    spmd.return %1 : tensor<8x2xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a sub-axis of an unbound axis is unbound.
func.func @unbound_sub_axis(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-note @+1 {{enclosing manual computation binds these axes}}
  %0 = spmd.manual_computation(%x) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%l: tensor<4xf32>) {
    // expected-error @+1 {{'comm.permute' op unbound axis name: y. The following axis names (e.g. defined by pmap) are available to collective operations: ['x']}}
    %1 = comm.permute %l over @mesh {"y":(1)2} pairs [0 -> 1, 1 -> 0] : tensor<4xf32>
    spmd.return %1 : tensor<4xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
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

// Tests that reduce_scatter needs at least one axis.
func.func @empty_axes_reduce_scatter(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'comm.reduce_scatter' op expected a non-empty list of mesh axes}}
  %0 = comm.reduce_scatter sum %x over @mesh {} dim 0 : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
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

// Tests that permute needs at least one axis.
func.func @empty_axes_permute(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'comm.permute' op expected a non-empty list of mesh axes}}
  %0 = comm.permute %x over @mesh {} pairs [0 -> 0] : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that 'sum' cannot reduce i1.
func.func @sum_i1(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'comm.all_reduce' op 'sum' reduction of i1 elements is not supported (JAX's psum counts booleans: extend them to a wider integer type first)}}
  %0 = comm.all_reduce sum %x over @mesh {"x"} : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that 'prod' cannot reduce i1.
func.func @prod_i1(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'comm.all_reduce' op 'prod' reduction of i1 elements is not supported (JAX's psum counts booleans: extend them to a wider integer type first)}}
  %0 = comm.all_reduce prod %x over @mesh {"x"} : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that 'max' cannot reduce complex numbers.
func.func @max_complex(%x: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // expected-error @+1 {{'comm.all_reduce' op 'max' reduction is not supported for element type 'complex<f32>'}}
  %0 = comm.all_reduce max %x over @mesh {"x"} : tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that 'min' cannot reduce complex numbers.
func.func @min_complex(%x: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // expected-error @+1 {{'comm.all_reduce' op 'min' reduction is not supported for element type 'complex<f32>'}}
  %0 = comm.all_reduce min %x over @mesh {"x"} : tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a reduction of vector elements is rejected.
func.func @sum_vector(%x: tensor<4xvector<2xf32>>) -> tensor<4xvector<2xf32>> {
  // expected-error @+1 {{'comm.all_reduce' op 'sum' reduction is not supported for element type 'vector<2xf32>'}}
  %0 = comm.all_reduce sum %x over @mesh {"x"} : tensor<4xvector<2xf32>>
  return %0 : tensor<4xvector<2xf32>>
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

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a device cannot be a source twice.
func.func @permute_duplicate_source(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'comm.permute' op sources and destinations must be unique, got [0 -> 1, 0 -> 2]}}
  %0 = comm.permute %x over @mesh {"y"} pairs [0 -> 1, 0 -> 2] : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a device cannot be a target twice.
func.func @permute_duplicate_target(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'comm.permute' op sources and destinations must be unique, got [0 -> 3, 1 -> 3]}}
  %0 = comm.permute %x over @mesh {"y"} pairs [0 -> 3, 1 -> 3] : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a source must be in the group.
func.func @permute_source_range(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'comm.permute' op source 2 of pair 1 is out of range [0, 2) for a group of 2 devices}}
  %0 = comm.permute %x over @mesh {"x"} pairs [0 -> 1, 2 -> 0] : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a negative target is rejected.
func.func @permute_target_negative(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'comm.permute' op target -1 of pair 0 is out of range [0, 8) for a group of 8 devices}}
  %0 = comm.permute %x over @mesh {"x", "y"} pairs [7 -> -1] : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that sources and targets pair up (generic form).
func.func @permute_unpaired(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'comm.permute' op expected as many sources as targets, got 2 and 1}}
  %0 = "comm.permute"(%x) <{axes = #spmd.axis_ref_list<{"x"}>, mesh = @mesh, sources = array<i64: 0, 1>, targets = array<i64: 1>}> : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that all_reduce keeps the operand type (generic form).
func.func @all_reduce_type(%x: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'comm.all_reduce' op failed to verify that all of {operand, result} have same type}}
  %0 = "comm.all_reduce"(%x) <{axes = #spmd.axis_ref_list<{"x"}>, kind = #comm.reduction<sum>, mesh = @mesh}> : (tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that permute keeps the operand type (generic form).
func.func @permute_type(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'comm.permute' op failed to verify that all of {operand, result} have same type}}
  %0 = "comm.permute"(%x) <{axes = #spmd.axis_ref_list<{"x"}>, mesh = @mesh, sources = array<i64: 0>, targets = array<i64: 1>}> : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that axis_index returns index, i32 or i64.
func.func @axis_index_type() -> f32 {
  // expected-error @+1 {{'comm.axis_index' op result #0 must be index or 32-bit signless integer or 64-bit signless integer, but got 'f32'}}
  %0 = comm.axis_index over @mesh {"x"} : f32
  return %0 : f32
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that axis_size returns index, i32 or i64.
func.func @axis_size_type() -> i16 {
  // expected-error @+1 {{'comm.axis_size' op result #0 must be index or 32-bit signless integer or 64-bit signless integer, but got 'i16'}}
  %0 = comm.axis_size over @mesh {"x"} : i16
  return %0 : i16
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that collectives take ranked tensors (generic form).
func.func @unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'comm.all_reduce' op operand #0 must be ranked tensor of any type values, but got 'tensor<*xf32>'}}
  %0 = "comm.all_reduce"(%x) <{axes = #spmd.axis_ref_list<{"x"}>, kind = #comm.reduction<sum>, mesh = @mesh}> : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that the custom syntax only parses ranked tensor types.
func.func @unranked_custom(%x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = comm.all_reduce sum %x over @mesh {"x"} : tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that the mesh attribute is required (generic form).
func.func @missing_mesh() -> index {
  // expected-error @+1 {{'comm.axis_size' op requires attribute 'mesh'}}
  %0 = "comm.axis_size"() <{axes = #spmd.axis_ref_list<{"x"}>}> : () -> index
  return %0 : index
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that the mesh is named by a flat symbol.
func.func @nested_mesh_symbol(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{invalid kind of attribute specified}}
  %0 = comm.all_reduce sum %x over @module::@mesh {"x"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that an unknown reduction kind is a parse error.
func.func @unknown_kind(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unknown reduction kind 'avg', expected sum, prod, max or min}}
  %0 = comm.all_reduce avg %x over @mesh {"x"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that the reduction kind is required.
func.func @missing_kind(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expected a reduction kind: sum, prod, max or min}}
  %0 = comm.all_reduce %x over @mesh {"x"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that pairs are written source -> target.
func.func @bad_pairs(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expected '->'}}
  %0 = comm.permute %x over @mesh {"x"} pairs [0, 1] : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that axis names are quoted.
func.func @unquoted_axis(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+3 {{failed to parse axis list which is expected to be an `ArrayRef<AxisRefAttr>`}}
  // expected-error @+2 {{failed to parse Spmd_AxisRef parameter 'name' which is to be a `::llvm::StringRef`}}
  // expected-error @+1 {{expected string}}
  %0 = comm.all_reduce sum %x over @mesh {x} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that the generic form checks the reduction attribute syntax.
func.func @bad_reduction_attr(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{expected ::mlir::tessera::comm::ReductionKind to be one of: sum, prod, max, min}}
  // expected-error @+1 {{failed to parse Comm_ReductionKindAttr parameter 'value' which is to be a `::mlir::tessera::comm::ReductionKind`}}
  %0 = "comm.all_reduce"(%x) <{axes = #spmd.axis_ref_list<{"x"}>, kind = #comm.reduction<avg>, mesh = @mesh}> : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
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
