// RUN: tessera-opt %s -split-input-file --spmd-infer-explicit | FileCheck %s

// Tests the shardings spmd-infer-explicit writes: closed dimensions on
// meshes with only Explicit axes; on mixed meshes open dimensions (for
// propagation), keeping the Auto axes an op already had; nothing for ops on
// meshes without Explicit axes.

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

// CHECK-LABEL: func.func @closed
// CHECK: arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>}
// CHECK: arith.constant dense<1.000000e+00> : tensor<8x4xf32>
// CHECK: arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>}
func.func @closed(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x4xf32> {
  %0 = arith.negf %a : tensor<8x4xf32>
  %c = arith.constant dense<1.0> : tensor<8x4xf32>
  %1 = arith.addf %0, %c : tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, auto]>

// CHECK-LABEL: func.func @mixed
// CHECK: arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x", ?}, {?}]>]>}
// CHECK: math.exp %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x", ?}, {"y", ?}]>]>}
func.func @mixed(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<8x4xf32> {
  %0 = arith.negf %a : tensor<8x4xf32>
  %1 = math.exp %0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{?}, {"y", ?}]>]>} : tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// CHECK-LABEL: func.func @all_auto
// CHECK: arith.negf %arg0 : tensor<8x4xf32>
func.func @all_auto(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x4xf32> {
  %0 = arith.negf %a : tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
