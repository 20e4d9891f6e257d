// The two-layer MLP of the Shardy migration guide (JAX's `predict`) on a
// 4x2 mesh: data parallelism over "data" (the batch of x) and tensor
// parallelism over "model" (w1 column-parallel, w2 row-parallel). Only the
// arguments are annotated; `tessera-run` propagates the shardings to every
// value (tessera-propagate) before it lowers the program.
//
//   make run    (tessera-run examples/run/mlp.mlir --random-inputs --check
//                --show-sharding --stats)
spmd.mesh @mesh = <["data"=4, "model"=2]>

func.func @predict(
    %x: tensor<16x128xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
    %w1: tensor<128x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>},
    %w2: tensor<256x10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>})
    -> tensor<16x10xf32> {
  %zero = arith.constant 0.0 : f32
  %t = math.tanh %x : tensor<16x128xf32>
  %e1 = tensor.empty() : tensor<16x256xf32>
  %i1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16x256xf32>) -> tensor<16x256xf32>
  %z1 = linalg.matmul ins(%t, %w1 : tensor<16x128xf32>, tensor<128x256xf32>)
                      outs(%i1 : tensor<16x256xf32>) -> tensor<16x256xf32>
  %e2 = tensor.empty() : tensor<16x10xf32>
  %i2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<16x10xf32>) -> tensor<16x10xf32>
  %z2 = linalg.matmul ins(%z1, %w2 : tensor<16x256xf32>, tensor<256x10xf32>)
                      outs(%i2 : tensor<16x10xf32>) -> tensor<16x10xf32>
  %r = math.sin %z2 : tensor<16x10xf32>
  return %r : tensor<16x10xf32>
}
