// RUN: tessera-opt %s -split-input-file --spmd-infer-explicit --spmd-print-types --verify-diagnostics -o /dev/null

// Tests JAX's rules of the windowed ops: a linalg convolution is
// conv_general_dilated (with a replicated filter and unsharded input
// features, the output keeps the input's batch and spatial sharding), a
// linalg pooling reduce_window (the output keeps the input's sharding).

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

// JAX's example: an NWC convolution of f32[16@x,128@y,8] with 'SAME'
// padding is f32[16@x,128@y,10] (here the input comes padded, 130 wide).
func.func @conv_batch_and_spatial(%a: tensor<16x130x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}, {}]>},
                                  %w: tensor<3x8x10xf32>, %init: tensor<16x128x10xf32>) -> tensor<16x128x10xf32> {
  // expected-remark @+1 {{f32[16@x,128@y,10]}}
  %0 = linalg.conv_1d_nwc_wcf ins(%a, %w : tensor<16x130x8xf32>, tensor<3x8x10xf32>) outs(%init : tensor<16x128x10xf32>) -> tensor<16x128x10xf32>
  return %0 : tensor<16x128x10xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

// NCHW: the batch and both spatial dimensions keep their axes, the output
// features are unsharded.
func.func @conv_nchw(%a: tensor<4x3x10x10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}, {}, {"y"}]>},
                     %w: tensor<6x3x3x3xf32>, %init: tensor<4x6x8x8xf32>) -> tensor<4x6x8x8xf32> {
  // expected-remark @+1 {{f32[4@x,6,8,8@y]}}
  %0 = linalg.conv_2d_nchw_fchw ins(%a, %w : tensor<4x3x10x10xf32>, tensor<6x3x3x3xf32>) outs(%init : tensor<4x6x8x8xf32>) -> tensor<4x6x8x8xf32>
  return %0 : tensor<4x6x8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

// out_sharding decides when the rule cannot (here: sharded input features).
func.func @conv_out_sharding(%a: tensor<16x130x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}, {"y"}]>},
                             %w: tensor<3x8x10xf32>, %init: tensor<16x128x10xf32>) -> tensor<16x128x10xf32> {
  // expected-remark @+1 {{f32[16@x,128,10@y]}}
  %0 = linalg.conv_1d_nwc_wcf {spmd.out_sharding = #spmd.sharding<@mesh, [{"x"}, {}, {"y"}]>} ins(%a, %w : tensor<16x130x8xf32>, tensor<3x8x10xf32>) outs(%init : tensor<16x128x10xf32>) -> tensor<16x128x10xf32>
  return %0 : tensor<16x128x10xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

// A depthwise convolution: its channels are features, unsharded here.
func.func @depthwise(%a: tensor<2x10x10x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}, {}, {}]>},
                     %w: tensor<3x3x4xf32>, %init: tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32> {
  // expected-remark @+1 {{f32[2@x,8@y,8,4]}}
  %0 = linalg.depthwise_conv_2d_nhwc_hwc ins(%a, %w : tensor<2x10x10x4xf32>, tensor<3x3x4xf32>) outs(%init : tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32>
  return %0 : tensor<2x8x8x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

// reduce_window keeps the input's sharding, channels included.
func.func @max_pool(%a: tensor<4x8x8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}, {}, {}]>},
                    %win: tensor<2x2xf32>, %init: tensor<4x4x4x4xf32>) -> tensor<4x4x4x4xf32> {
  // expected-remark @+1 {{f32[4@x,4@y,4,4]}}
  %0 = linalg.pooling_nhwc_max {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%a, %win : tensor<4x8x8x4xf32>, tensor<2x2xf32>) outs(%init : tensor<4x4x4x4xf32>) -> tensor<4x4x4x4xf32>
  return %0 : tensor<4x4x4x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @sum_pool_channels(%a: tensor<4x8x8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}, {"x"}, {"y"}]>},
                             %win: tensor<3x3xf32>, %init: tensor<4x6x6x4xf32>) -> tensor<4x6x6x4xf32> {
  // expected-remark @+1 {{f32[4,6,6@x,4@y]}}
  %0 = linalg.pooling_nhwc_sum {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%a, %win : tensor<4x8x8x4xf32>, tensor<3x3xf32>) outs(%init : tensor<4x6x6x4xf32>) -> tensor<4x6x6x4xf32>
  return %0 : tensor<4x6x6x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

// A convolution without batch or feature dimensions.
func.func @conv_1d_spatial(%in: tensor<16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}, %w: tensor<3xf32>, %e: tensor<14xf32>) -> tensor<14xf32> {
  // expected-remark @+1 {{f32[14@x]}}
  %r = linalg.conv_1d ins(%in, %w : tensor<16xf32>, tensor<3xf32>) outs(%e : tensor<14xf32>) -> tensor<14xf32>
  return %r : tensor<14xf32>
}
