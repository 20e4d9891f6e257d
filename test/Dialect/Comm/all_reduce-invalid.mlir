// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// Tests that comm.all_reduce reports every verifier error and parse error it can.

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that an unknown mesh symbol is rejected.
func.func @unknown_mesh(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'comm.all_reduce' op unknown mesh: @other}}
  %0 = comm.all_reduce sum %x over @other {"x"} : tensor<4xf32>
  return %0 : tensor<4xf32>
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

// Tests that all_reduce keeps the operand type (generic form).
func.func @all_reduce_type(%x: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'comm.all_reduce' op failed to verify that all of {operand, result} have same type}}
  %0 = "comm.all_reduce"(%x) <{axes = #spmd.axis_ref_list<{"x"}>, kind = #comm.reduction<sum>, mesh = @mesh}> : (tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
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
