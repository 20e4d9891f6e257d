// RUN: tessera-opt %s -split-input-file --spmd-propagate | FileCheck %s
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests nested loops: the inner loop's carried value takes the outer
// loop's sharding through both edges.
// CHECK-LABEL: func.func @nested_for(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}, %{{.*}}: index) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>})
// CHECK: %{{.*}} = math.exp %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} : tensor<8x8xf32>
// CHECK: } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>}
// CHECK: } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>}
func.func @nested_for(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}, %n: index) -> tensor<8x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %arg0) -> tensor<8x8xf32> {
    %s = scf.for %j = %c0 to %n step %c1 iter_args(%y = %x) -> tensor<8x8xf32> {
      %z = math.exp %y : tensor<8x8xf32>
      scf.yield %z : tensor<8x8xf32>
    }
    scf.yield %s : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests a loop with two carried values: each edge propagates on its own.
// CHECK-LABEL: func.func @two_carries(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}, %{{.*}}: tensor<4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}]>}, %{{.*}}: index) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}, tensor<4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>} : tensor<8xf32>
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}]>]>} : tensor<4xf32>
// CHECK: } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>, <@mesh, [{"b", ?}]>]>}
func.func @two_carries(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}, %arg1: tensor<4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}]>}, %n: index) -> (tensor<8xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %arg0, %y = %arg1) -> (tensor<8xf32>, tensor<4xf32>) {
    %p = arith.negf %x : tensor<8xf32>
    %q = arith.negf %y : tensor<4xf32>
    scf.yield %p, %q : tensor<8xf32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<8xf32>, tensor<4xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests an scf.if inside a loop body: its result and the carry share the
// sharding from the loop's init.
// CHECK-LABEL: func.func @if_in_for(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c"}]>}, %{{.*}}: index, %{{.*}}: i1) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c", ?}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"c", ?}]>]>} : tensor<8xf32>
// CHECK: } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"c", ?}]>]>}
// CHECK: } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"c", ?}]>]>}
func.func @if_in_for(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c"}]>}, %n: index, %p: i1) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %arg0) -> tensor<8xf32> {
    %s = scf.if %p -> tensor<8xf32> {
      %a = arith.negf %x : tensor<8xf32>
      scf.yield %a : tensor<8xf32>
    } else {
      scf.yield %x : tensor<8xf32>
    }
    scf.yield %s : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests scf.while whose before region forwards a value computed from the
// carry: the after region and the result see the sharding.
// CHECK-LABEL: func.func @while_computed_condition_args(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d"}]>}, %{{.*}}: i1) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d", ?}]>})
// CHECK: %{{.*}} = math.exp %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"d", ?}]>]>} : tensor<8xf32>
// CHECK: } attributes {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"d", ?}]>]>}
func.func @while_computed_condition_args(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d"}]>}, %p: i1) -> tensor<8xf32> {
  %r = scf.while (%x = %arg0) : (tensor<8xf32>) -> tensor<8xf32> {
    %y = math.exp %x : tensor<8xf32>
    scf.condition(%p) %y : tensor<8xf32>
  } do {
  ^bb0(%z: tensor<8xf32>):
    scf.yield %z : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a sharding first seen inside a loop body reaches the init
// value, the loop result and its users.
// CHECK-LABEL: func.func @from_inside_loop(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>}, %{{.*}}: index) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>})
// CHECK: %{{.*}} = spmd.sharding_constraint %{{.*}} <@mesh, [{"a", ?}, {"b", ?}]> : tensor<8x8xf32>
// CHECK: } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>}
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} : tensor<8x8xf32>
func.func @from_inside_loop(%arg0: tensor<8x8xf32>, %n: index) -> tensor<8x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %arg0) -> tensor<8x8xf32> {
    %y = spmd.sharding_constraint %x <@mesh, [{"a", ?}, {"b", ?}]> : tensor<8x8xf32>
    scf.yield %y : tensor<8x8xf32>
  }
  %z = arith.negf %r : tensor<8x8xf32>
  return %z : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests a chain of calls: the sharding crosses two call boundaries both
// ways.
// CHECK-LABEL: func.func private @inner(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d", ?}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d", ?}]>})
// CHECK: %{{.*}} = math.exp %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"d", ?}]>]>} : tensor<8xf32>
func.func private @inner(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = math.exp %arg0 : tensor<8xf32>
  return %0 : tensor<8xf32>
}
// CHECK-LABEL: func.func private @outer(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d", ?}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d", ?}]>})
// CHECK: %{{.*}} = call @inner(%{{.*}}) {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"d", ?}]>]>} : (tensor<8xf32>) -> tensor<8xf32>
func.func private @outer(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = func.call @inner(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d"}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d", ?}]>})
// CHECK: %{{.*}} = call @outer(%{{.*}}) {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"d", ?}]>]>} : (tensor<8xf32>) -> tensor<8xf32>
func.func @main(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d"}]>}) -> tensor<8xf32> {
  %0 = func.call @outer(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a callee's argument with its own sharding is kept, and the
// caller's operand takes it.
// CHECK-LABEL: func.func private @callee(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}]>})
func.func private @callee(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}]>}) -> tensor<8xf32> {
  return %arg0 : tensor<8xf32>
}
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}]>]>} : tensor<8xf32>
// CHECK: %{{.*}} = call @callee(%{{.*}}) {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}]>]>} : (tensor<8xf32>) -> tensor<8xf32>
func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = arith.negf %arg0 : tensor<8xf32>
  %1 = func.call @callee(%0) : (tensor<8xf32>) -> tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests an external callee: nothing crosses the call.
// CHECK-LABEL: func.func private @external(
// CHECK-SAME: tensor<8xf32>) -> tensor<8xf32>
func.func private @external(tensor<8xf32>) -> tensor<8xf32>
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}]>}) -> tensor<8xf32>
func.func @main(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}]>}) -> tensor<8xf32> {
  %0 = func.call @external(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = arith.negf %0 : tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests a function that returns its argument directly: the argument and
// result take each other's open dims.
// CHECK-LABEL: func.func @direct_return(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>})
func.func @direct_return(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {?}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"b", ?}]>}) {
  return %arg0 : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests a function that returns one value twice with different result
// shardings: the value takes what both allow.
// CHECK-LABEL: func.func @returned_twice(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", ?}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", ?}]>}, tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", ?}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", "b", ?}]>]>} : tensor<8xf32>
func.func @returned_twice(%arg0: tensor<8xf32>) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}, tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", ?}]>}) {
  %0 = arith.negf %arg0 : tensor<8xf32>
  return %0, %0 : tensor<8xf32>, tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests scf.index_switch (a multi-way conditional, like stablehlo.case):
// the sharding of one case's value reaches the result, the other cases and
// the default.
// CHECK-LABEL: func.func @index_switch(
// CHECK-SAME: %{{.*}}: index, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>})
// CHECK: %{{.*}} = scf.index_switch %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>} -> tensor<8xf32>
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>} : tensor<8xf32>
// CHECK: %{{.*}} = math.exp %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>} : tensor<8xf32>
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>} : tensor<8xf32>
func.func @index_switch(%i: index, %arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}, %arg1: tensor<8xf32>) -> tensor<8xf32> {
  %r = scf.index_switch %i -> tensor<8xf32>
  case 0 {
    %0 = arith.negf %arg0 : tensor<8xf32>
    scf.yield %0 : tensor<8xf32>
  }
  case 1 {
    %1 = math.exp %arg1 : tensor<8xf32>
    scf.yield %1 : tensor<8xf32>
  }
  default {
    scf.yield %arg1 : tensor<8xf32>
  }
  %s = arith.negf %r : tensor<8xf32>
  return %s : tensor<8xf32>
}
