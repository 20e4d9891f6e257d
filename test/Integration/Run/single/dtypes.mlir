// Integers (bit-exact), booleans, f64, f16 and bf16 through compare/select,
// casts and arithmetic.
// RUN: python3 %S/../Inputs/npy.py iota 4 i32 %t.a.npy
// RUN: tessera-run %s --input 0=%t.a.npy --print-results | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 13 --check | FileCheck %s --check-prefix=CHECK-RANDOM

// a > 1
// CHECK: result0: bool[4] = [false, false, true, true]
// select(a > 1, a * 3, -a)
// CHECK-NEXT: result1: i32[4] = [0, -1, 6, 9]
// f64(a) / 4
// CHECK-NEXT: result2: f64[4] = [0, 0.25, 0.5, 0.75]
// bf16(a) * 1.5 and f16(a) + 0.5
// CHECK-NEXT: result3: bf16[4] = [0, 1.5, 3, 4.5]
// CHECK-NEXT: result4: f16[4] = [0.5, 1.5, 2.5, 3.5]
// CHECK-RANDOM: check: result0 bool[4]: bit-exact match
// CHECK-RANDOM: check: result1 i32[4]: bit-exact match
// CHECK-RANDOM: check: all 5 results match the single-device reference
func.func @main(%a: tensor<4xi32>) -> (tensor<4xi1>, tensor<4xi32>, tensor<4xf64>, tensor<4xbf16>, tensor<4xf16>) {
  %one = arith.constant dense<1> : tensor<4xi32>
  %three = arith.constant dense<3> : tensor<4xi32>
  %zero = arith.constant dense<0> : tensor<4xi32>
  %gt = arith.cmpi sgt, %a, %one : tensor<4xi32>
  %t = arith.muli %a, %three : tensor<4xi32>
  %n = arith.subi %zero, %a : tensor<4xi32>
  %s = arith.select %gt, %t, %n : tensor<4xi1>, tensor<4xi32>
  %f = arith.sitofp %a : tensor<4xi32> to tensor<4xf64>
  %q = arith.constant dense<4.0> : tensor<4xf64>
  %d = arith.divf %f, %q : tensor<4xf64>
  %b = arith.sitofp %a : tensor<4xi32> to tensor<4xbf16>
  %k = arith.constant dense<1.5> : tensor<4xbf16>
  %bm = arith.mulf %b, %k : tensor<4xbf16>
  %h = arith.sitofp %a : tensor<4xi32> to tensor<4xf16>
  %half = arith.constant dense<0.5> : tensor<4xf16>
  %ha = arith.addf %h, %half : tensor<4xf16>
  return %gt, %s, %d, %bm, %ha : tensor<4xi1>, tensor<4xi32>, tensor<4xf64>, tensor<4xbf16>, tensor<4xf16>
}
