// batch_matmul and a contraction written as linalg.generic with a
// transposed right operand.
// RUN: python3 %S/../Inputs/npy.py iota 2x2x2 i32 %t.a.npy
// RUN: tessera-run %s --entry batched --input 0=%t.a.npy --input 1=%t.a.npy --print-results | FileCheck %s
// RUN: tessera-run %s --entry transposed --random-inputs --seed 2 --check | FileCheck %s --check-prefix=CHECK-RANDOM

// batch 0: [[0,1],[2,3]]^2 = [[2,3],[6,11]]; batch 1: [[4,5],[6,7]]^2 = [[46,55],[66,79]]
// CHECK: result0: i32[2,2,2] = [2, 3, 6, 11, 46, 55, 66, 79]
// CHECK-RANDOM: check: result0 f64[5,7]: match
func.func @batched(%a: tensor<2x2x2xi32>, %b: tensor<2x2x2xi32>) -> tensor<2x2x2xi32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<2x2x2xi32>
  %f = linalg.fill ins(%z : i32) outs(%e : tensor<2x2x2xi32>) -> tensor<2x2x2xi32>
  %m = linalg.batch_matmul ins(%a, %b : tensor<2x2x2xi32>, tensor<2x2x2xi32>) outs(%f : tensor<2x2x2xi32>) -> tensor<2x2x2xi32>
  return %m : tensor<2x2x2xi32>
}

#lhs = affine_map<(i, j, k) -> (i, k)>
#rhs = affine_map<(i, j, k) -> (j, k)>
#out = affine_map<(i, j, k) -> (i, j)>
func.func @transposed(%a: tensor<5x9xf64>, %b: tensor<7x9xf64>) -> tensor<5x7xf64> {
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<5x7xf64>
  %f = linalg.fill ins(%z : f64) outs(%e : tensor<5x7xf64>) -> tensor<5x7xf64>
  %m = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<5x9xf64>, tensor<7x9xf64>) outs(%f : tensor<5x7xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<5x7xf64>
  return %m : tensor<5x7xf64>
}
