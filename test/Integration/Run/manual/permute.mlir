// ppermute (comm.permute): a cyclic shift over "x" and a partial
// permutation whose non-targets receive zeros; axis_index and axis_size.
// RUN: python3 %S/../Inputs/npy.py iota 4x2 f32 %t.a.npy
// RUN: tessera-run %s --input 0=%t.a.npy --print-results | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 23 --check | FileCheck %s --check-prefix=CHECK-RANDOM

// Device d gets the row of device d - 1: rows 3, 0, 1, 2.
// CHECK: result0: f32[4,2] = [6, 7, 0, 1, 2, 3, 4, 5]
// Only 0 -> 2 and 2 -> 0: devices 1 and 3 receive zeros.
// CHECK-NEXT: result1: f32[4,2] = [4, 5, 0, 0, 0, 1, 0, 0]
// axis_index * axis_size per device: 0, 4, 8, 12.
// CHECK-NEXT: result2: i64[4] = [0, 4, 8, 12]
// CHECK-RANDOM: check: all 3 results match the single-device reference
spmd.mesh @mesh = <["x"=4]>
func.func @main(%arg0: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4xi64>) {
  %0:3 = spmd.manual_computation(%arg0)
      in_shardings=[<@mesh, [{"x"}, {}]>]
      out_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>, <@mesh, [{"x"}]>]
      manual_axes={"x"}
      (%l: tensor<1x2xf32>) {
    %s = comm.permute %l over @mesh {"x"} pairs [0 -> 1, 1 -> 2, 2 -> 3, 3 -> 0] : tensor<1x2xf32>
    %p = comm.permute %l over @mesh {"x"} pairs [0 -> 2, 2 -> 0] : tensor<1x2xf32>
    %i = comm.axis_index over @mesh {"x"} : i64
    %n = comm.axis_size over @mesh {"x"} : i64
    %v = arith.muli %i, %n : i64
    %t = tensor.from_elements %v : tensor<1xi64>
    spmd.return %s, %p, %t : tensor<1x2xf32>, tensor<1x2xf32>, tensor<1xi64>
  } : (tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4xi64>)
  return %0#0, %0#1, %0#2 : tensor<4x2xf32>, tensor<4x2xf32>, tensor<4xi64>
}
