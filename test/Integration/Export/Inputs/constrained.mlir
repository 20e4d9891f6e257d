// A function of a batch of b rows with user constraints: b >= 8, and the
// second argument at least as long as the batch (c >= b). JAX loses such
// constraints when it serializes; an artifact keeps them and checks them
// when it is called.
func.func @f(%x: tensor<?x4xi32> {poly.shape = #poly.shape<"b, 4">},
             %y: tensor<?xi32> {poly.shape = #poly.shape<"c">})
    -> tensor<?x4xi32> attributes {poly.constraints = ["b >= 8", "c >= b"]} {
  %0 = arith.addi %x, %x : tensor<?x4xi32>
  return %0 : tensor<?x4xi32>
}
