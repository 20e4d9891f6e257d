// Tests that unsigned max/min reductions over a sharded dimension are
// partitioned right: no collective computes them (the runtime's max and
// min compare integers as signed), so the reduced dimension is gathered
// and each device reduces it whole, instead of all-reducing partial
// results with a signed max.
// RUN: python3 %S/../Run/Inputs/npy.py iota 8x2 i32 %t.a.npy
// RUN: tessera-run %s --input 0=%t.a.npy --print-results | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 3 --check | FileCheck %s --check-prefix=CHECK-RANDOM
// RUN: tessera-opt %s --tessera-partition | FileCheck %s --check-prefix=IR

// The rows 2r + c - 4: unsigned, -2 and -1 are the largest and 0 and 1
// the smallest of each column (a signed max would give 10 and 11).
// CHECK: result0: i32[2] = [-2, -1]
// CHECK-NEXT: result1: i32[2] = [0, 1]
// CHECK-RANDOM: check: all 2 results match the single-device reference

// IR-LABEL: func.func @main
// IR-NOT: comm.all_reduce
// IR: comm.all_gather
// IR-NOT: comm.all_reduce
// IR: return

spmd.mesh @mesh = <["x"=4]>

func.func @main(%a: tensor<8x2xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<2xi32>, tensor<2xi32>) {
  %four = arith.constant dense<4> : tensor<8x2xi32>
  %s = arith.subi %a, %four : tensor<8x2xi32>
  %zero = arith.constant 0 : i32
  %ones = arith.constant -1 : i32
  %e = tensor.empty() : tensor<2xi32>
  %lo = linalg.fill ins(%zero : i32) outs(%e : tensor<2xi32>) -> tensor<2xi32>
  %hi = linalg.fill ins(%ones : i32) outs(%e : tensor<2xi32>) -> tensor<2xi32>
  %max = linalg.reduce ins(%s : tensor<8x2xi32>) outs(%lo : tensor<2xi32>) dimensions = [0]
    (%x: i32, %acc: i32) {
      %m = arith.maxui %x, %acc : i32
      linalg.yield %m : i32
    }
  %min = linalg.reduce ins(%s : tensor<8x2xi32>) outs(%hi : tensor<2xi32>) dimensions = [0]
    (%x: i32, %acc: i32) {
      %m = arith.minui %x, %acc : i32
      linalg.yield %m : i32
    }
  return %max, %min : tensor<2xi32>, tensor<2xi32>
}
