// all_to_all over both axes of a 2x2 mesh moves a row-sharded array to a
// column-sharded one (JAX: all_to_all(x, ('x', 'y'), 1, 0, tiled=True));
// the results assemble to the same global array.
// RUN: python3 %S/../Inputs/npy.py iota 4x4 i64 %t.a.npy
// RUN: tessera-run %s --input 0=%t.a.npy --print-results --check | FileCheck %s

// Each device holds one row and ends up with one column of the input.
// CHECK: @main on x=2,y=2 (4 devices)
// CHECK-NEXT: result0: i64[4,4] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
// CHECK: check: all 1 results match the single-device reference
spmd.mesh @mesh = <["x"=2, "y"=2]>
func.func @main(%a: tensor<4x4xi64>) -> tensor<4x4xi64> {
  %0 = spmd.manual_computation(%a) in_shardings=[<@mesh, [{"x", "y"}, {}]>]
      out_shardings=[<@mesh, [{}, {"x", "y"}]>] manual_axes={"x", "y"} (%row: tensor<1x4xi64>) {
    %col = comm.all_to_all %row over @mesh {"x", "y"} split 1 concat 0 : tensor<1x4xi64> -> tensor<4x1xi64>
    spmd.return %col : tensor<4x1xi64>
  } : (tensor<4x4xi64>) -> tensor<4x4xi64>
  return %0 : tensor<4x4xi64>
}
