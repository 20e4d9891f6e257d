// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// Tests that comm.permute reports every verifier error and parse error it can.

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a repeated sub-axis is rejected.
func.func @duplicate_sub_axis(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'comm.permute' op duplicate axis ref: "y":(1)2}}
  %0 = comm.permute %x over @mesh {"y":(1)2, "y":(1)2} pairs [] : tensor<8xf32>
  return %0 : tensor<8xf32>
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

// Tests that permute needs at least one axis.
func.func @empty_axes_permute(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'comm.permute' op expected a non-empty list of mesh axes}}
  %0 = comm.permute %x over @mesh {} pairs [0 -> 0] : tensor<4xf32>
  return %0 : tensor<4xf32>
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

// Tests that permute keeps the operand type (generic form).
func.func @permute_type(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'comm.permute' op failed to verify that all of {operand, result} have same type}}
  %0 = "comm.permute"(%x) <{axes = #spmd.axis_ref_list<{"x"}>, mesh = @mesh, sources = array<i64: 0>, targets = array<i64: 1>}> : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that pairs are written source -> target.
func.func @bad_pairs(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expected '->'}}
  %0 = comm.permute %x over @mesh {"x"} pairs [0, 1] : tensor<4xf32>
  return %0 : tensor<4xf32>
}
