// RUN: tessera-opt %s --spmd-propagate -verify-diagnostics -o /dev/null
// RUN: tessera-opt %s --spmd-propagate 2>/dev/null | FileCheck %s

// Tests that members of one sharding group whose initial shardings differ
// get a warning and an open sharding constraint each (as Shardy does); the
// constraints, not the conflicting values, are the group's members and end
// up identical.
spmd.mesh @mesh = <["a"=2, "b"=2]>

// CHECK-LABEL: func.func @conflicting_members
func.func @conflicting_members(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}, %arg1: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  // CHECK: %[[X:.*]] = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a"}]>]>}
  // CHECK-NEXT: %[[CX:.*]] = spmd.sharding_constraint %[[X]] <@mesh, [{"a", ?}]>
  // CHECK-NEXT: %[[Y:.*]] = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b"}]>]>}
  // CHECK-NEXT: %[[CY:.*]] = spmd.sharding_constraint %[[Y]] <@mesh, [{"a", ?}]>
  // CHECK-NEXT: spmd.sharding_group %[[CX]] group_id=0
  // CHECK-NEXT: spmd.sharding_group %[[CY]] group_id=0
  // CHECK-NEXT: return %[[CX]], %[[CY]]
  // expected-warning @+1 {{the initial shardings of the members of sharding group 0 do not match; each member gets an open sharding constraint}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a"}]>]>} : tensor<8xf32>
  %1 = arith.negf %arg1 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b"}]>]>} : tensor<8xf32>
  spmd.sharding_group %0 group_id=0 : tensor<8xf32>
  spmd.sharding_group %1 group_id=0 : tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}
