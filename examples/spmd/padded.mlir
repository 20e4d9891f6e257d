// Row sums of a 4x6 matrix whose 6 columns are sharded over 4 devices:
// blocks of 2 columns, the last device's block all padding.
spmd.mesh @mesh = <["x"=4]>

func.func @row_sums(%a: tensor<4x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %x = math.exp %a : tensor<4x6xf32>
  %s = linalg.reduce ins(%x : tensor<4x6xf32>) outs(%init : tensor<4xf32>) dimensions = [1]
    (%v: f32, %acc: f32) {
      %r = arith.addf %v, %acc : f32
      linalg.yield %r : f32
    }
  return %s : tensor<4xf32>
}
