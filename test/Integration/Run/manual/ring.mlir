// psum written by hand: a ring all-reduce of permutes in an scf.for, and
// reduce_scatter followed by all_gather; both equal comm.all_reduce.
// RUN: tessera-run %s --random-inputs --seed 61 --output-dir %t --check | FileCheck %s
// RUN: python3 %S/../Inputs/npy.py compare %t/result0.npy %t/result2.npy 1e-6
// RUN: python3 %S/../Inputs/npy.py compare %t/result1.npy %t/result2.npy 1e-6

// CHECK: tessera-run: @main on x=4 (4 devices)
// CHECK: check: all 3 results match the single-device reference
spmd.mesh @mesh = <["x"=4]>
func.func @main(%a: tensor<16x8xf32>) -> (tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>) {
  %0:3 = spmd.manual_computation(%a) in_shardings=[<@mesh, [{"x"}, {}]>]
      out_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>]
      manual_axes={"x"} (%l: tensor<4x8xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    // Pass the block around the ring three times, adding what arrives.
    %sum, %msg = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %l, %m = %l) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
      %next = comm.permute %m over @mesh {"x"} pairs [0 -> 1, 1 -> 2, 2 -> 3, 3 -> 0] : tensor<4x8xf32>
      %s = arith.addf %acc, %next : tensor<4x8xf32>
      scf.yield %s, %next : tensor<4x8xf32>, tensor<4x8xf32>
    }
    %rs = comm.reduce_scatter sum %l over @mesh {"x"} dim 0 : tensor<4x8xf32> -> tensor<1x8xf32>
    %ag = comm.all_gather %rs over @mesh {"x"} dim 0 : tensor<1x8xf32> -> tensor<4x8xf32>
    %ar = comm.all_reduce sum %l over @mesh {"x"} : tensor<4x8xf32>
    spmd.return %sum, %ag, %ar : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  } : (tensor<16x8xf32>) -> (tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>)
  return %0#0, %0#1, %0#2 : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>
}
