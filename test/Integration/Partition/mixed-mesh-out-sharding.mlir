// Tests that a program on a mesh mixing an Explicit and an Auto axis, whose
// ops carry `spmd.out_sharding` (closed and open dims, a creation op), is
// partitioned right: the out_shardings are the values' types, propagation
// adds the Auto axis around them, and every mesh size matches the
// single-device reference.
// RUN: tessera-run %s --random-inputs --seed 5 --check | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 5 --check --mesh x=4,y=2 | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 5 --check --mesh x=1,y=4 | FileCheck %s
// CHECK: check: all 1 results match the single-device reference

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, auto]>

func.func @main(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
                %w: tensor<4x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>}) -> tensor<8x6xf32> {
  %0 = arith.negf %a {spmd.out_sharding = #spmd.sharding<@mesh, [{}, {"x"}]>} : tensor<8x4xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() {spmd.out_sharding = #spmd.sharding<@mesh, [{"x"}, {}]>} : tensor<8x6xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x6xf32>) -> tensor<8x6xf32>
  %m = linalg.matmul ins(%0, %w : tensor<8x4xf32>, tensor<4x6xf32>) outs(%f : tensor<8x6xf32>) -> tensor<8x6xf32>
  %n = math.tanh %m {spmd.out_sharding = #spmd.sharding<@mesh, [{"x", ?}, {?}]>} : tensor<8x6xf32>
  %o = arith.addf %n, %n : tensor<8x6xf32>
  return %o : tensor<8x6xf32>
}
