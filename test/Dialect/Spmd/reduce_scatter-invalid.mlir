// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// Tests that every verifier rule of spmd.reduce_scatter is reported.

spmd.mesh @mesh1 = <["x"=2, "y"=2]>
spmd.mesh @mesh2 = <["a"=2, "b"=2]>

// expected-note @+1 {{operand mesh: #spmd.mesh<["a"=2, "b"=2]>}}
func.func @incompatible_meshes(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh2, [{"a"}, {}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.reduce_scatter' op result mesh does not match operand mesh}}
  %0 = spmd.reduce_scatter [{}, {"y"}] %arg0 out_sharding=<@mesh1, [{"x"}, {"y"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @axes_rank_mismatch(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.reduce_scatter' op result sharding has rank 2 but collective axes has rank 1}}
  %0 = spmd.reduce_scatter [{"y"}] %arg0 out_sharding=<@mesh, [{"x", "y"}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @duplicate_axes(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.reduce_scatter' op duplicate axis ref: "y"}}
  %0 = spmd.reduce_scatter [{"y"}, {"y"}] %arg0 out_sharding=<@mesh, [{"y"}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @result_sharding_mismatch(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.reduce_scatter' op result sharding doesn't match expected sharding ["x"] on dimension 0}}
  %0 = spmd.reduce_scatter [{}, {"y"}] %arg0 out_sharding=<@mesh, [{"x", "y"}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @reduce_max_unreduced_with_sum(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}], unreduced=max{"y"}>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.reduce_scatter' op cannot reduce 'max' unreduced axes. Expected 'sum'.}}
  %0 = spmd.reduce_scatter [{}, {"y"}] %arg0 out_sharding=<@mesh, [{"x"}, {"y"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @unknown_reduction_kind(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{unknown reduction kind 'avg', expected 'sum', 'max' or 'min'}}
  %0 = spmd.reduce_scatter avg [{}, {"y"}] %arg0 out_sharding=<@mesh, [{}, {"y"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}
