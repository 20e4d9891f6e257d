// RUN: tessera-opt %s -split-input-file --spmd-infer-explicit --verify-diagnostics -o /dev/null

// Tests JAX's errors of the windowed ops: conv_general_dilated needs a
// replicated filter and unsharded input features (else out_sharding), and
// conv_general_dilated and reduce_window reject a sharded dimension whose
// new size its axes do not divide.

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

// JAX's example: f32[16@x,128,8@y] (sharded features).
func.func @conv_sharded_features(%a: tensor<16x130x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}, {"y"}]>},
                                 %w: tensor<3x8x10xf32>, %init: tensor<16x128x10xf32>) -> tensor<16x128x10xf32> {
  // expected-error @+1 {{Please specify the output sharding via `out_sharding` parameter of `conv_general_dilated`}}
  %0 = linalg.conv_1d_nwc_wcf ins(%a, %w : tensor<16x130x8xf32>, tensor<3x8x10xf32>) outs(%init : tensor<16x128x10xf32>) -> tensor<16x128x10xf32>
  return %0 : tensor<16x128x10xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @conv_sharded_filter(%a: tensor<16x130x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}, {}]>},
                               %w: tensor<3x8x10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}, {"y"}]>},
                               %init: tensor<16x128x10xf32>) -> tensor<16x128x10xf32> {
  // expected-error @+1 {{Please specify the output sharding via `out_sharding` parameter of `conv_general_dilated`}}
  %0 = linalg.conv_1d_nwc_wcf ins(%a, %w : tensor<16x130x8xf32>, tensor<3x8x10xf32>) outs(%init : tensor<16x128x10xf32>) -> tensor<16x128x10xf32>
  return %0 : tensor<16x128x10xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @conv_not_divisible(%a: tensor<16x10x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}, {}]>},
                              %w: tensor<4x8x10xf32>, %init: tensor<16x7x10xf32>) -> tensor<16x7x10xf32> {
  // expected-error @+1 {{conv_general_dilated on sharded dims where out dim (7) is not divisible by mesh axes (2) with spec (y) is not implemented. Got input type=f32[16@x,10@y,8] and output shape=(16, 7, 10)}}
  %0 = linalg.conv_1d_nwc_wcf ins(%a, %w : tensor<16x10x8xf32>, tensor<4x8x10xf32>) outs(%init : tensor<16x7x10xf32>) -> tensor<16x7x10xf32>
  return %0 : tensor<16x7x10xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4], axis_types=[explicit, explicit]>

func.func @pool_not_divisible(%a: tensor<2x8x8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}, {}, {}]>},
                              %win: tensor<3x3xf32>, %init: tensor<2x6x6x4xf32>) -> tensor<2x6x6x4xf32> {
  // expected-error @+1 {{reduce_window on sharded dims where out dim (6) is not divisible by mesh axes (4) with spec (y) is not implemented. Got input type=f32[2@x,8@y,8,4] and output shape=(2, 6, 6, 4)}}
  %0 = linalg.pooling_nhwc_max {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%a, %win : tensor<2x8x8x4xf32>, tensor<3x3xf32>) outs(%init : tensor<2x6x6x4xf32>) -> tensor<2x6x6x4xf32>
  return %0 : tensor<2x6x6x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

// conv_general_dilated has no unreduced rule.
func.func @conv_unreduced(%a: tensor<16x130x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}, {}], unreduced={"x"}>},
                          %w: tensor<3x8x10xf32>, %init: tensor<16x128x10xf32>) -> tensor<16x128x10xf32> {
  // expected-error @+1 {{unreduced rule for linalg.conv_1d_nwc_wcf is not implemented}}
  %0 = linalg.conv_1d_nwc_wcf ins(%a, %w : tensor<16x130x8xf32>, tensor<3x8x10xf32>) outs(%init : tensor<16x128x10xf32>) -> tensor<16x128x10xf32>
  return %0 : tensor<16x128x10xf32>
}
