// Every collective kind of a shard_map program on a 4x2 mesh spread over 2
// processes of 4 devices and over 4 processes of 2: groups over "x" span
// the processes (with 2 processes, 2 members in each), groups over "y" stay
// in one, {"y", "x"} spans them all. The integer results are bit-identical
// to the threads backend's; the float sum is checked against the
// single-device reference.
// RUN: rm -rf %t && mkdir -p %t
// RUN: python3 %S/../Run/Inputs/npy.py iota 16x4 i32 %t/a.npy
// RUN: python3 %S/../Run/Inputs/npy.py iota 16x4 f32 %t/b.npy
// RUN: tessera-run %s --input a=%t/a.npy --input b=%t/b.npy --output-dir %t/threads | FileCheck %s
// RUN: %mpirun -n 2 tessera-run %s --backend=mpi --input a=%t/a.npy --input b=%t/b.npy --output-dir %t/p2 --check | FileCheck %s --check-prefixes=CHECK,TWO
// RUN: %mpirun -n 4 tessera-run %s --backend=mpi --input a=%t/a.npy --input b=%t/b.npy --output-dir %t/p4 --check | FileCheck %s --check-prefixes=CHECK,FOUR
// RUN: for i in 0 1 2 3 4 5 6 7; do cmp %t/threads/result$i.npy %t/p2/result$i.npy && cmp %t/threads/result$i.npy %t/p4/result$i.npy; done
// RUN: python3 %S/../Run/Inputs/npy.py compare %t/threads/result8.npy %t/p4/result8.npy 1e-6 | FileCheck %s --check-prefix=FLOAT

// TWO: tessera-run: @main on x=4,y=2 (8 devices, 2 processes of 4)
// FOUR: tessera-run: @main on x=4,y=2 (8 devices, 4 processes of 2)
// The sum over "x" of the blocks of rows 0-1, 4-5, 8-9, 12-13 (y = 0).
// CHECK: result0: i32[4,4] = [96, 100, 104, 108, 112, 116, ...
// CHECK: result1: i32[2,4] = [56, 57, 58, 59, 60, 61, 62, 63]
// CHECK: result8: f32[2,4] = [224, 232, 240, 248, 256, 264, 272, 280]
// TWO: check: all 9 results match the single-device reference
// FOUR: check: all 9 results match the single-device reference
// FLOAT: equal
spmd.mesh @mesh = <["x"=4, "y"=2]>
func.func @main(%a: tensor<16x4xi32>, %b: tensor<16x4xf32>) -> (tensor<4x4xi32>, tensor<2x4xi32>, tensor<8x4xi32>, tensor<4x4xi32>, tensor<16x4xi32>, tensor<4x4xi32>, tensor<16x4xi32>, tensor<16x4xi32>, tensor<2x4xf32>) {
  %0:9 = spmd.manual_computation(%a, %b)
      in_shardings=[<@mesh, [{"x", "y"}, {}]>, <@mesh, [{"x", "y"}, {}]>]
      out_shardings=[<@mesh, [{"y"}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"x"}, {}]>, <@mesh, [{"y"}, {}]>, <@mesh, [{"y"}, {}]>, <@mesh, [{"y"}, {"x"}]>, <@mesh, [{"y"}, {"x"}]>, <@mesh, [{"x", "y"}, {}]>, <@mesh, [{}, {}]>]
      manual_axes={"x", "y"}
      (%l: tensor<2x4xi32>, %f: tensor<2x4xf32>) {
    %s = comm.all_reduce sum %l over @mesh {"x"} : tensor<2x4xi32>
    %mx = comm.all_reduce max %l over @mesh {"y", "x"} : tensor<2x4xi32>
    %mn = comm.all_reduce min %l over @mesh {"y"} : tensor<2x4xi32>
    %pr = comm.all_reduce prod %l over @mesh {"x"} : tensor<2x4xi32>
    %g = comm.all_gather %l over @mesh {"x"} dim 0 : tensor<2x4xi32> -> tensor<8x4xi32>
    %rs = comm.reduce_scatter sum %l over @mesh {"x"} dim 1 : tensor<2x4xi32> -> tensor<2x1xi32>
    %aa = comm.all_to_all %l over @mesh {"x"} split 1 concat 0 : tensor<2x4xi32> -> tensor<8x1xi32>
    %pp = comm.permute %l over @mesh {"x"} pairs [0 -> 1, 1 -> 2, 2 -> 3, 3 -> 0] : tensor<2x4xi32>
    %fs = comm.all_reduce sum %f over @mesh {"x", "y"} : tensor<2x4xf32>
    spmd.return %s, %mx, %mn, %pr, %g, %rs, %aa, %pp, %fs : tensor<2x4xi32>, tensor<2x4xi32>, tensor<2x4xi32>, tensor<2x4xi32>, tensor<8x4xi32>, tensor<2x1xi32>, tensor<8x1xi32>, tensor<2x4xi32>, tensor<2x4xf32>
  } : (tensor<16x4xi32>, tensor<16x4xf32>) -> (tensor<4x4xi32>, tensor<2x4xi32>, tensor<8x4xi32>, tensor<4x4xi32>, tensor<16x4xi32>, tensor<4x4xi32>, tensor<16x4xi32>, tensor<16x4xi32>, tensor<2x4xf32>)
  return %0#0, %0#1, %0#2, %0#3, %0#4, %0#5, %0#6, %0#7, %0#8 : tensor<4x4xi32>, tensor<2x4xi32>, tensor<8x4xi32>, tensor<4x4xi32>, tensor<16x4xi32>, tensor<4x4xi32>, tensor<16x4xi32>, tensor<16x4xi32>, tensor<2x4xf32>
}
