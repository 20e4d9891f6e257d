// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// Tests that every verifier rule of spmd.reshard is reported.

spmd.mesh @mesh = <["a"=2, "b"=2]>

func.func @reshard_rank_mismatch(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.reshard' op sharding doesn't match tensor rank: 2 != 1}}
  %0 = spmd.reshard %arg0 <@mesh, [{}, {"b"}], replicated={"a"}> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2]>

func.func @reshard_duplicate_axis(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'spmd.reshard' op duplicate axis ref: "a"}}
  %0 = spmd.reshard %arg0 <@mesh, [{"a"}, {"a"}]> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2]>

func.func @reshard_inside_bound_manual_computation(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{"a", ?}, {?}]>] out_shardings=[<@mesh, [{"a", ?}, {?}]>] manual_axes={"a"} (%arg1: tensor<8x32xf32>) { // expected-note {{parent bounding this axis as manual}}
    %1 = spmd.reshard %arg1 <@mesh, [{"a"}, {}]> : tensor<8x32xf32> // expected-error {{op operates on axis "a" which is already bound by a parent spmd.manual_computation op}}
    spmd.return %1 : tensor<8x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @reshard_mismatch_reduction_op(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], unreduced=max{"x"}>}) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.reshard' op cannot change the reduction operator of kept unreduced axes from max to sum.}}
  %0 = spmd.reshard %arg0 <@mesh, [{}], unreduced={"x"}> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @reshard_introduces_axes_non_sum(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.reshard' op cannot introduce 'max' unreduced axes. Expected 'sum'.}}
  %0 = spmd.reshard %arg0 <@mesh, [{}], unreduced=max{"x"}> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2]>

func.func @reshard_keep_and_introduce_mismatch(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], unreduced=max{"x"}>}) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.reshard' op cannot change the reduction operator of kept unreduced axes from max to sum.}}
  %0 = spmd.reshard %arg0 <@mesh, [{}], unreduced={"x", "y"}> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2]>

func.func @reshard_of_reshard_introduces_max(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = spmd.reshard %arg0 <@mesh, [{"z"}]> : tensor<8xf32>
  // expected-error @+1 {{'spmd.reshard' op cannot introduce 'max' unreduced axes. Expected 'sum'.}}
  %1 = spmd.reshard %0 <@mesh, [{}], unreduced=max{"x", "y"}> : tensor<8xf32>
  return %1 : tensor<8xf32>
}

