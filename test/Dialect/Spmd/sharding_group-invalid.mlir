// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// Tests that every verifier rule of spmd.sharding_group is reported.

func.func @negative_group_id(%arg0: tensor<8xf32>) {
  // expected-error @+1 {{'spmd.sharding_group' op group_id must be non-negative, got: -1}}
  spmd.sharding_group %arg0 group_id=-1 : tensor<8xf32>
  return
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=2]>

func.func @inside_then_outside(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{?}, {?}]>] out_shardings=[<@mesh, [{?}, {?}]>] manual_axes={} (%arg1: tensor<8x8xf32>) {
    %1 = arith.addf %arg1, %arg1 : tensor<8x8xf32>
    // expected-note @+1 {{first member of the group}}
    spmd.sharding_group %1 group_id=90210 : tensor<8x8xf32>
    spmd.return %1 : tensor<8x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-error @+1 {{ShardingGroupOps values cannot cross ManualComputationOp boundaries for groupId: 90210}}
  spmd.sharding_group %0 group_id=90210 : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=2]>

func.func @outside_then_inside(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-note @+1 {{first member of the group}}
  spmd.sharding_group %arg0 group_id=7 : tensor<8x8xf32>
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{?}, {?}]>] out_shardings=[<@mesh, [{?}, {?}]>] manual_axes={} (%arg1: tensor<8x8xf32>) {
    // expected-error @+1 {{ShardingGroupOps values cannot cross ManualComputationOp boundaries for groupId: 7}}
    spmd.sharding_group %arg1 group_id=7 : tensor<8x8xf32>
    spmd.return %arg1 : tensor<8x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=2]>

func.func @different_manual_computations(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{?}, {?}]>] out_shardings=[<@mesh, [{?}, {?}]>] manual_axes={} (%arg1: tensor<8x8xf32>) {
    // expected-note @+1 {{first member of the group}}
    spmd.sharding_group %arg1 group_id=44094 : tensor<8x8xf32>
    spmd.return %arg1 : tensor<8x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = spmd.manual_computation(%0) in_shardings=[<@mesh, [{?}, {?}]>] out_shardings=[<@mesh, [{?}, {?}]>] manual_axes={} (%arg1: tensor<8x8xf32>) {
    // expected-error @+1 {{ShardingGroupOps values cannot cross ManualComputationOp boundaries for groupId: 44094}}
    spmd.sharding_group %arg1 group_id=44094 : tensor<8x8xf32>
    spmd.return %arg1 : tensor<8x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=2]>

func.func @nested_manual_computations(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{?}, {?}]>] out_shardings=[<@mesh, [{?}, {?}]>] manual_axes={} (%arg1: tensor<8x8xf32>) {
    %1 = spmd.manual_computation(%arg1) in_shardings=[<@mesh, [{?}, {?}]>] out_shardings=[<@mesh, [{?}, {?}]>] manual_axes={} (%arg2: tensor<8x8xf32>) {
      // expected-note @+1 {{first member of the group}}
      spmd.sharding_group %arg2 group_id=4311 : tensor<8x8xf32>
      spmd.return %arg2 : tensor<8x8xf32>
    } : (tensor<8x8xf32>) -> tensor<8x8xf32>
    // expected-error @+1 {{ShardingGroupOps values cannot cross ManualComputationOp boundaries for groupId: 4311}}
    spmd.sharding_group %1 group_id=4311 : tensor<8x8xf32>
    spmd.return %1 : tensor<8x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @different_shapes(%arg0: tensor<8x8xf32>) {
  %0 = tensor.empty() : tensor<8x8x1xf32>
  // expected-note @+1 {{first member of the group}}
  spmd.sharding_group %arg0 group_id=23 : tensor<8x8xf32>
  spmd.sharding_group %arg0 group_id=23 : tensor<8x8xf32>
  // expected-error @+1 {{ShardingGroupOps values must have the same shape for groupId: 23}}
  spmd.sharding_group %0 group_id=23 : tensor<8x8x1xf32>
  return
}

// -----

func.func @different_shapes_across_functions(%arg0: tensor<8x8xf32>) {
  // expected-note @+1 {{first member of the group}}
  spmd.sharding_group %arg0 group_id=5 : tensor<8x8xf32>
  return
}

func.func @second_function(%arg0: tensor<4xf32>) {
  // expected-error @+1 {{ShardingGroupOps values must have the same shape for groupId: 5}}
  spmd.sharding_group %arg0 group_id=5 : tensor<4xf32>
  return
}

// -----

func.func @unranked_input(%arg0: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  spmd.sharding_group %arg0 group_id=0 : tensor<*xf32>
  return
}
