// Sharded tensors carried through scf.while, scf.index_switch and
// scf.execute_region (any op with RegionBranchOpInterface): the
// loop's condition reads a reduction of the sharded value (all-reduced, so
// every device takes the same branch). Each runs on 1, 2, 4 and 8 emulated
// devices and must match the single-device reference.
// RUN: tessera-run %s --entry while_loop --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry while_loop --random-inputs --check --mesh x=1,y=1 | FileCheck %s
// RUN: tessera-run %s --entry while_loop --random-inputs --check --mesh x=1,y=4 | FileCheck %s
// RUN: tessera-run %s --entry while_loop --random-inputs --check --mesh x=4,y=2 | FileCheck %s
// RUN: tessera-run %s --entry switch --random-inputs --check | FileCheck %s --check-prefix=ONE
// RUN: tessera-run %s --entry switch --random-inputs --check --mesh x=2,y=1 | FileCheck %s --check-prefix=ONE
// RUN: tessera-run %s --entry switch --random-inputs --check --mesh x=2,y=4 | FileCheck %s --check-prefix=ONE
// RUN: tessera-run %s --entry execute_region --random-inputs --check | FileCheck %s --check-prefix=ONE
// RUN: tessera-run %s --entry execute_region --random-inputs --check --mesh x=4,y=2 | FileCheck %s --check-prefix=ONE

// CHECK: check: all 2 results match the single-device reference
// ONE: check: all 1 results match the single-device reference

spmd.mesh @mesh = <["x"=2, "y"=2], device_ids=[3, 1, 2, 0]>

// Adds 0.5 until the sum passes a limit (6 rows over "x" and "y": padded
// on 4 and 8 devices).
func.func @while_loop(%a: tensor<6x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>})
    -> (tensor<6x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>}, tensor<f32>) {
  %lim = arith.constant 40.0 : f32
  %zero = arith.constant 0.0 : f32
  %half = arith.constant dense<0.5> : tensor<6x4xf32>
  %r:2 = scf.while (%v = %a, %s = %zero) : (tensor<6x4xf32>, f32) -> (tensor<6x4xf32>, f32) {
    %e = tensor.empty() : tensor<f32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
    %sum = linalg.reduce ins(%v : tensor<6x4xf32>) outs(%f : tensor<f32>) dimensions = [0, 1]
      (%x: f32, %acc: f32) {
        %t = arith.addf %x, %acc : f32
        linalg.yield %t : f32
      }
    %sv = tensor.extract %sum[] : tensor<f32>
    %cond = arith.cmpf olt, %sv, %lim : f32
    scf.condition(%cond) %v, %sv : tensor<6x4xf32>, f32
  } do {
  ^bb0(%w: tensor<6x4xf32>, %t: f32):
    %n = arith.addf %w, %half : tensor<6x4xf32>
    scf.yield %n, %t : tensor<6x4xf32>, f32
  }
  %out = tensor.from_elements %r#1 : tensor<f32>
  return %r#0, %out : tensor<6x4xf32>, tensor<f32>
}

// A case chosen by a (replicated) index computed from the data.
func.func @switch(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
                  %b: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>})
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) {
  %c0 = arith.constant 0 : index
  %x = tensor.extract %a[%c0, %c0] : tensor<8x16xf32>
  %zero = arith.constant 0.0 : f32
  %pos = arith.cmpf ogt, %x, %zero : f32
  %i = arith.index_cast %pos : i1 to index
  %0 = scf.index_switch %i -> tensor<8x16xf32>
  case 0 {
    %s = arith.subf %a, %b : tensor<8x16xf32>
    scf.yield %s : tensor<8x16xf32>
  }
  default {
    %m = arith.mulf %a, %b : tensor<8x16xf32>
    scf.yield %m : tensor<8x16xf32>
  }
  return %0 : tensor<8x16xf32>
}

// A region executed once, whose yielded value takes the result's sharding
// (propagated from the function's result).
func.func @execute_region(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
                          %b: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>})
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) {
  %0 = scf.execute_region -> tensor<8x16xf32> {
    %s = arith.addf %a, %b : tensor<8x16xf32>
    %e = math.exp %s : tensor<8x16xf32>
    scf.yield %e : tensor<8x16xf32>
  }
  %1 = arith.mulf %0, %a : tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}
