// RUN: tessera-opt %s -split-input-file --spmd-infer-explicit --spmd-print-types --verify-diagnostics -o /dev/null

// Tests JAX's reduce rule: the reduced dimensions' entries are deleted
// (the partitioner adds the all-reduce), the others kept.

spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @reduce_dim0(%a: tensor<8x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {"Y"}]>}, %init: tensor<2xf32>) -> tensor<2xf32> {
  // expected-remark @+1 {{f32[2@Y]}}
  %0 = linalg.reduce ins(%a : tensor<8x2xf32>) outs(%init : tensor<2xf32>) dimensions = [0]
    (%x: f32, %y: f32) {
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    }
  return %0 : tensor<2xf32>
}

// -----

spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @reduce_dim1(%a: tensor<8x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {"Y"}]>}, %init: tensor<8xf32>) -> tensor<8xf32> {
  // expected-remark @+1 {{f32[8@X]}}
  %0 = linalg.reduce ins(%a : tensor<8x2xf32>) outs(%init : tensor<8xf32>) dimensions = [1]
    (%x: f32, %y: f32) {
      %s = arith.maximumf %x, %y : f32
      linalg.yield %s : f32
    }
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @reduce_all(%a: tensor<8x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {"Y"}]>}, %init: tensor<f32>) -> tensor<f32> {
  // expected-remark @+1 {{f32[]}}
  %0 = linalg.reduce ins(%a : tensor<8x2xf32>) outs(%init : tensor<f32>) dimensions = [0, 1]
    (%x: f32, %y: f32) {
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    }
  return %0 : tensor<f32>
}

// -----

spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @reduce_multi_axis(%a: tensor<8x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X", "Y"}, {}]>}, %i0: tensor<2xf32>, %i1: tensor<8xf32>) -> (tensor<2xf32>, tensor<8xf32>) {
  // expected-remark @+1 {{f32[2]}}
  %0 = linalg.reduce ins(%a : tensor<8x2xf32>) outs(%i0 : tensor<2xf32>) dimensions = [0]
    (%x: f32, %y: f32) {
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    }
  // expected-remark @+1 {{f32[8@(X,Y)]}}
  %1 = linalg.reduce ins(%a : tensor<8x2xf32>) outs(%i1 : tensor<8xf32>) dimensions = [1]
    (%x: f32, %y: f32) {
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    }
  return %0, %1 : tensor<2xf32>, tensor<8xf32>
}

// -----

// A generic with one input and a reduction loop is a reduce.
spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @generic_reduce(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {"Y"}]>}, %init: tensor<8xf32>) -> tensor<8xf32> {
  // expected-remark @+1 {{f32[8@X]}}
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<8x16xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %o, %x : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// A reduction with spmd.out_sharding takes it.
spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @reduce_out_sharding(%a: tensor<8x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}]>}, %init: tensor<2xf32>) -> tensor<2xf32> {
  // expected-remark @+1 {{f32[2@Y]}}
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"], spmd.out_sharding = #spmd.sharding<@mesh, [{"Y"}]>} ins(%a : tensor<8x2xf32>) outs(%init : tensor<2xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %o, %x : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
