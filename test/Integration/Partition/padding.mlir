// Non-divisible shardings: a dimension the axes do not divide is padded at
// the end (each device holds ceil(n / parts) elements). The programs run on
// 1, 2, 4 and 8 emulated devices (1-D and 2-D meshes, a non-iota device
// order) and must match the single-device reference.
// RUN: tessera-run %s --entry elementwise --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry elementwise --random-inputs --check --mesh x=1,y=1 | FileCheck %s
// RUN: tessera-run %s --entry elementwise --random-inputs --check --mesh x=1,y=2 | FileCheck %s
// RUN: tessera-run %s --entry elementwise --random-inputs --check --mesh x=4,y=2 | FileCheck %s
// RUN: tessera-run %s --entry softmax --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry softmax --random-inputs --check --mesh x=2,y=2 | FileCheck %s
// RUN: tessera-run %s --entry softmax --random-inputs --check --mesh x=8,y=1 | FileCheck %s
// RUN: tessera-run %s --entry matmul --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry matmul --random-inputs --check --mesh x=1,y=8 | FileCheck %s
// RUN: tessera-run %s --entry matmul --random-inputs --check --mesh x=2,y=1 | FileCheck %s
// RUN: tessera-run %s --entry loop --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry loop --random-inputs --check --mesh x=4,y=1 | FileCheck %s
// RUN: tessera-run %s --entry constant --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry constant --random-inputs --check --mesh x=1,y=8 | FileCheck %s
// RUN: tessera-run %s --entry integers --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry integers --random-inputs --check --mesh x=2,y=4 | FileCheck %s
// RUN: tessera-run %s --entry unreduced --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry unreduced --random-inputs --check --mesh x=2,y=2 | FileCheck %s

// CHECK: check: all {{[0-9]+}} results match the single-device reference

// --show-sharding says which dimensions are padded: 5 columns over x=4.
// RUN: tessera-run %s --entry elementwise --random-inputs --mesh x=4,y=1 --show-sharding | FileCheck %s --check-prefix=SHOW
// SHOW: arg0 (%a): f32[6,5]  #spmd.sharding<@mesh, [{"y"}, {"x"}]>
// SHOW-NEXT: dimension 1: 5 in 4 blocks of 2, the last 3 elements padding
// SHOW: arg1 (%b): f32[6,5]  #spmd.sharding<@mesh, [{"x", "y"}, {}]>
// SHOW-NEXT: dimension 0: 6 in 4 blocks of 2, the last 2 elements padding

// The per-device interface: 6x5 over y=4 and x=2 is 2x3 on every device
// (the last device of "y" holds one padding row, each block of "x" one
// padding column on the second device).
// RUN: tessera-opt %s --tessera-partition | FileCheck %s --check-prefix=IR
// IR-LABEL: func.func @elementwise
// IR-SAME: (%arg0: tensor<2x3xf32> {spmd.global_sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>, spmd.global_type = tensor<6x5xf32>}
// IR-SAME: %arg1: tensor<1x5xf32>
// IR-SAME: -> (tensor<3x5xf32> {{.*}}, tensor<6x1xf32>

spmd.mesh @mesh = <["x"=2, "y"=4], device_ids=[5, 3, 0, 6, 1, 7, 2, 4]>

// Inputs and results padded along different dimensions and axes.
func.func @elementwise(
    %a: tensor<6x5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>},
    %b: tensor<6x5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>})
    -> (tensor<6x5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
        tensor<6x5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y", "x"}]>}) {
  %0 = math.tanh %a : tensor<6x5xf32>
  %1 = arith.addf %0, %b : tensor<6x5xf32>
  %2 = arith.mulf %1, %a : tensor<6x5xf32>
  return %1, %2 : tensor<6x5xf32>, tensor<6x5xf32>
}

// Max and sum reductions along padded dimensions (padding must not count).
func.func @softmax(
    %a: tensor<6x10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>})
    -> (tensor<6x10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) {
  %ninf = arith.constant -1.0e30 : f32
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<6xf32>
  %i1 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<6xf32>) -> tensor<6xf32>
  %m = linalg.reduce ins(%a : tensor<6x10xf32>) outs(%i1 : tensor<6xf32>) dimensions = [1]
    (%v: f32, %acc: f32) {
      %r = arith.maximumf %v, %acc : f32
      linalg.yield %r : f32
    }
  %e2 = tensor.empty() : tensor<6x10xf32>
  %mb = linalg.broadcast ins(%m : tensor<6xf32>) outs(%e2 : tensor<6x10xf32>) dimensions = [1]
  %d = arith.subf %a, %mb : tensor<6x10xf32>
  %x = math.exp %d : tensor<6x10xf32>
  %i2 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<6xf32>) -> tensor<6xf32>
  %s = linalg.reduce ins(%x : tensor<6x10xf32>) outs(%i2 : tensor<6xf32>) dimensions = [1]
    (%v: f32, %acc: f32) {
      %r = arith.addf %v, %acc : f32
      linalg.yield %r : f32
    }
  %sb = linalg.broadcast ins(%s : tensor<6xf32>) outs(%e2 : tensor<6x10xf32>) dimensions = [1]
  %y = arith.divf %x, %sb : tensor<6x10xf32>
  return %y : tensor<6x10xf32>
}

// A contraction over a padded dimension.
func.func @matmul(
    %a: tensor<6x10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>},
    %b: tensor<10x7xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>})
    -> (tensor<6x7xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x7xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<6x7xf32>) -> tensor<6x7xf32>
  %c = linalg.matmul ins(%a, %b : tensor<6x10xf32>, tensor<10x7xf32>) outs(%i : tensor<6x7xf32>) -> tensor<6x7xf32>
  return %c : tensor<6x7xf32>
}

// A loop carrying a padded value.
func.func @loop(
    %a: tensor<5x3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>})
    -> (tensor<5x3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%v = %a) -> (tensor<5x3xf32>) {
    %s = math.sin %v : tensor<5x3xf32>
    %t = arith.addf %s, %a : tensor<5x3xf32>
    scf.yield %t : tensor<5x3xf32>
  }
  return %r : tensor<5x3xf32>
}

// A sharded non-splat constant.
func.func @constant(
    %a: tensor<5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}]>})
    -> (tensor<5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}]>}) {
  %c = arith.constant {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"y"}]>]>} dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<5xf32>
  %0 = arith.mulf %a, %c : tensor<5xf32>
  return %0 : tensor<5xf32>
}

// Integers compare bit-exact; the padding of a divisor is never divided by.
func.func @integers(
    %a: tensor<7x3xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>},
    %b: tensor<3x7xi32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x", "y"}]>})
    -> (tensor<7x3xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %e = tensor.empty() : tensor<7x3xi32>
  %t = linalg.transpose ins(%b : tensor<3x7xi32>) outs(%e : tensor<7x3xi32>) permutation = [1, 0]
  %c5 = arith.constant dense<5> : tensor<7x3xi32>
  %s = arith.addi %a, %t : tensor<7x3xi32>
  %q = arith.remsi %s, %c5 : tensor<7x3xi32>
  return %q : tensor<7x3xi32>
}

// A padded value made unreduced and reduced again.
func.func @unreduced(
    %a: tensor<6x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>})
    -> (tensor<6x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %0 = spmd.reshard %a <@mesh, [{"x"}, {}], unreduced={"y"}> : tensor<6x4xf32>
  %1 = spmd.reshard %0 <@mesh, [{"x"}, {}]> : tensor<6x4xf32>
  return %1 : tensor<6x4xf32>
}
