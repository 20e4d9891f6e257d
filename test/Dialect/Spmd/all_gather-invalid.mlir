// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// Tests that every verifier rule of spmd.all_gather is reported, including the checks shared by all
// collectives (operand sharding, out_sharding, mesh, unreduced axes).

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @operand_without_sharding(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_gather' op collective on operand without sharding}}
  %0 = spmd.all_gather [{}, {"x"}] %arg0 out_sharding=<@mesh, [{"y"}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh1 = <["x"=2, "y"=2]>
spmd.mesh @mesh2 = <["a"=2, "b"=2]>

// expected-note @+1 {{operand mesh: #spmd.mesh<["a"=2, "b"=2]>}}
func.func @incompatible_meshes(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh2, [{"a"}, {"b"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_gather' op result mesh does not match operand mesh}}
  %0 = spmd.all_gather [{}, {"b"}] %arg0 out_sharding=<@mesh1, [{"y"}, {"x"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh1 = <["x"=2, "y"=2]>
spmd.mesh @mesh2 = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

// expected-note @+1 {{operand mesh: #spmd.mesh<["x"=2, "y"=2], axis_types=[explicit, explicit]>}}
func.func @meshes_with_different_axis_types(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh2, [{"x"}, {}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_gather' op result mesh does not match operand mesh}}
  %0 = spmd.all_gather [{"x"}, {}] %arg0 out_sharding=<@mesh1, [{}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @invalid_out_sharding(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_gather' op duplicate axis ref: "x"}}
  %0 = spmd.all_gather [{"y"}, {}] %arg0 out_sharding=<@mesh, [{}, {"x", "x"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @out_sharding_unknown_mesh(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_gather' op unknown mesh: @other}}
  %0 = spmd.all_gather [{"y"}, {}] %arg0 out_sharding=<@other, [{}, {"x"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @out_sharding_rank_mismatch(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_gather' op sharding doesn't match tensor rank: 1 != 2}}
  %0 = spmd.all_gather [{"y"}, {}] %arg0 out_sharding=<@mesh, [{}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=2]>

func.func @gathering_axes_can_be_merged(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_gather' op two consecutive sub-axes can be merged: "x":(1)2, "x":(2)2}}
  %0 = spmd.all_gather [{}, {"x":(1)2, "x":(2)2}] %arg0 out_sharding=<@mesh, [{"y"}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @duplicate_gathering_axes_across_dims(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_gather' op duplicate axis ref: "x"}}
  %0 = spmd.all_gather [{"y", "x"}, {"x"}] %arg0 out_sharding=<@mesh, [{}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @unknown_gathering_axis(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_gather' op unknown axis name: "z"}}
  %0 = spmd.all_gather [{"z"}, {}] %arg0 out_sharding=<@mesh, [{"y"}, {"x"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=8, "y"=2]>

func.func @invalid_gathering_sub_axis(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_gather' op sub-axis next pre-size 16 doesn't divide the size of the full axis 8: "x":(8)2}}
  %0 = spmd.all_gather [{}, {"x":(8)2}] %arg0 out_sharding=<@mesh, [{"y"}, {"x"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=8, "y"=2]>

func.func @overlapping_gathering_sub_axes(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x":(1)4}, {"x":(4)2}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_gather' op overlapping sub-axes: "x":(1)4, "x":(2)4}}
  %0 = spmd.all_gather [{"x":(1)4}, {"x":(2)4}] %arg0 out_sharding=<@mesh, [{}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @gathering_axes_rank_one(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_gather' op result sharding has rank 2 but collective axes has rank 1}}
  %0 = spmd.all_gather [{"y", "x"}] %arg0 out_sharding=<@mesh, [{}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @incompatible_gathering_axis(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_gather' op can't apply gathering axis "y" to operand sharding on dimension 1}}
  %0 = spmd.all_gather [{}, {"x", "y"}] %arg0 out_sharding=<@mesh, [{"y"}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @too_many_gathering_axes(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_gather' op can't apply gathering axis "x" to operand sharding on dimension 0}}
  %0 = spmd.all_gather [{"x", "y"}, {}] %arg0 out_sharding=<@mesh, [{}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=2]>

func.func @gathering_full_axis_from_sub_axis(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x":(1)2}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_gather' op can't apply gathering axis "x" to operand sharding on dimension 1}}
  %0 = spmd.all_gather [{}, {"x"}] %arg0 out_sharding=<@mesh, [{"y"}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=8, "y"=2]>

func.func @gathering_major_sub_axis(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_gather' op can't apply gathering axis "x":(2)2 to operand sharding on dimension 1}}
  %0 = spmd.all_gather [{}, {"x":(2)2}] %arg0 out_sharding=<@mesh, [{"y"}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @incompatible_result_sharding(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_gather' op result sharding doesn't match expected sharding [] on dimension 1}}
  %0 = spmd.all_gather [{}, {"x"}] %arg0 out_sharding=<@mesh, [{"y"}, {"x"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=8, "y"=2]>

func.func @incompatible_result_sharding_sub_axis(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_gather' op result sharding doesn't match expected sharding ["x":(1)2] on dimension 1}}
  %0 = spmd.all_gather [{}, {"x":(2)4}] %arg0 out_sharding=<@mesh, [{"y"}, {"x":(1)4}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2]>

func.func @drops_unreduced_axes(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}], unreduced={"z"}>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_gather' op dropped unreduced axis 'z' without a blessed operation (e.g., spmd.reshard). This is an invalid transition from unreduced to reduced.}}
  %0 = spmd.all_gather [{}, {"x"}] %arg0 out_sharding=<@mesh, [{"y"}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2]>

func.func @changes_unreduced_kind(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}], unreduced={"z"}>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_gather' op cannot change the reduction operator of kept unreduced axes from sum to max.}}
  %0 = spmd.all_gather [{}, {"x"}] %arg0 out_sharding=<@mesh, [{"y"}, {}], unreduced=max{"z"}> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @inside_manual_computation_on_manual_axis(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-note @+1 {{parent bounding this axis as manual}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg1: tensor<8x8xf32>) {
    %1 = spmd.all_slice [{}, {"y"}] %arg1 out_sharding=<@mesh, [{}, {"y"}]> : tensor<8x8xf32>
    // expected-error @+1 {{'spmd.all_gather' op operates on axis "x" which is already bound by a parent spmd.manual_computation op}}
    %2 = spmd.all_gather [{}, {"y"}] %1 out_sharding=<@mesh, [{"x"}, {}]> : tensor<8x8xf32>
    spmd.return %2 : tensor<8x8xf32>
  } : (tensor<16x8xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @type_mismatch(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<16x8xf32> {
  %0 = "spmd.all_gather"(%arg0) <{gathering_axes = #spmd.list_of_axis_ref_lists<[{}, {"x"}]>, out_sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}> : (tensor<16x8xf32>) -> tensor<16x4xf32>
  // expected-error @-1 {{'spmd.all_gather' op requires the same type for all operands and results}}
  return %arg0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @missing_out_sharding(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{expected 'out_sharding'}}
  %0 = spmd.all_gather [{}, {"x"}] %arg0 : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Mesh-dependent checks run in program order (with the module's symbol
// tables), so the unknown mesh is reported at the producer, not at the
// all_gather that reads its sharding.
func.func @operand_sharding_on_unknown_mesh(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.manual_computation' op result - unknown mesh: @other}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{}, {}]>] out_shardings=[<@other, [{"x"}, {}]>] manual_axes={} (%arg1: tensor<16x8xf32>) {
    spmd.return %arg1 : tensor<16x8xf32>
  } : (tensor<16x8xf32>) -> tensor<16x8xf32>
  %1 = spmd.all_gather [{"x"}, {}] %0 out_sharding=<@mesh, [{}, {}]> : tensor<16x8xf32>
  return %1 : tensor<16x8xf32>
}
