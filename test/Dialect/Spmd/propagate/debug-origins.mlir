// RUN: tessera-opt %s -split-input-file --spmd-propagate="debug-origins=true" | FileCheck %s

spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that every propagated axis records where it came from: "a" from
// argument 0, "b" from the function result; a value's own axes are "self".
// CHECK-LABEL: func.func @origins(
// CHECK-SAME: {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>, spmd.sharding_origins = {a = "self", b = "output: 0"}}
// CHECK-SAME: {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>, spmd.sharding_origins = {a = "input: 0", b = "output: 0"}}
// CHECK-SAME: -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>, spmd.sharding_origins = {a = "input: 0", b = "self"}})
// CHECK: arith.addf {{.*}}spmd.sharding_origins = [{a = "input: 0", b = "output: 0"}]
// CHECK: math.exp {{.*}}spmd.sharding_origins = [{a = "input: 0", b = "output: 0"}]
func.func @origins(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {?}]>}, %arg1: tensor<8x8xf32>) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"b", ?}]>}) {
  %0 = arith.addf %arg0, %arg1 : tensor<8x8xf32>
  %1 = math.exp %0 : tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that an axis from an op's own sharding names that op and its
// location.
// CHECK-LABEL: func.func @origin_from_op(
// CHECK-SAME: spmd.sharding_origins = {c = "arith.negf at loc({{.*}}debug-origins.mlir{{.*}}:[[LINE:[0-9]+]]:8)"}
// CHECK: arith.negf {{.*}}spmd.sharding_origins = [{c = "arith.negf at loc({{.*}}:[[LINE]]:8)"}]
// CHECK: math.exp {{.*}}spmd.sharding_origins = [{c = "arith.negf at loc({{.*}}:[[LINE]]:8)"}]
func.func @origin_from_op(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"c", ?}]>]>} : tensor<8xf32>
  %1 = math.exp %0 : tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=8]>

// Tests that constraints are named constraint_N (in program order), carry
// spmd.sharding_origin_name, and call their own axes "self".
// CHECK-LABEL: func.func @constraint_origin(
// CHECK-SAME: spmd.sharding_origins = {a = "constraint_0"}
// CHECK: spmd.sharding_constraint {{.*}} {spmd.sharding_origin_name = "constraint_0", spmd.sharding_origins = {a = "self"}}
// CHECK: math.exp {{.*}}spmd.sharding_origins = [{a = "constraint_0"}]
func.func @constraint_origin(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = spmd.sharding_constraint %arg0 <@mesh, [{"a"}, {?}]> : tensor<8x8xf32>
  %1 = math.exp %0 : tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=8]>

// Tests that sub-axes are named like "c:(1)4", and that sub-axes merging
// into a whole axis through a reshape keep their origin.
// CHECK-LABEL: func.func @sub_axes_merge(
// CHECK-SAME: spmd.sharding_origins = {"c:(1)4" = "self", "c:(4)2" = "self"}
// CHECK-SAME: -> (tensor<16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c", ?}]>, spmd.sharding_origins = {c = "input: 0"}})
func.func @sub_axes_merge(%arg0: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c":(1)4, ?}, {"c":(4)2, ?}]>}) -> tensor<16xf32> {
  %0 = tensor.collapse_shape %arg0 [[0, 1]] : tensor<4x4xf32> into tensor<16xf32>
  return %0 : tensor<16xf32>
}
