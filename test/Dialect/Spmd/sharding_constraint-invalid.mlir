// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// Every verifier rule of spmd.sharding_constraint and spmd.reshard, and of
// spmd.propagation_barrier.

spmd.mesh @mesh = <["a"=2, "b"=2]>

func.func @constraint_rank_mismatch(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.sharding_constraint' op sharding doesn't match tensor rank: 2 != 1}}
  %0 = spmd.sharding_constraint %arg0 <@mesh, [{}, {"b"}], replicated={"a"}> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @constraint_unknown_mesh(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.sharding_constraint' op unknown mesh: @mesh}}
  %0 = spmd.sharding_constraint %arg0 <@mesh, [{}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=2]>

func.func @constraint_unknown_axis(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.sharding_constraint' op unknown axis name: "c"}}
  %0 = spmd.sharding_constraint %arg0 <@mesh, [{"c"}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=2]>

func.func @constraint_unranked(%arg0: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'spmd.sharding_constraint' op only ranked tensors can have a sharding}}
  %0 = spmd.sharding_constraint %arg0 <@mesh, []> : tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=2]>

// expected-note @+1 {{prior use here}}
func.func @constraint_type_mismatch(%arg0: tensor<8xf32>) -> tensor<8xf64> {
  // expected-error @+1 {{use of value '%arg0' expects different type than prior uses: 'tensor<8xf64>' vs 'tensor<8xf32>'}}
  %0 = spmd.sharding_constraint %arg0 <@mesh, [{}]> : tensor<8xf64>
  return %0 : tensor<8xf64>
}

// -----

spmd.mesh @mesh = <["a"=2]>

func.func @constraint_inside_bound_manual_computation(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{"a", ?}, {?}]>] out_shardings=[<@mesh, [{"a", ?}, {?}]>] manual_axes={"a"} (%arg1: tensor<8x32xf32>) { // expected-note {{parent bounding this axis as manual}}
    %1 = spmd.sharding_constraint %arg1 <@mesh, [{"a"}, {}]> : tensor<8x32xf32> // expected-error {{op operates on axis "a" which is already bound by a parent spmd.manual_computation op}}
    spmd.return %1 : tensor<8x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["a"=2]>

func.func @constraint_replication_inside_bound_manual_computation(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{"a", ?}, {?}]>] out_shardings=[<@mesh, [{"a", ?}, {?}]>] manual_axes={"a"} (%arg1: tensor<8x32xf32>) { // expected-note {{parent bounding this axis as manual}}
    %1 = spmd.sharding_constraint %arg1 <@mesh, [{}, {}], replicated={"a"}> : tensor<8x32xf32> // expected-error {{op operates on axis "a" which is already bound by a parent spmd.manual_computation op}}
    spmd.return %1 : tensor<8x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @constraint_mismatches_unreduced_kind(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}], unreduced=max{"x", "y"}>}) -> tensor<8x8xf32> {
  // expected-error @+1 {{'spmd.sharding_constraint' op cannot change the reduction operator of kept unreduced axes from max to sum.}}
  %0 = spmd.sharding_constraint %arg0 <@mesh, [{}, {}], unreduced={"x"}> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @constraint_introduces_min_unreduced(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x8xf32> {
  // expected-error @+1 {{'spmd.sharding_constraint' op cannot introduce 'min' unreduced axes. Expected 'sum'.}}
  %0 = spmd.sharding_constraint %arg0 <@mesh, [{}, {}], unreduced=min{"y"}> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

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

// -----

func.func @barrier_both(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.propagation_barrier' op cannot specify `BOTH` as the direction. Not blocking propagation direction makes the op redundant}}
  %0 = spmd.propagation_barrier %arg0 allowed_direction=BOTH : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @barrier_unknown_direction(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{unknown propagation direction 'SIDEWAYS', expected NONE, FORWARD, BACKWARD or BOTH}}
  %0 = spmd.propagation_barrier %arg0 allowed_direction=SIDEWAYS : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @barrier_unranked(%arg0: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'spmd.propagation_barrier' op operand #0 must be ranked tensor of any type values, but got 'tensor<*xf32>'}}
  %0 = spmd.propagation_barrier %arg0 allowed_direction=NONE : tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @barrier_with_invalid_sharding(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.propagation_barrier' op result - unknown axis name: "z"}}
  %0 = spmd.propagation_barrier %arg0 allowed_direction=FORWARD {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"z"}]>]>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}
