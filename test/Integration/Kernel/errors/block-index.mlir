// Tests that a block index out of range at run time (from an index map
// function, which kernel-verify cannot decide) fails the run with Pallas's
// message naming the kernel, the operand and the grid point, in both
// lowerings, and never touches memory outside the array.
// RUN: not tessera-run %s --random-inputs --kernel-mode=interpret 2>&1 | FileCheck %s
// RUN: not tessera-run %s --random-inputs --kernel-mode=pipelined 2>&1 | FileCheck %s

// CHECK: kernel @copy_body: Out-of-bounds block index (4, 0) for input "args[0]" in iteration (3,): reading [32:40, 0:128] but input has shape (32, 128)
module attributes {kernel.target = #kernel.target<"v5e">} {
  // Block i + 1: one past the end on the last step.
  func.func @shifted(%i: index) -> (index, index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.addi %i, %c1 : index
    return %n, %c0 : index, index
  }
  func.func @copy_body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    kernel.store %a, %o[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
    return
  }
  func.func @main(%x: tensor<32x128xf32>) -> tensor<32x128xf32> {
    %0 = kernel.call @copy_body(%x) grid = [4]
        in_specs = [#kernel.block<[8, 128], @shifted>]
        out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        : (tensor<32x128xf32>) -> tensor<32x128xf32>
    return %0 : tensor<32x128xf32>
  }
}
