// Tests that a product of a value unreduced over "x" (a matmul whose
// out_sharding keeps its contraction's partial sums) by one reduced over
// "x" (an spmd.reshard to reduced={"x"}, then a unary op) is typed
// unreduced over "x" and partitioned right: the reduced value is replicated
// over "x", the product is summed once by the final reshard.
// RUN: tessera-run %s --random-inputs --seed 3 --check | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 3 --check --mesh x=4,y=2 | FileCheck %s
// RUN: tessera-opt %s --spmd-infer-explicit --spmd-print-types -o /dev/null 2>&1 | FileCheck %s --check-prefix=TYPES
// CHECK: check: all 1 results match the single-device reference
// TYPES: remark: f32[8@y,8]{U:x}
// TYPES: remark: f32[8@y,8]{R:x}
// TYPES: remark: f32[8@y,8]{R:x}
// TYPES: remark: f32[8@y,8]{U:x}
// TYPES: remark: f32[8@y,8]

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @main(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>},
                %b: tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
                %c: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}) -> tensor<8x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %u = linalg.matmul {spmd.out_sharding = #spmd.sharding<@mesh, [{"y"}, {}], unreduced={"x"}>} ins(%a, %b : tensor<8x4xf32>, tensor<4x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = spmd.reshard %c <@mesh, [{"y"}, {}], reduced={"x"}> : tensor<8x8xf32>
  %s = math.sin %r : tensor<8x8xf32>
  %m = arith.mulf %u, %s : tensor<8x8xf32>
  %o = spmd.reshard %m <@mesh, [{"y"}, {}]> : tensor<8x8xf32>
  return %o : tensor<8x8xf32>
}
