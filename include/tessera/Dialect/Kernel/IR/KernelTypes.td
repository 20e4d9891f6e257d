//===- KernelTypes.td - kernel types -----------------------*- tablegen -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_KERNEL_IR_KERNELTYPES_TD
#define TESSERA_DIALECT_KERNEL_IR_KERNELTYPES_TD

include "tessera/Dialect/Kernel/IR/KernelBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

class Kernel_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Kernel_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Kernel_SemaphoreType
    : Kernel_Type<"Semaphore", "semaphore", [MemRefElementTypeInterface]> {
  let summary = "a regular semaphore (pltpu.SemaphoreType.REGULAR)";
  let description = [{
    A counter that `kernel.semaphore_signal` increments and
    `kernel.semaphore_wait` decrements (blocking until it is large enough).
    Semaphores live in memrefs in `#kernel.space<semaphore>`; ops address
    one element:

    ```mlir
    memref<2x!kernel.semaphore, #kernel.space<semaphore>>
    ```
  }];
}

def Kernel_DmaSemaphoreType
    : Kernel_Type<"DmaSemaphore", "dma_semaphore",
                  [MemRefElementTypeInterface]> {
  let summary = "a DMA semaphore (pltpu.SemaphoreType.DMA)";
  let description = [{
    The semaphore an asynchronous copy signals as it completes and its wait
    half decrements. Lives in memrefs in `#kernel.space<semaphore>`:

    ```mlir
    memref<!kernel.dma_semaphore, #kernel.space<semaphore>>
    ```
  }];
}

#endif // TESSERA_DIALECT_KERNEL_IR_KERNELTYPES_TD
