// A pad of a sharded dimension whose result the mesh does not divide
// (each device holds ceil(n / parts) rows, the last device's tail unused),
// reduced over that dimension: the halo exchange fills the unused tail
// with the padding value too, so the reduction must stop at the valid
// rows instead of counting the padding value once more per unused row.
// RUN: python3 %S/../Run/Inputs/npy.py iota 2x3 i32 %t.a.npy
// RUN: tessera-run %s --entry low_pad_sum --input 0=%t.a.npy --print-results | FileCheck %s --check-prefix=LOW
// RUN: tessera-run %s --entry low_pad_sum --random-inputs --seed 11 --check | FileCheck %s
// RUN: tessera-run %s --entry high_pad_sum --random-inputs --seed 12 --check | FileCheck %s
// RUN: tessera-run %s --entry high_pad_sum --random-inputs --seed 13 --check --mesh x=4 | FileCheck %s
// RUN: tessera-run %s --entry both_pads_sum --random-inputs --seed 14 --check | FileCheck %s
// RUN: tessera-run %s --entry both_pads_sum --random-inputs --seed 15 --check --mesh x=2 | FileCheck %s
// RUN: tessera-opt %s --tessera-partition | FileCheck %s --check-prefix=IR

// CHECK: check: all 1 results match the single-device reference

// Rows 0 1 2 and 3 4 5 under one row of 7: every column is 7 + c + (3 + c).
// LOW: result0: i32[3] = [10, 12, 14]

// The reduction reads only the valid rows of its block: min(block,
// max(0, 3 - offset)) of them.
// IR-LABEL: func.func @low_pad_sum
// IR: arith.minsi
// IR: tensor.extract_slice {{.*}} : tensor<2x3xi32> to tensor<?x3xi32>
// IR: linalg.reduce ins({{.*}} : tensor<?x3xi32>)

spmd.mesh @mesh = <["x"=2]>

func.func @low_pad_sum(%a: tensor<2x3xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<3xi32> {
  %seven = arith.constant 7 : i32
  %p = tensor.pad %a low[1, 0] high[0, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %seven : i32
  } : tensor<2x3xi32> to tensor<3x3xi32>
  %e = tensor.empty() : tensor<3xi32>
  %zero = arith.constant 0 : i32
  %init = linalg.fill ins(%zero : i32) outs(%e : tensor<3xi32>) -> tensor<3xi32>
  %r = linalg.reduce ins(%p : tensor<3x3xi32>) outs(%init : tensor<3xi32>) dimensions = [0]
    (%in: i32, %acc: i32) {
      %s = arith.addi %in, %acc : i32
      linalg.yield %s : i32
    }
  return %r : tensor<3xi32>
}

func.func @high_pad_sum(%a: tensor<4x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<2xf32> {
  %half = arith.constant 0.5 : f32
  %p = tensor.pad %a low[0, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %half : f32
  } : tensor<4x2xf32> to tensor<5x2xf32>
  %e = tensor.empty() : tensor<2xf32>
  %zero = arith.constant 0.0 : f32
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %r = linalg.reduce ins(%p : tensor<5x2xf32>) outs(%init : tensor<2xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<2xf32>
}

func.func @both_pads_sum(%a: tensor<3x4xi32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> tensor<3xi32> {
  %minus = arith.constant -2 : i32
  %p = tensor.pad %a low[0, 2] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %minus : i32
  } : tensor<3x4xi32> to tensor<3x7xi32>
  %e = tensor.empty() : tensor<3xi32>
  %zero = arith.constant 0 : i32
  %init = linalg.fill ins(%zero : i32) outs(%e : tensor<3xi32>) -> tensor<3xi32>
  %r = linalg.reduce ins(%p : tensor<3x7xi32>) outs(%init : tensor<3xi32>) dimensions = [1]
    (%in: i32, %acc: i32) {
      %s = arith.addi %in, %acc : i32
      linalg.yield %s : i32
    }
  return %r : tensor<3xi32>
}
