// A 2-D convolution (NHWC input, HWCF filter) against the reference, and a
// known value: a 1x3x3x1 iota image with a 2x2 all-ones filter.
// RUN: python3 %S/../Inputs/npy.py iota 1x3x3x1 f32 %t.img.npy
// RUN: tessera-run %s --entry small --input 0=%t.img.npy --print-results | FileCheck %s
// RUN: tessera-run %s --entry big --random-inputs --seed 3 --check | FileCheck %s --check-prefix=CHECK-RANDOM

// Windows of [[0,1,2],[3,4,5],[6,7,8]]: 0+1+3+4=8, 12, 20, 24.
// CHECK: result0: f32[1,2,2,1] = [8, 12, 20, 24]
// CHECK-RANDOM: check: all 1 results match the single-device reference
func.func @small(%img: tensor<1x3x3x1xf32>) -> tensor<1x2x2x1xf32> {
  %k = arith.constant dense<1.0> : tensor<2x2x1x1xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x2x1xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%img, %k : tensor<1x3x3x1xf32>, tensor<2x2x1x1xf32>) outs(%f : tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  return %c : tensor<1x2x2x1xf32>
}

func.func @big(%img: tensor<2x9x9x3xf32>, %k: tensor<3x3x3x8xf32>) -> tensor<2x7x7x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x7x7x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x7x7x8xf32>) -> tensor<2x7x7x8xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%img, %k : tensor<2x9x9x3xf32>, tensor<3x3x3x8xf32>) outs(%f : tensor<2x7x7x8xf32>) -> tensor<2x7x7x8xf32>
  return %c : tensor<2x7x7x8xf32>
}
