// RUN: tessera-opt %s --spmd-insert-reshards | FileCheck %s

// Tests that a maximal (single-device) sharding names no mesh of an op:
// the op runs on the mesh of its other values, a single-device operand
// (whole on every device) is read without a reshard when the op wants it
// replicated, and a single-device result is given by a reshard after the
// op.

spmd.mesh @mesh = <["x"=2, "y"=2]>
spmd.mesh @dev1 = <[], device_ids=[1]>

// CHECK-LABEL: func @result_on_one
func.func @result_on_one(%a: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>},
                         %b: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  // CHECK: %[[ADD:.*]] = linalg.add {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>}
  // CHECK-NEXT: %[[ONE:.*]] = spmd.reshard %[[ADD]] <@dev1, []>
  // CHECK-NEXT: return %[[ONE]]
  %0 = linalg.add {spmd.sharding = #spmd.sharding_per_value<[<@dev1, []>]>} ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// CHECK-LABEL: func @operand_on_one
func.func @operand_on_one(%a: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@dev1, []>},
                          %b: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  // CHECK: %[[A:.*]] = spmd.reshard %arg0 <@mesh, [{"x"}, {}]>
  // CHECK: linalg.add {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} ins(%[[A]], %arg1
  %0 = linalg.add {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// CHECK-LABEL: func @replicated_use
func.func @replicated_use(%a: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@dev1, []>},
                          %b: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  // CHECK-NOT: spmd.reshard
  // CHECK: linalg.add {{.*}} ins(%arg0, %arg1
  %0 = linalg.add {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>} ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
