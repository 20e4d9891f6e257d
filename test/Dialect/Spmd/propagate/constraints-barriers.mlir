// RUN: tessera-opt %s -split-input-file --spmd-apply-sharding-constraints --spmd-propagate | FileCheck %s
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that an open sharding constraint propagates both ways like an
// identity, and that its own open dims are extended.
// CHECK-LABEL: func.func @open_constraint(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} : tensor<8x8xf32>
// CHECK: %{{.*}} = spmd.sharding_constraint %{{.*}} <@mesh, [{"a", ?}, {"b", ?}]> : tensor<8x8xf32>
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} : tensor<8x8xf32>
func.func @open_constraint(%arg0: tensor<8x8xf32>) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"b", ?}]>}) {
  %0 = arith.negf %arg0 : tensor<8x8xf32>
  %1 = spmd.sharding_constraint %0 <@mesh, [{"a", ?}, {?}]> : tensor<8x8xf32>
  %2 = arith.negf %1 : tensor<8x8xf32>
  return %2 : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a fully closed constraint is applied to its unsharded input
// before propagation (so the input's other users see it).
// CHECK-LABEL: func.func @closed_constraint_applied(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {?}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {?}]>}, tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {?}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a"}, {}]>]>} : tensor<8x8xf32>
// CHECK: %{{.*}} = spmd.sharding_constraint %{{.*}} <@mesh, [{"a"}, {}]> : tensor<8x8xf32>
// CHECK: %{{.*}} = math.exp %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {?}]>]>} : tensor<8x8xf32>
func.func @closed_constraint_applied(%arg0: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %0 = arith.negf %arg0 : tensor<8x8xf32>
  %1 = spmd.sharding_constraint %0 <@mesh, [{"a"}, {}]> : tensor<8x8xf32>
  %2 = math.exp %0 : tensor<8x8xf32>
  return %1, %2 : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a closed constraint is not applied to an input that already
// has a sharding: it only acts as an identity with a fixed sharding.
// CHECK-LABEL: func.func @closed_constraint_sharded_input(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}, {}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {?}]>})
// CHECK: %{{.*}} = spmd.sharding_constraint %{{.*}} <@mesh, [{"a"}, {}]> : tensor<8x8xf32>
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {?}]>]>} : tensor<8x8xf32>
func.func @closed_constraint_sharded_input(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}, {}]>}) -> tensor<8x8xf32> {
  %0 = spmd.sharding_constraint %arg0 <@mesh, [{"a"}, {}]> : tensor<8x8xf32>
  %1 = arith.negf %0 : tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a closed constraint is not applied when another constraint on
// the same input disagrees.
// CHECK-LABEL: func.func @disagreeing_constraints(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}, tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>} : tensor<8xf32>
// CHECK: %{{.*}} = spmd.sharding_constraint %{{.*}} <@mesh, [{"a"}]> : tensor<8xf32>
// CHECK: %{{.*}} = spmd.sharding_constraint %{{.*}} <@mesh, [{"b"}]> : tensor<8xf32>
func.func @disagreeing_constraints(%arg0: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = arith.negf %arg0 : tensor<8xf32>
  %1 = spmd.sharding_constraint %0 <@mesh, [{"a"}]> : tensor<8xf32>
  %2 = spmd.sharding_constraint %0 <@mesh, [{"b"}]> : tensor<8xf32>
  return %1, %2 : tensor<8xf32>, tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a dangling constraint (no uses) still shards its input.
// CHECK-LABEL: func.func @dangling_constraint(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c", ?}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c", ?}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"c", ?}]>]>} : tensor<8xf32>
// CHECK: %{{.*}} = spmd.sharding_constraint %{{.*}} <@mesh, [{"c", ?}]> : tensor<8xf32>
func.func @dangling_constraint(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = arith.negf %arg0 : tensor<8xf32>
  %1 = spmd.sharding_constraint %0 <@mesh, [{"c", ?}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a FORWARD barrier lets the operand's sharding through but not
// the result's back.
// CHECK-LABEL: func.func @barrier_forward(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {?}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>})
// CHECK: %{{.*}} = spmd.propagation_barrier %{{.*}} allowed_direction=FORWARD {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} : tensor<8x8xf32>
func.func @barrier_forward(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {?}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"b", ?}]>}) {
  %0 = spmd.propagation_barrier %arg0 allowed_direction=FORWARD : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a BACKWARD barrier lets the result's sharding back only.
// CHECK-LABEL: func.func @barrier_backward(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"b", ?}]>})
// CHECK: %{{.*}} = spmd.propagation_barrier %{{.*}} allowed_direction=BACKWARD {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{?}, {"b", ?}]>]>} : tensor<8x8xf32>
func.func @barrier_backward(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {?}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"b", ?}]>}) {
  %0 = spmd.propagation_barrier %arg0 allowed_direction=BACKWARD : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a NONE barrier stops both directions.
// CHECK-LABEL: func.func @barrier_none(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {?}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"b", ?}]>})
// CHECK: %{{.*}} = spmd.propagation_barrier %{{.*}} allowed_direction=NONE {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{?}, {"b", ?}]>]>} : tensor<8x8xf32>
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{?}, {"b", ?}]>]>} : tensor<8x8xf32>
func.func @barrier_none(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {?}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"b", ?}]>}) {
  %0 = spmd.propagation_barrier %arg0 allowed_direction=NONE : tensor<8x8xf32>
  %1 = arith.negf %0 : tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that spmd.reshard stops propagation: its result has its own
// sharding and its operand is not resharded backward.
// CHECK-LABEL: func.func @reshard_stops(
// CHECK-SAME: %{{.*}}: tensor<8xf32>) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>} : tensor<8xf32>
func.func @reshard_stops(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = arith.negf %arg0 : tensor<8xf32>
  %1 = spmd.reshard %0 <@mesh, [{"a"}]> : tensor<8xf32>
  %2 = arith.negf %1 : tensor<8xf32>
  return %2 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that every member of a sharding group ends with the same sharding.
// CHECK-LABEL: func.func @group_members_identical(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}, tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>} : tensor<8xf32>
// CHECK: %{{.*}} = math.exp %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>} : tensor<8xf32>
// CHECK: spmd.sharding_group %{{.*}} group_id=3 : tensor<8xf32>
// CHECK: spmd.sharding_group %{{.*}} group_id=3 : tensor<8xf32>
func.func @group_members_identical(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}, %arg1: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = arith.negf %arg0 : tensor<8xf32>
  %1 = math.exp %arg1 : tensor<8xf32>
  spmd.sharding_group %0 group_id=3 : tensor<8xf32>
  spmd.sharding_group %1 group_id=3 : tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that groups sharing a value merge transitively: %0 is in groups 0
// and 1, so %2 (group 1) follows %1 (group 0).
// CHECK-LABEL: func.func @groups_merge_transitively(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}]>}, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}]>}, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}]>}, tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}]>}, tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}]>]>} : tensor<8xf32>
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}]>]>} : tensor<8xf32>
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}]>]>} : tensor<8xf32>
// CHECK: spmd.sharding_group %{{.*}} group_id=0 : tensor<8xf32>
// CHECK: spmd.sharding_group %{{.*}} group_id=0 : tensor<8xf32>
// CHECK: spmd.sharding_group %{{.*}} group_id=1 : tensor<8xf32>
// CHECK: spmd.sharding_group %{{.*}} group_id=1 : tensor<8xf32>
func.func @groups_merge_transitively(%arg0: tensor<8xf32>, %arg1: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}]>}, %arg2: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = arith.negf %arg0 : tensor<8xf32>
  %1 = arith.negf %arg1 : tensor<8xf32>
  %2 = arith.negf %arg2 : tensor<8xf32>
  spmd.sharding_group %1 group_id=0 : tensor<8xf32>
  spmd.sharding_group %0 group_id=0 : tensor<8xf32>
  spmd.sharding_group %0 group_id=1 : tensor<8xf32>
  spmd.sharding_group %2 group_id=1 : tensor<8xf32>
  return %0, %1, %2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that members with a sharding before propagation sync the others.
// CHECK-LABEL: func.func @group_initial_sync(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d", ?}]>}, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d", ?}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d", ?}]>}, tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d", ?}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"d", ?}]>]>} : tensor<8xf32>
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"d", ?}]>]>} : tensor<8xf32>
// CHECK: spmd.sharding_group %{{.*}} group_id=0 : tensor<8xf32>
// CHECK: spmd.sharding_group %{{.*}} group_id=0 : tensor<8xf32>
func.func @group_initial_sync(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"d", ?}]>]>} : tensor<8xf32>
  %1 = arith.negf %arg1 : tensor<8xf32>
  spmd.sharding_group %0 group_id=0 : tensor<8xf32>
  spmd.sharding_group %1 group_id=0 : tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}
