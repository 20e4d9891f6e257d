// RUN: tessera-opt %s --split-input-file --spmd-test-data-flow-edges --verify-diagnostics -o /dev/null
// RUN: tessera-opt %s --split-input-file --spmd-test-data-flow-edges=set-open-sharding-on-edges 2>/dev/null | FileCheck %s

// Tests the data-flow edges of scf.for, scf.if and scf.while (which values
// share one sharding, stored on the op's result), the sharding of a loop's
// block arguments (their edge owner's), the local view of a manual
// computation's body arguments, and that setSharding on a block argument
// lands on the owner.

spmd.mesh @mesh = <["x"=2, "y"=2]>

// CHECK-LABEL: func.func @for_loop
// Edges that already have a sharding keep it.
// CHECK: } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x", ?}, {?}]>, <@mesh, [{?}, {?}]>]>}
func.func @for_loop(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %n: index) -> tensor<8x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-remark @below {{edge %0#0: sources [%arg0, %1], targets [%arg4, %0#0], sharding #spmd.sharding<@mesh, [{"x", ?}, {?}]>}}
  // expected-remark @below {{edge %0#1: sources [%arg1, %arg5], targets [%arg5, %0#1], sharding #spmd.sharding<@mesh, [{?}, {?}]>}}
  %0:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %a, %y = %b) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
    %s = arith.addf %x, %y : tensor<8x8xf32>
    scf.yield %s, %y : tensor<8x8xf32>, tensor<8x8xf32>
  } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x", ?}, {?}]>, <@mesh, [{?}, {?}]>]>}
  return %0#0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// CHECK-LABEL: func.func @if_and_while
// CHECK: scf.if
// CHECK: } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{?}, {?}]>]>}
// The while edge's first target is the before block's argument: its
// sharding lands on the while's result.
// CHECK: scf.while
// CHECK: } attributes {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{?}, {?}]>]>}
func.func @if_and_while(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: i1) -> tensor<8x8xf32> {
  // expected-remark @below {{edge %0: sources [%arg0, %arg1], targets [%0], sharding none}}
  %0 = scf.if %c -> tensor<8x8xf32> {
    scf.yield %a : tensor<8x8xf32>
  } else {
    scf.yield %b : tensor<8x8xf32>
  }
  // expected-remark @below {{edge %1: sources [%0, %arg3, %arg3], targets [%arg3, %arg3, %1], sharding none}}
  %1 = scf.while (%w = %0) : (tensor<8x8xf32>) -> tensor<8x8xf32> {
    scf.condition(%c) %w : tensor<8x8xf32>
  } do {
  ^bb0(%v: tensor<8x8xf32>):
    scf.yield %v : tensor<8x8xf32>
  }
  return %1 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests that the edges come from RegionBranchOpInterface, so any op that
// implements it has them: scf.execute_region, and an scf.while whose
// condition forwards a computed value (the before block's argument, of the
// result's type, still joins the result's edge).
// CHECK-LABEL: func.func @other_region_ops
func.func @other_region_ops(%a: tensor<8x8xf32>, %c: i1) -> tensor<8x8xf32> {
  // expected-remark @below {{edge %0: sources [%arg0], targets [%0], sharding none}}
  %0 = scf.execute_region -> tensor<8x8xf32> {
    scf.yield %a : tensor<8x8xf32>
  }
  // expected-remark @below {{edge %1: sources [%0, %2, %arg2], targets [%arg2, %arg2, %1], sharding none}}
  %1 = scf.while (%w = %0) : (tensor<8x8xf32>) -> tensor<8x8xf32> {
    %n = arith.negf %w : tensor<8x8xf32>
    scf.condition(%c) %n : tensor<8x8xf32>
  } do {
  ^bb0(%v: tensor<8x8xf32>):
    scf.yield %v : tensor<8x8xf32>
  }
  return %1 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests that a manual computation's body sees its operand sharding without
// the manual axes (free axes only).
// CHECK-LABEL: func.func @manual
func.func @manual(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-remark @below {{body arg #0: #spmd.sharding<@mesh, [{"y"}, {}]>}}
  %0 = spmd.manual_computation(%a) in_shardings=[<@mesh, [{"x", "y"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg0: tensor<4x8xf32>) {
    spmd.return %arg0 : tensor<4x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// A call has one edge per tensor argument (owned by the callee's argument,
// whose attribute stores the sharding) and one per tensor result (owned by
// the call's result, fed by every value the callee returns); non-tensor
// arguments have none.
spmd.mesh @mesh = <["x"=2]>

func.func private @callee(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}, %n: index) -> tensor<8xf32> {
  %0 = arith.negf %a : tensor<8xf32>
  return %0 : tensor<8xf32>
}

func.func @caller(%arg0: tensor<8xf32>, %n: index) -> tensor<8xf32> {
  // expected-remark @+2 {{call edge @callee argument 0: sources [%arg0], sharding #spmd.sharding<@mesh, [{"x"}]>}}
  // expected-remark @+1 {{call edge %0: sources [%0], sharding none}}
  %0 = func.call @callee(%arg0, %n) : (tensor<8xf32>, index) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// A call to an external function has no edges.
func.func private @external(tensor<8xf32>) -> tensor<8xf32>

func.func @calls_external(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = func.call @external(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
