// RUN: tessera-opt %s -split-input-file --spmd-infer-explicit --spmd-print-types --verify-diagnostics -o /dev/null

// Tests that a scan written as a linalg.generic (JAX's cumsum/cumprod: a
// reduction over `j` masked by `j <= i` for an output loop `i`) is typed as
// JAX types the cumulative reductions: the output keeps the input's
// sharding, and a sharded scanned axis is JAX's error.

#in = affine_map<(b, i, j) -> (b, j)>
#out = affine_map<(b, i, j) -> (b, i)>
spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @cumsum_batch_sharded(%a: tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %init: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-remark @+1 {{f32[4@x,8]}}
  %0 = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a : tensor<4x8xf32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %le = arith.cmpi ule, %j, %i : index
    %s = arith.addf %acc, %x : f32
    %r = arith.select %le, %s, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

#in = affine_map<(b, i, j) -> (b, j)>
#out = affine_map<(b, i, j) -> (b, i)>
spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @cumprod_scanned_axis_sharded(%a: tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>}, %init: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{Input should be unsharded over the axis being reduced. Got input type=float32[4,8@y] and axis=1}}
  %0 = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a : tensor<4x8xf32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %le = arith.cmpi ule, %j, %i : index
    %p = arith.mulf %acc, %x : f32
    %r = arith.select %le, %p, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// An ordinary row sum with the same maps but no mask is still reduce_sum:
// its sharded reduced axis is dropped.
#in = affine_map<(b, j) -> (b, j)>
#out = affine_map<(b, j) -> (b)>
spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @negative_sum_is_not_a_scan(%a: tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}, %init: tensor<4xf32>) -> tensor<4xf32> {
  // expected-remark @+1 {{f32[4@x]}}
  %0 = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
