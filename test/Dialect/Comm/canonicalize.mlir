// RUN: tessera-opt %s --split-input-file --canonicalize | FileCheck %s

// Tests the folders and canonicalization patterns of the comm ops. Cases
// named @negative_* must not change.

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that axis_size folds to a constant of each result type.
// CHECK-LABEL: func.func @axis_size
func.func @axis_size() -> (index, i32, i64, index) {
  // CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
  // CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i32
  // CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i64
  // CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
  // CHECK-NOT: comm.axis_size
  // CHECK: return %[[C8]], %[[C2]], %[[C4]], %[[C1]]
  %0 = comm.axis_size over @mesh {"x", "y", "z"} : index
  %1 = comm.axis_size over @mesh {"y":(2)2} : i32
  %2 = comm.axis_size over @mesh {"y"} : i64
  %3 = comm.axis_size over @mesh {} : index
  return %0, %1, %2, %3 : index, i32, i64, index
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that axis_index over a group of one device folds to 0.
// CHECK-LABEL: func.func @axis_index_single_device
func.func @axis_index_single_device() -> (index, i32) {
  // CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
  // CHECK-DAG: %[[C0_I32:.*]] = arith.constant 0 : i32
  // CHECK-NOT: comm.axis_index
  // CHECK: return %[[C0]], %[[C0_I32]]
  %0 = comm.axis_index over @mesh {"z"} : index
  %1 = comm.axis_index over @mesh {} : i32
  return %0, %1 : index, i32
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that axis_index over a real group stays, without its size-1 axes.
// CHECK-LABEL: func.func @negative_axis_index
func.func @negative_axis_index() -> index {
  // CHECK: %[[I:.*]] = comm.axis_index over @mesh {"x", "y"} : index
  // CHECK: return %[[I]]
  %0 = comm.axis_index over @mesh {"x", "z", "y"} : index
  return %0 : index
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that the sub-axes a dropped size-1 axis separated are merged when
// they form one (minor to major: "y":(2)2 then "y":(1)2 is "y").
// CHECK-LABEL: func.func @drop_and_merge
func.func @drop_and_merge() -> (index, index) {
  // CHECK: %[[I:.*]] = comm.axis_index over @mesh {"y"} : index
  // CHECK: %[[J:.*]] = comm.axis_index over @mesh {"y":(1)2, "y":(2)2} : index
  // CHECK: return %[[I]], %[[J]]
  %0 = comm.axis_index over @mesh {"y":(2)2, "z", "y":(1)2} : index
  %1 = comm.axis_index over @mesh {"y":(1)2, "z", "y":(2)2} : index
  return %0, %1 : index, index
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that collectives over a group of one device fold to their operand.
// CHECK-LABEL: func.func @single_device_group
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
func.func @single_device_group(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK-NOT: comm.
  // CHECK: return %[[X]]
  %0 = comm.all_reduce sum %x over @mesh {"z"} : tensor<4x8xf32>
  %1 = comm.all_reduce max %0 over @mesh {} : tensor<4x8xf32>
  %2 = comm.all_gather %1 over @mesh {"z"} dim 0 : tensor<4x8xf32> -> tensor<4x8xf32>
  %3 = comm.reduce_scatter prod %2 over @mesh {"z"} dim 1 : tensor<4x8xf32> -> tensor<4x8xf32>
  %4 = comm.all_to_all %3 over @mesh {"z"} split 0 concat 1 : tensor<4x8xf32> -> tensor<4x8xf32>
  %5 = comm.permute %4 over @mesh {"z"} pairs [0 -> 0] : tensor<4x8xf32>
  return %5 : tensor<4x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a collective over a real group does not fold.
// CHECK-LABEL: func.func @negative_all_reduce
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
func.func @negative_all_reduce(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[R:.*]] = comm.all_reduce sum %[[X]] over @mesh {"x"} : tensor<4xf32>
  // CHECK: return %[[R]]
  %0 = comm.all_reduce sum %x over @mesh {"x"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a single-device all_gather whose result type is more static
// than its operand does not fold (the types differ).
// CHECK-LABEL: func.func @negative_all_gather_refines_type
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>)
func.func @negative_all_gather_refines_type(%x: tensor<?x8xf32>) -> tensor<4x8xf32> {
  // CHECK: %[[G:.*]] = comm.all_gather %[[X]] over @mesh {"z"} dim 0 : tensor<?x8xf32> -> tensor<4x8xf32>
  // CHECK: return %[[G]]
  %0 = comm.all_gather %x over @mesh {"z"} dim 0 : tensor<?x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that size-1 axes are dropped from the axis lists of all_gather,
// reduce_scatter, all_to_all and permute.
// CHECK-LABEL: func.func @drop_size_one_axes
// CHECK-SAME: (%[[X:.*]]: tensor<8x8xf32>)
func.func @drop_size_one_axes(%x: tensor<8x8xf32>) -> (tensor<16x8xf32>, tensor<8x4xf32>, tensor<2x32xf32>, tensor<8x8xf32>) {
  // CHECK: comm.all_gather %[[X]] over @mesh {"x"} dim 0
  %0 = comm.all_gather %x over @mesh {"z", "x"} dim 0 : tensor<8x8xf32> -> tensor<16x8xf32>
  // CHECK: comm.reduce_scatter sum %[[X]] over @mesh {"x"} dim 1
  %1 = comm.reduce_scatter sum %x over @mesh {"x", "z"} dim 1 : tensor<8x8xf32> -> tensor<8x4xf32>
  // CHECK: comm.all_to_all %[[X]] over @mesh {"y"} split 0 concat 1
  %2 = comm.all_to_all %x over @mesh {"z", "y"} split 0 concat 1 : tensor<8x8xf32> -> tensor<2x32xf32>
  // CHECK: comm.permute %[[X]] over @mesh {"y"} pairs [0 -> 1, 1 -> 0]
  %3 = comm.permute %x over @mesh {"y", "z"} pairs [0 -> 1, 1 -> 0] : tensor<8x8xf32>
  return %0, %1, %2, %3 : tensor<16x8xf32>, tensor<8x4xf32>, tensor<2x32xf32>, tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that an all_to_all undoing the all_to_all that produced its operand
// folds to the original operand.
// CHECK-LABEL: func.func @all_to_all_inverse
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>)
func.func @all_to_all_inverse(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // CHECK-NOT: comm.all_to_all
  // CHECK: return %[[X]]
  %0 = comm.all_to_all %x over @mesh {"x", "y"} split 0 concat 1 : tensor<8x4xf32> -> tensor<1x32xf32>
  %1 = comm.all_to_all %0 over @mesh {"x", "y"} split 1 concat 0 : tensor<1x32xf32> -> tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that two all_to_alls over differently ordered axes do not cancel.
// CHECK-LABEL: func.func @negative_all_to_all_other_order
func.func @negative_all_to_all_other_order(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // CHECK: %[[A:.*]] = comm.all_to_all %{{.*}} over @mesh {"x", "y"} split 0 concat 1
  // CHECK: %[[B:.*]] = comm.all_to_all %[[A]] over @mesh {"y", "x"} split 1 concat 0
  // CHECK: return %[[B]]
  %0 = comm.all_to_all %x over @mesh {"x", "y"} split 0 concat 1 : tensor<8x4xf32> -> tensor<1x32xf32>
  %1 = comm.all_to_all %0 over @mesh {"y", "x"} split 1 concat 0 : tensor<1x32xf32> -> tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a permute sending every device of the group to itself folds.
// CHECK-LABEL: func.func @permute_identity
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
func.func @permute_identity(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NOT: comm.permute
  // CHECK: return %[[X]]
  %0 = comm.permute %x over @mesh {"y"} pairs [2 -> 2, 0 -> 0, 3 -> 3, 1 -> 1] : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that an identity on part of the group does not fold: the devices
// left out receive zeros.
// CHECK-LABEL: func.func @negative_permute_partial_identity
func.func @negative_permute_partial_identity(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[P:.*]] = comm.permute %{{.*}} over @mesh {"y"} pairs [0 -> 0, 1 -> 1] : tensor<4xf32>
  // CHECK: return %[[P]]
  %0 = comm.permute %x over @mesh {"y"} pairs [0 -> 0, 1 -> 1] : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a permute without pairs becomes zeros.
// CHECK-LABEL: func.func @permute_without_pairs
func.func @permute_without_pairs(%x: tensor<4xf32>, %i: tensor<2xi32>) -> (tensor<4xf32>, tensor<2xi32>) {
  // CHECK-DAG: %[[ZF:.*]] = arith.constant dense<0.000000e+00> : tensor<4xf32>
  // CHECK-DAG: %[[ZI:.*]] = arith.constant dense<0> : tensor<2xi32>
  // CHECK-NOT: comm.permute
  // CHECK: return %[[ZF]], %[[ZI]]
  %0 = comm.permute %x over @mesh {"x"} pairs [] : tensor<4xf32>
  %1 = comm.permute %i over @mesh {"z"} pairs [] : tensor<2xi32>
  return %0, %1 : tensor<4xf32>, tensor<2xi32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a permute without pairs stays when no zero constant can be
// built: a dynamic shape, or complex elements.
// CHECK-LABEL: func.func @negative_permute_without_pairs
func.func @negative_permute_without_pairs(%x: tensor<?xf32>, %c: tensor<2xcomplex<f32>>) -> (tensor<?xf32>, tensor<2xcomplex<f32>>) {
  // CHECK: %[[P:.*]] = comm.permute %{{.*}} over @mesh {"x"} pairs [] : tensor<?xf32>
  // CHECK: %[[Q:.*]] = comm.permute %{{.*}} over @mesh {"y"} pairs [] : tensor<2xcomplex<f32>>
  // CHECK: return %[[P]], %[[Q]]
  %0 = comm.permute %x over @mesh {"x"} pairs [] : tensor<?xf32>
  %1 = comm.permute %c over @mesh {"y"} pairs [] : tensor<2xcomplex<f32>>
  return %0, %1 : tensor<?xf32>, tensor<2xcomplex<f32>>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that two chained shifts compose into one, and that the devices
// that receive nothing in either permute still receive nothing.
// CHECK-LABEL: func.func @compose_permutes
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
func.func @compose_permutes(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // CHECK: %[[A:.*]] = comm.permute %[[X]] over @mesh {"y"} pairs [0 -> 2, 1 -> 3, 2 -> 0, 3 -> 1] : tensor<4xf32>
  %0 = comm.permute %x over @mesh {"y"} pairs [0 -> 1, 1 -> 2, 2 -> 3, 3 -> 0] : tensor<4xf32>
  %1 = comm.permute %0 over @mesh {"y"} pairs [0 -> 1, 1 -> 2, 2 -> 3, 3 -> 0] : tensor<4xf32>
  // CHECK: %[[B:.*]] = comm.permute %[[X]] over @mesh {"y"} pairs [0 -> 2] : tensor<4xf32>
  %2 = comm.permute %x over @mesh {"y"} pairs [0 -> 1, 1 -> 2] : tensor<4xf32>
  %3 = comm.permute %2 over @mesh {"y"} pairs [1 -> 2, 3 -> 0] : tensor<4xf32>
  // CHECK: return %[[A]], %[[B]]
  return %1, %3 : tensor<4xf32>, tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a shift followed by the opposite shift cancels out.
// CHECK-LABEL: func.func @compose_permutes_to_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x2xf32>)
func.func @compose_permutes_to_identity(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // CHECK-NOT: comm.permute
  // CHECK: return %[[X]]
  %0 = comm.permute %x over @mesh {"x", "y"} pairs [0 -> 1, 1 -> 2, 2 -> 3, 3 -> 4, 4 -> 5, 5 -> 6, 6 -> 7, 7 -> 0] : tensor<2x2xf32>
  %1 = comm.permute %0 over @mesh {"x", "y"} pairs [1 -> 0, 2 -> 1, 3 -> 2, 4 -> 3, 5 -> 4, 6 -> 5, 7 -> 6, 0 -> 7] : tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that a permute with another use, or over other axes, does not
// compose.
// CHECK-LABEL: func.func @negative_compose_permutes
func.func @negative_compose_permutes(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  // CHECK: %[[A:.*]] = comm.permute %{{.*}} over @mesh {"y"} pairs [0 -> 1, 1 -> 0]
  // CHECK: %[[B:.*]] = comm.permute %[[A]] over @mesh {"y"} pairs [0 -> 1, 1 -> 0]
  // CHECK: %[[C:.*]] = comm.permute %[[A]] over @mesh {"x"} pairs [0 -> 1, 1 -> 0]
  // CHECK: return %[[A]], %[[B]], %[[C]]
  %0 = comm.permute %x over @mesh {"y"} pairs [0 -> 1, 1 -> 0] : tensor<4xf32>
  %1 = comm.permute %0 over @mesh {"y"} pairs [0 -> 1, 1 -> 0] : tensor<4xf32>
  %2 = comm.permute %0 over @mesh {"x"} pairs [0 -> 1, 1 -> 0] : tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=8, "z"=1]>

// Tests that an all_reduce's axes become a canonical set: mesh order,
// merged sub-axes, no size-1 axes.
// CHECK-LABEL: func.func @all_reduce_canonical_axes
func.func @all_reduce_canonical_axes(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  // CHECK: comm.all_reduce sum %{{.*}} over @mesh {"x", "y"} : tensor<4xf32>
  %0 = comm.all_reduce sum %x over @mesh {"y", "z", "x"} : tensor<4xf32>
  // CHECK: comm.all_reduce max %{{.*}} over @mesh {"y"} : tensor<4xf32>
  %1 = comm.all_reduce max %x over @mesh {"y":(1)4, "y":(4)2} : tensor<4xf32>
  // CHECK: comm.all_reduce min %{{.*}} over @mesh {"y":(1)2, "y":(4)2} : tensor<4xf32>
  %2 = comm.all_reduce min %x over @mesh {"y":(4)2, "y":(1)2} : tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=8, "z"=1]>

// Tests that equal all_reduces written with differently ordered axes become
// identical ops (so that CSE merges them).
// CHECK-LABEL: func.func @all_reduce_canonical_axes_cse
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
func.func @all_reduce_canonical_axes_cse(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // CHECK: %[[A:.*]] = comm.all_reduce sum %[[X]] over @mesh {"x", "y"} : tensor<4xf32>
  // CHECK: %[[B:.*]] = comm.all_reduce sum %[[X]] over @mesh {"x", "y"} : tensor<4xf32>
  // CHECK: return %[[A]], %[[B]]
  %0 = comm.all_reduce sum %x over @mesh {"x", "y"} : tensor<4xf32>
  %1 = comm.all_reduce sum %x over @mesh {"y", "x"} : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=8, "z"=1]>

// Tests that nested all_reduces of one kind over disjoint axes merge,
// including complementary sub-axes of one axis.
// CHECK-LABEL: func.func @merge_nested_all_reduces
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi32>)
func.func @merge_nested_all_reduces(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  // CHECK: %[[A:.*]] = comm.all_reduce sum %[[X]] over @mesh {"x", "y"} : tensor<4xf32>
  %0 = comm.all_reduce sum %x over @mesh {"y"} : tensor<4xf32>
  %1 = comm.all_reduce sum %0 over @mesh {"x"} : tensor<4xf32>
  // CHECK: %[[B:.*]] = comm.all_reduce max %[[I]] over @mesh {"y"} : tensor<4xi32>
  %2 = comm.all_reduce max %i over @mesh {"y":(1)2} : tensor<4xi32>
  %3 = comm.all_reduce max %2 over @mesh {"y":(2)4} : tensor<4xi32>
  // CHECK: return %[[A]], %[[B]]
  return %1, %3 : tensor<4xf32>, tensor<4xi32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=8, "z"=1]>

// Tests that nested all_reduces do not merge with different kinds,
// overlapping axes (summing twice over "x" multiplies by 2), or when the
// inner one has another use.
// CHECK-LABEL: func.func @negative_merge_nested_all_reduces
func.func @negative_merge_nested_all_reduces(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  // CHECK: %[[A:.*]] = comm.all_reduce sum %{{.*}} over @mesh {"y"}
  // CHECK: comm.all_reduce max %[[A]] over @mesh {"x"}
  %0 = comm.all_reduce sum %x over @mesh {"y"} : tensor<4xf32>
  %1 = comm.all_reduce max %0 over @mesh {"x"} : tensor<4xf32>
  // CHECK: %[[B:.*]] = comm.all_reduce sum %{{.*}} over @mesh {"x"}
  // CHECK: comm.all_reduce sum %[[B]] over @mesh {"x"}
  %2 = comm.all_reduce sum %x over @mesh {"x"} : tensor<4xf32>
  %3 = comm.all_reduce sum %2 over @mesh {"x"} : tensor<4xf32>
  // CHECK: %[[C:.*]] = comm.all_reduce min %{{.*}} over @mesh {"y"}
  // CHECK: %[[D:.*]] = comm.all_reduce min %[[C]] over @mesh {"x"}
  // CHECK: return %{{.*}}, %{{.*}}, %[[C]], %[[D]]
  %4 = comm.all_reduce min %x over @mesh {"y"} : tensor<4xf32>
  %5 = comm.all_reduce min %4 over @mesh {"x"} : tensor<4xf32>
  return %1, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=8, "z"=1]>

// Tests that an all_reduce outside a loop does not merge into one inside it:
// the merged reduction would run on every iteration.
// CHECK-LABEL: func.func @negative_merge_into_loop
func.func @negative_merge_into_loop(%x: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  // CHECK: %[[A:.*]] = comm.all_reduce sum %{{.*}} over @mesh {"y"}
  // CHECK: scf.for
  // CHECK: comm.all_reduce sum %[[A]] over @mesh {"x"}
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = comm.all_reduce sum %x over @mesh {"y"} : tensor<4xf32>
  %1 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<4xf32>) {
    %2 = comm.all_reduce sum %0 over @mesh {"x"} : tensor<4xf32>
    %3 = arith.addf %acc, %2 : tensor<4xf32>
    scf.yield %3 : tensor<4xf32>
  }
  return %1 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that collectives in a shard_map body fold and canonicalize.
// CHECK-LABEL: func.func @in_manual_computation
func.func @in_manual_computation(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // CHECK: spmd.manual_computation
  // CHECK-SAME: manual_axes={"x", "y", "z"} (%[[L:.*]]: tensor<4xf32>)
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x", "y", "z"} (%l: tensor<4xf32>) {
    // CHECK: %[[R:.*]] = comm.all_reduce sum %[[L]] over @mesh {"x", "y"}
    // CHECK: spmd.return %[[R]]
    %1 = comm.all_reduce sum %l over @mesh {"z"} : tensor<4xf32>
    %2 = comm.all_reduce sum %1 over @mesh {"y"} : tensor<4xf32>
    %3 = comm.all_reduce sum %2 over @mesh {"x"} : tensor<4xf32>
    spmd.return %3 : tensor<4xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
