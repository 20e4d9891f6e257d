// Softmax over the last dimension (max, subtract, exp, sum, divide) and an
// attention-like batch_matmul feeding it.
// RUN: python3 %S/../Inputs/npy.py iota 2x3 f32 %t.a.npy
// RUN: tessera-run %s --entry softmax --input 0=%t.a.npy --print-results | FileCheck %s
// RUN: tessera-run %s --entry attention --random-inputs --seed 51 --check | FileCheck %s --check-prefix=CHECK-RANDOM

// Each row of iota(2x3) is shifted by its max: softmax([0,1,2]) both rows.
// CHECK: result0: f32[2,3] = [0.0900306, 0.244728, 0.665241, 0.0900306, 0.244728, 0.665241]
// CHECK-RANDOM: check: result0 f32[2,4,4]: match
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @softmax(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %m = linalg.reduce ins(%x : tensor<2x3xf32>) outs(%m0 : tensor<2xf32>) dimensions = [1]
    (%v: f32, %acc: f32) {
      %r = arith.maximumf %v, %acc : f32
      linalg.yield %r : f32
    }
  %e2 = tensor.empty() : tensor<2x3xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<2x3xf32>, tensor<2xf32>) outs(%e2 : tensor<2x3xf32>) {
  ^bb0(%v: f32, %mx: f32, %o: f32):
    %d = arith.subf %v, %mx : f32
    %x2 = math.exp %d : f32
    linalg.yield %x2 : f32
  } -> tensor<2x3xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %s = linalg.reduce ins(%ex : tensor<2x3xf32>) outs(%s0 : tensor<2xf32>) dimensions = [1]
    (%v: f32, %acc: f32) {
      %r = arith.addf %v, %acc : f32
      linalg.yield %r : f32
    }
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %s : tensor<2x3xf32>, tensor<2xf32>) outs(%e2 : tensor<2x3xf32>) {
  ^bb0(%v: f32, %t: f32, %o: f32):
    %q = arith.divf %v, %t : f32
    linalg.yield %q : f32
  } -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

func.func @attention(%q: tensor<2x4x8xf32>, %k: tensor<2x8x4xf32>) -> tensor<2x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %k : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %t = math.tanh %s : tensor<2x4x4xf32>
  return %t : tensor<2x4x4xf32>
}
