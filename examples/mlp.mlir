// A two-layer MLP over a 4x2 mesh ("data" x "model"), as in the Shardy
// migration guide: data parallelism on the batch and Megatron-style tensor
// parallelism on the weights. Both axes are explicit, so every value has a
// JAX-style sharded type (tessera-opt --spmd-print-types shows them).

spmd.mesh @mesh = <["data"=4, "model"=2], axis_types=[explicit, explicit]>

func.func @predict(
    %x: tensor<16x128xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
    %w1: tensor<128x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>},
    %w2: tensor<256x10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>})
    -> (tensor<16x10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) {
  %t = math.tanh %x {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"data"}, {}]>]>} : tensor<16x128xf32>
  %zero = arith.constant 0.0 : f32

  // Layer 1, column-parallel: nobody shards the contracting dimension, so
  // the result keeps the batch sharding of %t and the model sharding of %w1.
  %e1 = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>} : tensor<16x256xf32>
  %i1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16x256xf32>)
                    {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>}
                    -> tensor<16x256xf32>
  %z1 = linalg.matmul ins(%t, %w1 : tensor<16x128xf32>, tensor<128x256xf32>)
                      outs(%i1 : tensor<16x256xf32>)
                      {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>}
                      -> tensor<16x256xf32>

  // Layer 2, row-parallel: both operands are sharded over "model" on the
  // contracting dimension, so each device holds a partial sum: the result
  // is unreduced over "model" (JAX: out_sharding=P('data', None,
  // unreduced={'model'}): spmd.out_sharding), as is its zero accumulator.
  %e2 = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"data"}, {}]>]>} : tensor<16x10xf32>
  %i2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<16x10xf32>)
                    {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"data"}, {}], unreduced={"model"}>]>}
                    -> tensor<16x10xf32>
  %z2 = linalg.matmul ins(%z1, %w2 : tensor<16x256xf32>, tensor<256x10xf32>)
                      outs(%i2 : tensor<16x10xf32>)
                      {spmd.out_sharding = #spmd.sharding<@mesh, [{"data"}, {}], unreduced={"model"}>}
                      -> tensor<16x10xf32>

  // jax.reshard to P('data', None) sums the partial results (an all-reduce
  // over "model") before the nonlinearity.
  %s = spmd.reshard %z2 <@mesh, [{"data"}, {}]> : tensor<16x10xf32>
  %r = math.sin %s {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"data"}, {}]>]>} : tensor<16x10xf32>
  return %r : tensor<16x10xf32>
}
