// x[0 : x.shape[0] % 3]: the slice needs b >= mod(b, 3).
func.func @head(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %b = tensor.dim %x, %c0 : tensor<?xf32>
  %n = arith.remsi %b, %c3 : index
  %0 = tensor.extract_slice %x[0] [%n] [1] : tensor<?xf32> to tensor<?xf32>
  return %0 : tensor<?xf32>
}
