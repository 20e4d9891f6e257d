// RUN: tessera-opt %s -split-input-file --spmd-apply-sharding-constraints | FileCheck %s

spmd.mesh @mesh = <["a"=2, "b"=2]>

// Tests that a fully closed constraint becomes the sharding of its
// unsharded input (an op result).
// CHECK-LABEL: func.func @applied_to_op_result
func.func @applied_to_op_result(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // CHECK: arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a"}, {}]>]>}
  %0 = arith.negf %arg0 : tensor<8x8xf32>
  %1 = spmd.sharding_constraint %0 <@mesh, [{"a"}, {}]> : tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2]>

// Tests that a function argument takes the constraint too.
// CHECK-LABEL: func.func @applied_to_argument
// CHECK-SAME: (%{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}]>})
func.func @applied_to_argument(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = spmd.sharding_constraint %arg0 <@mesh, [{"b"}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2]>

// Tests that a constraint with an open dim is not applied.
// CHECK-LABEL: func.func @open_not_applied
// CHECK: %[[N:.*]] = arith.negf %{{.*}} : tensor<8x8xf32>
func.func @open_not_applied(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = arith.negf %arg0 : tensor<8x8xf32>
  %1 = spmd.sharding_constraint %0 <@mesh, [{"a"}, {?}]> : tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2]>

// Tests that an input that already has a sharding keeps it.
// CHECK-LABEL: func.func @sharded_input_kept
// CHECK: arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b"}]>]>}
func.func @sharded_input_kept(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b"}]>]>} : tensor<8xf32>
  %1 = spmd.sharding_constraint %0 <@mesh, [{"a"}]> : tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2]>

// Tests that two disagreeing constraints on one input apply neither, while
// two equal ones apply.
// CHECK-LABEL: func.func @disagreeing_and_agreeing
// CHECK: %[[X:.*]] = arith.negf %{{.*}} : tensor<8xf32>
// CHECK: arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a"}]>]>}
func.func @disagreeing_and_agreeing(%arg0: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = arith.negf %arg0 : tensor<8xf32>
  %1 = spmd.sharding_constraint %0 <@mesh, [{"a"}]> : tensor<8xf32>
  %2 = spmd.sharding_constraint %0 <@mesh, [{"b"}]> : tensor<8xf32>
  %3 = arith.negf %arg0 : tensor<8xf32>
  %4 = spmd.sharding_constraint %3 <@mesh, [{"a"}]> : tensor<8xf32>
  %5 = spmd.sharding_constraint %3 <@mesh, [{"a"}]> : tensor<8xf32>
  return %1, %2, %4, %5 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2]>

// Tests that a manual computation using the input with another sharding
// blocks the constraint.
// CHECK-LABEL: func.func @manual_computation_disagrees
// CHECK: %[[X:.*]] = arith.negf %{{.*}} : tensor<8xf32>
func.func @manual_computation_disagrees(%arg0: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = arith.negf %arg0 : tensor<8xf32>
  %1 = spmd.sharding_constraint %0 <@mesh, [{"a"}]> : tensor<8xf32>
  %2 = spmd.manual_computation(%0) in_shardings=[<@mesh, [{"b"}]>] out_shardings=[<@mesh, [{"b"}]>] manual_axes={"b"} (%arg1: tensor<4xf32>) {
    spmd.return %arg1 : tensor<4xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %1, %2 : tensor<8xf32>, tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2]>

// Tests that a loop's block argument (on a data-flow edge) is not given the
// constraint's sharding.
// CHECK-LABEL: func.func @data_flow_edge_untouched
// CHECK: scf.for
// CHECK-NEXT: spmd.sharding_constraint
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }{{$}}
func.func @data_flow_edge_untouched(%arg0: tensor<8xf32>, %n: index) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %arg0) -> tensor<8xf32> {
    %c = spmd.sharding_constraint %acc <@mesh, [{"a"}]> : tensor<8xf32>
    scf.yield %c : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
