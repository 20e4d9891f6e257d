// Tests that convolutions and poolings whose input has a sharded spatial
// dimension keep it sharded: each device receives the window overlap its
// output block reads from its neighbours (comm.permute of slices of their
// blocks, concatenated with its own) and runs the op on that extended
// block; the spatial dimension is never gathered. Every entry runs on the
// 2x4 mesh against the single-device reference.
// RUN: tessera-run %s --entry conv_h2 --random-inputs --seed 1 --check | FileCheck %s
// RUN: tessera-run %s --entry conv_h4 --random-inputs --seed 2 --check | FileCheck %s
// RUN: tessera-run %s --entry conv_stride2_h2 --random-inputs --seed 3 --check | FileCheck %s
// RUN: tessera-run %s --entry conv_stride2_h4 --random-inputs --seed 4 --check | FileCheck %s
// RUN: tessera-run %s --entry conv_dilation2_h4 --random-inputs --seed 5 --check | FileCheck %s
// RUN: tessera-run %s --entry conv_two_hops --random-inputs --seed 6 --check | FileCheck %s
// RUN: tessera-run %s --entry conv_hw --random-inputs --seed 7 --check | FileCheck %s
// RUN: tessera-run %s --entry conv_h8 --random-inputs --seed 8 --check | FileCheck %s
// RUN: tessera-run %s --entry conv1d --random-inputs --seed 9 --check | FileCheck %s
// RUN: tessera-run %s --entry conv1d_nwc_stride2 --random-inputs --seed 10 --check | FileCheck %s
// RUN: tessera-run %s --entry depthwise --random-inputs --seed 11 --check | FileCheck %s
// RUN: tessera-run %s --entry pool_max_stride2 --random-inputs --seed 12 --check | FileCheck %s
// RUN: tessera-run %s --entry pool_sum_h4 --random-inputs --seed 13 --check | FileCheck %s
// RUN: tessera-run %s --entry pool_max_hw --random-inputs --seed 14 --check | FileCheck %s
// RUN: tessera-run %s --entry pool_sum_i32 --random-inputs --seed 15 --check | FileCheck %s
// RUN: tessera-run %s --entry filter_window_sharded --random-inputs --seed 16 --check | FileCheck %s
// RUN: tessera-run %s --entry nchw --random-inputs --seed 17 --check | FileCheck %s
// RUN: tessera-run %s --entry pool_nchw_i32 --random-inputs --seed 18 --check | FileCheck %s
// RUN: tessera-run %s --entry generic_window --random-inputs --seed 19 --check | FileCheck %s
// RUN: tessera-run %s --entry conv3d --random-inputs --seed 20 --check | FileCheck %s
// RUN: tessera-run %s --entry chain --random-inputs --seed 21 --check | FileCheck %s
// RUN: tessera-run %s --entry same_conv --random-inputs --seed 22 --check | FileCheck %s
// RUN: tessera-run %s --entry same_maxpool --random-inputs --seed 23 --check | FileCheck %s
// RUN: tessera-run %s --entry pad_asymmetric --random-inputs --seed 24 --check | FileCheck %s
// RUN: tessera-run %s --entry pad_i32_padded_result --random-inputs --seed 25 --check | FileCheck %s
// RUN: tessera-opt %s --tessera-partition | FileCheck %s --check-prefix=IR

// CHECK: check: all 1 results match the single-device reference

spmd.mesh @mesh = <["x"=2, "y"=4]>

// H (10, a 3-row window, 8 outputs) over "x": device 0 holds rows 0-4 and
// reads 0-5, device 1 holds 5-9 and reads 4-9. Each sends its last row to
// the next device and its first row to the previous one; each cuts its
// 6-row window out of the 7 rows at 1 - p.
// IR-LABEL: func.func @conv_h2
// IR-NOT: comm.all_gather
// IR: %[[L:.*]] = tensor.extract_slice %arg0[0, 4, 0, 0] [2, 1, 6, 3] [1, 1, 1, 1]
// IR: %[[LP:.*]] = comm.permute %[[L]] over @mesh {"x"} pairs [0 -> 1] : tensor<2x1x6x3xf32>
// IR: %[[R:.*]] = tensor.extract_slice %arg0[0, 0, 0, 0] [2, 1, 6, 3] [1, 1, 1, 1]
// IR: %[[RP:.*]] = comm.permute %[[R]] over @mesh {"x"} pairs [1 -> 0] : tensor<2x1x6x3xf32>
// IR: %[[E:.*]] = tensor.concat dim(1) %[[LP]], %arg0, %[[RP]] : (tensor<2x1x6x3xf32>, tensor<2x5x6x3xf32>, tensor<2x1x6x3xf32>) -> tensor<2x7x6x3xf32>
// IR: comm.axis_index over @mesh {"x"}
// IR: %[[W:.*]] = tensor.extract_slice %[[E]][0, %{{.*}}, 0, 0] [2, 6, 6, 3] [1, 1, 1, 1]
// IR: linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[W]], %{{.*}} : tensor<2x6x6x3xf32>, tensor<3x3x3x4xf32>) outs(%{{.*}} : tensor<2x4x4x4xf32>)
// IR-NOT: comm.all_gather
// IR: return
func.func @conv_h2(%a: tensor<2x10x6x3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}, {}]>},
                   %w: tensor<3x3x3x4xf32>)
    -> (tensor<2x8x4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}, {}]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%a, %w : tensor<2x10x6x3xf32>, tensor<3x3x3x4xf32>) outs(%init : tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  return %0 : tensor<2x8x4x4xf32>
}

// H (20, a 5-row window, 16 outputs) over "y", batch over "x": left halos
// of p rows and right halos of 3 - p rows, 3 each way at most.
// IR-LABEL: func.func @conv_h4
// IR-NOT: comm.all_gather
// IR: comm.permute %{{.*}} over @mesh {"y"} pairs [0 -> 1, 1 -> 2, 2 -> 3] : tensor<1x3x6x3xf32>
// IR: comm.permute %{{.*}} over @mesh {"y"} pairs [1 -> 0, 2 -> 1, 3 -> 2] : tensor<1x3x6x3xf32>
// IR: tensor.concat dim(1) {{.*}} -> tensor<1x11x6x3xf32>
// IR: linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x8x6x3xf32>, tensor<5x3x3x4xf32>) outs(%{{.*}} : tensor<1x4x4x4xf32>)
// IR-NOT: comm.all_gather
// IR: return
func.func @conv_h4(%a: tensor<2x20x6x3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}, {}, {}]>},
                   %w: tensor<5x3x3x4xf32>)
    -> (tensor<2x16x4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}, {}, {}]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x16x4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x16x4x4xf32>) -> tensor<2x16x4x4xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%a, %w : tensor<2x20x6x3xf32>, tensor<5x3x3x4xf32>) outs(%init : tensor<2x16x4x4xf32>) -> tensor<2x16x4x4xf32>
  return %0 : tensor<2x16x4x4xf32>
}

// Stride 2 over "x": 4 output rows read rows 0-8 of 10 (the last one
// unread); device 1 reads rows 4-8, one row of device 0, and device 0 needs
// nothing of device 1.
// IR-LABEL: func.func @conv_stride2_h2
// IR-NOT: comm.all_gather
// IR: comm.permute %{{.*}} over @mesh {"x"} pairs [0 -> 1] : tensor<2x1x9x3xf32>
// IR-NOT: pairs [1 -> 0]
// IR: linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x5x9x3xf32>, tensor<3x3x3x4xf32>) outs(%{{.*}} : tensor<2x2x4x4xf32>)
// IR: return
func.func @conv_stride2_h2(%a: tensor<2x10x9x3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}, {}]>},
                           %w: tensor<3x3x3x4xf32>)
    -> (tensor<2x4x4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}, {}]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%a, %w : tensor<2x10x9x3xf32>, tensor<3x3x3x4xf32>) outs(%init : tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
  return %0 : tensor<2x4x4x4xf32>
}

// Stride 2 over "y" (4 devices), H 20: each device's 2 outputs read 5 rows
// starting at 4p; it holds 5p..5p+4.
// IR-LABEL: func.func @conv_stride2_h4
// IR-NOT: comm.all_gather
// IR: comm.permute {{.*}} over @mesh {"y"} pairs [0 -> 1, 1 -> 2, 2 -> 3]
// IR: linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x5x9x3xf32>, tensor<3x3x3x4xf32>) outs(%{{.*}} : tensor<2x2x4x4xf32>)
// IR: return
func.func @conv_stride2_h4(%a: tensor<2x20x9x3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}, {}, {}]>},
                           %w: tensor<3x3x3x4xf32>)
    -> (tensor<2x8x4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}, {}, {}]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%a, %w : tensor<2x20x9x3xf32>, tensor<3x3x3x4xf32>) outs(%init : tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  return %0 : tensor<2x8x4x4xf32>
}

// Dilation 2 (a 3-tap window spanning 5 rows) over "y": H 20, 16 outputs.
// IR-LABEL: func.func @conv_dilation2_h4
// IR-NOT: comm.all_gather
// IR: comm.permute
// IR: linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x8x6x2xf32>, tensor<3x3x2x3xf32>) outs(%{{.*}} : tensor<1x4x2x3xf32>)
// IR: return
func.func @conv_dilation2_h4(%a: tensor<2x20x6x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}, {}, {}]>},
                             %w: tensor<3x3x2x3xf32>)
    -> (tensor<2x16x2x3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}, {}, {}]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x16x2x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x16x2x3xf32>) -> tensor<2x16x2x3xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%a, %w : tensor<2x20x6x2xf32>, tensor<3x3x2x3xf32>) outs(%init : tensor<2x16x2x3xf32>) -> tensor<2x16x2x3xf32>
  return %0 : tensor<2x16x2x3xf32>
}

// A 7-row window over blocks of 4 rows (H 16, 8 outputs over "y"): the left
// halo (up to 6 rows) comes from the two previous devices, a whole block
// from the farther one.
// IR-LABEL: func.func @conv_two_hops
// IR-NOT: comm.all_gather
// IR: comm.permute %{{.*}} over @mesh {"y"} pairs [0 -> 2, 1 -> 3] : tensor<1x2x4x2xf32>
// IR: comm.permute %{{.*}} over @mesh {"y"} pairs [0 -> 1, 1 -> 2, 2 -> 3] : tensor<1x4x4x2xf32>
// IR: comm.permute %{{.*}} over @mesh {"y"} pairs [1 -> 0, 2 -> 1, 3 -> 2] : tensor<1x4x4x2xf32>
// IR: tensor.concat dim(1) {{.*}} -> tensor<1x14x4x2xf32>
// IR: linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x8x4x2xf32>, tensor<7x1x2x2xf32>) outs(%{{.*}} : tensor<1x2x4x2xf32>)
// IR: return
func.func @conv_two_hops(%a: tensor<1x16x4x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}, {}, {}]>},
                         %w: tensor<7x1x2x2xf32>)
    -> (tensor<1x8x4x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}, {}, {}]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x4x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x4x2xf32>) -> tensor<1x8x4x2xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%a, %w : tensor<1x16x4x2xf32>, tensor<7x1x2x2xf32>) outs(%init : tensor<1x8x4x2xf32>) -> tensor<1x8x4x2xf32>
  return %0 : tensor<1x8x4x2xf32>
}

// H over "x" and W over "y": the exchange along W moves blocks already
// extended along H, so the corners come with it.
// IR-LABEL: func.func @conv_hw
// IR-NOT: comm.all_gather
// IR: comm.permute %{{.*}} over @mesh {"x"} pairs [0 -> 1] : tensor<2x1x5x3xf32>
// IR: tensor.concat dim(1) {{.*}} -> tensor<2x7x5x3xf32>
// IR: comm.permute %{{.*}} over @mesh {"y"} pairs [0 -> 1, 1 -> 2, 2 -> 3] : tensor<2x6x3x3xf32>
// IR: tensor.concat dim(2) {{.*}} -> tensor<2x6x11x3xf32>
// IR: linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x6x8x3xf32>, tensor<3x5x3x4xf32>) outs(%{{.*}} : tensor<2x4x4x4xf32>)
// IR-NOT: comm.all_gather
// IR: return
func.func @conv_hw(%a: tensor<2x10x20x3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {"y"}, {}]>},
                   %w: tensor<3x5x3x4xf32>)
    -> (tensor<2x8x16x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {"y"}, {}]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x16x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x16x4xf32>) -> tensor<2x8x16x4xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%a, %w : tensor<2x10x20x3xf32>, tensor<3x5x3x4xf32>) outs(%init : tensor<2x8x16x4xf32>) -> tensor<2x8x16x4xf32>
  return %0 : tensor<2x8x16x4xf32>
}

// H over both axes (8 devices, 3-row blocks of 24; 16 outputs of a 3-row
// window read rows 0-17): device p reads rows 2p..2p+3 and holds 3p..3p+2,
// so the left halo grows to 7 rows over three hops.
// IR-LABEL: func.func @conv_h8
// IR-NOT: comm.all_gather
// IR: comm.permute %{{.*}} over @mesh {"x", "y"} pairs [0 -> 3, 1 -> 4, 2 -> 5, 3 -> 6, 4 -> 7] : tensor<1x1x5x2xf32>
// IR: comm.permute %{{.*}} over @mesh {"x", "y"} pairs [0 -> 2, 1 -> 3, 2 -> 4, 3 -> 5, 4 -> 6, 5 -> 7] : tensor<1x3x5x2xf32>
// IR: comm.permute %{{.*}} over @mesh {"x", "y"} pairs [0 -> 1, 1 -> 2, 2 -> 3, 3 -> 4, 4 -> 5, 5 -> 6, 6 -> 7] : tensor<1x3x5x2xf32>
// IR: comm.permute %{{.*}} over @mesh {"x", "y"} pairs [1 -> 0, 2 -> 1, 3 -> 2, 4 -> 3, 5 -> 4, 6 -> 5, 7 -> 6] : tensor<1x1x5x2xf32>
// IR: linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x5x2xf32>, tensor<3x3x2x2xf32>) outs(%{{.*}} : tensor<1x2x3x2xf32>)
// IR-NOT: comm.all_gather
// IR: return
func.func @conv_h8(%a: tensor<1x24x5x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x", "y"}, {}, {}]>},
                   %w: tensor<3x3x2x2xf32>)
    -> (tensor<1x16x3x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x", "y"}, {}, {}]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x3x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x3x2xf32>) -> tensor<1x16x3x2xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%a, %w : tensor<1x24x5x2xf32>, tensor<3x3x2x2xf32>) outs(%init : tensor<1x16x3x2xf32>) -> tensor<1x16x3x2xf32>
  return %0 : tensor<1x16x3x2xf32>
}

// conv_1d over "y": 20 inputs, a 5-tap filter, 16 outputs.
// IR-LABEL: func.func @conv1d
// IR-NOT: comm.all_gather
// IR: comm.permute %{{.*}} over @mesh {"y"} pairs [0 -> 1, 1 -> 2, 2 -> 3] : tensor<3xf32>
// IR: linalg.conv_1d ins(%{{.*}}, %{{.*}} : tensor<8xf32>, tensor<5xf32>) outs(%{{.*}} : tensor<4xf32>)
// IR: return
func.func @conv1d(%a: tensor<20xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}]>},
                  %w: tensor<5xf32>)
    -> (tensor<16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %0 = linalg.conv_1d ins(%a, %w : tensor<20xf32>, tensor<5xf32>) outs(%init : tensor<16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// conv_1d_nwc_wcf with stride 2 over "y", batch over "x".
// IR-LABEL: func.func @conv1d_nwc_stride2
// IR-NOT: comm.all_gather
// IR: comm.permute
// IR: linalg.conv_1d_nwc_wcf {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x5x3xf32>, tensor<3x3x2xf32>) outs(%{{.*}} : tensor<1x2x2xf32>)
// IR: return
func.func @conv1d_nwc_stride2(%a: tensor<2x20x3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}, {}]>},
                              %w: tensor<3x3x2xf32>)
    -> (tensor<2x8x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}, {}]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x2xf32>) -> tensor<2x8x2xf32>
  %0 = linalg.conv_1d_nwc_wcf {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>}
      ins(%a, %w : tensor<2x20x3xf32>, tensor<3x3x2xf32>) outs(%init : tensor<2x8x2xf32>) -> tensor<2x8x2xf32>
  return %0 : tensor<2x8x2xf32>
}

// A depthwise convolution (dilation 2) with H over "x" and channels over
// "y".
// IR-LABEL: func.func @depthwise
// IR-NOT: comm.all_gather
// IR: comm.permute
// IR: linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x8x8x1xf32>, tensor<3x3x1xf32>) outs(%{{.*}} : tensor<2x4x4x1xf32>)
// IR: return
func.func @depthwise(%a: tensor<2x12x8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}, {"y"}]>},
                     %w: tensor<3x3x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}, {"y"}]>})
    -> (tensor<2x8x4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}, {"y"}]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%a, %w : tensor<2x12x8x4xf32>, tensor<3x3x4xf32>) outs(%init : tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  return %0 : tensor<2x8x4x4xf32>
}

// Max pooling, a 3x3 window with stride 2, H over "y".
// IR-LABEL: func.func @pool_max_stride2
// IR-NOT: comm.all_gather
// IR: comm.permute
// IR: linalg.pooling_nhwc_max {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x5x9x2xf32>, tensor<3x3xf32>) outs(%{{.*}} : tensor<2x2x4x2xf32>)
// IR: return
func.func @pool_max_stride2(%a: tensor<2x20x9x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}, {}, {}]>})
    -> (tensor<2x8x4x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}, {}, {}]>}) {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<2x8x4x2xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<2x8x4x2xf32>) -> tensor<2x8x4x2xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %0 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%a, %win : tensor<2x20x9x2xf32>, tensor<3x3xf32>) outs(%init : tensor<2x8x4x2xf32>) -> tensor<2x8x4x2xf32>
  return %0 : tensor<2x8x4x2xf32>
}

// Sum pooling, a 5x2 window, H over "y", batch over "x".
// IR-LABEL: func.func @pool_sum_h4
// IR-NOT: comm.all_gather
// IR: comm.permute
// IR: linalg.pooling_nhwc_sum {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x8x6x2xf32>, tensor<5x2xf32>) outs(%{{.*}} : tensor<1x4x5x2xf32>)
// IR: return
func.func @pool_sum_h4(%a: tensor<2x20x6x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}, {}, {}]>})
    -> (tensor<2x16x5x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}, {}, {}]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x16x5x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x16x5x2xf32>) -> tensor<2x16x5x2xf32>
  %win = tensor.empty() : tensor<5x2xf32>
  %0 = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%a, %win : tensor<2x20x6x2xf32>, tensor<5x2xf32>) outs(%init : tensor<2x16x5x2xf32>) -> tensor<2x16x5x2xf32>
  return %0 : tensor<2x16x5x2xf32>
}

// Max pooling with H over "x" and W over "y" (the corners travel with the
// second exchange).
// IR-LABEL: func.func @pool_max_hw
// IR-NOT: comm.all_gather
// IR: comm.permute %{{.*}} over @mesh {"x"}
// IR: comm.permute %{{.*}} over @mesh {"y"}
// IR: linalg.pooling_nhwc_max {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x6x6x2xf32>, tensor<3x3xf32>) outs(%{{.*}} : tensor<1x4x4x2xf32>)
// IR: return
func.func @pool_max_hw(%a: tensor<1x10x20x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {"y"}, {}]>})
    -> (tensor<1x8x16x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {"y"}, {}]>}) {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x8x16x2xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x8x16x2xf32>) -> tensor<1x8x16x2xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %0 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%a, %win : tensor<1x10x20x2xf32>, tensor<3x3xf32>) outs(%init : tensor<1x8x16x2xf32>) -> tensor<1x8x16x2xf32>
  return %0 : tensor<1x8x16x2xf32>
}

// An integer sum pooling (bit-exact) with stride 2 and dilation 2 over "x".
// IR-LABEL: func.func @pool_sum_i32
// IR-NOT: comm.all_gather
// IR: comm.permute
// IR: linalg.pooling_nhwc_sum
// IR: return
func.func @pool_sum_i32(%a: tensor<2x16x6x2xi32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}, {}]>})
    -> (tensor<2x6x2x2xi32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}, {}]>}) {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<2x6x2x2xi32>
  %init = linalg.fill ins(%zero : i32) outs(%e : tensor<2x6x2x2xi32>) -> tensor<2x6x2x2xi32>
  %win = tensor.empty() : tensor<3x2xi32>
  %0 = linalg.pooling_nhwc_sum {dilations = dense<2> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%a, %win : tensor<2x16x6x2xi32>, tensor<3x2xi32>) outs(%init : tensor<2x6x2x2xi32>) -> tensor<2x6x2x2xi32>
  return %0 : tensor<2x6x2x2xi32>
}

// A filter sharded along its window (which the input's rows do not follow):
// the window loop is not sharded, the filter is gathered (it used to be
// reduced over blocks of the window applied at the wrong rows), and the
// input keeps its halo path.
// IR-LABEL: func.func @filter_window_sharded
// IR: comm.all_gather %arg1 over @mesh {"x"} dim 0 : tensor<2xf32> -> tensor<4xf32>
// IR: comm.permute
// IR: linalg.conv_1d ins(%{{.*}}, %{{.*}} : tensor<7xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<4xf32>)
// IR-NOT: comm.all_reduce
// IR: return
func.func @filter_window_sharded(%a: tensor<20xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}]>},
                                 %w: tensor<4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>})
    -> (tensor<16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %0 = linalg.conv_1d ins(%a, %w : tensor<20xf32>, tensor<4xf32>) outs(%init : tensor<16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// NCHW with stride 2 along H (over "y") and dilation 2 along W (over "x"):
// H takes the halo path; W's 5 outputs do not divide over "x", so W is
// gathered.
// IR-LABEL: func.func @nchw
// IR: comm.all_gather %arg0 over @mesh {"x"} dim 3
// IR-NOT: comm.all_gather
// IR: comm.permute %{{.*}} over @mesh {"y"} pairs [0 -> 1, 1 -> 2, 2 -> 3] : tensor<2x3x3x12xf32>
// IR: linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x3x7x12xf32>, tensor<4x3x5x3xf32>) outs(%{{.*}} : tensor<2x4x2x5xf32>)
// IR: return
func.func @nchw(%a: tensor<2x3x20x12xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}, {"y"}, {"x"}]>},
                %w: tensor<4x3x5x3xf32>)
    -> (tensor<2x4x8x5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}, {"y"}, {"x"}]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x8x5xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x8x5xf32>) -> tensor<2x4x8x5xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>}
      ins(%a, %w : tensor<2x3x20x12xf32>, tensor<4x3x5x3xf32>) outs(%init : tensor<2x4x8x5xf32>) -> tensor<2x4x8x5xf32>
  return %0 : tensor<2x4x8x5xf32>
}

// A window of 2 rows with stride 2 over blocks of 4 rows: every window lies
// in one block, nothing moves.
// IR-LABEL: func.func @pool_nchw_i32
// IR-NOT: comm.
// IR: linalg.pooling_nchw_max {{.*}} ins(%arg0, %{{.*}} : tensor<1x2x4x8xi32>, tensor<2x3xi32>) outs(%{{.*}} : tensor<1x2x2x3xi32>)
// IR-NOT: comm.
// IR: return
func.func @pool_nchw_i32(%a: tensor<2x2x16x8xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}, {"y"}, {}]>})
    -> (tensor<2x2x8x3xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}, {"y"}, {}]>}) {
  %min = arith.constant -2147483648 : i32
  %e = tensor.empty() : tensor<2x2x8x3xi32>
  %init = linalg.fill ins(%min : i32) outs(%e : tensor<2x2x8x3xi32>) -> tensor<2x2x8x3xi32>
  %win = tensor.empty() : tensor<2x3xi32>
  %0 = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%a, %win : tensor<2x2x16x8xi32>, tensor<2x3xi32>) outs(%init : tensor<2x2x8x3xi32>) -> tensor<2x2x8x3xi32>
  return %0 : tensor<2x2x8x3xi32>
}

// A linalg.generic reading x[3 * i + 2 * k] (stride 3, dilation 2) over all
// 8 devices: blocks of 4 inputs, one output each.
// IR-LABEL: func.func @generic_window
// IR-NOT: comm.all_gather
// IR: comm.permute %{{.*}} over @mesh {"x", "y"} pairs [0 -> 2, 1 -> 3, 2 -> 4, 3 -> 5, 4 -> 6, 5 -> 7] : tensor<3xf32>
// IR: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<5xf32>, tensor<3xf32>) outs(%{{.*}} : tensor<1xf32>)
// IR: return
func.func @generic_window(%a: tensor<32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}]>}, %w: tensor<3xf32>)
    -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 * 3 + d1 * 2)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%a, %w : tensor<32xf32>, tensor<3xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// A 3-D convolution with D over "y" (a two-hop halo) and H over "x".
// IR-LABEL: func.func @conv3d
// IR-NOT: comm.all_gather
// IR: comm.permute %{{.*}} over @mesh {"y"} pairs [0 -> 2, 1 -> 3]
// IR: comm.permute %{{.*}} over @mesh {"x"} pairs [0 -> 1]
// IR: linalg.conv_3d_ndhwc_dhwcf {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x3x4x6x1xf32>, tensor<3x3x3x1x2xf32>) outs(%{{.*}} : tensor<1x1x2x4x2xf32>)
// IR: return
func.func @conv3d(%a: tensor<1x8x6x6x1xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}, {"x"}, {}, {}]>}, %w: tensor<3x3x3x1x2xf32>)
    -> (tensor<1x4x4x4x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}, {"x"}, {}, {}]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x4x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x4x2xf32>) -> tensor<1x4x4x4x2xf32>
  %0 = linalg.conv_3d_ndhwc_dhwcf {dilations = dense<1> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>}
      ins(%a, %w : tensor<1x8x6x6x1xf32>, tensor<3x3x3x1x2xf32>) outs(%init : tensor<1x4x4x4x2xf32>) -> tensor<1x4x4x4x2xf32>
  return %0 : tensor<1x4x4x4x2xf32>
}

// Elementwise ops before and after, with shardings left to propagation:
// the H sharding flows through the convolution.
// IR-LABEL: func.func @chain
// IR-NOT: comm.all_gather
// IR: comm.permute
// IR: linalg.conv_2d_nhwc_hwcf {{.*}} outs(%{{.*}} : tensor<1x4x2x2xf32>)
// IR-NOT: comm.all_gather
// IR: return
func.func @chain(%a: tensor<1x20x4x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}, {}, {}]>}, %w: tensor<3x3x2x2xf32>)
    -> tensor<1x16x2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x2x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x2x2xf32>) -> tensor<1x16x2x2xf32>
  %t = math.tanh %a : tensor<1x20x4x2xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<[2, 1]> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%t, %w : tensor<1x20x4x2xf32>, tensor<3x3x2x2xf32>) outs(%init : tensor<1x16x2x2xf32>) -> tensor<1x16x2x2xf32>
  %1 = math.tanh %0 : tensor<1x16x2x2xf32>
  %2 = spmd.sharding_constraint %1 <@mesh, [{}, {"y"}, {}, {}]> : tensor<1x16x2x2xf32>
  return %2 : tensor<1x16x2x2xf32>
}

// A "same" convolution, a pad and a 3x3 convolution, with H (16) over "y":
// the pad's result (18 rows) is in blocks of 5 (the last padded), each made
// of this device's 4 rows and its neighbours' edge rows, zeros past the
// ends; the convolution's windows then read 6 of them.
// IR-LABEL: func.func @same_conv
// IR-NOT: comm.all_gather
// IR: comm.permute %{{.*}} over @mesh {"y"} pairs [0 -> 1, 1 -> 2, 2 -> 3] : tensor<1x1x6x3xf32>
// IR: arith.select
// IR: tensor.pad %{{.*}} low[0, 0, 1, 0] high[0, 0, 1, 0]
// IR: linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x6x8x3xf32>, tensor<3x3x3x4xf32>) outs(%{{.*}} : tensor<1x4x6x4xf32>)
// IR-NOT: comm.all_gather
// IR: return
func.func @same_conv(%a: tensor<2x16x6x3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}, {}, {}]>},
                     %w: tensor<3x3x3x4xf32>)
    -> (tensor<2x16x6x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}, {}, {}]>}) {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %a low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<2x16x6x3xf32> to tensor<2x18x8x3xf32>
  %e = tensor.empty() : tensor<2x16x6x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x16x6x4xf32>) -> tensor<2x16x6x4xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<2x18x8x3xf32>, tensor<3x3x3x4xf32>) outs(%init : tensor<2x16x6x4xf32>) -> tensor<2x16x6x4xf32>
  return %0 : tensor<2x16x6x4xf32>
}

// A "same" max pooling with stride 2: padded with -inf (which the edge
// devices put where they have no neighbour), H over "y".
// IR-LABEL: func.func @same_maxpool
// IR-NOT: comm.all_gather
// IR: comm.permute
// IR: linalg.pooling_nhwc_max {{.*}} outs(%{{.*}} : tensor<2x2x8x2xf32>)
// IR-NOT: comm.all_gather
// IR: return
func.func @same_maxpool(%a: tensor<2x16x16x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}, {}, {}]>})
    -> (tensor<2x8x8x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}, {}, {}]>}) {
  %ninf = arith.constant 0xFF800000 : f32
  %p = tensor.pad %a low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %ninf : f32
  } : tensor<2x16x16x2xf32> to tensor<2x18x18x2xf32>
  %e = tensor.empty() : tensor<2x8x8x2xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<2x8x8x2xf32>) -> tensor<2x8x8x2xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %0 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%p, %win : tensor<2x18x18x2xf32>, tensor<3x3xf32>) outs(%init : tensor<2x8x8x2xf32>) -> tensor<2x8x8x2xf32>
  return %0 : tensor<2x8x8x2xf32>
}

// A pad of 3 before and 1 after (value 1.5) over "y": the first device's
// block is all padding, the others take rows from two devices back.
// IR-LABEL: func.func @pad_asymmetric
// IR-NOT: comm.all_gather
// IR: comm.permute %{{.*}} over @mesh {"y"} pairs [0 -> 2, 1 -> 3] : tensor<1xf32>
// IR: comm.permute %{{.*}} over @mesh {"y"} pairs [0 -> 1, 1 -> 2, 2 -> 3] : tensor<2xf32>
// IR-NOT: tensor.pad
// IR: return
func.func @pad_asymmetric(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}]>})
    -> (tensor<12xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}]>}) {
  %c = arith.constant 1.5 : f32
  %p = tensor.pad %a low[3] high[1] {
  ^bb0(%i: index):
    tensor.yield %c : f32
  } : tensor<8xf32> to tensor<12xf32>
  %0 = math.tanh %p : tensor<12xf32>
  return %0 : tensor<12xf32>
}

// An integer pad whose result does not divide over "x" (9 rows in blocks
// of 5, the last padded), returned sharded.
// IR-LABEL: func.func @pad_i32_padded_result
// IR-NOT: comm.all_gather
// IR: comm.permute %{{.*}} over @mesh {"x"} pairs [1 -> 0] : tensor<2x3xi32>
// IR: return %{{.*}} : tensor<5x3xi32>
func.func @pad_i32_padded_result(%a: tensor<8x3xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<9x3xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %c = arith.constant 7 : i32
  %p = tensor.pad %a low[0, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %c : i32
  } : tensor<8x3xi32> to tensor<9x3xi32>
  return %p : tensor<9x3xi32>
}
