// Tests the run-time semaphore checks of both lowerings, which kernel-verify
// leaves to them when a use is conditional: a semaphore signalled on one
// step and never waited for is non-zero at kernel exit, and a wait for more
// than was signalled would hang.
// RUN: split-file %s %t
// RUN: not tessera-run %t/exit.mlir --random-inputs --kernel-mode=interpret 2>&1 | FileCheck %s --check-prefix=EXIT
// RUN: not tessera-run %t/exit.mlir --random-inputs --kernel-mode=pipelined 2>&1 | FileCheck %s --check-prefix=EXIT
// RUN: not tessera-run %t/hang.mlir --random-inputs --kernel-mode=interpret 2>&1 | FileCheck %s --check-prefix=HANG
// RUN: not tessera-run %t/hang.mlir --random-inputs --kernel-mode=pipelined 2>&1 | FileCheck %s --check-prefix=HANG
// RUN: not tessera-run %t/dma-hang.mlir --random-inputs --kernel-mode=interpret 2>&1 | FileCheck %s --check-prefix=DMA-HANG
// RUN: not tessera-run %t/dma-hang.mlir --random-inputs --kernel-mode=pipelined 2>&1 | FileCheck %s --check-prefix=DMA-HANG
// RUN: env TESSERA_KERNEL_DMA=threads not tessera-run %t/dma-hang.mlir --random-inputs --kernel-mode=pipelined 2>&1 | FileCheck %s --check-prefix=DMA-HANG
// RUN: env TESSERA_KERNEL_DMA=inline not tessera-run %t/dma-hang.mlir --random-inputs --kernel-mode=pipelined 2>&1 | FileCheck %s --check-prefix=DMA-HANG

// EXIT: kernel @body: Semaphore scratch buffer 1[1] has non-zero count at kernel exit: 3
// HANG: kernel @body: kernel.semaphore_wait on scratch buffer 1 in iteration (1,) would hang: its count 0 is less than 2
// The wait of a copy that was started only for the first step: in the
// pipelined lowering the runtime's DMA engine finds no copy in flight on the
// semaphore (instead of blocking forever).
// DMA-HANG: kernel @body: kernel.async_copy wait on scratch buffer 1 in iteration (1,) would hang: no copy of that size was started, the DMA semaphore count 0 is less than 4096

//--- exit.mlir
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>,
                  %acc: memref<8x128xf32, #kernel.space<vmem>>, %sem: memref<2x!kernel.semaphore, #kernel.space<semaphore>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %three = arith.constant 3 : i32
    %i = kernel.program_id 0
    %second = arith.cmpi eq, %i, %c1 : index
    scf.if %second {
      kernel.semaphore_signal %sem[%c1], %three : memref<2x!kernel.semaphore, #kernel.space<semaphore>>
    }
    %a = kernel.load %x[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    kernel.store %a, %o[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
    return
  }
  func.func @main(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
    %0 = kernel.call @body(%x) grid = [2]
        in_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        scratch = [memref<8x128xf32, #kernel.space<vmem>>, memref<2x!kernel.semaphore, #kernel.space<semaphore>>]
        : (tensor<16x128xf32>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
}

//--- hang.mlir
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>,
                  %acc: memref<8x128xf32, #kernel.space<vmem>>, %sem: memref<!kernel.semaphore, #kernel.space<semaphore>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %two = arith.constant 2 : i32
    %i = kernel.program_id 0
    %second = arith.cmpi eq, %i, %c1 : index
    scf.if %second {
      kernel.semaphore_wait %sem[], %two : memref<!kernel.semaphore, #kernel.space<semaphore>>
    }
    %a = kernel.load %x[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    kernel.store %a, %o[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
    return
  }
  func.func @main(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
    %0 = kernel.call @body(%x) grid = [2]
        in_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        scratch = [memref<8x128xf32, #kernel.space<vmem>>, memref<!kernel.semaphore, #kernel.space<semaphore>>]
        : (tensor<16x128xf32>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
}

//--- dma-hang.mlir
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<16x128xf32, #kernel.space<any>>, %o: memref<8x128xf32, #kernel.space<vmem>>,
                  %buf: memref<8x128xf32, #kernel.space<vmem>>, %sem: memref<!kernel.dma_semaphore, #kernel.space<semaphore>>) {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %i = kernel.program_id 0
    %row = arith.muli %i, %c8 : index
    %src = memref.subview %x[%row, 0] [8, 128] [1, 1] : memref<16x128xf32, #kernel.space<any>> to memref<8x128xf32, strided<[128, 1], offset: ?>, #kernel.space<any>>
    %first = arith.cmpi eq, %i, %c0 : index
    scf.if %first {
      kernel.async_copy start %src, %buf, %sem[] : memref<8x128xf32, strided<[128, 1], offset: ?>, #kernel.space<any>>, memref<8x128xf32, #kernel.space<vmem>>, memref<!kernel.dma_semaphore, #kernel.space<semaphore>>
    }
    kernel.async_copy wait %src, %buf, %sem[] : memref<8x128xf32, strided<[128, 1], offset: ?>, #kernel.space<any>>, memref<8x128xf32, #kernel.space<vmem>>, memref<!kernel.dma_semaphore, #kernel.space<semaphore>>
    %a = kernel.load %buf[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    kernel.store %a, %o[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
    return
  }
  func.func @main(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
    %0 = kernel.call @body(%x) grid = [2]
        in_specs = [#kernel.block<full, space = any>]
        out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        scratch = [memref<8x128xf32, #kernel.space<vmem>>, memref<!kernel.dma_semaphore, #kernel.space<semaphore>>]
        : (tensor<16x128xf32>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
}
