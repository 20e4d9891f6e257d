// RUN: tessera-opt %s --spmd-propagate | FileCheck %s
// RUN: tessera-opt %s --tessera-propagate | FileCheck %s
// RUN: tessera-opt %s --spmd-apply-sharding-constraints | FileCheck %s

// Tests that the propagation passes run on a program that uses no spmd
// dialect at all (they load it themselves) and leave it unchanged.
// CHECK-LABEL: func.func @plain
// CHECK-NOT: spmd
func.func @plain(%a: tensor<8x16xf32>, %b: tensor<16x8xf32>, %p: i1) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = scf.if %p -> tensor<8x8xf32> {
    scf.yield %0 : tensor<8x8xf32>
  } else {
    %2 = math.exp %0 : tensor<8x8xf32>
    scf.yield %2 : tensor<8x8xf32>
  }
  %3 = func.call @callee(%1) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %3 : tensor<8x8xf32>
}
func.func private @callee(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  return %x : tensor<8x8xf32>
}
