// extract_slice (strided), insert_slice and pad.
// RUN: python3 %S/../Inputs/npy.py iota 4x4 f32 %t.a.npy
// RUN: tessera-run %s --input 0=%t.a.npy --print-results | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 4 --check | FileCheck %s --check-prefix=CHECK-RANDOM

// Rows 1 and 3, columns 0 and 2: 4, 6, 12, 14.
// CHECK: result0: f32[2,2] = [4, 6, 12, 14]
// The 2x2 block at (1, 1) of zeros replaced by it.
// CHECK-NEXT: result1: f32[4,4] = [0, 0, 0, 0, 0, 4, 6, 0, 0, 12, 14, 0, 0, 0, 0, 0]
// Padded by one row above and one column right with -1.
// CHECK-NEXT: result2: f32[3,3] = [-1, -1, -1, 4, 6, -1, 12, 14, -1]
// CHECK-RANDOM: check: all 3 results match the single-device reference
func.func @main(%a: tensor<4x4xf32>) -> (tensor<2x2xf32>, tensor<4x4xf32>, tensor<3x3xf32>) {
  %s = tensor.extract_slice %a[1, 0] [2, 2] [2, 2] : tensor<4x4xf32> to tensor<2x2xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %i = tensor.insert_slice %s into %f[1, 1] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<4x4xf32>
  %m1 = arith.constant -1.0 : f32
  %p = tensor.pad %s low[1, 0] high[0, 1] {
  ^bb0(%x: index, %y: index):
    tensor.yield %m1 : f32
  } : tensor<2x2xf32> to tensor<3x3xf32>
  return %s, %i, %p : tensor<2x2xf32>, tensor<4x4xf32>, tensor<3x3xf32>
}
