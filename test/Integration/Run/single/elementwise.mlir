// Elementwise arith and math on tensors, with a known-value run on iota
// inputs and a randomized run checked against the single-device reference.
// RUN: python3 %S/../Inputs/npy.py iota 2x3 f32 %t.a.npy
// RUN: tessera-run %s --input 0=%t.a.npy --input b=%t.a.npy --print-results | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 7 --check | FileCheck %s --check-prefix=CHECK-RANDOM

// CHECK: tessera-run: @main on a single device (1 device)
// a*b + a - b/(b+1) on 0..5: 0, 1.5, 5.33333, 11.25, 19.2, 29.1667
// CHECK-NEXT: result0: f32[2,3] = [0, 1.5, 5.33333, 11.25, 19.2, 29.1667]
// exp(-a) on 0..5
// CHECK-NEXT: result1: f32[2,3] = [1, 0.367879, 0.135335, 0.0497871, 0.0183156, 0.00673795]
// CHECK-RANDOM: check: all 2 results match the single-device reference
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %one = arith.constant dense<1.0> : tensor<2x3xf32>
  %p = arith.mulf %a, %b : tensor<2x3xf32>
  %s = arith.addf %p, %a : tensor<2x3xf32>
  %d = arith.addf %b, %one : tensor<2x3xf32>
  %q = arith.divf %b, %d : tensor<2x3xf32>
  %r = arith.subf %s, %q : tensor<2x3xf32>
  %n = arith.negf %a : tensor<2x3xf32>
  %e = math.exp %n : tensor<2x3xf32>
  return %r, %e : tensor<2x3xf32>, tensor<2x3xf32>
}
