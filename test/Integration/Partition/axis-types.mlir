// JAX's auto_axes and explicit_axes regions (spmd.auto_axes,
// spmd.explicit_axes) in partitioned programs: their bodies are inlined by
// spmd-insert-reshards, with the data resharded at their boundaries; and a
// program on two meshes with the same axes in different device orders. Each
// runs on several emulated meshes and must match the single-device
// reference.
// RUN: tessera-run %s --entry auto --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry auto --random-inputs --check --mesh x=4,y=1 | FileCheck %s
// RUN: tessera-run %s --entry auto --random-inputs --check --mesh x=2,y=4 | FileCheck %s
// RUN: tessera-run %s --entry explicit --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry explicit --random-inputs --check --mesh x=1,y=4 | FileCheck %s
// RUN: tessera-run %s --entry explicit --random-inputs --check --mesh x=4,y=2 | FileCheck %s
// RUN: tessera-run %s --entry device_order --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry device_order --random-inputs --check --mesh x=4,y=2 | FileCheck %s
// CHECK: check: all 1 results match the single-device reference

// An explicit mesh: the body of auto_axes lets propagation shard "x".
spmd.mesh @emesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>
// An auto mesh: explicit_axes types the body's shardings.
spmd.mesh @amesh = <["x"=2, "y"=2]>

func.func @auto(%x: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@emesh, [{"x"}, {"y"}]>})
    -> (tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@emesh, [{}, {"x"}]>}) {
  %r = spmd.auto_axes(%x) axes={"x"} out_shardings=[<@emesh, [{}, {"x"}]>] (%arg: tensor<8x4xf32>) {
    %0 = arith.negf %arg : tensor<8x4xf32>
    %1 = math.exp %0 : tensor<8x4xf32>
    spmd.return %1 : tensor<8x4xf32>
  } : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

func.func @explicit(%x: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@amesh, [{"x"}, {}]>}, %w: tensor<4x6xf32>) -> tensor<8x6xf32> {
  %r = spmd.explicit_axes(%x, %w) axes={"x", "y"} in_shardings=[<@amesh, [{"x"}, {}]>, <@amesh, [{}, {"y"}]>] (%a: tensor<8x4xf32>, %b: tensor<4x6xf32>) {
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<8x6xf32>
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x6xf32>) -> tensor<8x6xf32>
    %m = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x6xf32>) outs(%f : tensor<8x6xf32>) -> tensor<8x6xf32>
    %n = math.tanh %m : tensor<8x6xf32>
    spmd.return %n : tensor<8x6xf32>
  } : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
  %o = arith.negf %r : tensor<8x6xf32>
  return %o : tensor<8x6xf32>
}

// The same axes in another device order: the result moves between meshes.
spmd.mesh @reversed = <["x"=2, "y"=2], device_ids=[3, 2, 1, 0]>

func.func @device_order(%x: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@amesh, [{"x", "y"}, {}]>})
    -> (tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@reversed, [{"x"}, {"y"}]>}) {
  %0 = math.exp %x : tensor<8x4xf32>
  %1 = arith.mulf %0, %x : tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}
