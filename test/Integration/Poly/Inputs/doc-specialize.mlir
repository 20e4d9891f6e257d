// The row sums of a (b, 4) matrix, concatenated with the first row.
func.func @f(%x: tensor<?x4xf32> {poly.shape = #poly.shape<"b, 4">}) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %x, %c0 : tensor<?x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%b) : tensor<?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %sums = linalg.reduce ins(%x : tensor<?x4xf32>) outs(%init : tensor<?xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %row = tensor.extract_slice %x[0, 0] [1, 4] [1, 1] : tensor<?x4xf32> to tensor<4xf32>
  %all = tensor.concat dim(0) %sums, %row : (tensor<?xf32>, tensor<4xf32>) -> tensor<?xf32>
  return %all : tensor<?xf32>
}
