// RUN: tessera-opt %s -split-input-file --spmd-infer-explicit --spmd-print-types --verify-diagnostics -o /dev/null

// Tests JAX's transpose and broadcast_in_dim rules on linalg.transpose and
// linalg.broadcast.

spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>

func.func @transpose(%a: tensor<4x2x2xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}, {"z"}]>}, %init: tensor<2x2x4xi32>) -> tensor<2x2x4xi32> {
  // expected-remark @+1 {{i32[2@y,2@z,4@x]}}
  %0 = linalg.transpose ins(%a : tensor<4x2x2xi32>) outs(%init : tensor<2x2x4xi32>) permutation = [1, 2, 0]
  return %0 : tensor<2x2x4xi32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>

func.func @broadcast_new_dim(%a: tensor<8x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}, %i0: tensor<1x8x2xf32>, %i1: tensor<8x1x2xf32>, %i2: tensor<8x2x1xf32>) -> (tensor<1x8x2xf32>, tensor<8x1x2xf32>, tensor<8x2x1xf32>) {
  // expected-remark @+1 {{f32[1,8@x,2@y]}}
  %0 = linalg.broadcast ins(%a : tensor<8x2xf32>) outs(%i0 : tensor<1x8x2xf32>) dimensions = [0]
  // expected-remark @+1 {{f32[8@x,1,2@y]}}
  %1 = linalg.broadcast ins(%a : tensor<8x2xf32>) outs(%i1 : tensor<8x1x2xf32>) dimensions = [1]
  // expected-remark @+1 {{f32[8@x,2@y,1]}}
  %2 = linalg.broadcast ins(%a : tensor<8x2xf32>) outs(%i2 : tensor<8x2x1xf32>) dimensions = [2]
  return %0, %1, %2 : tensor<1x8x2xf32>, tensor<8x1x2xf32>, tensor<8x2x1xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>

func.func @broadcast_out_sharding(%a: tensor<4x2xf32>, %init: tensor<4x2x3xf32>) -> tensor<4x2x3xf32> {
  // expected-remark @+1 {{f32[4@x,2,3]}}
  %0 = linalg.broadcast {spmd.out_sharding = #spmd.sharding<@mesh, [{"x"}, {}, {}]>} ins(%a : tensor<4x2xf32>) outs(%init : tensor<4x2x3xf32>) dimensions = [2]
  return %0 : tensor<4x2x3xf32>
}
