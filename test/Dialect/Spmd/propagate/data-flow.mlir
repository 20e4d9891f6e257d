// RUN: tessera-opt %s -split-input-file --spmd-propagate | FileCheck %s
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that an scf.for's init, block argument, yielded value and result
// share one sharding: the sharding of an operand used in the body reaches
// the loop result and the function result.
// CHECK-LABEL: func.func @for_loop(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>})
// CHECK: %{{.*}} = arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>} : tensor<8xf32>
// CHECK: } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>}
func.func @for_loop(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}, %init: tensor<8xf32>) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> tensor<8xf32> {
    %s = arith.addf %acc, %arg0 : tensor<8xf32>
    scf.yield %s : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a loop result's sharding flows backward into the init value.
// CHECK-LABEL: func.func @for_loop_backward(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}, {?}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}, {}]>})
// CHECK: %{{.*}} = math.exp %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}, {?}]>]>} : tensor<8x8xf32>
// CHECK: } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}, {?}]>]>}
func.func @for_loop_backward(%init: tensor<8x8xf32>) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}, {}]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> tensor<8x8xf32> {
    %s = math.exp %acc : tensor<8x8xf32>
    scf.yield %s : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests scf.while: the carried value's sharding reaches the before and
// after regions and the result.
// CHECK-LABEL: func.func @while_loop(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c"}]>}, %{{.*}}: i1) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c", ?}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"c", ?}]>]>} : tensor<8xf32>
// CHECK: } attributes {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"c", ?}]>]>}
func.func @while_loop(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c"}]>}, %n: i1) -> tensor<8xf32> {
  %r = scf.while (%x = %arg0) : (tensor<8xf32>) -> tensor<8xf32> {
    scf.condition(%n) %x : tensor<8xf32>
  } do {
  ^bb0(%y: tensor<8xf32>):
    %z = arith.negf %y : tensor<8xf32>
    scf.yield %z : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests scf.if: the result takes the longest list the branches are
// compatible with (["a", "b"]: with the aggressive strategy the closed ["a"]
// of the other branch does not block it).
// CHECK-LABEL: func.func @if_common_prefix(
// CHECK-SAME: %{{.*}}: i1, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}]>}, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", ?}]>})
// CHECK: } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", "b", ?}]>]>}
func.func @if_common_prefix(%c: i1, %arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}]>}, %arg1: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}) -> tensor<8xf32> {
  %r = scf.if %c -> tensor<8xf32> {
    scf.yield %arg0 : tensor<8xf32>
  } else {
    scf.yield %arg1 : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that an scf.if result's sharding flows back into both branches.
// CHECK-LABEL: func.func @if_backward(
// CHECK-SAME: %{{.*}}: i1, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d", ?}]>}, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d", ?}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d"}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"d", ?}]>]>} : tensor<8xf32>
// CHECK: %{{.*}} = math.exp %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"d", ?}]>]>} : tensor<8xf32>
// CHECK: } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"d", ?}]>]>}
func.func @if_backward(%c: i1, %arg0: tensor<8xf32>, %arg1: tensor<8xf32>) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d"}]>}) {
  %r = scf.if %c -> tensor<8xf32> {
    %0 = arith.negf %arg0 : tensor<8xf32>
    scf.yield %0 : tensor<8xf32>
  } else {
    %1 = math.exp %arg1 : tensor<8xf32>
    scf.yield %1 : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that shardings cross calls: the caller's argument reaches the
// callee's argument, through the callee's body to its result, and back out
// through the call's result.
// CHECK-LABEL: func.func private @callee(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} : tensor<8x8xf32>
func.func private @callee(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = arith.negf %arg0 : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
// CHECK-LABEL: func.func @caller(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>})
// CHECK: %{{.*}} = call @callee(%{{.*}}) {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK: %{{.*}} = math.exp %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} : tensor<8x8xf32>
func.func @caller(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}) -> tensor<8x8xf32> {
  %0 = func.call @callee(%arg0) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = math.exp %0 : tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a callee's result sharding flows out to the call and on to its
// users, and back into the callee's argument and the caller's operand.
// CHECK-LABEL: func.func private @callee(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c", ?}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c", ?}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"c", ?}]>]>} : tensor<8xf32>
func.func private @callee(%arg0: tensor<8xf32>) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c", ?}]>}) {
  %0 = arith.negf %arg0 : tensor<8xf32>
  return %0 : tensor<8xf32>
}
// CHECK-LABEL: func.func @caller(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c", ?}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c", ?}]>})
// CHECK: %{{.*}} = call @callee(%{{.*}}) {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"c", ?}]>]>} : (tensor<8xf32>) -> tensor<8xf32>
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"c", ?}]>]>} : tensor<8xf32>
func.func @caller(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = func.call @callee(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = arith.negf %0 : tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a callee called twice takes the longest list its callers are
// compatible with, and both calls' results get it.
// CHECK-LABEL: func.func private @callee(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", ?}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", ?}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", "b", ?}]>]>} : tensor<8xf32>
func.func private @callee(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = arith.negf %arg0 : tensor<8xf32>
  return %0 : tensor<8xf32>
}
// CHECK-LABEL: func.func @two_callers(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}]>}, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", ?}]>}, tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", ?}]>})
// CHECK: %{{.*}} = call @callee(%{{.*}}) {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", "b", ?}]>]>} : (tensor<8xf32>) -> tensor<8xf32>
// CHECK: %{{.*}} = call @callee(%{{.*}}) {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", "b", ?}]>]>} : (tensor<8xf32>) -> tensor<8xf32>
func.func @two_callers(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}]>}, %arg1: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = func.call @callee(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = func.call @callee(%arg1) : (tensor<8xf32>) -> tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}
