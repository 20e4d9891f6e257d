// RUN: tessera-opt %s --split-input-file --spmd-insert-reshards | FileCheck %s

// Which windowed ops keep a sharded spatial dimension (spmd-partition then
// exchanges halos) and which gather it.

spmd.mesh @mesh = <["x"=2, "y"=4]>

// The input's H over "y" divides H (20) and the output's H (16): the
// convolution runs sharded, nothing is resharded.
// CHECK-LABEL: func.func @halo
// CHECK-NOT: spmd.reshard
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}}spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}, {}, {}]>]>
// CHECK-NOT: spmd.reshard
// CHECK: return
func.func @halo(%a: tensor<2x20x6x3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}, {}, {}]>},
                %w: tensor<5x3x3x4xf32>)
    -> (tensor<2x16x4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}, {}, {}]>}) {
  %e = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}, {}, {}]>]>} : tensor<2x16x4x4xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>,
                                 spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}, {}, {}]>]>}
      ins(%a, %w : tensor<2x20x6x3xf32>, tensor<5x3x3x4xf32>) outs(%e : tensor<2x16x4x4xf32>) -> tensor<2x16x4x4xf32>
  return %0 : tensor<2x16x4x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4]>

// 18 input rows over "y" (4) are blocks of 5, the last padded: the
// windows of the 16 outputs never read past row 17, so the halo path still
// applies.
// CHECK-LABEL: func.func @input_padded
// CHECK-NOT: spmd.reshard
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}}spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}, {}, {}]>]>{{.*}} ins(%arg0,
// CHECK-NOT: spmd.reshard
func.func @input_padded(%a: tensor<2x18x6x3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}, {}, {}]>},
                               %w: tensor<3x3x3x4xf32>)
    -> (tensor<2x16x4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}, {}, {}]>}) {
  %e = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}, {}, {}]>]>} : tensor<2x16x4x4xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>,
                                 spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}, {}, {}]>]>}
      ins(%a, %w : tensor<2x18x6x3xf32>, tensor<3x3x3x4xf32>) outs(%e : tensor<2x16x4x4xf32>) -> tensor<2x16x4x4xf32>
  return %0 : tensor<2x16x4x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4]>

// 6 output rows: "y" is cut to its major part of size 2, which divides both
// 8 input rows and 6 outputs; the input moves to it, the halo path follows.
// CHECK-LABEL: func.func @output_cut
// CHECK: %[[G:.*]] = spmd.reshard %arg0 <@mesh, [{}, {"y":(1)2}, {}, {}]>
// CHECK: linalg.pooling_nhwc_max {{.*}}spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"y":(1)2}, {}, {}]>]>{{.*}} ins(%[[G]],
func.func @output_cut(%a: tensor<1x8x8x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}, {}, {}]>})
    -> tensor<1x6x6x2xf32> {
  %e = tensor.empty() : tensor<1x6x6x2xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %0 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>,
                                spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"y"}, {}, {}]>]>}
      ins(%a, %win : tensor<1x8x8x2xf32>, tensor<3x3xf32>) outs(%e : tensor<1x6x6x2xf32>) -> tensor<1x6x6x2xf32>
  return %0 : tensor<1x6x6x2xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4]>

// Only the output is sharded along H: the op runs on the replicated input
// and its result is sliced (the input is not sharded to be exchanged).
// CHECK-LABEL: func.func @output_only
// CHECK: linalg.conv_1d {{.*}}spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}]>]>
// CHECK: spmd.reshard %{{.*}} <@mesh, [{"y"}]>
func.func @output_only(%a: tensor<20xf32>, %w: tensor<5xf32>)
    -> (tensor<16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}]>}) {
  %e = tensor.empty() : tensor<16xf32>
  %0 = linalg.conv_1d {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"y"}]>]>}
      ins(%a, %w : tensor<20xf32>, tensor<5xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4]>

// A filter sharded along its window: the window loop stays unsharded (the
// input's rows do not follow it), so the filter is gathered; the input's
// rows keep their halo path.
// CHECK-LABEL: func.func @window_sharded
// CHECK: %[[F:.*]] = spmd.reshard %arg1 <@mesh, [{}]>
// CHECK: linalg.conv_1d {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"y"}]>]>} ins(%arg0, %[[F]] :
// CHECK-NOT: spmd.all_reduce
func.func @window_sharded(%a: tensor<20xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}]>},
                          %w: tensor<4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>})
    -> (tensor<16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}]>}) {
  %e = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"y"}]>]>} : tensor<16xf32>
  %0 = linalg.conv_1d {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"y"}]>]>}
      ins(%a, %w : tensor<20xf32>, tensor<4xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4]>

// Dynamic sizes: the rows stay whole (gathered), and the window loop is
// not sharded either (the filter is gathered).
// CHECK-LABEL: func.func @dynamic
// CHECK-DAG: %[[A:.*]] = spmd.reshard %arg0 <@mesh, [{}]>
// CHECK-DAG: %[[F:.*]] = spmd.reshard %arg1 <@mesh, [{}]>
// CHECK: linalg.conv_1d {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}]>]>} ins(%[[A]], %[[F]] :
// CHECK-NOT: spmd.all_reduce
func.func @dynamic(%a: tensor<?xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}]>},
                   %w: tensor<?xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>},
                   %init: tensor<?xf32>) -> tensor<?xf32> {
  %0 = linalg.conv_1d ins(%a, %w : tensor<?xf32>, tensor<?xf32>) outs(%init : tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4]>

// A "same" convolution written as a pad and a convolution: the pad keeps
// H over "y" (18 rows in padded blocks of 5, its source in blocks of 4), and
// so does the convolution; nothing is gathered.
// CHECK-LABEL: func.func @same
// CHECK-NOT: spmd.reshard
// CHECK: tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}, {}, {}]>]>}
// CHECK-NOT: spmd.reshard
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}}spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}, {}, {}]>]>
// CHECK-NOT: spmd.reshard
// CHECK: return
func.func @same(%a: tensor<2x16x6x3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}, {}, {}]>},
                %w: tensor<3x3x3x4xf32>)
    -> (tensor<2x16x6x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}, {}, {}]>}) {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %a low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}, {}, {}]>]>} : tensor<2x16x6x3xf32> to tensor<2x18x8x3xf32>
  %e = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}, {}, {}]>]>} : tensor<2x16x6x4xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>,
                                 spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}, {}, {}]>]>}
      ins(%p, %w : tensor<2x18x8x3xf32>, tensor<3x3x3x4xf32>) outs(%e : tensor<2x16x6x4xf32>) -> tensor<2x16x6x4xf32>
  return %0 : tensor<2x16x6x4xf32>
}
