// A concatenation whose concatenated dimension is sharded: the axes move to
// a batching dimension (spmd-insert-reshards, as Shardy); the partitioned
// program must match the single-device reference on several meshes.
// RUN: tessera-run %s --entry concat_axes_to_batching --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry concat_axes_to_batching --random-inputs --check --mesh x=2,y=2 | FileCheck %s
// RUN: tessera-run %s --entry concat_replicated_operands --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry concat_replicated_operands --random-inputs --check --mesh x=8,y=1 | FileCheck %s
// CHECK: check: all 1 results match the single-device reference

spmd.mesh @m42 = <["x"=4, "y"=2], device_ids=[3, 6, 0, 5, 2, 7, 1, 4]>

func.func @concat_axes_to_batching(
    %a: tensor<8x4x16xf32> {spmd.sharding = #spmd.sharding<@m42, [{"x"}, {"y"}, {}]>},
    %b: tensor<8x12x16xf32> {spmd.sharding = #spmd.sharding<@m42, [{}, {"y"}, {}]>})
    -> (tensor<8x16x16xf32> {spmd.sharding = #spmd.sharding<@m42, [{"x"}, {"y"}, {}]>}) {
  %0 = tensor.concat dim(1) %a, %b : (tensor<8x4x16xf32>, tensor<8x12x16xf32>) -> tensor<8x16x16xf32>
  return %0 : tensor<8x16x16xf32>
}

func.func @concat_replicated_operands(%a: tensor<4x64xf32>)
    -> (tensor<8x64xf32> {spmd.sharding = #spmd.sharding<@m42, [{"x"}, {}]>}) {
  %0 = tensor.concat dim(0) %a, %a : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}
