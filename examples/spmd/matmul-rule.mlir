func.func @matmul(%a: tensor<8x32xf32>, %b: tensor<32x16xf32>, %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x32xf32>, tensor<32x16xf32>) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
