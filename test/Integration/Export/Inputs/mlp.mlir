// The two-layer MLP of examples/run/mlp.mlir with a symbolic batch: x is
// (4*b, 128), a multiple of the 4 devices of "data", and every function of
// the batch is exported once and run at any b. Data parallelism over "data"
// and tensor parallelism over "model" (w1 column-parallel, w2
// row-parallel); only the arguments are annotated.
spmd.mesh @mesh = <["data"=4, "model"=2]>

func.func @predict(
    %x: tensor<?x128xf32> {poly.shape = #poly.shape<"4*b, 128">,
                           spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
    %w1: tensor<128x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>},
    %w2: tensor<256x10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>})
    -> tensor<?x10xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x128xf32>
  %zero = arith.constant 0.0 : f32
  %t = math.tanh %x : tensor<?x128xf32>
  %e1 = tensor.empty(%n) : tensor<?x256xf32>
  %i1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<?x256xf32>) -> tensor<?x256xf32>
  %z1 = linalg.matmul ins(%t, %w1 : tensor<?x128xf32>, tensor<128x256xf32>)
                      outs(%i1 : tensor<?x256xf32>) -> tensor<?x256xf32>
  %e2 = tensor.empty(%n) : tensor<?x10xf32>
  %i2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?x10xf32>) -> tensor<?x10xf32>
  %z2 = linalg.matmul ins(%z1, %w2 : tensor<?x256xf32>, tensor<256x10xf32>)
                      outs(%i2 : tensor<?x10xf32>) -> tensor<?x10xf32>
  %r = math.sin %z2 : tensor<?x10xf32>
  return %r : tensor<?x10xf32>
}
