// Tests that convolutions and poolings typed by JAX's rules on Explicit
// axes (conv_general_dilated, reduce_window: batch and spatial dimensions
// keep their axes) are partitioned right: the batch stays sharded, and a
// sharded spatial dimension, whose windows cross block edges, stays
// sharded: each device gets the rows its windows read from its neighbours
// (a halo exchange; windowed-halo.mlir has more cases).
// RUN: tessera-run %s --random-inputs --seed 11 --check | FileCheck %s
// RUN: tessera-run %s --entry pool --random-inputs --seed 12 --check | FileCheck %s
// RUN: tessera-opt %s --tessera-partition | FileCheck %s --check-prefix=IR

// CHECK: check: all 1 results match the single-device reference

// The per-device convolution reads its batch block (2 of 4) and the 6 rows
// of the padded height its 4 output rows need: its own 5 and one from the
// device before or after it along "y" (never the whole height).
// IR-LABEL: func.func @main
// IR-NOT: comm.all_gather {{.*}} dim 1 : tensor<2x5x6x3xf32>
// IR: comm.permute %{{.*}} over @mesh {"y"} pairs [0 -> 1] : tensor<2x1x6x3xf32>
// IR: comm.permute %{{.*}} over @mesh {"y"} pairs [1 -> 0] : tensor<2x1x6x3xf32>
// IR: linalg.conv_2d_nhwc_hwcf ins({{.*}} : tensor<2x6x6x3xf32>, tensor<3x3x3x4xf32>) outs({{.*}} : tensor<2x4x4x4xf32>)

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
