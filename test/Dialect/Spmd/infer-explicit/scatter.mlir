// RUN: tessera-opt %s -split-input-file --spmd-infer-explicit --spmd-print-types --verify-diagnostics -o /dev/null

// Tests JAX's scatter rule on tensor.scatter: the result keeps the
// destination's sharding, taking the updates' window dims where the
// destination is unsharded; a sharded scattered dim, sharded indices or
// sharded update queries cannot be resolved and ask for out_sharding.

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>
func.func @scatter_ok(%dest: tensor<4x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}, %idx: tensor<3x1xindex>, %upd: tensor<3x1x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}, {"x"}]>}) -> tensor<4x6xf32> {
  // expected-remark @+1 {{f32[4,6@x]}}
  %0 = tensor.scatter %upd into %dest[%idx] scatter_dims([0]) unique : (tensor<3x1x6xf32>, tensor<4x6xf32>, tensor<3x1xindex>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>
func.func @scatter_updates_sharded(%dest: tensor<4x6xf32>, %idx: tensor<3x1xindex>, %upd: tensor<3x1x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}, {"y"}]>}) -> tensor<4x6xf32> {
  // expected-remark @+1 {{f32[4,6@y]}}
  %0 = tensor.scatter %upd into %dest[%idx] scatter_dims([0]) unique : (tensor<3x1x6xf32>, tensor<4x6xf32>, tensor<3x1xindex>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>
func.func @scatter_dim_sharded(%dest: tensor<4x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %idx: tensor<3x1xindex>, %upd: tensor<3x1x6xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{Use `.at[...].set/add/mul/...(out_sharding=)` to provide output PartitionSpec for the scatter update as out sharding could not be resolved unambiguously (or would require collectives on inputs). Got operand=f32[4@x,6], indices=index[3,1], updates=f32[3,1,6]}}
  %0 = tensor.scatter %upd into %dest[%idx] scatter_dims([0]) unique : (tensor<3x1x6xf32>, tensor<4x6xf32>, tensor<3x1xindex>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>
func.func @scatter_queries_sharded(%dest: tensor<4x6xf32>, %idx: tensor<4x1xindex> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}, %upd: tensor<4x1x6xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{Use `.at[...].set/add/mul/...(out_sharding=)` to provide output PartitionSpec for the scatter update as out sharding could not be resolved unambiguously (or would require collectives on inputs). Got operand=f32[4,6], indices=index[4@y,1], updates=f32[4,1,6]}}
  %0 = tensor.scatter %upd into %dest[%idx] scatter_dims([0]) unique : (tensor<4x1x6xf32>, tensor<4x6xf32>, tensor<4x1xindex>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}
