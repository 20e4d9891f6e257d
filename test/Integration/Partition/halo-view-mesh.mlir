// A halo exchange whose input is on another mesh of the same devices: the
// reshard of the input from the 1-D view's [{"v"}] to the 2x2 mesh's
// [{"x", "y"}] moves no data (the two name the same blocks), so
// spmd-partition gets the view's value and must read its blocks as the
// mesh's (fuzzer: seed 108 program 146, a pad; the same holds for a
// convolution's windowed input).
// RUN: tessera-run %s --entry pad_view --random-inputs --seed 1 --check | FileCheck %s
// RUN: tessera-run %s --entry conv_view --random-inputs --seed 2 --check | FileCheck %s
// RUN: tessera-run %s --entry pad_order --random-inputs --seed 3 --check | FileCheck %s
// RUN: tessera-opt %s --tessera-partition | FileCheck %s --check-prefix=IR

// CHECK: check: all 1 results match the single-device reference

// Only neighbours' halos move: nothing is gathered.
// IR-LABEL: func.func @pad_view
// IR-NOT: comm.all_gather
// IR: comm.permute {{.*}} over @mesh {"x", "y"}
// IR-LABEL: func.func @conv_view
// IR-NOT: comm.all_gather
// IR: comm.permute {{.*}} over @mesh {"x", "y"}
// IR-LABEL: func.func @pad_order
// IR: comm.permute %arg0 over @mesh {"x", "y"} pairs [3 -> 0, 2 -> 1, 1 -> 2, 0 -> 3]

spmd.mesh @mesh = <["x"=2, "y"=2]>
spmd.mesh @view = <["v"=4]>

func.func @pad_view(%a: tensor<4xi32> {spmd.sharding = #spmd.sharding<@view, [{"v"}]>}) -> (tensor<8xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}]>}) {
  %c = arith.constant -1 : i32
  %p = tensor.pad %a low[2] high[2] {
  ^bb0(%i: index):
    tensor.yield %c : i32
  } : tensor<4xi32> to tensor<8xi32>
  return %p : tensor<8xi32>
}

func.func @conv_view(%x: tensor<10xf32> {spmd.sharding = #spmd.sharding<@view, [{"v"}]>}, %w: tensor<3xf32>) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}]>}) {
  %e = tensor.empty() : tensor<8xf32>
  %zero = arith.constant 0.0 : f32
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %y = linalg.conv_1d ins(%x, %w : tensor<10xf32>, tensor<3xf32>) outs(%init : tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// A view that orders the devices differently does hold other blocks: the
// input moves first.
spmd.mesh @reversed = <["r"=4], device_ids=[3, 2, 1, 0]>

func.func @pad_order(%a: tensor<4xi32> {spmd.sharding = #spmd.sharding<@reversed, [{"r"}]>}) -> (tensor<8xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}]>}) {
  %c = arith.constant 5 : i32
  %p = tensor.pad %a low[2] high[2] {
  ^bb0(%i: index):
    tensor.yield %c : i32
  } : tensor<4xi32> to tensor<8xi32>
  return %p : tensor<8xi32>
}
