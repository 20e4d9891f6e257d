// Reshapes, transposes, broadcasts and concatenation.
// RUN: python3 %S/../Inputs/npy.py iota 2x3 i32 %t.a.npy
// RUN: tessera-run %s --input 0=%t.a.npy --print-results | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 9 --check | FileCheck %s --check-prefix=CHECK-RANDOM

// CHECK: result0: i32[3,2] = [0, 3, 1, 4, 2, 5]
// CHECK-NEXT: result1: i32[6] = [0, 1, 2, 3, 4, 5]
// CHECK-NEXT: result2: i32[2,3,2] = [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
// CHECK-NEXT: result3: i32[4,3] = [0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5]
// CHECK-NEXT: result4: i32[1,2,3] = [0, 1, 2, 3, 4, 5]
// CHECK-RANDOM: check: all 5 results match the single-device reference
func.func @main(%a: tensor<2x3xi32>) -> (tensor<3x2xi32>, tensor<6xi32>, tensor<2x3x2xi32>, tensor<4x3xi32>, tensor<1x2x3xi32>) {
  %e = tensor.empty() : tensor<3x2xi32>
  %t = linalg.transpose ins(%a : tensor<2x3xi32>) outs(%e : tensor<3x2xi32>) permutation = [1, 0]
  %c = tensor.collapse_shape %a [[0, 1]] : tensor<2x3xi32> into tensor<6xi32>
  %eb = tensor.empty() : tensor<2x3x2xi32>
  %b = linalg.broadcast ins(%a : tensor<2x3xi32>) outs(%eb : tensor<2x3x2xi32>) dimensions = [2]
  %cat = tensor.concat dim(0) %a, %a : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<4x3xi32>
  %x = tensor.expand_shape %a [[0, 1], [2]] output_shape [1, 2, 3] : tensor<2x3xi32> into tensor<1x2x3xi32>
  return %t, %c, %b, %cat, %x : tensor<3x2xi32>, tensor<6xi32>, tensor<2x3x2xi32>, tensor<4x3xi32>, tensor<1x2x3xi32>
}
