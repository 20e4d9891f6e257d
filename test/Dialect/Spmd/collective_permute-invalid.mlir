// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// Tests that every verifier rule of spmd.collective_permute is reported.

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @operand_without_sharding(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.collective_permute' op collective on operand without sharding}}
  %0 = spmd.collective_permute %arg0 out_sharding=<@mesh, [{"y"}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh1 = <["x"=2, "y"=2]>
spmd.mesh @mesh2 = <["a"=2, "b"=4]>

// expected-note @+1 {{operand mesh: #spmd.mesh<["a"=2, "b"=4]>}}
func.func @different_device_counts(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh2, [{"a"}, {"b"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.collective_permute' op result mesh has a different number of devices than operand mesh: 4 != 8}}
  %0 = spmd.collective_permute %arg0 out_sharding=<@mesh1, [{"x"}, {"y"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4]>
spmd.mesh @flat = <["z"=8]>

// Tests that a permute to a mesh of other axes keeps each dimension's
// number of parts.
func.func @other_axes_parts(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.collective_permute' op sharded size of result doesn't match operand on dimension 0: 8 != 2}}
  %0 = spmd.collective_permute %arg0 out_sharding=<@flat, [{"z"}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4]>
spmd.mesh @flat = <["z"=8]>

// Tests that partial sums stay partial over the same devices: "y" of the
// 2x4 mesh is "z":(2)4 of its 1-D view, not "z":(1)4.
func.func @other_axes_unreduced(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}], unreduced={"y"}>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.collective_permute' op result unreduced axes ["z":(1)4] are not the operand's unreduced axes ["y"] on the result mesh}}
  %0 = spmd.collective_permute %arg0 out_sharding=<@flat, [{"z":(4)2}, {}], unreduced={"z":(1)4}> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh1 = <["x"=2, "y"=2]>
spmd.mesh @mesh2 = <["x"=2, "y"=2]>

// expected-note @+1 {{operand mesh: #spmd.mesh<["x"=2, "y"=2]>}}
func.func @different_name_same_device_ids(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh2, [{"x"}, {"y"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.collective_permute' op result mesh name is different but same device ids as operand}}
  %0 = spmd.collective_permute %arg0 out_sharding=<@mesh1, [{"y"}, {"x"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @invalid_out_sharding(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.collective_permute' op duplicate axis ref: "x"}}
  %0 = spmd.collective_permute %arg0 out_sharding=<@mesh, [{"y", "x"}, {"x"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2, "w"=4]>

func.func @dim_sharded_size_mismatch(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {"z"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.collective_permute' op sharded size of result doesn't match operand on dimension 1: 4 != 2}}
  %0 = spmd.collective_permute %arg0 out_sharding=<@mesh, [{"y", "x"}, {"w"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2, "z"=4, "w"=4]>

func.func @dim_sharded_size_mismatch_sub_axes(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"z":(1)2, "w"}, {"x", "y"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.collective_permute' op sharded size of result doesn't match operand on dimension 0: 4 != 8}}
  %0 = spmd.collective_permute %arg0 out_sharding=<@mesh, [{"w":(2)2, "z":(1)2}, {"y", "x"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=2]>

func.func @sharded_size_mismatch_across_dims(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {"z"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.collective_permute' op sharded size of result doesn't match operand on dimension 0: 2 != 8}}
  %0 = spmd.collective_permute %arg0 out_sharding=<@mesh, [{"x"}, {"y", "z"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>
spmd.mesh @maximal = <[], device_ids=[0]>

func.func @rank_mismatch(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@maximal, []>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.collective_permute' op result sharding has rank 2 but operand sharding has rank 0}}
  %0 = spmd.collective_permute %arg0 out_sharding=<@mesh, [{"x"}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2]>

func.func @drops_unreduced(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}], unreduced={"z"}>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.collective_permute' op dropped unreduced axis 'z' without a blessed operation (e.g., spmd.reshard). This is an invalid transition from unreduced to reduced.}}
  %0 = spmd.collective_permute %arg0 out_sharding=<@mesh, [{"y"}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Mesh-dependent checks run in program order (with the module's symbol
// tables), so the producer's bad sharding is reported at the producer, and
// the permute, which reads it, is never checked against it.
func.func @operand_sharding_with_unknown_axis(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.manual_computation' op result - unknown axis name: "q"}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{}, {}]>] out_shardings=[<@mesh, [{"q"}, {}]>] manual_axes={} (%arg1: tensor<16x8xf32>) {
    spmd.return %arg1 : tensor<16x8xf32>
  } : (tensor<16x8xf32>) -> tensor<16x8xf32>
  %1 = spmd.collective_permute %0 out_sharding=<@mesh, [{"x"}, {}]> : tensor<16x8xf32>
  return %1 : tensor<16x8xf32>
}
