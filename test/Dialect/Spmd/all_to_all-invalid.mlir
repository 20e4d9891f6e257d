// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// Tests that every verifier rule of spmd.all_to_all is reported.

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @operand_without_sharding(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_to_all' op collective on operand without sharding}}
  %0 = spmd.all_to_all [{"x"}: 1->0] %arg0 out_sharding=<@mesh, [{"y"}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh1 = <["x"=2, "y"=2]>
spmd.mesh @mesh2 = <["a"=2, "b"=2]>

// expected-note @+1 {{operand mesh: #spmd.mesh<["a"=2, "b"=2]>}}
func.func @incompatible_meshes(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh2, [{"a"}, {"b"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_to_all' op result mesh does not match operand mesh}}
  %0 = spmd.all_to_all [{"b"}: 1->0] %arg0 out_sharding=<@mesh1, [{"y"}, {"x"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @invalid_out_sharding(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_to_all' op duplicate axis ref: "x"}}
  %0 = spmd.all_to_all [{"y"}: 0->1] %arg0 out_sharding=<@mesh, [{}, {"x", "x"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @empty_params(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_to_all' op parameter list is empty}}
  %0 = spmd.all_to_all [] %arg0 out_sharding=<@mesh, [{"y"}, {"x"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=2]>

func.func @axes_can_be_merged(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_to_all' op two consecutive sub-axes can be merged: "x":(1)2, "x":(2)2}}
  %0 = spmd.all_to_all [{"x":(1)2, "x":(2)2}: 1->0] %arg0 out_sharding=<@mesh, [{"y", "x"}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @duplicate_axes_across_params(%arg0: tensor<16x8x8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}, {"y"}, {}]>}) -> tensor<16x8x8x8xf32> {
  // expected-error @+1 {{'spmd.all_to_all' op duplicate axis ref: "x"}}
  %0 = spmd.all_to_all [{"x"}: 0->1, {"x"}: 2->3] %arg0 out_sharding=<@mesh, [{}, {"x"}, {}, {"y"}]> : tensor<16x8x8x8xf32>
  return %0 : tensor<16x8x8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=8, "y"=2]>

func.func @overlapping_sub_axes_across_params(%arg0: tensor<16x8x8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}, {"y"}, {}]>}) -> tensor<16x8x8x8xf32> {
  // expected-error @+1 {{'spmd.all_to_all' op overlapping sub-axes: "x":(1)4, "x":(2)2}}
  %0 = spmd.all_to_all [{"x":(2)2}: 0->1, {"x":(1)4}: 2->3] %arg0 out_sharding=<@mesh, [{}, {"x"}, {}, {"y"}]> : tensor<16x8x8x8xf32>
  return %0 : tensor<16x8x8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @src_dim_out_of_range(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_to_all' op source dimension 2 is out of range [0, 2)}}
  %0 = spmd.all_to_all [{"y"}: 2->1] %arg0 out_sharding=<@mesh, [{"y"}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @tgt_dim_out_of_range(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_to_all' op target dimension -1 is out of range [0, 2)}}
  %0 = spmd.all_to_all [{"y"}: 0->-1] %arg0 out_sharding=<@mesh, [{}, {"y"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @src_and_tgt_dim_equal(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_to_all' op overlapping source/target dimensions in all-to-all params: 0}}
  %0 = spmd.all_to_all [{"y"}: 0->0] %arg0 out_sharding=<@mesh, [{"y"}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @overlapping_dims(%arg0: tensor<16x8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}, {}]>}) -> tensor<16x8x8xf32> {
  // expected-error @+1 {{'spmd.all_to_all' op overlapping source/target dimensions in all-to-all params: 2}}
  %0 = spmd.all_to_all [{"y"}: 0->2, {"x"}: 1->2] %arg0 out_sharding=<@mesh, [{}, {}, {"y", "x"}]> : tensor<16x8x8xf32>
  return %0 : tensor<16x8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @unsorted_src_dims(%arg0: tensor<16x8x8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}, {"y"}, {}]>}) -> tensor<16x8x8x8xf32> {
  // expected-error @+1 {{'spmd.all_to_all' op source dimensions are not sorted in ascending order: 0 appears after 2}}
  %0 = spmd.all_to_all [{"y"}: 2->1, {"x"}: 0->3] %arg0 out_sharding=<@mesh, [{}, {"y"}, {}, {"x"}]> : tensor<16x8x8x8xf32>
  return %0 : tensor<16x8x8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @too_many_axes_to_move(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_to_all' op can't apply all-to-all axis "x" to operand sharding on dimension 0}}
  %0 = spmd.all_to_all [{"x", "y"}: 0->1] %arg0 out_sharding=<@mesh, [{}, {"x", "y"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=2]>

func.func @full_axis_from_operand_sub_axis(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x":(1)2}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_to_all' op can't apply all-to-all axis "x" to operand sharding on dimension 1}}
  %0 = spmd.all_to_all [{"x"}: 1->0] %arg0 out_sharding=<@mesh, [{"y", "x"}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=8, "y"=2]>

func.func @major_sub_axis_to_move(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_to_all' op can't apply all-to-all axis "x":(2)2 to operand sharding on dimension 1}}
  %0 = spmd.all_to_all [{"x":(2)2}: 1->0] %arg0 out_sharding=<@mesh, [{"y", "x":(2)2}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @incompatible_result_on_target(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_to_all' op result sharding doesn't match expected sharding ["y", "x"] on dimension 0}}
  %0 = spmd.all_to_all [{"x"}: 1->0] %arg0 out_sharding=<@mesh, [{"y"}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=8, "y"=2]>

func.func @incompatible_result_on_source(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_to_all' op result sharding doesn't match expected sharding ["x":(1)2] on dimension 1}}
  %0 = spmd.all_to_all [{"x":(2)4}: 1->0] %arg0 out_sharding=<@mesh, [{"y", "x":(2)4}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @incompatible_result_on_other_dim(%arg0: tensor<16x8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}, {}]>}) -> tensor<16x8x4xf32> {
  // expected-error @+1 {{'spmd.all_to_all' op result sharding doesn't match expected sharding ["x"] on dimension 1}}
  %0 = spmd.all_to_all [{"y"}: 0->2] %arg0 out_sharding=<@mesh, [{}, {}, {"y"}]> : tensor<16x8x4xf32>
  return %0 : tensor<16x8x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2]>

func.func @changes_unreduced(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}], unreduced={"z"}>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_to_all' op cannot add new unreduced axis 'x'.}}
  %0 = spmd.all_to_all [{"y"}: 0->1] %arg0 out_sharding=<@mesh, [{}, {"y"}], unreduced={"x"}> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @missing_arrow(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{expected '->'}}
  %0 = spmd.all_to_all [{"y"}: 0 1] %arg0 out_sharding=<@mesh, [{}, {"y"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}
