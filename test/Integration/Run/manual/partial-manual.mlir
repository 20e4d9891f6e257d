// A shard_map manual over one axis of a 2-D mesh: the body is global over
// the free axis "y"; a call from the body to a function with a collective.
// RUN: python3 %S/../Inputs/npy.py iota 4x4 f32 %t.a.npy
// RUN: tessera-run %s --input 0=%t.a.npy --print-results --check | FileCheck %s

// Rows {0,1} on x=0, {2,3} on x=1; the called function all-reduces over x:
// rows 0+2 and 1+3 of iota(4x4), times 2, gathered back over x.
// CHECK: @main on x=2,y=2 (4 devices)
// CHECK-NEXT: result0: f32[4,4] = [16, 20, 24, 28, 32, 36, 40, 44, 16, 20, 24, 28, 32, 36, 40, 44]
// CHECK: check: all 1 results match the single-device reference
spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func private @sum_over_x(%v: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %s = comm.all_reduce sum %v over @mesh {"x"} : tensor<2x4xf32>
  return %s : tensor<2x4xf32>
}

func.func @main(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = spmd.manual_computation(%a) in_shardings=[<@mesh, [{"x"}, {"y"}]>]
      out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%l: tensor<2x4xf32>) {
    %d = arith.addf %l, %l : tensor<2x4xf32>
    %s = func.call @sum_over_x(%d) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    spmd.return %s : tensor<2x4xf32>
  } : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
