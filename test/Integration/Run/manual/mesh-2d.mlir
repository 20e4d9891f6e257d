// A 2x4 mesh: axis_index over both axes in either order, a group over one
// axis, and a sub-axis "y":(2)2 (the major half of "y").
// RUN: python3 %S/../Inputs/npy.py iota 8x4 i32 %t.a.npy
// RUN: tessera-run %s --input 0=%t.a.npy --print-results --check | FileCheck %s

// Results are laid out by mesh position (x major). Index over {y, x} with
// y major: 2 * y + x. Over {x}: x. Over the sub-axis "y":(2)2: y / 2.
// CHECK: @main on x=2,y=4 (8 devices)
// CHECK-NEXT: result0: i64[8] = [0, 2, 4, 6, 1, 3, 5, 7]
// CHECK-NEXT: result1: i64[8] = [0, 0, 0, 0, 1, 1, 1, 1]
// CHECK-NEXT: result2: i64[8] = [0, 0, 1, 1, 0, 0, 1, 1]
// The sum of y over the group of the sub-axis "y":(2)2: its members differ
// only in the major half of y, so y pairs (0, 2) and (1, 3): sums 2 and 4.
// CHECK-NEXT: result3: i64[8] = [2, 4, 2, 4, 2, 4, 2, 4]
// CHECK: check: all 4 results match the single-device reference
spmd.mesh @mesh = <["x"=2, "y"=4]>

func.func @main(%a: tensor<8x4xi32>) -> (tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>) {
  %0:4 = spmd.manual_computation(%a) in_shardings=[<@mesh, [{}, {}]>]
      out_shardings=[<@mesh, [{"x", "y"}]>, <@mesh, [{"x", "y"}]>, <@mesh, [{"x", "y"}]>, <@mesh, [{"x", "y"}]>]
      manual_axes={"x", "y"} (%l: tensor<8x4xi32>) {
    %i = comm.axis_index over @mesh {"y", "x"} : i64
    %t = tensor.from_elements %i : tensor<1xi64>
    %j = comm.axis_index over @mesh {"x"} : i64
    %u = tensor.from_elements %j : tensor<1xi64>
    %k = comm.axis_index over @mesh {"y":(2)2} : i64
    %v = tensor.from_elements %k : tensor<1xi64>
    %y = comm.axis_index over @mesh {"y"} : i64
    %w = tensor.from_elements %y : tensor<1xi64>
    %s = comm.all_reduce sum %w over @mesh {"y":(2)2} : tensor<1xi64>
    spmd.return %t, %u, %v, %s : tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>
  } : (tensor<8x4xi32>) -> (tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>)
  return %0#0, %0#1, %0#2, %0#3 : tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>
}
