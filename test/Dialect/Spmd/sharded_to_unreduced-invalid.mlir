// RUN: tessera-opt %s -split-input-file -verify-diagnostics

// Tests every verifier error of spmd.sharded_to_unreduced.

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @operand_without_sharding(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.sharded_to_unreduced' op collective on operand without sharding}}
  %0 = spmd.sharded_to_unreduced [{}, {"x"}] %arg0 out_sharding=<@mesh, [{}, {}], unreduced={"x"}> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @rank_mismatch(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.sharded_to_unreduced' op result sharding has rank 2 but collective axes has rank 1}}
  %0 = spmd.sharded_to_unreduced [{"x"}] %arg0 out_sharding=<@mesh, [{"y"}, {}], unreduced={"x"}> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @not_a_suffix(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.sharded_to_unreduced' op can't apply shard-to-unreduce axis "y" to operand sharding on dimension 1}}
  %0 = spmd.sharded_to_unreduced [{}, {"y"}] %arg0 out_sharding=<@mesh, [{"y"}, {"x"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @result_dims_mismatch(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.sharded_to_unreduced' op result sharding doesn't match expected sharding [] on dimension 1}}
  %0 = spmd.sharded_to_unreduced [{}, {"x"}] %arg0 out_sharding=<@mesh, [{"y"}, {"x"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=4, "z"=4]>

func.func @missing_unreduced_axis(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}], unreduced={"z"}>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.sharded_to_unreduced' op out_unreduced_axes should be in_unreduced_axes + sharded_to_unreduced_axes}}
  %0 = spmd.sharded_to_unreduced [{"y"}, {"x":(2)2}] %arg0 out_sharding=<@mesh, [{}, {"x":(1)2}], unreduced={"x":(2)2, "y"}> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=4, "z"=4]>

func.func @extra_unreduced_axis(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.sharded_to_unreduced' op out_unreduced_axes should be in_unreduced_axes + sharded_to_unreduced_axes}}
  %0 = spmd.sharded_to_unreduced [{"y"}, {"x":(2)2}] %arg0 out_sharding=<@mesh, [{}, {"x":(1)2}], unreduced={"x":(2)2, "y", "z"}> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4]>

func.func @max_result_kind(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.sharded_to_unreduced' op out_sharding reduction_op must be SUM}}
  %0 = spmd.sharded_to_unreduced [{"x"}, {}] %arg0 out_sharding=<@mesh, [{}, {}], unreduced=max{"x"}> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @duplicate_axis(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.sharded_to_unreduced' op duplicate axis ref: "x"}}
  %0 = spmd.sharded_to_unreduced [{"x"}, {"x"}] %arg0 out_sharding=<@mesh, [{"y"}, {}], unreduced={"x"}> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}
