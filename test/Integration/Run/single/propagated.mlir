// An Auto-mode program with a sharding constraint and a reshape: the
// shardings propagate (tessera-propagate), the values run replicated, and
// the results match the single-device run.
// RUN: tessera-run %s --random-inputs --seed 41 --check --show-sharding | FileCheck %s

// CHECK: tessera-run: @main on a=2,b=2 (4 devices)
// CHECK: arg0 (%x): f32[8,6]  #spmd.sharding<@mesh, [{"a"}, {}]>
// The result gets "a" on its rows from the argument.
// CHECK: result0: f32[4,2,6]  #spmd.sharding<@mesh, [{"a", ?}, {?}, {?}]>
// CHECK: check: all 1 results match the single-device reference
spmd.mesh @mesh = <["a"=2, "b"=2]>
func.func @main(%x: tensor<8x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {}]>}) -> tensor<4x2x6xf32> {
  %e = math.exp %x : tensor<8x6xf32>
  %c = spmd.sharding_constraint %e <@mesh, [{"a"}, {?}]> : tensor<8x6xf32>
  %r = tensor.expand_shape %c [[0, 1], [2]] output_shape [4, 2, 6] : tensor<8x6xf32> into tensor<4x2x6xf32>
  %n = arith.negf %r : tensor<4x2x6xf32>
  return %n : tensor<4x2x6xf32>
}
