// Two batch sizes that need not be equal.
func.func @add(%x: tensor<?xf32> {poly.shape = #poly.shape<"v">},
               %y: tensor<?xf32> {poly.shape = #poly.shape<"w">}) -> tensor<?xf32> {
  %0 = arith.addf %x, %y : tensor<?xf32>
  return %0 : tensor<?xf32>
}
