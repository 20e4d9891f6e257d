// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// Tests that kernel.program_id and kernel.num_programs report every verifier
// error.

// Tests that grid axes are non-negative.
func.func @negative_axis() {
  // expected-error @+1 {{'kernel.program_id' op attribute 'axis' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = kernel.program_id -1
  return
}

// -----

// Tests the same for num_programs.
func.func @negative_axis_num_programs() {
  // expected-error @+1 {{'kernel.num_programs' op attribute 'axis' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = kernel.num_programs -2
  return
}
