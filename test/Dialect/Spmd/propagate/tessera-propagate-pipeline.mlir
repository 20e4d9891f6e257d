// RUN: tessera-opt %s --tessera-propagate | FileCheck %s

// Tests the tessera-propagate pipeline: explicit inference types the value
// on the Explicit "x", the closed constraint on the Auto "y" is applied to
// its input, and propagation carries "y" to the rest.
spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, auto]>

// CHECK-LABEL: func.func @pipeline
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"y", ?}]>}
func.func @pipeline(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // CHECK: arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"y"}]>]>}
  %0 = arith.negf %arg1 : tensor<8x8xf32>
  %1 = spmd.sharding_constraint %0 <@mesh, [{}, {"y"}]> : tensor<8x8xf32>
  // CHECK: arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x", ?}, {"y", ?}]>]>}
  %2 = arith.addf %arg0, %1 : tensor<8x8xf32>
  return %2 : tensor<8x8xf32>
}
