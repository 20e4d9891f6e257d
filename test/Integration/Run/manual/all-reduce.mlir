// shard_map with psum/pmax/pmin/prod (comm.all_reduce) over a 1-D mesh of 4
// devices, on known values and checked against the reference.
// RUN: python3 %S/../Inputs/npy.py iota 8x2 f32 %t.a.npy
// RUN: tessera-run %s --input 0=%t.a.npy --print-results --stats | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 21 --check | FileCheck %s --check-prefix=CHECK-RANDOM
// RUN: tessera-run %s --random-inputs --stats --timing | FileCheck %s --check-prefix=CHECK-TIME

// The blocks of rows {0,1}, {2,3}, {4,5}, {6,7} of iota(8x2), summed,
// maximized, minimized and multiplied element by element.
// CHECK: tessera-run: @main on x=4 (4 devices)
// CHECK-NEXT: result0: f32[2,2] = [24, 28, 32, 36]
// CHECK-NEXT: result1: f32[2,2] = [12, 13, 14, 15]
// CHECK-NEXT: result2: f32[2,2] = [0, 1, 2, 3]
// CHECK-NEXT: result3: f32[2,2] = [0, 585, 1680, 3465]
// Every device makes four calls of 16 bytes.
// CHECK: stats: 0 {{.*}} 4 64 B
// CHECK: stats: 3 {{.*}} 4 64 B
// CHECK-RANDOM: check: all 4 results match the single-device reference
// With --timing, the time in collectives and the part of it after every
// member had arrived.
// CHECK-TIME: stats: device peak memory collectives bytes sent collective time data time
// CHECK-TIME: stats: 0 {{.*}} 4 64 B {{[0-9]+\.[0-9]+}} ms {{[0-9]+\.[0-9]+}} ms
spmd.mesh @mesh = <["x"=4]>
func.func @main(%arg0: tensor<8x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %0:4 = spmd.manual_computation(%arg0)
      in_shardings=[<@mesh, [{"x"}, {}]>]
      out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{}, {}]>]
      manual_axes={"x"}
      (%l: tensor<2x2xf32>) {
    %s = comm.all_reduce sum %l over @mesh {"x"} : tensor<2x2xf32>
    %mx = comm.all_reduce max %l over @mesh {"x"} : tensor<2x2xf32>
    %mn = comm.all_reduce min %l over @mesh {"x"} : tensor<2x2xf32>
    %p = comm.all_reduce prod %l over @mesh {"x"} : tensor<2x2xf32>
    spmd.return %s, %mx, %mn, %p : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
  } : (tensor<8x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
  return %0#0, %0#1, %0#2, %0#3 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}
