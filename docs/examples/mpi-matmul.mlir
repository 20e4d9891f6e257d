// y = x @ w on a 2x2 mesh: the batch (rows of x) over "data", the columns
// of w over "model" (docs/Tools/tessera-run.md, "Several processes").
spmd.mesh @mesh = <["data"=2, "model"=2]>
func.func @main(%x: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
                %w: tensor<4x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>})
    -> (tensor<8x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}]>}) {
  %e = tensor.empty() : tensor<8x6xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x6xf32>) -> tensor<8x6xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x4xf32>, tensor<4x6xf32>) outs(%f : tensor<8x6xf32>) -> tensor<8x6xf32>
  return %y : tensor<8x6xf32>
}
