// linalg.reduce (sum over dim 1, max over dim 0) on iota inputs.
// RUN: python3 %S/../Inputs/npy.py iota 3x4 f32 %t.a.npy
// RUN: tessera-run %s --input 0=%t.a.npy --print-results | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 5 --check | FileCheck %s --check-prefix=CHECK-RANDOM

// Row sums of [[0..3],[4..7],[8..11]]: 6, 22, 38; column maxima: 8..11.
// CHECK: result0: f32[3] = [6, 22, 38]
// CHECK-NEXT: result1: f32[4] = [8, 9, 10, 11]
// CHECK-RANDOM: check: all 2 results match the single-device reference
func.func @main(%a: tensor<3x4xf32>) -> (tensor<3xf32>, tensor<4xf32>) {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<3xf32>
  %f0 = linalg.fill ins(%z : f32) outs(%e0 : tensor<3xf32>) -> tensor<3xf32>
  %sum = linalg.reduce ins(%a : tensor<3x4xf32>) outs(%f0 : tensor<3xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  %e1 = tensor.empty() : tensor<4xf32>
  %f1 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %max = linalg.reduce ins(%a : tensor<3x4xf32>) outs(%f1 : tensor<4xf32>) dimensions = [0]
    (%x: f32, %acc: f32) {
      %m = arith.maximumf %x, %acc : f32
      linalg.yield %m : f32
    }
  return %sum, %max : tensor<3xf32>, tensor<4xf32>
}
