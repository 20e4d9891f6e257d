// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// Tests that every verifier rule of spmd.all_reduce is reported.

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @mismatch_output_sharding(%arg0: tensor<16x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x", "y"}]>}) -> tensor<16x2xf32> {
  // expected-error @+1 {{'spmd.all_reduce' op operand and result shardings are not equivalent}}
  %0 = spmd.all_reduce {} %arg0 out_sharding=<@mesh, [{}, {"y"}]> : tensor<16x2xf32>
  return %0 : tensor<16x2xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2]>
spmd.mesh @mesh_other = <["x"=2, "y"=4]>

func.func @mismatch_output_mesh(%arg0: tensor<16x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x", "y"}]>}) -> tensor<16x2xf32> {
  // expected-note @above {{operand mesh: #spmd.mesh<["x"=2, "y"=2, "z"=2]>}}
  // expected-error @+1 {{'spmd.all_reduce' op result mesh does not match operand mesh}}
  %0 = spmd.all_reduce {} %arg0 out_sharding=<@mesh_other, [{}, {"x", "y"}]> : tensor<16x2xf32>
  return %0 : tensor<16x2xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=8, "z"=2]>

func.func @overlapping_part_of_axis(%arg0: tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<16x32xf32> {
  // expected-error @+1 {{'spmd.all_reduce' op reduction axis "y":(2)2 overlaps with operand dimension sharding or replicated axes}}
  %0 = spmd.all_reduce {"y":(2)2} %arg0 out_sharding=<@mesh, [{"y"}, {"x"}]> : tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=8, "y2"=8, "z"=2]>

func.func @overlapping_minor_axis(%arg0: tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y", "y2"}, {"x"}]>}) -> tensor<16x32xf32> {
  // expected-error @+1 {{'spmd.all_reduce' op reduction axis "y2" overlaps with operand dimension sharding or replicated axes}}
  %0 = spmd.all_reduce {"y2"} %arg0 out_sharding=<@mesh, [{"y", "y2"}, {"x"}]> : tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @overlapping_replicated_axis(%arg0: tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}], replicated={"y"}>}) -> tensor<16x32xf32> {
  // expected-error @+1 {{'spmd.all_reduce' op reduction axis "y" overlaps with operand dimension sharding or replicated axes}}
  %0 = spmd.all_reduce {"y"} %arg0 out_sharding=<@mesh, [{}, {"x"}]> : tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @invalid_out_sharding(%arg0: tensor<16x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<16x2xf32> {
  // expected-error @+1 {{'spmd.all_reduce' op duplicate axis ref: "x"}}
  %0 = spmd.all_reduce {"y"} %arg0 out_sharding=<@mesh, [{}, {"x", "x"}]> : tensor<16x2xf32>
  return %0 : tensor<16x2xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=2]>

func.func @reduction_axes_can_be_merged(%arg0: tensor<16x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}) -> tensor<16x2xf32> {
  // expected-error @+1 {{'spmd.all_reduce' op two consecutive sub-axes can be merged: "x":(1)2, "x":(2)2}}
  %0 = spmd.all_reduce {"x":(1)2, "x":(2)2} %arg0 out_sharding=<@mesh, [{"y"}, {}]> : tensor<16x2xf32>
  return %0 : tensor<16x2xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @duplicate_reduction_axes(%arg0: tensor<16x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) -> tensor<16x2xf32> {
  // expected-error @+1 {{'spmd.all_reduce' op duplicate axis ref: "x"}}
  %0 = spmd.all_reduce {"x", "x"} %arg0 out_sharding=<@mesh, [{}, {}]> : tensor<16x2xf32>
  return %0 : tensor<16x2xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=2]>

func.func @overlapping_reduction_sub_axes(%arg0: tensor<16x2xf32>) -> tensor<16x2xf32> {
  // expected-error @+1 {{'spmd.all_reduce' op both sub-axis and full-axis are used for axis name: "x"}}
  %0 = spmd.all_reduce {"x":(1)2, "x"} %arg0 out_sharding=<@mesh, [{}, {}]> : tensor<16x2xf32>
  return %0 : tensor<16x2xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @unknown_reduction_axis(%arg0: tensor<16x2xf32>) -> tensor<16x2xf32> {
  // expected-error @+1 {{'spmd.all_reduce' op unknown axis name: "z"}}
  %0 = spmd.all_reduce {"z"} %arg0 out_sharding=<@mesh, [{}, {}]> : tensor<16x2xf32>
  return %0 : tensor<16x2xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @reduce_max_unreduced_with_sum(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], unreduced=max{"x"}>}) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.all_reduce' op cannot reduce 'max' unreduced axes. Expected 'sum'.}}
  %0 = spmd.all_reduce {"x"} %arg0 out_sharding=<@mesh, [{}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @reduce_sum_unreduced_with_min(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], unreduced={"x"}>}) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.all_reduce' op cannot reduce 'sum' unreduced axes. Expected 'min'.}}
  %0 = spmd.all_reduce min {"x"} %arg0 out_sharding=<@mesh, [{}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @reduced_axis_stays_unreduced(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], unreduced={"x", "y"}>}) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.all_reduce' op reduction axis "x" overlaps with result unreduced axes}}
  %0 = spmd.all_reduce {"x"} %arg0 out_sharding=<@mesh, [{}], unreduced={"x", "y"}> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @changes_kind_of_kept_axis(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], unreduced=max{"x", "y"}>}) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.all_reduce' op cannot change the reduction operator of kept unreduced axes from max to sum.}}
  %0 = spmd.all_reduce max {"x"} %arg0 out_sharding=<@mesh, [{}], unreduced={"y"}> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @introduces_unreduced_axis(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.all_reduce' op cannot add new unreduced axis 'y'.}}
  %0 = spmd.all_reduce {"x"} %arg0 out_sharding=<@mesh, [{}], unreduced={"y"}> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @unknown_reduction_kind(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{unknown reduction kind 'prod', expected 'sum', 'max' or 'min'}}
  %0 = spmd.all_reduce prod {"x"} %arg0 out_sharding=<@mesh, [{}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// The reduction kind is a bare keyword, as in `#spmd.sharding`'s
// `unreduced=max{...}`; a bracketed kind is not the syntax.
func.func @kind_in_brackets(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected '{'}}
  %0 = spmd.all_reduce [max] {"x"} %arg0 out_sharding=<@mesh, [{}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}
