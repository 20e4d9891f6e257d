// RUN: tessera-opt %s --poly-infer --spmd-print-types --verify-diagnostics=only-expected -o /dev/null

// Tests that spmd's JAX-style types name dynamic dimensions with the
// symbolic shapes poly-infer writes (the poly dialect implements
// spmd::SymbolicDimsDialectInterface): `f32[2*b@x,4]`, as jax.typeof.
spmd.mesh @mesh = <["x"=2], axis_types=[explicit]>
func.func @typeof(%x: tensor<?x4xf32> {poly.shape = #poly.shape<"b, _">}) -> tensor<?x4xf32> {
  // expected-remark @+1 {{f32[2*b,4]}}
  %0 = tensor.concat dim(0) %x, %x : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  // expected-remark @+1 {{f32[2*b@x,4]}}
  %1 = math.exp %0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}
