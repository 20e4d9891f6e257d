// RUN: tessera-opt %s --spmd-lower-replicated --split-input-file | FileCheck %s

// A manual computation over "x": the operand is cut at axis_index * 4 on
// dim 0, the body is inlined, and the result (sharded over "x" on dim 0) is
// gathered back.
spmd.mesh @mesh = <["x"=4, "y"=2]>

// CHECK-LABEL: func.func @sharded_in_out
// CHECK-SAME: (%[[ARG:.*]]: tensor<16x8xf32>)
func.func @sharded_in_out(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // CHECK: %[[IDX:.*]] = comm.axis_index over @mesh {"x"} : index
  // CHECK: %[[C4:.*]] = arith.constant 4 : index
  // CHECK: %[[OFF:.*]] = arith.muli %[[IDX]], %[[C4]] : index
  // CHECK: %[[LOCAL:.*]] = tensor.extract_slice %[[ARG]][%[[OFF]], 0] [4, 8] [1, 1] : tensor<16x8xf32> to tensor<4x8xf32>
  // CHECK: %[[NEG:.*]] = arith.negf %[[LOCAL]] : tensor<4x8xf32>
  // CHECK: %[[G:.*]] = comm.all_gather %[[NEG]] over @mesh {"x"} dim 0 : tensor<4x8xf32> -> tensor<16x8xf32>
  // CHECK: return %[[G]]
  // CHECK-NOT: spmd.manual_computation
  %0 = spmd.manual_computation(%arg0)
      in_shardings=[<@mesh, [{"x"}, {}]>]
      out_shardings=[<@mesh, [{"x"}, {}]>]
      manual_axes={"x"}
      (%l: tensor<4x8xf32>) {
    %n = arith.negf %l : tensor<4x8xf32>
    spmd.return %n : tensor<4x8xf32>
  } : (tensor<16x8xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// Two manual axes on one dim and a manual axis on the other; a free axis
// after the manual ones does not cut; a replicated result is the device's
// own value.
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2]>

// CHECK-LABEL: func.func @two_dims
func.func @two_dims(%arg0: tensor<8x6xf32>) -> (tensor<8x6xf32>, tensor<2x3xf32>) {
  // CHECK-DAG: %[[I0:.*]] = comm.axis_index over @mesh {"x", "y"} : index
  // CHECK-DAG: %[[I1:.*]] = comm.axis_index over @mesh {"z"} : index
  // CHECK: tensor.extract_slice %{{.*}}[%{{.*}}, %{{.*}}] [2, 3] [1, 1] : tensor<8x6xf32> to tensor<2x3xf32>
  // CHECK: %[[R:.*]] = comm.all_reduce sum %{{.*}} over @mesh {"x", "y", "z"} : tensor<2x3xf32>
  // CHECK: %[[G0:.*]] = comm.all_gather %{{.*}} over @mesh {"x", "y"} dim 0 : tensor<2x3xf32> -> tensor<8x3xf32>
  // CHECK: %[[G1:.*]] = comm.all_gather %[[G0]] over @mesh {"z"} dim 1 : tensor<8x3xf32> -> tensor<8x6xf32>
  // CHECK: return %[[G1]], %[[R]]
  %0:2 = spmd.manual_computation(%arg0)
      in_shardings=[<@mesh, [{"x", "y"}, {"z"}]>]
      out_shardings=[<@mesh, [{"x", "y"}, {"z"}]>, <@mesh, [{}, {}]>]
      manual_axes={"x", "y", "z"}
      (%l: tensor<2x3xf32>) {
    %s = comm.all_reduce sum %l over @mesh {"x", "y", "z"} : tensor<2x3xf32>
    spmd.return %l, %s : tensor<2x3xf32>, tensor<2x3xf32>
  } : (tensor<8x6xf32>) -> (tensor<8x6xf32>, tensor<2x3xf32>)
  return %0#0, %0#1 : tensor<8x6xf32>, tensor<2x3xf32>
}

// -----

// Free axes after manual ones do not cut; unreduced manual axes in an
// out_sharding are all-reduced with the sharding's kind.
spmd.mesh @mesh = <["x"=2, "y"=4]>

// CHECK-LABEL: func.func @free_and_unreduced
func.func @free_and_unreduced(%arg0: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  // CHECK: %[[I:.*]] = comm.axis_index over @mesh {"x"} : index
  // CHECK: %[[L:.*]] = tensor.extract_slice %{{.*}}[%{{.*}}, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
  // CHECK: %[[G:.*]] = comm.all_gather %[[L]] over @mesh {"x"} dim 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  // CHECK-NOT: comm.all_gather
  // CHECK: %[[R:.*]] = comm.all_reduce max %arg0 over @mesh {"x"} : tensor<8x8xf32>
  // CHECK: return %[[G]], %[[R]]
  %0:2 = spmd.manual_computation(%arg0, %arg0)
      in_shardings=[<@mesh, [{"x", "y"}, {}]>, <@mesh, [{}, {}]>]
      out_shardings=[<@mesh, [{"x", "y"}, {}]>, <@mesh, [{"y"}, {}], unreduced=max{"x"}>]
      manual_axes={"x"}
      (%l: tensor<4x8xf32>, %r: tensor<8x8xf32>) {
    spmd.return %l, %r : tensor<4x8xf32>, tensor<8x8xf32>
  } : (tensor<8x8xf32>, tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>)
  return %0#0, %0#1 : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// Sharding ops are identities; annotations and axis-type regions go away.
spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, auto]>

// CHECK-LABEL: func.func @identities
// CHECK-SAME: (%[[A:.*]]: tensor<4x4xf32>) -> tensor<4x4xf32>
func.func @identities(%a: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) {
  // CHECK-NEXT: %[[N:.*]] = arith.negf %[[A]] : tensor<4x4xf32>
  // CHECK-NEXT: %[[M:.*]] = arith.mulf %[[N]], %[[N]] : tensor<4x4xf32>
  // CHECK-NEXT: return %[[M]] : tensor<4x4xf32>
  %c = spmd.sharding_constraint %a <@mesh, [{"x"}, {}]> : tensor<4x4xf32>
  %r = spmd.reshard %c <@mesh, [{}, {}]> : tensor<4x4xf32>
  %b = spmd.propagation_barrier %r allowed_direction=NONE : tensor<4x4xf32>
  spmd.sharding_group %b group_id=0 : tensor<4x4xf32>
  %n = arith.negf %b {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>} : tensor<4x4xf32>
  %e = spmd.auto_axes(%n) axes={"x"} out_shardings=[<@mesh, [{"x"}, {}]>] (%in: tensor<4x4xf32>) {
    %m = arith.mulf %in, %in : tensor<4x4xf32>
    spmd.return %m : tensor<4x4xf32>
  } : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %e : tensor<4x4xf32>
}
