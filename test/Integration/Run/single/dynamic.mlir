// Dynamic dimensions: the shape comes from the input (a file or
// --input-shape); results take dynamic shapes too.
// RUN: python3 %S/../Inputs/npy.py iota 3x2 f32 %t.a.npy
// RUN: tessera-run %s --input 0=%t.a.npy --print-results | FileCheck %s
// RUN: tessera-run %s --random-inputs --input-shape 0=5x2 --check | FileCheck %s --check-prefix=CHECK-RANDOM

// Row sums of [[0,1],[2,3],[4,5]] and the doubled input.
// CHECK: result0: f32[3] = [1, 5, 9]
// CHECK-NEXT: result1: f32[3,2] = [0, 2, 4, 6, 8, 10]
// CHECK-RANDOM: check: result0 f32[5]: match
// CHECK-RANDOM: check: result1 f32[5,2]: match
func.func @main(%a: tensor<?x2xf32>) -> (tensor<?xf32>, tensor<?x2xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x2xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.reduce ins(%a : tensor<?x2xf32>) outs(%f : tensor<?xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %t = arith.addf %x, %acc : f32
      linalg.yield %t : f32
    }
  %d = arith.addf %a, %a : tensor<?x2xf32>
  return %s, %d : tensor<?xf32>, tensor<?x2xf32>
}
