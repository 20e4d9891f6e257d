// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// Tests that kernel.async_copy reports every verifier and parse error.

// Tests Mosaic's shape check of DMAs.
func.func @shape(%a: memref<8x128xf32, #kernel.space<any>>, %b: memref<8x256xf32, #kernel.space<vmem>>, %s: memref<!kernel.dma_semaphore, #kernel.space<semaphore>>) {
  // expected-error @+1 {{'kernel.async_copy' op DMA source and target shape mismatch: (8, 128) vs (8, 256)}}
  kernel.async_copy start %a, %b, %s[] : memref<8x128xf32, #kernel.space<any>>, memref<8x256xf32, #kernel.space<vmem>>, memref<!kernel.dma_semaphore, #kernel.space<semaphore>>
  return
}

// -----

// Tests that source and target have the same element type.
func.func @element_type(%a: memref<8x128xf32, #kernel.space<any>>, %b: memref<8x128xbf16, #kernel.space<vmem>>, %s: memref<!kernel.dma_semaphore, #kernel.space<semaphore>>) {
  // expected-error @+1 {{'kernel.async_copy' op DMA source and target element type mismatch: 'f32' vs 'bf16'}}
  kernel.async_copy start %a, %b, %s[] : memref<8x128xf32, #kernel.space<any>>, memref<8x128xbf16, #kernel.space<vmem>>, memref<!kernel.dma_semaphore, #kernel.space<semaphore>>
  return
}

// -----

// Tests that copies need kernel memory spaces.
func.func @no_space(%a: memref<8x128xf32>, %b: memref<8x128xf32, #kernel.space<vmem>>, %s: memref<!kernel.dma_semaphore, #kernel.space<semaphore>>) {
  // expected-error @+1 {{'kernel.async_copy' op DMA source must be a memref in #kernel.space<vmem>, <smem>, <hbm> or <any>, got 'memref<8x128xf32>'}}
  kernel.async_copy start %a, %b, %s[] : memref<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>, memref<!kernel.dma_semaphore, #kernel.space<semaphore>>
  return
}

// -----

// Tests that semaphores are not copied.
func.func @copy_semaphores(%a: memref<2x!kernel.semaphore, #kernel.space<semaphore>>, %b: memref<2x!kernel.semaphore, #kernel.space<semaphore>>, %s: memref<!kernel.dma_semaphore, #kernel.space<semaphore>>) {
  // expected-error @+1 {{'kernel.async_copy' op DMA source must be a memref in #kernel.space<vmem>, <smem>, <hbm> or <any>, got 'memref<2x!kernel.semaphore, #kernel.space<semaphore>>'}}
  kernel.async_copy start %a, %b, %s[] : memref<2x!kernel.semaphore, #kernel.space<semaphore>>, memref<2x!kernel.semaphore, #kernel.space<semaphore>>, memref<!kernel.dma_semaphore, #kernel.space<semaphore>>
  return
}

// -----

// Tests that copies signal DMA semaphores.
func.func @regular_semaphore(%a: memref<8x128xf32, #kernel.space<any>>, %b: memref<8x128xf32, #kernel.space<vmem>>, %s: memref<!kernel.semaphore, #kernel.space<semaphore>>) {
  // expected-error @+1 {{'kernel.async_copy' op expects a memref of !kernel.dma_semaphore in #kernel.space<semaphore>, got 'memref<!kernel.semaphore, #kernel.space<semaphore>>'}}
  kernel.async_copy wait %a, %b, %s[] : memref<8x128xf32, #kernel.space<any>>, memref<8x128xf32, #kernel.space<vmem>>, memref<!kernel.semaphore, #kernel.space<semaphore>>
  return
}

// -----

// Tests that the semaphore is addressed down to one element.
func.func @semaphore_indices(%a: memref<8x128xf32, #kernel.space<any>>, %b: memref<8x128xf32, #kernel.space<vmem>>, %s: memref<2x!kernel.dma_semaphore, #kernel.space<semaphore>>) {
  // expected-error @+1 {{'kernel.async_copy' op expects 1 indices to address one semaphore of 'memref<2x!kernel.dma_semaphore, #kernel.space<semaphore>>', got 0}}
  kernel.async_copy start %a, %b, %s[] : memref<8x128xf32, #kernel.space<any>>, memref<8x128xf32, #kernel.space<vmem>>, memref<2x!kernel.dma_semaphore, #kernel.space<semaphore>>
  return
}

// -----

// Tests that the phase is start or wait.
func.func @phase(%a: memref<8x128xf32, #kernel.space<any>>, %b: memref<8x128xf32, #kernel.space<vmem>>, %s: memref<!kernel.dma_semaphore, #kernel.space<semaphore>>) {
  // expected-error @+1 {{expected 'start' or 'wait', got 'begin'}}
  kernel.async_copy begin %a, %b, %s[] : memref<8x128xf32, #kernel.space<any>>, memref<8x128xf32, #kernel.space<vmem>>, memref<!kernel.dma_semaphore, #kernel.space<semaphore>>
  return
}
