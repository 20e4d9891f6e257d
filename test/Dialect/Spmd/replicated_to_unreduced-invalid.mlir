// RUN: tessera-opt %s -split-input-file -verify-diagnostics

// Tests every verifier error of spmd.replicated_to_unreduced.

spmd.mesh @mesh = <["x"=4, "y"=4]>

func.func @operand_without_sharding(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.replicated_to_unreduced' op collective on operand without sharding}}
  %0 = spmd.replicated_to_unreduced {"x"} %arg0 out_sharding=<@mesh, [{}, {}], unreduced={"x"}> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=4]>

func.func @mergeable_sub_axes(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.replicated_to_unreduced' op two consecutive sub-axes can be merged: "x":(1)2, "x":(2)2}}
  %0 = spmd.replicated_to_unreduced {"x":(1)2, "x":(2)2} %arg0 out_sharding=<@mesh, [{}, {}], unreduced={"x"}> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=4]>

func.func @unsorted_axes(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.replicated_to_unreduced' op r2u axes are not ordered w.r.t. mesh}}
  %0 = spmd.replicated_to_unreduced {"y", "x"} %arg0 out_sharding=<@mesh, [{}, {}], unreduced={"x", "y"}> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=4]>

func.func @duplicate_axis(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.replicated_to_unreduced' op duplicate axis ref: "x"}}
  %0 = spmd.replicated_to_unreduced {"x", "x"} %arg0 out_sharding=<@mesh, [{}, {}], unreduced={"x"}> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=4]>

func.func @dims_differ(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.replicated_to_unreduced' op input and output must share the same dimension shardings}}
  %0 = spmd.replicated_to_unreduced {"x"} %arg0 out_sharding=<@mesh, [{}, {}], unreduced={"x"}> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=4]>

func.func @empty_axes(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.replicated_to_unreduced' op r2u axes must not be empty}}
  %0 = spmd.replicated_to_unreduced {} %arg0 out_sharding=<@mesh, [{}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=4]>

func.func @axis_shards_a_dim(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y":(1)2}, {}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.replicated_to_unreduced' op r2u axis "y" overlaps with operand dimension sharding}}
  %0 = spmd.replicated_to_unreduced {"y"} %arg0 out_sharding=<@mesh, [{"y":(1)2}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=4]>

func.func @axis_already_unreduced(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}], unreduced={"x"}>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.replicated_to_unreduced' op r2u axis "x" overlaps with operand unreduced axes}}
  %0 = spmd.replicated_to_unreduced {"x"} %arg0 out_sharding=<@mesh, [{}, {}], unreduced={"x"}> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=4]>

func.func @wrong_result_unreduced(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.replicated_to_unreduced' op out_unreduced_axes should be in_unreduced_axes + r2u_axes}}
  %0 = spmd.replicated_to_unreduced {"x"} %arg0 out_sharding=<@mesh, [{}, {}], unreduced={"x", "y"}> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4]>

func.func @max_result_kind(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.replicated_to_unreduced' op out_sharding reduction_op must be SUM}}
  %0 = spmd.replicated_to_unreduced {"x"} %arg0 out_sharding=<@mesh, [{}, {}], unreduced=max{"x"}> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}
