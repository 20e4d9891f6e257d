// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// Tests that every verifier rule of spmd.sharding_constraint is reported.

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

