// RUN: tessera-opt %s --spmd-auto-partition="memory-limit=256KiB max-nodes=0" --verify-diagnostics | FileCheck %s
// RUN: tessera-opt %s --spmd-auto-partition="memory-limit=256KiB" | FileCheck %s --check-prefix=FULL

// Tests the fallback when CBC's limit stops it: under a memory limit the
// MLP's whole graph is one program whose relaxation at the root is
// fractional, so a node limit of 0 stops CBC there, deterministically.
// CBC starts from the plan of least memory a node at a time (each weight
// sharded over both axes, which fits), so the stop leaves that plan, with
// a warning (without the start there is no plan:
// spmd-auto-partition-limits-invalid.mlir). Without the limit CBC proves
// the Megatron plan optimal.

spmd.mesh @mesh = <["data"=2, "model"=4]>
// expected-warning @+1 {{the ILP solver stopped at its limit (time-limit=10 s, max-nodes=0); using the best plan it found, which may not be optimal}}
func.func @mlp(%x: tensor<64x128xf32>, %w0: tensor<128x512xf32>, %w1: tensor<512x128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x512xf32>) -> tensor<64x512xf32>
  %h = linalg.matmul ins(%x, %w0 : tensor<64x128xf32>, tensor<128x512xf32>) outs(%f : tensor<64x512xf32>) -> tensor<64x512xf32>
  %e1 = tensor.empty() : tensor<64x128xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %r = linalg.matmul ins(%h, %w1 : tensor<64x512xf32>, tensor<512x128xf32>) outs(%f1 : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}

// CHECK-LABEL: func.func @mlp
// CHECK-SAME: %arg1: tensor<128x512xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"data", "model"}]>}
// CHECK-SAME: %arg2: tensor<512x128xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {"data"}]>}

// FULL-LABEL: func.func @mlp
// FULL-SAME: %arg1: tensor<128x512xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}
// FULL-SAME: %arg2: tensor<512x128xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>}
