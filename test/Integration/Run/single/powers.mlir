// Tests that integer powers run, on tensors (vectorized) and scalars:
// math.fpowi and math.ipowi become outlined loops (LLVM's powi intrinsic
// takes only a scalar exponent), including negative exponents.
// RUN: python3 %S/../Inputs/npy.py iota 4 f32 %t.a.npy
// RUN: python3 %S/../Inputs/npy.py iota 4 i32 %t.b.npy
// RUN: tessera-run %s --input 0=%t.a.npy --input 1=%t.b.npy --print-results --check | FileCheck %s

// (a + 1) ** b for a = b = [0, 1, 2, 3]: [1, 2, 9, 64].
// CHECK: result0: f32[4] = [1, 2, 9, 64]
// (a + 1) ** (b - 2): [1, 0.5, 1, 4].
// CHECK: result1: f32[4] = [1, 0.5, 1, 4]
// (b + 1) ** b in integers: [1, 2, 9, 64].
// CHECK: result2: i32[4] = [1, 2, 9, 64]
// CHECK: check: all 3 results match the single-device reference
func.func @main(%a: tensor<4xf32>, %b: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi32>) {
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %ione = arith.constant dense<1> : tensor<4xi32>
  %two = arith.constant dense<2> : tensor<4xi32>
  %a1 = arith.addf %a, %one : tensor<4xf32>
  %p = math.fpowi %a1, %b : tensor<4xf32>, tensor<4xi32>
  %b2 = arith.subi %b, %two : tensor<4xi32>
  %q = math.fpowi %a1, %b2 : tensor<4xf32>, tensor<4xi32>
  %b1 = arith.addi %b, %ione : tensor<4xi32>
  %r = math.ipowi %b1, %b : tensor<4xi32>
  return %p, %q, %r : tensor<4xf32>, tensor<4xf32>, tensor<4xi32>
}
