// RUN: tessera-opt %s --split-input-file --allow-unregistered-dialect --spmd-auto-partition="memory-limit=100KiB" --verify-diagnostics

// Tests that a memory limit no plan fits is an error that names the
// smallest per-device peak: every weight sharded eight ways still needs
// 192 KiB.
spmd.mesh @mesh = <["data"=2, "model"=4]>
// expected-error @+1 {{no sharding plan fits memory-limit=100.0 KiB (102400 bytes) per device; the smallest peak found is 192.0 KiB (196608 bytes)}}
func.func @infeasible(%x: tensor<64x128xf32>, %w0: tensor<128x512xf32>, %w1: tensor<512x128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x512xf32>) -> tensor<64x512xf32>
  %h = linalg.matmul ins(%x, %w0 : tensor<64x128xf32>, tensor<128x512xf32>) outs(%f : tensor<64x512xf32>) -> tensor<64x512xf32>
  %e1 = tensor.empty() : tensor<64x128xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %r = linalg.matmul ins(%h, %w1 : tensor<64x512xf32>, tensor<512x128xf32>) outs(%f1 : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}

// -----

// Tests that an op without a sharding rule is treated as replicated, with a
// warning (the plan still fits: the tensors are small).
spmd.mesh @mesh = <["x"=2]>
func.func @no_rule(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-warning @+1 {{op has no sharding rule; spmd-auto-partition treats it as replicated}}
  %r = "test.opaque"(%x) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

// Tests that a module with two meshes needs the mesh option.
// expected-error @+1 {{the module has 2 meshes; choose one with mesh=}}
module {
  spmd.mesh @a = <["x"=2]>
  spmd.mesh @b = <["y"=2]>
}
