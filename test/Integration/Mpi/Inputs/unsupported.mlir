// A program the CPU pipeline cannot lower (for errors.test): every process
// reports it at its location.
spmd.mesh @mesh = <["x"=2]>
func.func @main(%a: tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.softmax dimension(1) ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
