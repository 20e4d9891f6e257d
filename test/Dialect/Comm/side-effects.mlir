// RUN: tessera-opt %s --split-input-file --cse --control-flow-sink --loop-invariant-code-motion --canonicalize | FileCheck %s

// Tests how generic transformations treat comm ops: collectives are erased
// when unused and CSE'd, but never sunk into conditional regions or hoisted
// out of loops (every device of a group must execute them together);
// axis_index and axis_size are pure.

spmd.mesh @mesh = <["x"=2, "y"=4]>

// Tests that an unused collective is erased.
// CHECK-LABEL: func.func @unused_collective
func.func @unused_collective(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NOT: comm.all_reduce
  // CHECK: return
  %0 = comm.all_reduce sum %x over @mesh {"x"} : tensor<4xf32>
  return %x : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4]>

// Tests that equal collectives are merged.
// CHECK-LABEL: func.func @cse_collectives
func.func @cse_collectives(%x: tensor<4xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  // CHECK: %[[G:.*]] = comm.all_gather
  // CHECK-NOT: comm.all_gather
  // CHECK: return %[[G]], %[[G]]
  %0 = comm.all_gather %x over @mesh {"x"} dim 0 : tensor<4xf32> -> tensor<8xf32>
  %1 = comm.all_gather %x over @mesh {"x"} dim 0 : tensor<4xf32> -> tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4]>

// Tests that a collective used only in one branch stays before the branch,
// while an effect-free op used there is sunk into it.
// CHECK-LABEL: func.func @no_sinking_into_branch
// CHECK-SAME: (%[[C:.*]]: i1, %[[X:.*]]: tensor<4xf32>)
func.func @no_sinking_into_branch(%c: i1, %x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[R:.*]] = comm.all_reduce sum %[[X]] over @mesh {"x"}
  // CHECK: scf.if %[[C]]
  // CHECK:   %[[N:.*]] = arith.negf %[[X]]
  // CHECK:   arith.addf %[[R]], %[[N]]
  %0 = comm.all_reduce sum %x over @mesh {"x"} : tensor<4xf32>
  %1 = arith.negf %x : tensor<4xf32>
  %2 = scf.if %c -> tensor<4xf32> {
    %3 = arith.addf %0, %1 : tensor<4xf32>
    scf.yield %3 : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  return %2 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4]>

// Tests that a loop-invariant collective stays in its loop, while the pure
// axis_index is hoisted.
// CHECK-LABEL: func.func @no_hoisting_out_of_loop
func.func @no_hoisting_out_of_loop(%x: tensor<4xf32>, %n: index) -> (tensor<4xf32>, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: %[[I:.*]] = comm.axis_index over @mesh {"y"} : index
  // CHECK: scf.for
  // CHECK:   comm.permute %{{.*}} over @mesh {"y"}
  // CHECK:   arith.addi %{{.*}}, %[[I]]
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x, %s = %c0) -> (tensor<4xf32>, index) {
    %p = comm.permute %x over @mesh {"y"} pairs [0 -> 1, 1 -> 0] : tensor<4xf32>
    %a = arith.addf %acc, %p : tensor<4xf32>
    %idx = comm.axis_index over @mesh {"y"} : index
    %t = arith.addi %s, %idx : index
    scf.yield %a, %t : tensor<4xf32>, index
  }
  return %r#0, %r#1 : tensor<4xf32>, index
}
