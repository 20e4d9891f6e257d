// A function exported for every batch size b: x is (b, 2*d), w is (2*d, 8).
// The batch is sharded over the explicit mesh axis "x".
spmd.mesh @mesh = <["x"=2], axis_types=[explicit]>

func.func @f(%x: tensor<?x?xf32> {poly.shape = #poly.shape<"b, 2*d">,
                                 spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
             %w: tensor<?x8xf32> {poly.shape = #poly.shape<"2*d, 8">})
    -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %x, %c0 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%b) : tensor<?x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x8xf32>)
                     outs(%init : tensor<?x8xf32>)
                     {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>}
                     -> tensor<?x8xf32>
  %t = math.tanh %y {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : tensor<?x8xf32>
  return %t : tensor<?x8xf32>
}
