// RUN: tessera-opt %s --split-input-file --allow-unregistered-dialect | FileCheck %s
// RUN: tessera-opt %s --split-input-file --allow-unregistered-dialect | tessera-opt --split-input-file --allow-unregistered-dialect | FileCheck %s
// RUN: tessera-opt %s --split-input-file --allow-unregistered-dialect --mlir-print-op-generic | tessera-opt --split-input-file --allow-unregistered-dialect | FileCheck %s

// Tests that every example of Shardy's textual grammar (the forms Shardy's
// documentation gives for meshes, shardings, priorities, sub-axes and
// sharding rules), with `sdy` renamed to `spmd`, parses, verifies and prints
// back in the same form.

// Mesh forms: plain, explicit device order, maximal, empty.
// CHECK: spmd.mesh @mesh = <["x"=4, "y"=2]>
// CHECK: spmd.mesh @ordered = <["a"=4, "b"=2], device_ids=[0, 2, 4, 6, 1, 3, 5, 7]>
// CHECK: spmd.mesh @maximal_mesh_0 = <[], device_ids=[3]>
// CHECK: spmd.mesh @empty = <[]>
spmd.mesh @mesh = <["x"=4, "y"=2]>
spmd.mesh @ordered = <["a"=4, "b"=2], device_ids=[0, 2, 4, 6, 1, 3, 5, 7]>
spmd.mesh @maximal_mesh_0 = <[], device_ids=[3]>
spmd.mesh @empty = <[]>

// CHECK-LABEL: func.func @tensor_shardings
// CHECK-SAME: #spmd.sharding<mesh<["x"=2]>, [{"x"}, {}]>
// CHECK-SAME: #spmd.sharding<@mesh, []>
// CHECK-SAME: #spmd.sharding<@maximal_mesh_0, []>
// CHECK-SAME: #spmd.sharding<@mesh, [{}, {"x":(1)2}, {?}, {"x":(2)2, ?}]>
func.func @tensor_shardings(
    %inlined: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<mesh<["x"=2]>, [{"x"}, {}]>},
    %rank0: tensor<f32> {spmd.sharding = #spmd.sharding<@mesh, []>},
    %maximal: tensor<f32> {spmd.sharding = #spmd.sharding<@maximal_mesh_0, []>},
    %open_closed: tensor<8x8x8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x":(1)2}, {?}, {"x":(2)2, ?}]>}) {
  return
}

// -----

// The grammar's general form: dims major to minor, replicated, unreduced.
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2, "w"=2, "u"=2]>

// CHECK-LABEL: func.func @general
// CHECK-SAME: #spmd.sharding<@mesh, [{"x"}, {"z", "y"}], replicated={"w"}, unreduced={"u"}>
// CHECK-SAME: #spmd.sharding<@mesh, [{}, {}], unreduced=max{"x"}>
// CHECK-SAME: #spmd.sharding<@mesh, [{"x"}p1, {"y"}, {"z", ?}p2]>
func.func @general(
    %a: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"z", "y"}], replicated={"w"}, unreduced={"u"}>},
    %b: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}], unreduced=max{"x"}>},
    %c: tensor<8x8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}p1, {"y"}, {"z", ?}p2]>}) {
  return
}

// -----

// Sub-axes: an 8 -> 2x4 reshape over "x"=4 gives [{"x":(1)2}, {"x":(2)2}];
// the merged form of two consecutive halves is "x":(1)4 (over "x"=8).
spmd.mesh @mesh = <["x"=4]>

// CHECK-LABEL: func.func @sub_axes
// CHECK: tensor.expand_shape {{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x":(1)2}, {"x":(2)2}]>]>}
func.func @sub_axes(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<2x4xf32> {
  %0 = tensor.expand_shape %arg0 [[0, 1]] output_shape [2, 4] {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x":(1)2}, {"x":(2)2}]>]>} : tensor<8xf32> into tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=8]>

// CHECK-LABEL: func.func @merged_sub_axis
// CHECK-SAME: #spmd.sharding<@mesh, [{"x":(1)4}]>
func.func @merged_sub_axis(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x":(1)4}]>}) {
  return
}

// -----

// Per-op shardings (one per result) and func argument/result shardings.
spmd.mesh @mesh = <["x"=4, "y"=2]>

// CHECK-LABEL: func.func @per_op
// CHECK: spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x", ?}, {?}]>, <@mesh, []>]>
func.func @per_op(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %0:2 = "test.op"(%arg0) {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x", ?}, {?}]>, <@mesh, []>]>} : (tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<f32>)
  return %0#0 : tensor<8x8xf32>
}

// -----

// Op sharding rules: matmul with a reduction factor, a compound dim,
// scalars, every optional set, and a custom rule.
// CHECK-LABEL: func.func @rules
// CHECK: #spmd.op_sharding_rule<([i, k], [k, j])->([i, j]) {i=8, j=16, k=32} reduction={k}>
// CHECK: #spmd.op_sharding_rule<([i, j])->([ij]) {i=2, j=4}>
// CHECK: #spmd.op_sharding_rule<([], [])->([])>
// CHECK: #spmd.op_sharding_rule<([i, j, k, l])->([i, j, k, l]) {i=2, j=2, k=2, l=2} need_replication={i} permutation={j} blocked_propagation={k}, custom>
func.func @rules(%a: tensor<8x32xf32>, %b: tensor<32x16xf32>, %c: tensor<2x4xf32>, %s: tensor<f32>, %d: tensor<2x2x2x2xf32>) {
  %0 = "test.dot"(%a, %b) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, k],[k, j])->([i, j]) {i=8, j=16, k=32} reduction={k}>} : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  %1 = "test.reshape"(%c) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([ij]) {i=2, j=4}>} : (tensor<2x4xf32>) -> tensor<8xf32>
  %2 = "test.add"(%s, %s) {spmd.sharding_rule = #spmd.op_sharding_rule<([],[])->([])>} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %3 = "test.custom"(%d) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j, k, l])->([i, j, k, l]) {i=2, j=2, k=2, l=2} need_replication={i} permutation={j} blocked_propagation={k}, custom>} : (tensor<2x2x2x2xf32>) -> tensor<2x2x2x2xf32>
  return
}

// -----

// Manual axes on a manual computation, whose in/out shardings use the
// stripped form; and the debugging attributes.
spmd.mesh @m = <["x"=2, "y"=2, "a"=2]>

// CHECK-LABEL: func.func @manual
// CHECK: spmd.manual_computation(%{{.*}}) in_shardings=[<@m, [{"x", "a", ?}, {"y", ?}]>] out_shardings=[<@m, [{"x", ?}, {"y", ?}]>] manual_axes={"x", "y"} (%{{.*}}: tensor<8x4xf32>)
// CHECK: spmd.propagation_edges = {a = [{from = "operand: 0", to = "result: 0"}]}
// CHECK-SAME: spmd.sharding_origins = {a = "self", c = "input: 1"}
func.func @manual(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@m, [{"x", "a", ?}, {"y", ?}]>] out_shardings=[<@m, [{"x", ?}, {"y", ?}]>] manual_axes={"x", "y"} (%local: tensor<8x4xf32>) {
    %1 = arith.negf %local {spmd.sharding_origins = {a = "self", c = "input: 1"}, spmd.propagation_edges = {a = [{from = "operand: 0", to = "result: 0"}]}} : tensor<8x4xf32>
    spmd.return %1 : tensor<8x4xf32>
  } : (tensor<16x8xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}
