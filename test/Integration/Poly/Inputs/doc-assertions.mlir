// JAX's documented example: %x has the shape (b, b, 2*d); @main calls @f
// with the shape (3, 3, 5), where 2*d cannot be 5.
func.func @f(%x: tensor<?x?x?xf32> {poly.shape = #poly.shape<"b, b, 2*d">}) -> index {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  return %b : index
}

func.func @main() {
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %t = tensor.empty(%c3, %c3, %c5) : tensor<?x?x?xf32>
  %b = func.call @f(%t) : (tensor<?x?x?xf32>) -> index
  vector.print %b : index
  return
}
