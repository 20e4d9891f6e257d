// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// Tests that comm.axis_size reports every verifier error and parse error it can.

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a symbol that is not an spmd.mesh is rejected.
func.func @not_a_mesh() -> index {
  // expected-error @+1 {{'comm.axis_size' op unknown mesh: @not_a_mesh}}
  %0 = comm.axis_size over @not_a_mesh {} : index
  return %0 : index
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that consecutive sub-axes that can be merged are rejected: in the
// comm notation "y":(2)2 is the major half of "y" (after the minor part of
// size 2) and "y":(1)2 the minor half, so major then minor is "y".
func.func @mergeable_sub_axes() -> index {
  // expected-error @+1 {{'comm.axis_size' op two consecutive sub-axes can be merged: "y":(2)2, "y":(1)2}}
  %0 = comm.axis_size over @mesh {"y":(2)2, "y":(1)2} : index
  return %0 : index
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

// Tests that the mesh attribute is required (generic form).
func.func @missing_mesh() -> index {
  // expected-error @+1 {{'comm.axis_size' op requires attribute 'mesh'}}
  %0 = "comm.axis_size"() <{axes = #spmd.axis_ref_list<{"x"}>}> : () -> index
  return %0 : index
}
