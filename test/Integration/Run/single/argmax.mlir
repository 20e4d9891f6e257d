// A reduction with two results (value and index of the row maximum) and a
// running sum built with tensor.insert in a loop.
// RUN: python3 %S/../Inputs/npy.py iota 2x4 f32 %t.a.npy
// RUN: tessera-run %s --input 0=%t.a.npy --print-results | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 53 --check | FileCheck %s --check-prefix=CHECK-RANDOM

// CHECK: result0: f32[2] = [3, 7]
// CHECK-NEXT: result1: i64[2] = [3, 3]
// Prefix sums of row 0: 0, 1, 3, 6.
// CHECK-NEXT: result2: f32[4] = [0, 1, 3, 6]
// CHECK-RANDOM: check: all 3 results match the single-device reference
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @main(%x: tensor<2x4xf32>) -> (tensor<2xf32>, tensor<2xi64>, tensor<4xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %c0i = arith.constant 0 : i64
  %ev = tensor.empty() : tensor<2xf32>
  %ei = tensor.empty() : tensor<2xi64>
  %v0 = linalg.fill ins(%ninf : f32) outs(%ev : tensor<2xf32>) -> tensor<2xf32>
  %i0 = linalg.fill ins(%c0i : i64) outs(%ei : tensor<2xi64>) -> tensor<2xi64>
  %r:2 = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2x4xf32>) outs(%v0, %i0 : tensor<2xf32>, tensor<2xi64>) {
  ^bb0(%v: f32, %best: f32, %bi: i64):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %v, %best : f32
    %nv = arith.select %gt, %v, %best : f32
    %ni = arith.select %gt, %ji, %bi : i64
    linalg.yield %nv, %ni : f32, i64
  } -> (tensor<2xf32>, tensor<2xi64>)
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%z : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %sums, %last = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc = %init, %run = %z) -> (tensor<4xf32>, f32) {
    %v = tensor.extract %x[%c0, %j] : tensor<2x4xf32>
    %n = arith.addf %run, %v : f32
    %u = tensor.insert %n into %acc[%j] : tensor<4xf32>
    scf.yield %u, %n : tensor<4xf32>, f32
  }
  return %r#0, %r#1, %sums : tensor<2xf32>, tensor<2xi64>, tensor<4xf32>
}
