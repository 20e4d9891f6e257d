// RUN: tessera-opt %s --split-input-file | tessera-opt --split-input-file | FileCheck %s
// RUN: tessera-opt %s --split-input-file --mlir-print-op-generic | tessera-opt --split-input-file | FileCheck %s
// RUN: tessera-opt %s --split-input-file --verify-roundtrip | FileCheck %s

// Round trip of every spmd op (custom and generic forms).

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests that sharding_constraint prints its sharding without the attribute
// prefix, with open and closed dimensions.
// CHECK-LABEL: func.func @sharding_constraint
// CHECK-SAME: (%[[ARG:.*]]: tensor<8x8xf32>)
func.func @sharding_constraint(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // CHECK: %[[C:.*]] = spmd.sharding_constraint %[[ARG]] <@mesh, [{"x"}, {?}]> : tensor<8x8xf32>
  %0 = spmd.sharding_constraint %arg0 <@mesh, [{"x"}, {?}]> : tensor<8x8xf32>
  // CHECK: return %[[C]]
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2]>

// Tests that a dangling sharding_constraint with priorities, replicated and
// unreduced axes round-trips and is kept.
// CHECK-LABEL: func.func @sharding_constraint_dangling
func.func @sharding_constraint_dangling(%arg0: tensor<8x8xf32>) {
  // CHECK: spmd.sharding_constraint %{{.*}} <@mesh, [{"x", ?}p1, {}], replicated={"y"}, unreduced={"z"}> : tensor<8x8xf32>
  %0 = spmd.sharding_constraint %arg0 <@mesh, [{"x", ?}p1, {}], replicated={"y"}, unreduced={"z"}> : tensor<8x8xf32>
  return
}

// -----

// Tests that a sharding_constraint may use an inlined mesh.
// CHECK-LABEL: func.func @sharding_constraint_inlined_mesh
func.func @sharding_constraint_inlined_mesh(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // CHECK: spmd.sharding_constraint %{{.*}} <mesh<["a"=4]>, [{"a"}]> : tensor<8xf32>
  %0 = spmd.sharding_constraint %arg0 <mesh<["a"=4]>, [{"a"}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=2]>

// Tests reshard, with a sub-axis and a max-unreduced target.
// CHECK-LABEL: func.func @reshard
// CHECK-SAME: (%[[ARG:.*]]: tensor<8x8xf32>
func.func @reshard(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x8xf32> {
  // CHECK: %[[R0:.*]] = spmd.reshard %[[ARG]] <@mesh, [{"x":(1)2}, {"y"}]> : tensor<8x8xf32>
  %0 = spmd.reshard %arg0 <@mesh, [{"x":(1)2}, {"y"}]> : tensor<8x8xf32>
  // CHECK: %[[R1:.*]] = spmd.reshard %[[R0]] <@mesh, [{}, {}], unreduced={"y"}> : tensor<8x8xf32>
  %1 = spmd.reshard %0 <@mesh, [{}, {}], unreduced={"y"}> : tensor<8x8xf32>
  // CHECK: return %[[R1]]
  return %1 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests a manual computation over all axes (the body is per device).
// CHECK-LABEL: func.func @manual_computation
// CHECK-SAME: (%[[A:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<16x8xf32>)
func.func @manual_computation(%arg0: tensor<8x16xf32>, %arg1: tensor<16x8xf32>) -> tensor<8x8xf32> {
  // CHECK:      %[[MC:.*]] = spmd.manual_computation(%[[A]], %[[B]])
  // CHECK-SAME:   in_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{}, {"y"}]>]
  // CHECK-SAME:   out_shardings=[<@mesh, [{"x"}, {"y"}]>]
  // CHECK-SAME:   manual_axes={"x", "y"}
  // CHECK-SAME:   (%[[LA:.*]]: tensor<4x16xf32>, %[[LB:.*]]: tensor<16x4xf32>) {
  // CHECK-NEXT:   %[[E:.*]] = tensor.empty() : tensor<4x4xf32>
  // CHECK-NEXT:   %[[MM:.*]] = linalg.matmul ins(%[[LA]], %[[LB]] : tensor<4x16xf32>, tensor<16x4xf32>) outs(%[[E]] : tensor<4x4xf32>) -> tensor<4x4xf32>
  // CHECK-NEXT:   spmd.return %[[MM]] : tensor<4x4xf32>
  // CHECK-NEXT: } : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  %0 = spmd.manual_computation(%arg0, %arg1)
      in_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{}, {"y"}]>]
      out_shardings=[<@mesh, [{"x"}, {"y"}]>]
      manual_axes={"x", "y"} (%la: tensor<4x16xf32>, %lb: tensor<16x4xf32>) {
    %e = tensor.empty() : tensor<4x4xf32>
    %mm = linalg.matmul ins(%la, %lb : tensor<4x16xf32>, tensor<16x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
    spmd.return %mm : tensor<4x4xf32>
  } : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  // CHECK: return %[[MC]]
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2]>

// Tests free axes after the manual ones, a nested manual computation on
// another axis, and a free-axis constraint inside the body.
// CHECK-LABEL: func.func @manual_computation_nested_and_free_axes
func.func @manual_computation_nested_and_free_axes(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // CHECK: spmd.manual_computation(%{{.*}}) in_shardings=[<@mesh, [{"x", "z", ?}, {?}]>] out_shardings=[<@mesh, [{"x", ?}, {?}]>] manual_axes={"x"} (%[[L1:.*]]: tensor<8x8xf32>) {
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{"x", "z", ?}, {?}]>] out_shardings=[<@mesh, [{"x", ?}, {?}]>] manual_axes={"x"} (%arg1: tensor<8x8xf32>) {
    // CHECK: spmd.sharding_constraint %[[L1]] <@mesh, [{"z"}, {}]>
    %1 = spmd.sharding_constraint %arg1 <@mesh, [{"z"}, {}]> : tensor<8x8xf32>
    // CHECK: spmd.manual_computation(%{{.*}}) in_shardings=[<@mesh, [{}, {"y"}]>] out_shardings=[<@mesh, [{}, {"y"}]>] manual_axes={"y"} (%{{.*}}: tensor<8x4xf32>) {
    %2 = spmd.manual_computation(%1) in_shardings=[<@mesh, [{}, {"y"}]>] out_shardings=[<@mesh, [{}, {"y"}]>] manual_axes={"y"} (%arg2: tensor<8x4xf32>) {
      %3 = arith.negf %arg2 : tensor<8x4xf32>
      spmd.return %3 : tensor<8x4xf32>
    } : (tensor<8x8xf32>) -> tensor<8x8xf32>
    spmd.return %2 : tensor<8x8xf32>
  } : (tensor<16x8xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2]>

// Tests a manual computation without operands, results or manual axes, and
// the implicit terminator of an empty body.
// CHECK-LABEL: func.func @manual_computation_empty
func.func @manual_computation_empty() {
  // CHECK:      spmd.manual_computation() in_shardings=[] out_shardings=[] manual_axes={} () {
  // CHECK-NEXT:   spmd.return
  // CHECK-NEXT: } : () -> ()
  spmd.manual_computation() in_shardings=[] out_shardings=[] manual_axes={} () {
  } : () -> ()
  return
}

// -----

spmd.mesh @mesh = <["x"=4]>

// Tests dynamic dimensions (they stay dynamic in the body) and several
// results.
// CHECK-LABEL: func.func @manual_computation_dynamic
func.func @manual_computation_dynamic(%arg0: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>) {
  // CHECK: %[[MC:.*]]:2 = spmd.manual_computation(%{{.*}}) in_shardings=[<@mesh, [{}, {"x"}]>] out_shardings=[<@mesh, [{}, {"x"}]>, <@mesh, [{}, {}]>] manual_axes={"x"} (%{{.*}}: tensor<?x2xf32>) {
  // CHECK: } : (tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>)
  %0:2 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{}, {"x"}]>] out_shardings=[<@mesh, [{}, {"x"}]>, <@mesh, [{}, {}]>] manual_axes={"x"} (%arg1: tensor<?x2xf32>) {
    %c0 = arith.constant 0 : index
    %d = tensor.dim %arg1, %c0 : tensor<?x2xf32>
    %e = tensor.empty(%d) : tensor<?x8xf32>
    spmd.return %arg1, %e : tensor<?x2xf32>, tensor<?x8xf32>
  } : (tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>)
  return %0#0, %0#1 : tensor<?x8xf32>, tensor<?x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests sharding groups.
// CHECK-LABEL: func.func @sharding_group
func.func @sharding_group(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>) {
  // CHECK: spmd.sharding_group %{{.*}} group_id=0 : tensor<8xf32>
  spmd.sharding_group %arg0 group_id=0 : tensor<8xf32>
  // CHECK: spmd.sharding_group %{{.*}} group_id=0 : tensor<8xf32>
  spmd.sharding_group %arg1 group_id=0 : tensor<8xf32>
  // CHECK: spmd.sharding_group %{{.*}} group_id=12 : tensor<8xf32>
  spmd.sharding_group %arg1 group_id=12 : tensor<8xf32>
  return
}

// -----

// Tests the three allowed propagation barrier directions.
// CHECK-LABEL: func.func @propagation_barrier
func.func @propagation_barrier(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // CHECK: %[[B0:.*]] = spmd.propagation_barrier %{{.*}} allowed_direction=NONE : tensor<8xf32>
  %0 = spmd.propagation_barrier %arg0 allowed_direction=NONE : tensor<8xf32>
  // CHECK: %[[B1:.*]] = spmd.propagation_barrier %[[B0]] allowed_direction=FORWARD : tensor<8xf32>
  %1 = spmd.propagation_barrier %0 allowed_direction=FORWARD : tensor<8xf32>
  // CHECK: spmd.propagation_barrier %[[B1]] allowed_direction=BACKWARD : tensor<8xf32>
  %2 = spmd.propagation_barrier %1 allowed_direction=BACKWARD : tensor<8xf32>
  return %2 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

// Tests auto_axes: the body sees "x" as auto; out_shardings uses explicit axes.
// CHECK-LABEL: func.func @auto_axes
// CHECK-SAME: (%[[ARG:.*]]: tensor<8x4xf32>
func.func @auto_axes(%arg0: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<8x4xf32> {
  // CHECK:      %[[AA:.*]] = spmd.auto_axes(%[[ARG]]) axes={"x"} out_shardings=[<@mesh, [{"x"}, {}]>] (%[[IN:.*]]: tensor<8x4xf32>) {
  // CHECK-NEXT:   %[[N:.*]] = arith.negf %[[IN]] : tensor<8x4xf32>
  // CHECK-NEXT:   spmd.return %[[N]] : tensor<8x4xf32>
  // CHECK-NEXT: } : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %0 = spmd.auto_axes(%arg0) axes={"x"} out_shardings=[<@mesh, [{"x"}, {}]>] (%arg1: tensor<8x4xf32>) {
    %1 = arith.negf %arg1 : tensor<8x4xf32>
    spmd.return %1 : tensor<8x4xf32>
  } : (tensor<8x4xf32>) -> tensor<8x4xf32>
  // CHECK: return %[[AA]]
  return %0 : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests explicit_axes nested in auto_axes-free code, with an explicit_axes
// body that switches one axis back to auto.
// CHECK-LABEL: func.func @explicit_axes
func.func @explicit_axes(%arg0: tensor<8x4xf32>, %arg1: tensor<4xf32>) -> (tensor<8x4xf32>, tensor<4xf32>) {
  // CHECK: %[[EA:.*]]:2 = spmd.explicit_axes(%{{.*}}, %{{.*}}) axes={"x", "y"} in_shardings=[<@mesh, [{"x"}, {"y"}]>, <@mesh, [{}]>] (%[[IN:.*]]: tensor<8x4xf32>, %{{.*}}: tensor<4xf32>) {
  %0:2 = spmd.explicit_axes(%arg0, %arg1) axes={"x", "y"} in_shardings=[<@mesh, [{"x"}, {"y"}]>, <@mesh, [{}]>] (%arg2: tensor<8x4xf32>, %arg3: tensor<4xf32>) {
    // CHECK: spmd.auto_axes(%[[IN]]) axes={"y"} out_shardings=[<@mesh, [{"x"}, {}]>]
    %1 = spmd.auto_axes(%arg2) axes={"y"} out_shardings=[<@mesh, [{"x"}, {}]>] (%arg4: tensor<8x4xf32>) {
      spmd.return %arg4 : tensor<8x4xf32>
    } : (tensor<8x4xf32>) -> tensor<8x4xf32>
    spmd.return %1, %arg3 : tensor<8x4xf32>, tensor<4xf32>
  } : (tensor<8x4xf32>, tensor<4xf32>) -> (tensor<8x4xf32>, tensor<4xf32>)
  return %0#0, %0#1 : tensor<8x4xf32>, tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=2]>

// Tests all_gather over several axes and dimensions.
// CHECK-LABEL: func.func @all_gather
func.func @all_gather(%arg0: tensor<8x8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", "c"}, {}, {"d"}]>}) -> tensor<8x8x8xf32> {
  // CHECK: spmd.all_gather [{"b", "c"}, {}, {"d"}] %{{.*}} out_sharding=<@mesh, [{"a"}, {}, {}]> : tensor<8x8x8xf32>
  %0 = spmd.all_gather [{"b", "c"}, {}, {"d"}] %arg0 out_sharding=<@mesh, [{"a"}, {}, {}]> : tensor<8x8x8xf32>
  return %0 : tensor<8x8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=8, "y"=2, "z"=2]>

// Tests all_gather of a minor part of an axis (sub-axes).
// CHECK-LABEL: func.func @all_gather_sub_axis
func.func @all_gather_sub_axis(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x", "z"}]>}) -> tensor<16x8xf32> {
  // CHECK: spmd.all_gather [{}, {"x":(4)2, "z"}] %{{.*}} out_sharding=<@mesh, [{"y"}, {"x":(1)4}]> : tensor<16x8xf32>
  %0 = spmd.all_gather [{}, {"x":(4)2, "z"}] %arg0 out_sharding=<@mesh, [{"y"}, {"x":(1)4}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests all_slice of an unsharded operand (taken as replicated) and of a
// sharded one.
// CHECK-LABEL: func.func @all_slice
func.func @all_slice(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // CHECK: %[[S0:.*]] = spmd.all_slice [{"y"}, {}] %{{.*}} out_sharding=<@mesh, [{"y"}, {}]> : tensor<16x8xf32>
  %0 = spmd.all_slice [{"y"}, {}] %arg0 out_sharding=<@mesh, [{"y"}, {}]> : tensor<16x8xf32>
  // CHECK: spmd.all_slice [{}, {"x"}] %[[S0]] out_sharding=<@mesh, [{"y"}, {"x"}]> : tensor<16x8xf32>
  %1 = spmd.all_slice [{}, {"x"}] %0 out_sharding=<@mesh, [{"y"}, {"x"}]> : tensor<16x8xf32>
  return %1 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=2]>

// Tests that all_slice merges a sliced sub-axis into the previous one.
// CHECK-LABEL: func.func @all_slice_merges_sub_axes
func.func @all_slice_merges_sub_axes(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x":(1)2}, {}]>}) -> tensor<16x8xf32> {
  // CHECK: spmd.all_slice [{"x":(2)2}, {}] %{{.*}} out_sharding=<@mesh, [{"x"}, {}]>
  %0 = spmd.all_slice [{"x":(2)2}, {}] %arg0 out_sharding=<@mesh, [{"x"}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2]>

// Tests all_to_all with two moves.
// CHECK-LABEL: func.func @all_to_all
func.func @all_to_all(%arg0: tensor<8x8x4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}, {"c"}, {}, {}]>}) -> tensor<8x8x4x4xf32> {
  // CHECK: spmd.all_to_all [{"b"}: 0->2, {"c"}: 1->3] %{{.*}} out_sharding=<@mesh, [{"a"}, {}, {"b"}, {"c"}]> : tensor<8x8x4x4xf32>
  %0 = spmd.all_to_all [{"b"}: 0->2, {"c"}: 1->3] %arg0 out_sharding=<@mesh, [{"a"}, {}, {"b"}, {"c"}]> : tensor<8x8x4x4xf32>
  return %0 : tensor<8x8x4x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=8, "y"=2, "z"=2]>

// Tests all_to_all of a minor sub-axis followed by a full axis.
// CHECK-LABEL: func.func @all_to_all_sub_axis
func.func @all_to_all_sub_axis(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x", "z"}]>}) -> tensor<16x8xf32> {
  // CHECK: spmd.all_to_all [{"x":(4)2, "z"}: 1->0] %{{.*}} out_sharding=<@mesh, [{"y", "x":(4)2, "z"}, {"x":(1)4}]>
  %0 = spmd.all_to_all [{"x":(4)2, "z"}: 1->0] %arg0 out_sharding=<@mesh, [{"y", "x":(4)2, "z"}, {"x":(1)4}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=2, "c"=4, "d"=2, "e"=2, "f"=2]>

// Tests collective_permute reordering and replacing axes.
// CHECK-LABEL: func.func @collective_permute
func.func @collective_permute(%arg0: tensor<8x8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "c"}, {"f"}, {"d", "e"}]>}) -> tensor<8x8x8xf32> {
  // CHECK: spmd.collective_permute %{{.*}} out_sharding=<@mesh, [{"c":(1)2, "b", "f"}, {"a"}, {"e", "d"}]> : tensor<8x8x8xf32>
  %0 = spmd.collective_permute %arg0 out_sharding=<@mesh, [{"c":(1)2, "b", "f"}, {"a"}, {"e", "d"}]> : tensor<8x8x8xf32>
  return %0 : tensor<8x8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4]>
spmd.mesh @flat = <["z"=8]>

// Tests collective_permute to a mesh of other axes over as many devices,
// partial sums included.
// CHECK-LABEL: func.func @collective_permute_other_axes
func.func @collective_permute_other_axes(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}], unreduced={"y"}>}) -> tensor<16x8xf32> {
  // CHECK: spmd.collective_permute %{{.*}} out_sharding=<@flat, [{"z":(1)2}, {}], unreduced={"z":(2)4}> : tensor<16x8xf32>
  %0 = spmd.collective_permute %arg0 out_sharding=<@flat, [{"z":(1)2}, {}], unreduced={"z":(2)4}> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>
spmd.mesh @mesh_non_iota = <["x"=2, "y"=2], device_ids=[3, 2, 1, 0]>

// Tests collective_permute to a mesh with another device order.
// CHECK-LABEL: func.func @collective_permute_device_order
func.func @collective_permute_device_order(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>}) -> tensor<16x8xf32> {
  // CHECK: spmd.collective_permute %{{.*}} out_sharding=<@mesh_non_iota, [{"x", "y"}, {}]>
  %0 = spmd.collective_permute %arg0 out_sharding=<@mesh_non_iota, [{"x", "y"}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2]>

// Tests all_reduce with the default and explicit reduction kinds, reducing
// one of two unreduced axes.
// CHECK-LABEL: func.func @all_reduce
func.func @all_reduce(%arg0: tensor<16x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}], unreduced={"y", "z"}>}, %arg1: tensor<16x2xf32>) -> (tensor<16x2xf32>, tensor<16x2xf32>, tensor<16x2xf32>) {
  // CHECK: %[[R0:.*]] = spmd.all_reduce {"y"} %{{.*}} out_sharding=<@mesh, [{}, {"x"}], unreduced={"z"}> : tensor<16x2xf32>
  %0 = spmd.all_reduce {"y"} %arg0 out_sharding=<@mesh, [{}, {"x"}], unreduced={"z"}> : tensor<16x2xf32>
  // CHECK: spmd.all_reduce max {"y"} %{{.*}} out_sharding=<@mesh, [{}, {}]> : tensor<16x2xf32>
  %1 = spmd.all_reduce max {"y"} %arg1 out_sharding=<@mesh, [{}, {}]> : tensor<16x2xf32>
  // CHECK: spmd.all_reduce min {"x", "y"} %{{.*}} out_sharding=<@mesh, [{}, {}]> : tensor<16x2xf32>
  %2 = spmd.all_reduce min {"x", "y"} %arg1 out_sharding=<@mesh, [{}, {}]> : tensor<16x2xf32>
  return %0, %1, %2 : tensor<16x2xf32>, tensor<16x2xf32>, tensor<16x2xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests that an explicit `sum` is accepted and printed as the default.
// CHECK-LABEL: func.func @all_reduce_explicit_sum
func.func @all_reduce_explicit_sum(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], unreduced=max{"x"}>}) -> tensor<8xf32> {
  // CHECK: %[[S:.*]] = spmd.all_reduce {"y"} %{{.*}} out_sharding=<@mesh, [{}], unreduced=max{"x"}>
  %0 = spmd.all_reduce sum {"y"} %arg0 out_sharding=<@mesh, [{}], unreduced=max{"x"}> : tensor<8xf32>
  // CHECK: spmd.all_reduce max {"x"} %[[S]] out_sharding=<@mesh, [{}]>
  %1 = spmd.all_reduce max {"x"} %0 out_sharding=<@mesh, [{}]> : tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests reduce_scatter with and without a reduction kind.
// CHECK-LABEL: func.func @reduce_scatter
func.func @reduce_scatter(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}], unreduced={"y"}>}, %arg1: tensor<16x8xf32>) -> (tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>) {
  // CHECK: spmd.reduce_scatter [{}, {"y"}] %{{.*}} out_sharding=<@mesh, [{"x"}, {"y"}]> : tensor<16x8xf32>
  %0 = spmd.reduce_scatter [{}, {"y"}] %arg0 out_sharding=<@mesh, [{"x"}, {"y"}]> : tensor<16x8xf32>
  // CHECK: spmd.reduce_scatter max [{"x", "y"}, {}] %{{.*}} out_sharding=<@mesh, [{"x", "y"}, {}]> : tensor<16x8xf32>
  %1 = spmd.reduce_scatter max [{"x", "y"}, {}] %arg1 out_sharding=<@mesh, [{"x", "y"}, {}]> : tensor<16x8xf32>
  // CHECK: spmd.reduce_scatter [{}, {}] %{{.*}} out_sharding=<@mesh, [{}, {}]> : tensor<16x8xf32>
  %2 = spmd.reduce_scatter [{}, {}] %arg1 out_sharding=<@mesh, [{}, {}]> : tensor<16x8xf32>
  return %0, %1, %2 : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests that collectives chain: each takes its operand's sharding from the
// out_sharding of the previous one, and discardable attributes round-trip.
// CHECK-LABEL: func.func @collective_chain
func.func @collective_chain(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<16x8xf32> {
  // CHECK: %[[G:.*]] = spmd.all_gather [{"x"}, {}] %{{.*}} out_sharding=<@mesh, [{}, {"y"}]> {tag = "g"} : tensor<16x8xf32>
  %0 = spmd.all_gather [{"x"}, {}] %arg0 out_sharding=<@mesh, [{}, {"y"}]> {tag = "g"} : tensor<16x8xf32>
  // CHECK: %[[P:.*]] = spmd.collective_permute %[[G]] out_sharding=<@mesh, [{}, {"x"}]> : tensor<16x8xf32>
  %1 = spmd.collective_permute %0 out_sharding=<@mesh, [{}, {"x"}]> : tensor<16x8xf32>
  // CHECK: spmd.all_to_all [{"x"}: 1->0] %[[P]] out_sharding=<@mesh, [{"x"}, {}]> : tensor<16x8xf32>
  %2 = spmd.all_to_all [{"x"}: 1->0] %1 out_sharding=<@mesh, [{"x"}, {}]> : tensor<16x8xf32>
  return %2 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, auto]>

// Tests the result shardings collectives read from region ops and barriers:
// explicit_axes erases the axes that become auto again ("y"), auto_axes and
// manual_computation give their out_shardings, and a barrier its
// spmd.sharding.
// CHECK-LABEL: func.func @result_shardings_of_spmd_ops
func.func @result_shardings_of_spmd_ops(%arg0: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  // CHECK: %[[E:.*]] = spmd.explicit_axes
  %0 = spmd.explicit_axes(%arg0) axes={"y"} in_shardings=[<@mesh, [{"x"}, {"y"}]>] (%arg1: tensor<8x8xf32>) {
    spmd.return %arg1 : tensor<8x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>
  // CHECK: spmd.all_gather [{"x"}, {}] %[[E]] out_sharding=<@mesh, [{}, {}]>
  %1 = spmd.all_gather [{"x"}, {}] %0 out_sharding=<@mesh, [{}, {}]> : tensor<8x8xf32>
  // CHECK: %[[A:.*]] = spmd.auto_axes
  %2 = spmd.auto_axes(%arg0) axes={"x"} out_shardings=[<@mesh, [{}, {"x"}]>] (%arg1: tensor<8x8xf32>) {
    spmd.return %arg1 : tensor<8x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>
  // CHECK: spmd.all_to_all [{"x"}: 1->0] %[[A]] out_sharding=<@mesh, [{"x"}, {}]>
  %3 = spmd.all_to_all [{"x"}: 1->0] %2 out_sharding=<@mesh, [{"x"}, {}]> : tensor<8x8xf32>
  // CHECK: %[[M:.*]] = spmd.manual_computation
  %4 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{}, {}]>] out_shardings=[<@mesh, [{"y"}, {}]>] manual_axes={"y"} (%arg1: tensor<8x8xf32>) {
    %5 = tensor.extract_slice %arg1[0, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
    spmd.return %5 : tensor<4x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>
  // CHECK: spmd.collective_permute %[[M]] out_sharding=<@mesh, [{"x"}, {}]>
  %6 = spmd.collective_permute %4 out_sharding=<@mesh, [{"x"}, {}]> : tensor<8x8xf32>
  // CHECK: %[[B:.*]] = spmd.propagation_barrier %{{.*}} allowed_direction=FORWARD {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"y"}]>]>}
  %7 = spmd.propagation_barrier %arg0 allowed_direction=FORWARD {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"y"}]>]>} : tensor<8x8xf32>
  // CHECK: spmd.all_gather [{}, {"y"}] %[[B]]
  %8 = spmd.all_gather [{}, {"y"}] %7 out_sharding=<@mesh, [{}, {}]> : tensor<8x8xf32>
  return %1, %3, %6, %8 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// Values that are not tensors (here an i32) pass through a manual
// computation unchanged, with a rank-0 sharding.
spmd.mesh @mesh = <["a"=2]>

// CHECK-LABEL: func.func @manual_computation_non_tensor
// CHECK: spmd.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, []>, <@mesh, [{"a"}]>] out_shardings=[<@mesh, []>, <@mesh, [{"a"}]>] manual_axes={"a"} (%arg2: i32, %arg3: tensor<2xf32>)
func.func @manual_computation_non_tensor(%arg0: i32, %arg1: tensor<4xf32>) -> (i32, tensor<4xf32>) {
  %0:2 = spmd.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, []>, <@mesh, [{"a"}]>] out_shardings=[<@mesh, []>, <@mesh, [{"a"}]>] manual_axes={"a"} (%a: i32, %b: tensor<2xf32>) {
    spmd.return %a, %b : i32, tensor<2xf32>
  } : (i32, tensor<4xf32>) -> (i32, tensor<4xf32>)
  return %0#0, %0#1 : i32, tensor<4xf32>
}
