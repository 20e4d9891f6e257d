// RUN: tessera-opt %s -split-input-file --spmd-infer-explicit --spmd-print-types --verify-diagnostics -o /dev/null

// Tests JAX's slicing/padding rule (a shrunk or grown sharded dimension must
// stay divisible), squeezes of rank-reducing slices, concatenate (identical
// shardings) and dynamic_update_slice (tensor.insert_slice).

spmd.mesh @mesh = <["x"=4, "y"=2], axis_types=[explicit, explicit]>

func.func @slice_unsharded_dim(%a: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<4x3xf32> {
  // expected-remark @+1 {{f32[4@x,3]}}
  %0 = tensor.extract_slice %a[0, 0] [4, 3] [1, 1] : tensor<4x4xf32> to tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=2], axis_types=[explicit, explicit]>

func.func @slice_sharded_divisible(%a: tensor<16x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x4xf32> {
  // expected-remark @+1 {{f32[8@x,4]}}
  %0 = tensor.extract_slice %a[2, 0] [8, 4] [1, 1] : tensor<16x4xf32> to tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=2], axis_types=[explicit, explicit]>

func.func @slice_not_divisible(%a: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<4x3xf32> {
  // expected-error @+1 {{tensor.extract_slice on sharded dims where out dim (3) is not divisible by mesh axes (2) with spec (y) is not implemented. Got input type=f32[4@x,4@y] and output shape=(4, 3)}}
  %0 = tensor.extract_slice %a[0, 0] [4, 3] [1, 1] : tensor<4x4xf32> to tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=2], axis_types=[explicit, explicit]>

// Every output dim of size 1: replicated (x[0, 0]).
func.func @slice_to_ones(%a: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<1x1xf32> {
  // expected-remark @+1 {{f32[1,1]}}
  %0 = tensor.extract_slice %a[0, 0] [1, 1] [1, 1] : tensor<4x4xf32> to tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=2], axis_types=[explicit, explicit]>

// A rank-reducing slice is a slice then a squeeze.
func.func @slice_rank_reducing(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8xf32> {
  // expected-remark @+1 {{f32[8@x]}}
  %0 = tensor.extract_slice %a[0, 2] [8, 1] [1, 1] : tensor<8x4xf32> to tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @pad(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}, %v: f32) -> tensor<12xf32> {
  // expected-remark @+1 {{f32[12@x]}}
  %0 = tensor.pad %a low[2] high[2] {
  ^bb0(%i: index):
    tensor.yield %v : f32
  } : tensor<8xf32> to tensor<12xf32>
  return %0 : tensor<12xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @pad_not_divisible(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}, %v: f32) -> tensor<13xf32> {
  // expected-error @+1 {{tensor.pad on sharded dims where out dim (13) is not divisible by mesh axes (2) with spec (x) is not implemented. Got input type=f32[8@x] and output shape=(13,)}}
  %0 = tensor.pad %a low[2] high[3] {
  ^bb0(%i: index):
    tensor.yield %v : f32
  } : tensor<8xf32> to tensor<13xf32>
  return %0 : tensor<13xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=2], axis_types=[explicit, explicit]>

func.func @concat(%a: tensor<8x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}, %b: tensor<8x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<16x2xf32> {
  // expected-remark @+1 {{f32[16@x,2@y]}}
  %0 = tensor.concat dim(0) %a, %b : (tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<16x2xf32>
  return %0 : tensor<16x2xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=2], axis_types=[explicit, explicit]>

func.func @concat_differ(%a: tensor<8x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}, %b: tensor<8x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<16x2xf32> {
  // expected-error @+1 {{All operands should have the same sharding. Got shardings NamedSharding(mesh=#spmd.mesh<["x"=4, "y"=2], axis_types=[explicit, explicit]>, spec=P('x', 'y')), NamedSharding(mesh=#spmd.mesh<["x"=4, "y"=2], axis_types=[explicit, explicit]>, spec=P('x', None))}}
  %0 = tensor.concat dim(0) %a, %b : (tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<16x2xf32>
  return %0 : tensor<16x2xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=2], axis_types=[explicit, explicit]>

func.func @insert_slice(%u: tensor<8x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %d: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x4xf32> {
  // expected-remark @+1 {{f32[8@x,4]}}
  %0 = tensor.insert_slice %u into %d[0, 0] [8, 2] [1, 1] : tensor<8x2xf32> into tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=2], axis_types=[explicit, explicit]>

func.func @insert_slice_differ(%u: tensor<8x2xf32>, %d: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x4xf32> {
  // expected-error @+1 {{tensor.insert_slice operand sharding must be equal to update sharding, got operand sharding f32[8@x,4] and update sharding f32[8,2].}}
  %0 = tensor.insert_slice %u into %d[0, 0] [8, 2] [1, 1] : tensor<8x2xf32> into tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=2], axis_types=[explicit, explicit]>

// A rank-reducing insert compares the update with the kept dims.
func.func @insert_slice_rank_reducing(%u: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}, %d: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x4xf32> {
  // expected-remark @+1 {{f32[8@x,4]}}
  %0 = tensor.insert_slice %u into %d[0, 1] [8, 1] [1, 1] : tensor<8xf32> into tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=2], axis_types=[explicit, explicit]>

func.func @gather(%src: tensor<64x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %idx: tensor<8x1xindex>) -> tensor<8x64x1xf32> {
  // expected-remark @+1 {{f32[8,64@x,1]}}
  %0 = tensor.gather %src[%idx] gather_dims([1]) : (tensor<64x16xf32>, tensor<8x1xindex>) -> tensor<8x64x1xf32>
  return %0 : tensor<8x64x1xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=2], axis_types=[explicit, explicit]>

func.func @gather_indexed_dim_sharded(%src: tensor<4x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %idx: tensor<2x1xindex>) -> tensor<2x1x2xf32> {
  // expected-error @+1 {{Use `.at[...].get(out_sharding=)` to provide output PartitionSpec for the gather indexing as out sharding could not be resolved unambiguously (or would require collectives on inputs). Got operand=f32[4@x,2], indices=index[2,1]}}
  %0 = tensor.gather %src[%idx] gather_dims([0]) : (tensor<4x2xf32>, tensor<2x1xindex>) -> tensor<2x1x2xf32>
  return %0 : tensor<2x1x2xf32>
}
