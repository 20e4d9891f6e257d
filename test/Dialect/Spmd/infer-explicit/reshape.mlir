// RUN: tessera-opt %s -split-input-file --spmd-infer-explicit --spmd-print-types --verify-diagnostics -o /dev/null

// Tests JAX's reshape rule on tensor.expand_shape / collapse_shape /
// reshape: a replicated operand stays replicated, size-1 changes carry the
// entries over, one split hands the axes out greedily, one merge flattens
// them, and anything else asks for spmd.out_sharding.

spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2], axis_types=[explicit, explicit, explicit]>

func.func @replicated(%x: tensor<8xf32>) -> tensor<2x4xf32> {
  // expected-remark @+1 {{f32[2,4]}}
  %0 = tensor.expand_shape %x [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2], axis_types=[explicit, explicit, explicit]>

func.func @size_one_dims(%x: tensor<16x1xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {}]>}) -> tensor<1x16x1xf32> {
  // expected-remark @+1 {{f32[1,16@a,1]}}
  %0 = tensor.expand_shape %x [[0, 1], [2]] output_shape [1, 16, 1] : tensor<16x1xf32> into tensor<1x16x1xf32>
  return %0 : tensor<1x16x1xf32>
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2], axis_types=[explicit, explicit, explicit]>

func.func @split_greedy(%x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", "c"}]>}) -> tensor<2x4xf32> {
  // expected-remark @+1 {{f32[2@a,4@(b,c)]}}
  %0 = tensor.expand_shape %x [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2], axis_types=[explicit, explicit, explicit]>

func.func @split_major_takes_all(%x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}]>}) -> tensor<4x2xf32> {
  // expected-remark @+1 {{f32[4@(a,b),2]}}
  %0 = tensor.expand_shape %x [[0, 1]] output_shape [4, 2] : tensor<8xf32> into tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2], axis_types=[explicit, explicit, explicit]>

func.func @split_four_ways(%x: tensor<16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", "c"}]>}) -> tensor<2x2x2x2xf32> {
  // expected-remark @+1 {{f32[2@a,2@b,2@c,2]}}
  %0 = tensor.expand_shape %x [[0, 1, 2, 3]] output_shape [2, 2, 2, 2] : tensor<16xf32> into tensor<2x2x2x2xf32>
  return %0 : tensor<2x2x2x2xf32>
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2], axis_types=[explicit, explicit, explicit]>

func.func @split_not_divisible(%x: tensor<12xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}]>}) -> tensor<3x4xf32> {
  // expected-error @+1 {{This reshape is not supported. Please specify the sharding of the output via the `out_sharding` argument of jax.lax.reshape. Got operand type: float32[12@(a,b)], new sizes: (3, 4)}}
  %0 = tensor.expand_shape %x [[0, 1]] output_shape [3, 4] : tensor<12xf32> into tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2], axis_types=[explicit, explicit, explicit]>

func.func @merge(%x: tensor<2x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}) -> tensor<4xf32> {
  // expected-remark @+1 {{f32[4@(a,b)]}}
  %0 = tensor.collapse_shape %x [[0, 1]] : tensor<2x2xf32> into tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2], axis_types=[explicit, explicit, explicit]>

func.func @merge_middle(%x: tensor<4x2x3x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"b"}, {}, {"a"}]>}) -> tensor<4x6x8xf32> {
  // expected-remark @+1 {{f32[4,6@b,8@a]}}
  %0 = tensor.collapse_shape %x [[0], [1, 2], [3]] : tensor<4x2x3x8xf32> into tensor<4x6x8xf32>
  return %0 : tensor<4x6x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2], axis_types=[explicit, explicit, explicit]>

// An unsharded major dimension above a sharded minor one can't merge.
func.func @merge_none_above_sharded(%x: tensor<2x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"a"}]>}) -> tensor<16xf32> {
  // expected-error @+1 {{This reshape is not supported. Please specify the sharding of the output via the `out_sharding` argument of jax.lax.reshape. Got operand type: float32[2,8@a], new sizes: (16,)}}
  %0 = tensor.collapse_shape %x [[0, 1]] : tensor<2x8xf32> into tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2], axis_types=[explicit, explicit, explicit]>

func.func @merge_gap(%x: tensor<2x2x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {}, {"b"}]>}) -> tensor<8xf32> {
  // expected-error @+1 {{Got operand type: float32[2@a,2,2@b], new sizes: (8,)}}
  %0 = tensor.collapse_shape %x [[0, 1, 2]] : tensor<2x2x2xf32> into tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2], axis_types=[explicit, explicit, explicit]>

// Two splits at once.
func.func @two_splits(%x: tensor<4x6x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {}, {}]>}) -> tensor<4x2x3x4x2xf32> {
  // expected-error @+1 {{This reshape is not supported. Please specify the sharding of the output via the `out_sharding` argument of jax.lax.reshape. Got operand type: float32[4@a,6,8], new sizes: (4, 2, 3, 4, 2)}}
  %0 = tensor.expand_shape %x [[0], [1, 2], [3, 4]] output_shape [4, 2, 3, 4, 2] : tensor<4x6x8xf32> into tensor<4x2x3x4x2xf32>
  return %0 : tensor<4x2x3x4x2xf32>
}

// -----

spmd.mesh @mesh = <["x"=1, "y"=2], axis_types=[explicit, explicit]>

// A size-1 operand dim at the same index keeps its entry.
func.func @size_one_same_index(%x: tensor<1x512xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<1x4x128xf32> {
  // expected-remark @+1 {{f32[1@x,4@y,128]}}
  %0 = tensor.expand_shape %x [[0], [1, 2]] output_shape [1, 4, 128] : tensor<1x512xf32> into tensor<1x4x128xf32>
  return %0 : tensor<1x4x128xf32>
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2], axis_types=[explicit, explicit, explicit]>

func.func @reshape_op(%x: tensor<2x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}, %shape: tensor<1xi64>) -> tensor<4xf32> {
  // expected-remark @+1 {{f32[4@(a,b)]}}
  %0 = tensor.reshape %x(%shape) : (tensor<2x2xf32>, tensor<1xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2], axis_types=[explicit, explicit, explicit]>

func.func @reshape_out_sharding(%x: tensor<4x6x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {}, {}]>}) -> tensor<4x2x3x4x2xf32> {
  // expected-remark @+1 {{f32[4@a,2,3,4,2]}}
  %0 = tensor.expand_shape %x [[0], [1, 2], [3, 4]] output_shape [4, 2, 3, 4, 2] {spmd.out_sharding = #spmd.sharding<@mesh, [{"a"}, {}, {}, {}, {}]>} : tensor<4x6x8xf32> into tensor<4x2x3x4x2xf32>
  return %0 : tensor<4x2x3x4x2xf32>
}
