// RUN: tessera-opt %s -split-input-file --spmd-infer-explicit --spmd-propagate | FileCheck %s
spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, auto]>

// Tests explicit inference and propagation on one mixed mesh: inference
// types every value with the Explicit "x" (closed), propagation then adds
// the Auto "y" from the weight to the free dim without touching "x".
// CHECK-LABEL: func.func @mixed(
// CHECK-SAME: %{{.*}}: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %{{.*}}: tensor<16x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>}) -> (tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"y", ?}]>})
// CHECK: %{{.*}} = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{?}, {"y", ?}]>]>} : tensor<8x4xf32>
// CHECK: %{{.*}} = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x", ?}, {"y", ?}]>]>} ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x4xf32>) outs(%{{.*}} : tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x", ?}, {"y", ?}]>]>} : tensor<8x4xf32>
func.func @mixed(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<16x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>}) -> tensor<8x4xf32> {
  %0 = tensor.empty() : tensor<8x4xf32>
  %1 = linalg.matmul ins(%arg0, %arg1 : tensor<8x16xf32>, tensor<16x4xf32>) outs(%0 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %2 = arith.negf %1 : tensor<8x4xf32>
  return %2 : tensor<8x4xf32>
}
