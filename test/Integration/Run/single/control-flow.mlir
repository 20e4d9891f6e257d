// scf.for with a tensor carry, scf.while and scf.if.
// RUN: python3 %S/../Inputs/npy.py iota 4 f32 %t.a.npy
// RUN: tessera-run %s --input 0=%t.a.npy --print-results | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 11 --check | FileCheck %s --check-prefix=CHECK-RANDOM

// Five times a + 1 from a: a + 5.
// CHECK: result0: f32[4] = [5, 6, 7, 8]
// Doubling while element 0 < 100 starting from a + 1: 1, 2, 4, ..., 128.
// CHECK-NEXT: result1: f32[4] = [128, 256, 384, 512]
// a[3] = 3 > 2, so the then branch: a * a.
// CHECK-NEXT: result2: f32[4] = [0, 1, 4, 9]
// CHECK-RANDOM: check: all 3 results match the single-device reference
func.func @main(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %r = scf.for %i = %c0 to %c5 step %c1 iter_args(%acc = %a) -> tensor<4xf32> {
    %n = arith.addf %acc, %one : tensor<4xf32>
    scf.yield %n : tensor<4xf32>
  }
  %start = arith.addf %a, %one : tensor<4xf32>
  %hundred = arith.constant 100.0 : f32
  %w = scf.while (%x = %start) : (tensor<4xf32>) -> tensor<4xf32> {
    %e = tensor.extract %x[%c0] : tensor<4xf32>
    %lt = arith.cmpf olt, %e, %hundred : f32
    scf.condition(%lt) %x : tensor<4xf32>
  } do {
  ^bb0(%x: tensor<4xf32>):
    %d = arith.addf %x, %x : tensor<4xf32>
    scf.yield %d : tensor<4xf32>
  }
  %last = tensor.extract %a[%c3] : tensor<4xf32>
  %two = arith.constant 2.0 : f32
  %big = arith.cmpf ogt, %last, %two : f32
  %s = scf.if %big -> tensor<4xf32> {
    %sq = arith.mulf %a, %a : tensor<4xf32>
    scf.yield %sq : tensor<4xf32>
  } else {
    scf.yield %a : tensor<4xf32>
  }
  return %r, %w, %s : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
