// linalg.matmul into a filled accumulator, then tanh.
// RUN: python3 %S/../Inputs/npy.py iota 2x3 f32 %t.a.npy
// RUN: python3 %S/../Inputs/npy.py iota 3x2 f32 %t.b.npy
// RUN: tessera-run %s --input 0=%t.a.npy --input 1=%t.b.npy --entry small --print-results | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 1 --entry big --check | FileCheck %s --check-prefix=CHECK-RANDOM

// [[0,1,2],[3,4,5]] x [[0,1],[2,3],[4,5]] = [[10,13],[28,40]]
// CHECK: result0: f32[2,2] = [10, 13, 28, 40]
// CHECK-RANDOM: check: result0 f32[67,33]: match
// CHECK-RANDOM: check: all 1 results match the single-device reference
func.func @small(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x2xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %m = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x2xf32>) outs(%f : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %m : tensor<2x2xf32>
}

func.func @big(%a: tensor<67x129xf32>, %b: tensor<129x33xf32>) -> tensor<67x33xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<67x33xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<67x33xf32>) -> tensor<67x33xf32>
  %m = linalg.matmul ins(%a, %b : tensor<67x129xf32>, tensor<129x33xf32>) outs(%f : tensor<67x33xf32>) -> tensor<67x33xf32>
  %t = math.tanh %m : tensor<67x33xf32>
  return %t : tensor<67x33xf32>
}
