// A mesh with a non-iota device order: group indices follow mesh
// positions, whatever device sits there, and results are assembled by
// position.
// RUN: python3 %S/../Inputs/npy.py iota 8x4 i32 %t.a.npy
// RUN: tessera-run %s --input 0=%t.a.npy --print-results --check --show-sharding | FileCheck %s

// A cyclic shift of the row blocks by one position to the left.
// CHECK: @main on x=4 (4 devices)
// CHECK-NEXT: result0: i32[8,4] = [8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 0, 1, 2, 3, 4, 5, 6, 7]
// Device 3 holds the first block.
// CHECK: arg0 (%a): i32[8,4]
// CHECK-NEXT: ┌───────┐
// CHECK-NEXT: │ CPU 3 │
// CHECK-NEXT: ├───────┤
// CHECK-NEXT: │ CPU 2 │
// CHECK: check: all 1 results match the single-device reference
spmd.mesh @mesh = <["x"=4], device_ids=[3, 2, 1, 0]>

func.func @main(%a: tensor<8x4xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x4xi32> {
  %0 = spmd.manual_computation(%a) in_shardings=[<@mesh, [{"x"}, {}]>]
      out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%l: tensor<2x4xi32>) {
    %p = comm.permute %l over @mesh {"x"} pairs [0 -> 3, 1 -> 0, 2 -> 1, 3 -> 2] : tensor<2x4xi32>
    spmd.return %p : tensor<2x4xi32>
  } : (tensor<8x4xi32>) -> tensor<8x4xi32>
  return %0 : tensor<8x4xi32>
}
