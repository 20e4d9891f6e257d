// RUN: tessera-opt %s -split-input-file --spmd-propagate="debug-origins=true" | FileCheck %s

spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that every propagated axis records where it came from: "a" from
// argument 0, "b" from the function result.
// CHECK-LABEL: func.func @origins(
// CHECK-SAME: {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>, spmd.sharding_origins = {a = "input: 0", b = "output: 0"}}
// CHECK-SAME: {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>, spmd.sharding_origins = {a = "input: 0", b = "output: 0"}}
// CHECK-SAME: -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>, spmd.sharding_origins = {a = "input: 0", b = "output: 0"}})
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
