// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// Tests that comm.axis_index reports every verifier error and parse error it can.

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a sub-axis next to its full axis is rejected.
func.func @sub_and_full_axis() -> index {
  // expected-error @+1 {{'comm.axis_index' op both sub-axis and full-axis are used for axis name: "y"}}
  %0 = comm.axis_index over @mesh {"y", "y":(1)2} : index
  return %0 : index
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

// Tests that axis_index returns index, i32 or i64.
func.func @axis_index_type() -> f32 {
  // expected-error @+1 {{'comm.axis_index' op result #0 must be index or 32-bit signless integer or 64-bit signless integer, but got 'f32'}}
  %0 = comm.axis_index over @mesh {"x"} : f32
  return %0 : f32
}
