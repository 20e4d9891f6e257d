// The same shard_map program on meshes of 1, 2, 4 and 8 devices: the rows
// are dynamic, so the local block is whatever the mesh size makes it.
// RUN: python3 %S/../Inputs/npy.py iota 8x4 i32 %t.a.npy
// RUN: tessera-run %s --input 0=%t.a.npy --print-results | FileCheck %s --check-prefix=FOUR
// RUN: tessera-run %s --input 0=%t.a.npy --print-results --mesh x=2 --check | FileCheck %s --check-prefix=TWO
// RUN: tessera-run %s --input 0=%t.a.npy --print-results --mesh x=1 | FileCheck %s --check-prefix=ONE
// RUN: tessera-run %s --input 0=%t.a.npy --print-results --mesh x=8 --stats | FileCheck %s --check-prefix=EIGHT

// Each device sums the columns of its rows; the all_reduce adds the
// devices' sums: the column sums of iota(8x4), 112, 120, 128, 136.
// FOUR: @main on x=4 (4 devices)
// FOUR-NEXT: result0: i32[4] = [112, 120, 128, 136]
// TWO: @main on x=2 (2 devices)
// TWO-NEXT: result0: i32[4] = [112, 120, 128, 136]
// TWO: check: all 1 results match the single-device reference
// ONE: @main on x=1 (1 device)
// ONE-NEXT: result0: i32[4] = [112, 120, 128, 136]
// EIGHT: @main on x=8 (8 devices)
// EIGHT-NEXT: result0: i32[4] = [112, 120, 128, 136]
// EIGHT: stats: 7 {{.*}} 1 16 B
spmd.mesh @mesh = <["x"=4]>

func.func @main(%a: tensor<?x4xi32>) -> tensor<4xi32> {
  %0 = spmd.manual_computation(%a) in_shardings=[<@mesh, [{"x"}, {}]>]
      out_shardings=[<@mesh, [{}]>] manual_axes={"x"} (%l: tensor<?x4xi32>) {
    %z = arith.constant 0 : i32
    %e = tensor.empty() : tensor<4xi32>
    %f = linalg.fill ins(%z : i32) outs(%e : tensor<4xi32>) -> tensor<4xi32>
    %s = linalg.reduce ins(%l : tensor<?x4xi32>) outs(%f : tensor<4xi32>) dimensions = [0]
      (%v: i32, %acc: i32) {
        %t = arith.addi %v, %acc : i32
        linalg.yield %t : i32
      }
    %r = comm.all_reduce sum %s over @mesh {"x"} : tensor<4xi32>
    spmd.return %r : tensor<4xi32>
  } : (tensor<?x4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
