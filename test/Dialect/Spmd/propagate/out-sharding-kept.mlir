// RUN: tessera-opt %s -split-input-file --spmd-propagate | FileCheck %s

// Tests that propagation reads a result's `spmd.out_sharding` (what the user
// asked for) but never writes another sharding there, even where its dims
// are open: the op keeps exactly its out_sharding and its users still
// receive the axes of the other operands.

spmd.mesh @mesh = <["x"=2, "y"=2]>

// CHECK-LABEL: func.func @open_out_sharding_kept
// CHECK: arith.negf %arg0 {spmd.out_sharding = #spmd.sharding<@mesh, [{?}, {?}]>} : tensor<8x4xf32>
// CHECK: arith.addf %{{.*}}, %arg1 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x", ?}, {?}]>]>}
func.func @open_out_sharding_kept(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>},
                                  %b: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x4xf32> {
  %0 = arith.negf %a {spmd.out_sharding = #spmd.sharding<@mesh, [{?}, {?}]>} : tensor<8x4xf32>
  %1 = arith.addf %0, %b : tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}
