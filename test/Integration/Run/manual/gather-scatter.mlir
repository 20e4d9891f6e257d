// all_gather along dim 1, reduce_scatter along dim 0 and all_to_all on a
// 2x2 mesh, over one axis and over both (i32: bit-exact).
// RUN: python3 %S/../Inputs/npy.py iota 4x4 i32 %t.a.npy
// RUN: tessera-run %s --input 0=%t.a.npy --print-results | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 22 --check | FileCheck %s --check-prefix=CHECK-RANDOM

// Each device holds a 2x2 block; gathering the blocks of a row of devices
// along dim 1 gives back the rows of the input, and gathering again over
// "x" the whole input.
// CHECK: tessera-run: @main on x=2,y=2 (4 devices)
// CHECK-NEXT: result0: i32[4,4] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
// reduce_scatter over "y" along dim 0: device (i, j) gets row j of the sum
// of the two blocks of its row of devices, e.g. [[0,1],[4,5]] + [[2,3],[6,7]]
// = [[2,4],[10,12]] for i = 0; the rows stack in device order.
// CHECK-NEXT: result1: i32[4,2] = [2, 4, 10, 12, 18, 20, 26, 28]
// all_to_all over "y" splitting and concatenating columns: device (i, j)
// gets column j of both blocks of its row of devices.
// CHECK-NEXT: result2: i32[4,4] = [0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15]
// CHECK-RANDOM: check: all 3 results match the single-device reference
spmd.mesh @mesh = <["x"=2, "y"=2]>
func.func @main(%arg0: tensor<4x4xi32>) -> (tensor<4x4xi32>, tensor<4x2xi32>, tensor<4x4xi32>) {
  %0:3 = spmd.manual_computation(%arg0)
      in_shardings=[<@mesh, [{"x"}, {"y"}]>]
      out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{"x", "y"}, {}]>, <@mesh, [{"x"}, {"y"}]>]
      manual_axes={"x", "y"}
      (%l: tensor<2x2xi32>) {
    %row = comm.all_gather %l over @mesh {"y"} dim 1 : tensor<2x2xi32> -> tensor<2x4xi32>
    %all = comm.all_gather %row over @mesh {"x"} dim 0 : tensor<2x4xi32> -> tensor<4x4xi32>
    %rs = comm.reduce_scatter sum %l over @mesh {"y"} dim 0 : tensor<2x2xi32> -> tensor<1x2xi32>
    %t = comm.all_to_all %l over @mesh {"y"} split 1 concat 1 : tensor<2x2xi32> -> tensor<2x2xi32>
    spmd.return %all, %rs, %t : tensor<4x4xi32>, tensor<1x2xi32>, tensor<2x2xi32>
  } : (tensor<4x4xi32>) -> (tensor<4x4xi32>, tensor<4x2xi32>, tensor<4x4xi32>)
  return %0#0, %0#1, %0#2 : tensor<4x4xi32>, tensor<4x2xi32>, tensor<4x4xi32>
}
