// RUN: tessera-opt %s -split-input-file --spmd-infer-explicit --spmd-print-types --verify-diagnostics -o /dev/null

// Tests the worked examples of JAX's explicit-sharding rules (reshape
// split/merge with the greedy axis hand-out, size-1 dims, transpose,
// expand_dims, slicing, reductions), each as JAX documents its result.

spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>
func.func @split_greedy_1(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y", "z"}]>}) -> tensor<2x4xf32> {
  // expected-remark @+1 {{f32[2@x,4@(y,z)]}}
  %0 = tensor.expand_shape %a [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>
func.func @split_greedy_2(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}]>}) -> tensor<4x2xf32> {
  // expected-remark @+1 {{f32[4@(x,y),2]}}
  %0 = tensor.expand_shape %a [[0, 1]] output_shape [4, 2] : tensor<8xf32> into tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>
func.func @split_greedy_3(%a: tensor<16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y", "z"}]>}) -> tensor<2x2x2x2xf32> {
  // expected-remark @+1 {{f32[2@x,2@y,2@z,2]}}
  %0 = tensor.expand_shape %a [[0, 1, 2, 3]] output_shape [2, 2, 2, 2] : tensor<16xf32> into tensor<2x2x2x2xf32>
  return %0 : tensor<2x2x2x2xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>
func.func @size_one_only(%a: tensor<16x1xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<1x16x1xf32> {
  // expected-remark @+1 {{f32[1,16@x,1]}}
  %0 = tensor.expand_shape %a [[0, 1], [2]] output_shape [1, 16, 1] : tensor<16x1xf32> into tensor<1x16x1xf32>
  return %0 : tensor<1x16x1xf32>
}

// -----
spmd.mesh @mesh = <["x"=1, "y"=2], axis_types=[explicit, explicit]>
func.func @size_one_same_index(%a: tensor<1x512xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<1x4x128xf32> {
  // expected-remark @+1 {{f32[1@x,4@y,128]}}
  %0 = tensor.expand_shape %a [[0], [1, 2]] output_shape [1, 4, 128] : tensor<1x512xf32> into tensor<1x4x128xf32>
  return %0 : tensor<1x4x128xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>
func.func @merge_1(%a: tensor<2x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<4xf32> {
  // expected-remark @+1 {{f32[4@(x,y)]}}
  %0 = tensor.collapse_shape %a [[0, 1]] : tensor<2x2xf32> into tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>
func.func @merge_2(%a: tensor<4x2x3x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}, {}, {"x"}]>}) -> tensor<4x6x8xf32> {
  // expected-remark @+1 {{f32[4,6@y,8@x]}}
  %0 = tensor.collapse_shape %a [[0], [1, 2], [3]] : tensor<4x2x3x8xf32> into tensor<4x6x8xf32>
  return %0 : tensor<4x6x8xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>
func.func @transpose_perm(%a: tensor<4x2x2xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}, {"z"}]>}) -> tensor<2x2x4xi32> {
  // expected-remark @+1 {{i32[2,2,4]}}
  %e = tensor.empty() : tensor<2x2x4xi32>
  // expected-remark @+1 {{i32[2@y,2@z,4@x]}}
  %0 = linalg.transpose ins(%a : tensor<4x2x2xi32>) outs(%e : tensor<2x2x4xi32>) permutation = [1, 2, 0]
  return %0 : tensor<2x2x4xi32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>
func.func @expand_dims(%a: tensor<8x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> (tensor<1x8x2xf32>, tensor<8x1x2xf32>, tensor<8x2x1xf32>) {
  // expected-remark @+1 {{f32[1,8@x,2@y]}}
  %0 = tensor.expand_shape %a [[0, 1], [2]] output_shape [1, 8, 2] : tensor<8x2xf32> into tensor<1x8x2xf32>
  // expected-remark @+1 {{f32[8@x,1,2@y]}}
  %1 = tensor.expand_shape %a [[0, 1], [2]] output_shape [8, 1, 2] : tensor<8x2xf32> into tensor<8x1x2xf32>
  // expected-remark @+1 {{f32[8@x,2@y,1]}}
  %2 = tensor.expand_shape %a [[0], [1, 2]] output_shape [8, 2, 1] : tensor<8x2xf32> into tensor<8x2x1xf32>
  return %0, %1, %2 : tensor<1x8x2xf32>, tensor<8x1x2xf32>, tensor<8x2x1xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>
func.func @slice_keeps(%a: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<4x3xf32> {
  // expected-remark @+1 {{f32[4@x,3]}}
  %0 = tensor.extract_slice %a[0, 0] [4, 3] [1, 1] : tensor<4x4xf32> to tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>
func.func @slice_all_size_one(%a: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<1x1xf32> {
  // expected-remark @+1 {{f32[1,1]}}
  %0 = tensor.extract_slice %a[0, 0] [1, 1] [1, 1] : tensor<4x4xf32> to tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>
func.func @reduce_examples(%a: tensor<8x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>}) -> (tensor<2xf32>, tensor<8xf32>) {
  // expected-remark @+1 {{f32[]}}
  %cst = arith.constant 0.0 : f32
  // expected-remark @+1 {{f32[2]}}
  %e0 = tensor.empty() : tensor<2xf32>
  // expected-remark @+1 {{f32[2]}}
  %f0 = linalg.fill ins(%cst : f32) outs(%e0 : tensor<2xf32>) -> tensor<2xf32>
  // expected-remark @+1 {{f32[2]}}
  %0 = linalg.reduce ins(%a : tensor<8x2xf32>) outs(%f0 : tensor<2xf32>) dimensions = [0]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  // expected-remark @+1 {{f32[8]}}
  %e1 = tensor.empty() : tensor<8xf32>
  // expected-remark @+1 {{f32[8]}}
  %f1 = linalg.fill ins(%cst : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  // expected-remark @+1 {{f32[8@(x,y)]}}
  %1 = linalg.reduce ins(%a : tensor<8x2xf32>) outs(%f1 : tensor<8xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  return %0, %1 : tensor<2xf32>, tensor<8xf32>
}
