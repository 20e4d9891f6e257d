// RUN: tessera-opt %s -split-input-file --spmd-infer-explicit --verify-diagnostics -o /dev/null

// Tests the error cases of JAX's worked examples: reshapes that split or
// merge a sharded dim without an exact greedy hand-out (or regroup dims),
// and pads/slices whose new size is not divisible by the sharding.

spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>
func.func @split_not_divisible(%a: tensor<12xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}]>}) -> tensor<3x4xf32> {
  // expected-error @+1 {{This reshape is not supported. Please specify the sharding of the output via the `out_sharding` argument of jax.lax.reshape. Got operand type: float32[12@(x,y)], new sizes: (3, 4)}}
  %0 = tensor.expand_shape %a [[0, 1]] output_shape [3, 4] : tensor<12xf32> into tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>
func.func @merge_unsharded_major(%a: tensor<2x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> tensor<16xf32> {
  // expected-error @+1 {{This reshape is not supported. Please specify the sharding of the output via the `out_sharding` argument of jax.lax.reshape. Got operand type: float32[2,8@x], new sizes: (16,)}}
  %0 = tensor.collapse_shape %a [[0, 1]] : tensor<2x8xf32> into tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>
func.func @merge_gap(%a: tensor<2x2x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}, {"y"}]>}) -> tensor<8xf32> {
  // expected-error @+1 {{This reshape is not supported. Please specify the sharding of the output via the `out_sharding` argument of jax.lax.reshape. Got operand type: float32[2@x,2,2@y], new sizes: (8,)}}
  %0 = tensor.collapse_shape %a [[0, 1, 2]] : tensor<2x2x2xf32> into tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>
func.func @regroup(%a: tensor<4x6x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}, {}]>}) -> tensor<4x4x2x6xf32> {
  %s = arith.constant dense<[4, 4, 2, 6]> : tensor<4xi64>
  // expected-error @+1 {{This reshape is not supported. Please specify the sharding of the output via the `out_sharding` argument of jax.lax.reshape. Got operand type: float32[4@x,6,8], new sizes: (4, 4, 2, 6)}}
  %0 = tensor.reshape %a(%s) : (tensor<4x6x8xf32>, tensor<4xi64>) -> tensor<4x4x2x6xf32>
  return %0 : tensor<4x4x2x6xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>
func.func @pad_not_div(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<13xf32> {
  %c = arith.constant 0.0 : f32
  // expected-error @+1 {{tensor.pad on sharded dims where out dim (13) is not divisible by mesh axes (2) with spec (x) is not implemented. Got input type=f32[8@x] and output shape=(13,)}}
  %0 = tensor.pad %a low[2] high[3] {
  ^bb0(%i: index):
    tensor.yield %c : f32
  } : tensor<8xf32> to tensor<13xf32>
  return %0 : tensor<13xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>
func.func @slice_not_div(%a: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<4x3xf32> {
  // expected-error @+1 {{tensor.extract_slice on sharded dims where out dim (3) is not divisible by mesh axes (2) with spec (y) is not implemented. Got input type=f32[4@x,4@y] and output shape=(4, 3)}}
  %0 = tensor.extract_slice %a[0, 0] [4, 3] [1, 1] : tensor<4x4xf32> to tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>
func.func @split_4_6_8(%a: tensor<4x6x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}, {}]>}) -> tensor<4x3x2x8xf32> {
  // expected-error @+1 {{This reshape is not supported. Please specify the sharding of the output via the `out_sharding` argument of jax.lax.reshape. Got operand type: float32[4@x,6@y,8], new sizes: (4, 3, 2, 8)}}
  %0 = tensor.expand_shape %a [[0], [1, 2], [3]] output_shape [4, 3, 2, 8] : tensor<4x6x8xf32> into tensor<4x3x2x8xf32>
  return %0 : tensor<4x3x2x8xf32>
}
