// The integer program of the compatibility corpus: a polymorphic,
// sharded matmul (a (2*b, 8) batch over "x", w column-parallel over "y",
// explicit inference and propagation fixed at export) and a shard_map with
// a psum over "x" (comm.all_reduce). Integer results are the same on every
// host, so the corpus checks them exactly.
spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @main(%a: tensor<?x8xi32> {poly.shape = #poly.shape<"2*b, 8">,
                                     spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
                %w: tensor<8x4xi32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>},
                %s: tensor<4x2xi32>)
    -> (tensor<?x4xi32>, tensor<2x2xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x8xi32>
  %zero = arith.constant 0 : i32
  %e = tensor.empty(%n) : tensor<?x4xi32>
  %i = linalg.fill ins(%zero : i32) outs(%e : tensor<?x4xi32>) -> tensor<?x4xi32>
  %m = linalg.matmul ins(%a, %w : tensor<?x8xi32>, tensor<8x4xi32>)
                     outs(%i : tensor<?x4xi32>) -> tensor<?x4xi32>
  %r = arith.addi %m, %m : tensor<?x4xi32>
  %p = spmd.manual_computation(%s)
      in_shardings=[<@mesh, [{"x"}, {}]>]
      out_shardings=[<@mesh, [{}, {}]>]
      manual_axes={"x"}
      (%l: tensor<2x2xi32>) {
    %sum = comm.all_reduce sum %l over @mesh {"x"} : tensor<2x2xi32>
    spmd.return %sum : tensor<2x2xi32>
  } : (tensor<4x2xi32>) -> tensor<2x2xi32>
  return %r, %p : tensor<?x4xi32>, tensor<2x2xi32>
}
