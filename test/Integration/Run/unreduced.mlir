// Tests that unreduced entry arguments are placed as JAX places them (the
// first device of each group along the unreduced axes holds the value, the
// others zeros, so the partial values sum to it) and that unreduced results
// are summed when the devices' blocks are assembled.
// RUN: python3 %S/Inputs/npy.py iota 4 i32 %t.a.npy
// RUN: tessera-run %s --entry reduce --input 0=%t.a.npy --print-results --check | FileCheck %s --check-prefix=REDUCE
// RUN: tessera-run %s --entry passthrough --input 0=%t.a.npy --print-results --check | FileCheck %s --check-prefix=PASS
// RUN: tessera-run %s --entry scale --input 0=%t.a.npy --print-results --check | FileCheck %s --check-prefix=SCALE
// RUN: tessera-run %s --entry sub --random-inputs --check | FileCheck %s --check-prefix=SUB
// RUN: tessera-run %s --entry maximum --input 0=%t.a.npy --print-results --check | FileCheck %s --check-prefix=MAX

// The all-reduce of an unreduced [0, 1, 2, 3] is [0, 1, 2, 3], not twice it.
// REDUCE: tessera-run: @reduce on x=2,y=4 (8 devices)
// REDUCE: result0: i32[4] = [0, 1, 2, 3]
// REDUCE: check: all 1 results match the single-device reference
// An unreduced argument returned unreduced: the partial values sum back.
// PASS: result0: i32[4] = [0, 1, 2, 3]
// PASS: check: all 1 results match
// Doubling the partial values doubles their sum.
// SCALE: result0: i32[4] = [0, 2, 4, 6]
// SCALE: check: all 1 results match
// Unreduced over a sub-axis and sharded over the other axis.
// SUB: check: all 1 results match
// A max-unreduced value: every partial may hold it.
// MAX: result0: i32[4] = [0, 1, 2, 3]
// MAX: check: all 1 results match
spmd.mesh @mesh = <["x"=2, "y"=4]>
func.func @reduce(%a: tensor<4xi32> {spmd.sharding = #spmd.sharding<@mesh, [{}], unreduced={"x"}>}) -> tensor<4xi32> {
  %0 = spmd.all_reduce {"x"} %a out_sharding=<@mesh, [{}]> : tensor<4xi32>
  return %0 : tensor<4xi32>
}
func.func @passthrough(%a: tensor<4xi32> {spmd.sharding = #spmd.sharding<@mesh, [{}], unreduced={"x", "y"}>})
    -> (tensor<4xi32> {spmd.sharding = #spmd.sharding<@mesh, [{}], unreduced={"x", "y"}>}) {
  return %a : tensor<4xi32>
}
func.func @scale(%a: tensor<4xi32> {spmd.sharding = #spmd.sharding<@mesh, [{}], unreduced={"y"}>})
    -> (tensor<4xi32> {spmd.sharding = #spmd.sharding<@mesh, [{}], unreduced={"y"}>}) {
  %0 = arith.addi %a, %a {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}], unreduced={"y"}>]>} : tensor<4xi32>
  return %0 : tensor<4xi32>
}
func.func @sub(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}], unreduced={"y":(1)2}>})
    -> (tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %0 = spmd.all_reduce {"y":(1)2} %a out_sharding=<@mesh, [{"x"}, {}]> : tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
func.func @maximum(%a: tensor<4xi32> {spmd.sharding = #spmd.sharding<@mesh, [{}], unreduced=max{"x"}>})
    -> (tensor<4xi32> {spmd.sharding = #spmd.sharding<@mesh, [{}], unreduced=max{"x"}>}) {
  return %a : tensor<4xi32>
}
