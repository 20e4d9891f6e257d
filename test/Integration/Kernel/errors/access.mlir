// Tests that both lowerings check unmasked loads and stores and the views
// of DMAs in the body against the buffer's bounds at run time (the indices
// depend on the grid point), naming the kernel, the operand and the grid
// point, and skip the access.
// RUN: split-file %s %t
// RUN: not tessera-run %t/read.mlir --random-inputs --kernel-mode=interpret 2>&1 | FileCheck %s --check-prefix=READ
// RUN: not tessera-run %t/read.mlir --random-inputs --kernel-mode=pipelined 2>&1 | FileCheck %s --check-prefix=READ
// RUN: not tessera-run %t/write.mlir --random-inputs --kernel-mode=interpret 2>&1 | FileCheck %s --check-prefix=WRITE
// RUN: not tessera-run %t/dma.mlir --random-inputs --kernel-mode=interpret 2>&1 | FileCheck %s --check-prefix=DMA
// RUN: not tessera-run %t/dma.mlir --random-inputs --kernel-mode=pipelined 2>&1 | FileCheck %s --check-prefix=DMA

// READ: kernel @body: Out-of-bounds read of args[0] in iteration (1,): reading [8:16, 0:128] but buffer has shape (8, 128)
// DMA: kernel @body: Out-of-bounds DMA source of args[0] in iteration (1,): reading [12:20, 0:128] but buffer has shape (16, 128)
// WRITE: kernel @body: Out-of-bounds write of outputs[0] in iteration (1,): writing [4:12, 0:128] but buffer has shape (8, 128)

//--- read.mlir
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %i = kernel.program_id 0
    %row = arith.muli %i, %c8 : index
    %a = kernel.load %x[%row, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    kernel.store %a, %o[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
    return
  }
  func.func @main(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
    %0 = kernel.call @body(%x) grid = [2]
        in_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        : (tensor<16x128xf32>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
}

//--- write.mlir
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %i = kernel.program_id 0
    %row = arith.muli %i, %c4 : index
    %a = kernel.load %x[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    kernel.store %a, %o[%row, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
    return
  }
  func.func @main(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
    %0 = kernel.call @body(%x) grid = [2]
        in_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        : (tensor<16x128xf32>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
}

//--- dma.mlir
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<16x128xf32, #kernel.space<any>>, %o: memref<8x128xf32, #kernel.space<vmem>>,
                  %sem: memref<!kernel.dma_semaphore, #kernel.space<semaphore>>) {
    %c12 = arith.constant 12 : index
    %i = kernel.program_id 0
    %row = arith.muli %i, %c12 : index
    %src = memref.subview %x[%row, 0] [8, 128] [1, 1] : memref<16x128xf32, #kernel.space<any>> to memref<8x128xf32, strided<[128, 1], offset: ?>, #kernel.space<any>>
    kernel.async_copy start %src, %o, %sem[] : memref<8x128xf32, strided<[128, 1], offset: ?>, #kernel.space<any>>, memref<8x128xf32, #kernel.space<vmem>>, memref<!kernel.dma_semaphore, #kernel.space<semaphore>>
    kernel.async_copy wait %src, %o, %sem[] : memref<8x128xf32, strided<[128, 1], offset: ?>, #kernel.space<any>>, memref<8x128xf32, #kernel.space<vmem>>, memref<!kernel.dma_semaphore, #kernel.space<semaphore>>
    return
  }
  func.func @main(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
    %0 = kernel.call @body(%x) grid = [2]
        in_specs = [#kernel.block<full, space = any>]
        out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        scratch = [memref<!kernel.dma_semaphore, #kernel.space<semaphore>>]
        : (tensor<16x128xf32>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
}
