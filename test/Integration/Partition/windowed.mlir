// Tests that convolutions and poolings typed by JAX's rules on Explicit
// axes (conv_general_dilated, reduce_window: batch and spatial dimensions
// keep their axes) are partitioned right: the batch stays sharded, and a
// sharded spatial dimension, whose windows cross block edges, is gathered
// for the op and sliced back to the type's sharding.
// RUN: tessera-run %s --random-inputs --seed 11 --check | FileCheck %s
// RUN: tessera-run %s --entry pool --random-inputs --seed 12 --check | FileCheck %s
// RUN: tessera-opt %s --tessera-partition | FileCheck %s --check-prefix=IR

// CHECK: check: all 1 results match the single-device reference

// The per-device convolution reads its batch block (2 of 4) of the whole
// padded height, gathered over "y".
// IR-LABEL: func.func @main
// IR: comm.all_gather %{{.*}} over @mesh {"y"} dim 1 : tensor<2x5x6x3xf32> -> tensor<2x10x6x3xf32>
// IR: linalg.conv_2d_nhwc_hwcf ins({{.*}} : tensor<2x10x6x3xf32>, tensor<3x3x3x4xf32>) outs({{.*}} : tensor<2x8x4x4xf32>)

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @main(%a: tensor<4x10x6x3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}, {}, {}]>},
                %w: tensor<3x3x3x4xf32>) -> tensor<4x8x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8x4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8x4x4xf32>) -> tensor<4x8x4x4xf32>
  %0 = linalg.conv_2d_nhwc_hwcf ins(%a, %w : tensor<4x10x6x3xf32>, tensor<3x3x3x4xf32>) outs(%init : tensor<4x8x4x4xf32>) -> tensor<4x8x4x4xf32>
  return %0 : tensor<4x8x4x4xf32>
}

func.func @pool(%a: tensor<4x8x8x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}, {}, {}]>}) -> tensor<4x6x6x2xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4x6x6x2xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<4x6x6x2xf32>) -> tensor<4x6x6x2xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %0 = linalg.pooling_nhwc_max {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%a, %win : tensor<4x8x8x2xf32>, tensor<3x3xf32>) outs(%init : tensor<4x6x6x2xf32>) -> tensor<4x6x6x2xf32>
  return %0 : tensor<4x6x6x2xf32>
}
