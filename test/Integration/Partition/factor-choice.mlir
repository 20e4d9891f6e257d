// spmd-insert-reshards' choice between factor candidates (ties broken by
// the higher factor index, a factor's sub-axis grown to the whole axis),
// run on several meshes against the single-device reference.
// RUN: tessera-run %s --entry tie_higher_factor --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry tie_higher_factor --random-inputs --check --mesh x=1,y=8 | FileCheck %s
// RUN: tessera-run %s --entry extend_sub_axis --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry extend_sub_axis --random-inputs --check --mesh x=2,y=8 | FileCheck %s
// CHECK: check: all 1 results match the single-device reference

spmd.mesh @mesh = <["x"=2, "y"=4], device_ids=[6, 1, 3, 0, 7, 2, 5, 4]>

func.func @tie_higher_factor(
    %a: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>},
    %b: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>},
    %c: tensor<8x16xf32>)
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}) {
  %m = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x16xf32>) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %m : tensor<8x16xf32>
}

func.func @extend_sub_axis(
    %a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y":(1)2}, {"y":(2)2}]>},
    %b: tensor<4x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>},
    %c: tensor<8x16xf32>)
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}) {
  %m = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %m : tensor<8x16xf32>
}

