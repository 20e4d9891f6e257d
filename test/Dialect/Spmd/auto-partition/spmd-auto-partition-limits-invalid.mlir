// RUN: tessera-opt %s --spmd-auto-partition="memory-limit=256KiB max-nodes=0 mip-start=false" --verify-diagnostics

// Tests that a limit that stops CBC before it has any plan is an error:
// the MLP of spmd-auto-partition-limits.mlir without the greedy start
// (mip-start=false), whose relaxation at the root is fractional.
spmd.mesh @mesh = <["data"=2, "model"=4]>
// expected-error @+1 {{the ILP solver found no plan within its limit (time-limit=10 s, max-nodes=0)}}
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
