// Tests that argmax/argmin written as a value+index reduction (a select
// reduction) over a sharded dimension are partitioned right: each device
// reduces its block, the partial (value, index) pairs are gathered and
// combined in block order, so a maximum that occurs on two devices gives
// the first index, as one sequential pass does.
// RUN: python3 %S/../Run/Inputs/npy.py iota 8x2 i32 %t.a.npy
// RUN: tessera-run %s --input 0=%t.a.npy --print-results | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 5 --check | FileCheck %s --check-prefix=CHECK-RANDOM
// RUN: tessera-run %s --entry float_argmax --random-inputs --seed 7 --check | FileCheck %s --check-prefix=CHECK-FLOAT
// RUN: tessera-opt %s --tessera-partition | FileCheck %s --check-prefix=IR

// The rows are (2r + c) mod 5: column 0 is 0 2 4 1 3 0 2 4 (its maximum on
// the second and fourth device, its minimum on the first and third),
// column 1 is 1 3 0 2 4 1 3 0.
// CHECK: result0: i32[2] = [4, 4]
// CHECK-NEXT: result1: i32[2] = [2, 4]
// CHECK-NEXT: result2: i32[2] = [0, 0]
// CHECK-NEXT: result3: i32[2] = [0, 2]
// CHECK-RANDOM: check: all 4 results match the single-device reference
// CHECK-FLOAT: check: all 2 results match the single-device reference

// Each device gathers the 4 partial pairs of its 2 columns, never the 8
// rows.
// IR-LABEL: func.func @main
// IR-NOT: comm.all_gather {{.*}} tensor<2x2xi32> -> tensor<8x2xi32>
// IR: comm.all_gather {{.*}} : tensor<2x1xi32> -> tensor<2x4xi32>
// IR: return

spmd.mesh @mesh = <["x"=4]>

#in = affine_map<(i, j) -> (j, i)>
#out = affine_map<(i, j) -> (i)>

func.func @main(%a: tensor<8x2xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) {
  %five = arith.constant dense<5> : tensor<8x2xi32>
  %m = arith.remsi %a, %five : tensor<8x2xi32>
  %lo = arith.constant -1000 : i32
  %hi = arith.constant 1000 : i32
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<2xi32>
  %vmax0 = linalg.fill ins(%lo : i32) outs(%e : tensor<2xi32>) -> tensor<2xi32>
  %vmin0 = linalg.fill ins(%hi : i32) outs(%e : tensor<2xi32>) -> tensor<2xi32>
  %i0 = linalg.fill ins(%zero : i32) outs(%e : tensor<2xi32>) -> tensor<2xi32>
  %max:2 = linalg.generic {indexing_maps = [#in, #out, #out], iterator_types = ["parallel", "reduction"]}
      ins(%m : tensor<8x2xi32>) outs(%vmax0, %i0 : tensor<2xi32>, tensor<2xi32>) {
    ^bb0(%x: i32, %av: i32, %ai: i32):
      %k = linalg.index 1 : index
      %kc = arith.index_cast %k : index to i32
      %gt = arith.cmpi sgt, %x, %av : i32
      %nv = arith.select %gt, %x, %av : i32
      %ni = arith.select %gt, %kc, %ai : i32
      linalg.yield %nv, %ni : i32, i32
  } -> (tensor<2xi32>, tensor<2xi32>)
  %min:2 = linalg.generic {indexing_maps = [#in, #out, #out], iterator_types = ["parallel", "reduction"]}
      ins(%m : tensor<8x2xi32>) outs(%vmin0, %i0 : tensor<2xi32>, tensor<2xi32>) {
    ^bb0(%x: i32, %av: i32, %ai: i32):
      %k = linalg.index 1 : index
      %kc = arith.index_cast %k : index to i32
      %lt = arith.cmpi slt, %x, %av : i32
      %nv = arith.minsi %x, %av : i32
      %ni = arith.select %lt, %kc, %ai : i32
      linalg.yield %nv, %ni : i32, i32
  } -> (tensor<2xi32>, tensor<2xi32>)
  return %max#0, %max#1, %min#0, %min#1 : tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>
}

// An argmax of floats over the sharded rows of a 16x4 input, the index as
// i64, with the mesh's axis also sharding nothing else.
func.func @float_argmax(%a: tensor<16x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<4xf32>, tensor<4xi64>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0 : i64
  %ev = tensor.empty() : tensor<4xf32>
  %ei = tensor.empty() : tensor<4xi64>
  %v0 = linalg.fill ins(%ninf : f32) outs(%ev : tensor<4xf32>) -> tensor<4xf32>
  %i0 = linalg.fill ins(%zero : i64) outs(%ei : tensor<4xi64>) -> tensor<4xi64>
  %r:2 = linalg.generic {indexing_maps = [#in, #out, #out], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<16x4xf32>) outs(%v0, %i0 : tensor<4xf32>, tensor<4xi64>) {
    ^bb0(%x: f32, %av: f32, %ai: i64):
      %k = linalg.index 1 : index
      %kc = arith.index_cast %k : index to i64
      %gt = arith.cmpf ogt, %x, %av : f32
      %nv = arith.maximumf %x, %av : f32
      %ni = arith.select %gt, %kc, %ai : i64
      linalg.yield %nv, %ni : f32, i64
  } -> (tensor<4xf32>, tensor<4xi64>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xi64>
}
