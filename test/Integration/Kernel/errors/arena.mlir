// RUN: tessera-opt %s --kernel-lower-pipelined -o %t.mlir
// RUN: not tessera-run %t.mlir --random-inputs 2>&1 | FileCheck %s
// RUN: not tessera-opt %s --kernel-verify 2>&1 | FileCheck %s --check-prefix=VERIFY

// Tests that a kernel whose windows do not fit in a TensorCore's VMEM
// (16 MiB on v5e by default), lowered without kernel-verify, fails at run
// time with the runtime's arena error instead of writing past the arena:
// two double-buffered 4 MiB windows fit (16 MiB), the output's first buffer
// does not.

// CHECK: kernel @body: VMEM of TensorCore 0 exhausted: allocating 4194304 bytes with 16777216 of 16777216 bytes in use
// VERIFY: error: 'kernel.call' op Scoped allocation with size 24.00M and limit 16.00M exceeded scoped vmem limit by 8.00M

module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<1024x1024xf32, #kernel.space<vmem>>, %y: memref<1024x1024xf32, #kernel.space<vmem>>,
                  %o: memref<1024x1024xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<1024x1024xf32, #kernel.space<vmem>>, vector<8x128xf32>
    %b = kernel.load %y[%c0, %c0] : memref<1024x1024xf32, #kernel.space<vmem>>, vector<8x128xf32>
    %s = arith.addf %a, %b : vector<8x128xf32>
    kernel.store %s, %o[%c0, %c0] : vector<8x128xf32>, memref<1024x1024xf32, #kernel.space<vmem>>
    return
  }
  func.func @main(%x: tensor<2048x1024xf32>, %y: tensor<2048x1024xf32>) -> tensor<2048x1024xf32> {
    %0 = kernel.call @body(%x, %y) grid = [2]
        in_specs = [#kernel.block<[1024, 1024], (i) -> (i, 0)>, #kernel.block<[1024, 1024], (i) -> (i, 0)>]
        out_specs = [#kernel.block<[1024, 1024], (i) -> (i, 0)>]
        : (tensor<2048x1024xf32>, tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
    return %0 : tensor<2048x1024xf32>
  }
}
