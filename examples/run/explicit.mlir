// Explicit sharding ("sharding in types"), after JAX's explicit-sharding
// guide, on a 2x4 mesh whose axes "X" and "Y" are Explicit:
//
//   x = reshard(np.arange(4).reshape(4, 1), P("X", None))
//   y = reshard(np.arange(8).reshape(1, 8), P(None, "Y"))
//   s = x + y                                 # f32[4@X,8@Y]
//   z = jnp.dot(s, w, out_sharding=P("X", None, unreduced={"Y"}))
//   r = reshard(z, P("X", None))              # sums the partial products
//
// Every value has a sharded type that `tessera-opt --spmd-infer-explicit
// --spmd-print-types` shows; the contraction shards its contracting
// dimension over Y on both sides, which is ambiguous in JAX's rules, so it
// names its result sharding with `spmd.out_sharding`.
//
//   tessera-run examples/run/explicit.mlir --random-inputs --check
spmd.mesh @mesh = <["X"=2, "Y"=4], axis_types=[explicit, explicit]>

func.func @main(
    %x: tensor<4x1xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}]>},
    %y: tensor<1x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"Y"}]>},
    %w: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"Y"}, {}]>})
    -> tensor<4x16xf32> {
  %xs = tensor.collapse_shape %x [[0, 1]] : tensor<4x1xf32> into tensor<4xf32>
  %ys = tensor.collapse_shape %y [[0, 1]] : tensor<1x8xf32> into tensor<8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %xb = linalg.broadcast ins(%xs : tensor<4xf32>) outs(%e : tensor<4x8xf32>) dimensions = [1]
  %yb = linalg.broadcast ins(%ys : tensor<8xf32>) outs(%e : tensor<4x8xf32>) dimensions = [0]
  %s = arith.addf %xb, %yb : tensor<4x8xf32>
  %zero = arith.constant 0.0 : f32
  %ez = tensor.empty() : tensor<4x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%ez : tensor<4x16xf32>)
      {spmd.out_sharding = #spmd.sharding<@mesh, [{"X"}, {}], unreduced={"Y"}>} -> tensor<4x16xf32>
  %z = linalg.matmul ins(%s, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%init : tensor<4x16xf32>)
      {spmd.out_sharding = #spmd.sharding<@mesh, [{"X"}, {}], unreduced={"Y"}>} -> tensor<4x16xf32>
  %r = spmd.reshard %z <@mesh, [{"X"}, {}]> : tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
