// RUN: tessera-opt %s -split-input-file --spmd-infer-explicit --verify-diagnostics -o /dev/null

// Tests that reductions with several results reject unreduced inputs, as
// JAX's variadic reduce and argmax (which have no unreduced rule) do.

spmd.mesh @mesh = <["x"=4, "y"=2], axis_types=[explicit, explicit]>

// A reduction with several results has no unreduced rule (JAX's variadic
// reduce and argmax have none).
func.func @unreduced_input(%a: tensor<8x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}], unreduced={"x"}>},
                           %v0: tensor<2xf32>, %s0: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  // expected-error @+1 {{unreduced rule for linalg.generic is not implemented}}
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<8x2xf32>) outs(%v0, %s0 : tensor<2xf32>, tensor<2xf32>) {
    ^bb0(%x: f32, %s: f32, %q: f32):
      %x2 = arith.mulf %x, %x : f32
      %s1 = arith.addf %s, %x : f32
      %q1 = arith.addf %q, %x2 : f32
      linalg.yield %s1, %q1 : f32, f32
  } -> (tensor<2xf32>, tensor<2xf32>)
  return %r#0, %r#1 : tensor<2xf32>, tensor<2xf32>
}
