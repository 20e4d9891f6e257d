// RUN: tessera-opt %s --split-input-file --allow-unregistered-dialect | FileCheck %s
// RUN: tessera-opt %s --split-input-file --allow-unregistered-dialect | tessera-opt --split-input-file --allow-unregistered-dialect | FileCheck %s
// RUN: tessera-opt %s --split-input-file --allow-unregistered-dialect --mlir-print-op-generic | tessera-opt --split-input-file --allow-unregistered-dialect | FileCheck %s
// RUN: tessera-opt %s --split-input-file --allow-unregistered-dialect --verify-roundtrip | FileCheck %s

// Tests that every form of #spmd.sharding and #spmd.sharding_per_value
// round-trips on func arguments, results and ops.

spmd.mesh @mesh = <["x"=4, "y"=2, "z"=2, "w"=2]>

// CHECK-LABEL: func.func @closed_and_open
// CHECK-SAME: #spmd.sharding<@mesh, [{"x"}, {"z", "y"}]>
// CHECK-SAME: #spmd.sharding<@mesh, [{"x", ?}, {?}]>
func.func @closed_and_open(
    %arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"z", "y"}]>},
    %arg1: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", ?}, {?}]>}) {
  return
}

// CHECK-LABEL: func.func @priorities
// CHECK-SAME: #spmd.sharding<@mesh, [{"x"}p1, {"y"}, {"z", ?}p2]>
func.func @priorities(
    %arg0: tensor<8x8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}p1, {"y"}, {"z", ?}p2]>}) {
  return
}

// CHECK-LABEL: func.func @open_empty_priority
// CHECK-SAME: #spmd.sharding<@mesh, [{?}p3, {"x"}p0]>
func.func @open_empty_priority(
    %arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}p3, {"x"}p0]>}) {
  return
}

// CHECK-LABEL: func.func @replicated_and_unreduced
// CHECK-SAME: #spmd.sharding<@mesh, [{"x"}, {}], replicated={"y"}, unreduced={"z", "w"}>
// CHECK-SAME: #spmd.sharding<@mesh, [{"x"}, {}], unreduced=max{"y"}>
// CHECK-SAME: #spmd.sharding<@mesh, [{}, {}], replicated={"x", "w"}, unreduced=min{"y", "z"}>
// CHECK-SAME: #spmd.sharding<@mesh, [{}, {}], unreduced={"y"}>
// CHECK-SAME: #spmd.sharding<@mesh, [{}, {}], replicated={"x"}, unreduced={"y"}>
// CHECK-SAME: #spmd.sharding<@mesh, [{}, {}], unreduced={"z"}>
func.func @replicated_and_unreduced(
    %arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}], replicated={"y"}, unreduced={"z", "w"}>},
    %arg1: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}], unreduced=max{"y"}>},
    %arg2: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}], replicated={"x", "w"}, unreduced=min{"y", "z"}>},
    %arg3: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}], unreduced=sum{"y"}>},
    // Either order is accepted (as in Shardy); `replicated` prints first.
    %arg4: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}], unreduced={"y"}, replicated={"x"}>},
    // `unreduced` without `=` (and then without a kind) is accepted too.
    %arg5: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}], unreduced{"z"}>}) {
  return
}

// CHECK-LABEL: func.func @sub_axes
// CHECK-SAME: #spmd.sharding<@mesh, [{"x":(1)2}, {"x":(2)2}]>
// CHECK-SAME: #spmd.sharding<@mesh, [{"y", "x":(2)2}, {}], replicated={"x":(1)2}>
func.func @sub_axes(
    %arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x":(1)2}, {"x":(2)2}]>},
    %arg1: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y", "x":(2)2}, {}], replicated={"x":(1)2}>}) {
  return
}

// CHECK-LABEL: func.func @scalar_and_results
// CHECK-SAME: #spmd.sharding<@mesh, []>
// CHECK-SAME: -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>})
func.func @scalar_and_results(
    %arg0: tensor<f32> {spmd.sharding = #spmd.sharding<@mesh, []>},
    %arg1: tensor<8xf32>) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) {
  return %arg1 : tensor<8xf32>
}

// CHECK-LABEL: func.func @op_sharding_per_value
// CHECK: arith.addf {{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x", ?}, {?}]>]>}
// CHECK: arith.constant {spmd.sharding = #spmd.sharding_per_value<[<@mesh, []>]>}
func.func @op_sharding_per_value(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = arith.addf %arg0, %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x", ?}, {?}]>]>} : tensor<8x8xf32>
  %1 = arith.constant {spmd.sharding = #spmd.sharding_per_value<[<@mesh, []>]>} dense<1.0> : tensor<f32>
  return %0 : tensor<8x8xf32>
}

// CHECK-LABEL: func.func @multi_result_op
// CHECK: spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}]>, <@mesh, [{}]>]>
func.func @multi_result_op(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0:2 = "test.two_results"(%arg0) {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}]>, <@mesh, [{}]>]>} : (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
  return %0#0 : tensor<8xf32>
}

// CHECK-LABEL: func.func @out_sharding
// CHECK: spmd.out_sharding = #spmd.sharding<@mesh, [{"x"}, {}]>
// CHECK: spmd.out_sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"y"}]>]>
func.func @out_sharding(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = arith.mulf %arg0, %arg0 {spmd.out_sharding = #spmd.sharding<@mesh, [{"x"}, {}]>} : tensor<8x8xf32>
  %1 = arith.mulf %0, %0 {spmd.out_sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"y"}]>]>} : tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}

// CHECK-LABEL: func.func @dynamic_dims
// CHECK-SAME: #spmd.sharding<@mesh, [{"x"}, {}]>
func.func @dynamic_dims(%arg0: tensor<?x3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  return
}

// CHECK-LABEL: func.func @non_divisible_is_allowed
// CHECK-SAME: #spmd.sharding<@mesh, [{"x"}]>
func.func @non_divisible_is_allowed(%arg0: tensor<6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) {
  return
}

// CHECK-LABEL: func.func @debug_attrs
// CHECK: spmd.sharding_origins = {a = "self", c = "input: 1"}
func.func @debug_attrs(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = arith.negf %arg0 {spmd.sharding_origins = {a = "self", c = "input: 1"}} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests an inlined mesh and meshes with device order and maximal meshes.

spmd.mesh @maximal_mesh_0 = <[], device_ids=[0]>
spmd.mesh @empty_mesh = <[]>

// CHECK-LABEL: func.func @inlined_mesh
// CHECK-SAME: #spmd.sharding<mesh<["x"=2]>, [{"x"}, {}]>
// CHECK-SAME: #spmd.sharding<mesh<["a"=2, "b"=2], device_ids=[3, 2, 1, 0]>, [{"b", "a"}]>
func.func @inlined_mesh(
    %arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<mesh<["x"=2]>, [{"x"}, {}]>},
    %arg1: tensor<8xf32> {spmd.sharding = #spmd.sharding<mesh<["a"=2, "b"=2], device_ids=[3, 2, 1, 0]>, [{"b", "a"}]>}) {
  return
}

// CHECK-LABEL: func.func @maximal_sharding
// CHECK: spmd.sharding = #spmd.sharding_per_value<[<@maximal_mesh_0, []>]>
func.func @maximal_sharding(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = arith.addf %arg0, %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@maximal_mesh_0, []>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// CHECK-LABEL: func.func @empty_mesh_sharding
// CHECK-SAME: #spmd.sharding<@empty_mesh, [{}, {?}]>
func.func @empty_mesh_sharding(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@empty_mesh, [{}, {?}]>}) {
  return
}

// -----

// Tests the standalone attribute forms of the building blocks.

// CHECK-LABEL: func.func private @building_blocks
// CHECK-SAME: a = #spmd.axis_ref<"x":(2)4>
// CHECK-SAME: b = #spmd.dimension_sharding<{"x", ?}p2>
// CHECK-SAME: c = #spmd.axis_ref_list<{"x", "y"}>
// CHECK-SAME: d = #spmd.list_of_axis_ref_lists<[{"x"}, {}]>
// CHECK-SAME: e = #spmd.manual_axes<{"x", "y"}>
// CHECK-SAME: f = #spmd.all_to_all_param_list<[{"x"}: 0->1]>
// CHECK-SAME: g = #spmd.sub_axis_info<(1)2>
// CHECK-SAME: h = #spmd.mesh_axis<"x"=4>
// CHECK-SAME: i = #spmd.axis_type<explicit>
// CHECK-SAME: j = #spmd.reduction_kind<max>
// CHECK-SAME: k = #spmd.propagation_direction<FORWARD>
func.func private @building_blocks() attributes {
  a = #spmd.axis_ref<"x":(2)4>, b = #spmd.dimension_sharding<{"x", ?}p2>,
  c = #spmd.axis_ref_list<{"x", "y"}>, d = #spmd.list_of_axis_ref_lists<[{"x"}, {}]>,
  e = #spmd.manual_axes<{"x", "y"}>, f = #spmd.all_to_all_param_list<[{"x"}: 0->1]>,
  g = #spmd.sub_axis_info<(1)2>, h = #spmd.mesh_axis<"x"=4>,
  i = #spmd.axis_type<explicit>, j = #spmd.reduction_kind<max>,
  k = #spmd.propagation_direction<FORWARD>}
