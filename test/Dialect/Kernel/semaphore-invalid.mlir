// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// Tests that kernel.semaphore_signal, _wait and _read report every verifier
// error.

// Tests that signals go to regular semaphores.
func.func @signal_dma(%s: memref<!kernel.dma_semaphore, #kernel.space<semaphore>>, %n: i32) {
  // expected-error @+1 {{'kernel.semaphore_signal' op expects a memref of !kernel.semaphore in #kernel.space<semaphore>, got 'memref<!kernel.dma_semaphore, #kernel.space<semaphore>>'; DMA semaphores are signalled and waited by kernel.async_copy}}
  kernel.semaphore_signal %s[], %n : memref<!kernel.dma_semaphore, #kernel.space<semaphore>>
  return
}

// -----

// Tests that waits are on regular semaphores in the semaphore space.
func.func @wait_vmem(%s: memref<2xi32, #kernel.space<vmem>>, %n: i32) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'kernel.semaphore_wait' op expects a memref of !kernel.semaphore in #kernel.space<semaphore>, got 'memref<2xi32, #kernel.space<vmem>>'}}
  kernel.semaphore_wait %s[%c0], %n : memref<2xi32, #kernel.space<vmem>>
  return
}

// -----

// Tests that reads address one semaphore.
func.func @read_indices(%s: memref<2x2x!kernel.semaphore, #kernel.space<semaphore>>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'kernel.semaphore_read' op expects 2 indices to address one semaphore of 'memref<2x2x!kernel.semaphore, #kernel.space<semaphore>>', got 1}}
  %v = kernel.semaphore_read %s[%c0] : memref<2x2x!kernel.semaphore, #kernel.space<semaphore>>
  return
}

// -----

// Tests that reads are of semaphores.
func.func @read_not_semaphore(%s: memref<i32, #kernel.space<semaphore>>) {
  // expected-error @+1 {{'kernel.semaphore_read' op expects a memref of !kernel.semaphore or !kernel.dma_semaphore in #kernel.space<semaphore>, got 'memref<i32, #kernel.space<semaphore>>'}}
  %v = kernel.semaphore_read %s[] : memref<i32, #kernel.space<semaphore>>
  return
}
