// Tests that an op the CPU pipeline has no lowering for is named at its
// location, with exit 1, instead of an internal translation error.
// RUN: not tessera-run %s --random-inputs 2>&1 | FileCheck %s
// RUN: not tessera-run %s --emit=llvm 2>&1 | FileCheck %s

// CHECK: unsupported.mlir:[[@LINE+4]]:8: error: 'linalg.softmax' is not supported by tessera-run (the CPU pipeline has no lowering for it)
// CHECK-NOT: LLVM Translation failed
func.func @main(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.softmax dimension(1) ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
