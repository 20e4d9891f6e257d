// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// Tests that kernel.load and kernel.store report every verifier error.

// Tests that loads need a kernel memory space.
func.func @no_space(%x: memref<8x128xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'kernel.load' op expects a memref in a #kernel.space memory space, got 'memref<8x128xf32>'}}
  %v = kernel.load %x[%c0, %c0] : memref<8x128xf32>, vector<8x128xf32>
  return
}

// -----

// Tests Pallas's error for direct access to HBM/ANY buffers.
func.func @load_hbm(%x: memref<8x128xf32, #kernel.space<any>>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'kernel.load' op Buffers with a memory space of HBM or ANY cannot be referenced directly. Instead, use `kernel.async_copy`}}
  %v = kernel.load %x[%c0, %c0] : memref<8x128xf32, #kernel.space<any>>, vector<8x128xf32>
  return
}

// -----

// Tests the same for stores to HBM.
func.func @store_hbm(%x: memref<8x128xf32, #kernel.space<hbm>>, %v: vector<8x128xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'kernel.store' op Buffers with a memory space of HBM or ANY cannot be referenced directly. Instead, use `kernel.async_copy`}}
  kernel.store %v, %x[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<hbm>>
  return
}

// -----

// Tests that semaphores are not loaded.
func.func @load_semaphore(%s: memref<2x!kernel.semaphore, #kernel.space<semaphore>>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'kernel.load' op cannot access semaphores directly; use kernel.semaphore_read, _signal or _wait}}
  %v = kernel.load %s[%c0] : memref<2x!kernel.semaphore, #kernel.space<semaphore>>, !kernel.semaphore
  return
}

// -----

// Tests that there is one index per memref dimension.
func.func @index_count(%x: memref<8x128xf32, #kernel.space<vmem>>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'kernel.load' op expects 2 indices for a memref of rank 2, got 1}}
  %v = kernel.load %x[%c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
  return
}

// -----

// Tests that a vector has the memref's element type.
func.func @vector_element_type(%x: memref<8x128xf32, #kernel.space<vmem>>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'kernel.load' op result element type 'bf16' does not match the memref element type 'f32'}}
  %v = kernel.load %x[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xbf16>
  return
}

// -----

// Tests that a vector fits in the trailing dimensions of the memref.
func.func @vector_too_big(%x: memref<8x128xf32, #kernel.space<vmem>>, %v: vector<16x128xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'kernel.store' op value 'vector<16x128xf32>' does not fit in the last 2 dimensions of 'memref<8x128xf32, #kernel.space<vmem>>'}}
  kernel.store %v, %x[%c0, %c0] : vector<16x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
  return
}

// -----

// Tests that a vector has at most the rank of the memref.
func.func @vector_rank(%x: memref<128xf32, #kernel.space<vmem>>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'kernel.load' op result 'vector<1x128xf32>' does not fit in the last 2 dimensions of 'memref<128xf32, #kernel.space<vmem>>'}}
  %v = kernel.load %x[%c0] : memref<128xf32, #kernel.space<vmem>>, vector<1x128xf32>
  return
}

// -----

// Tests that a scalar has the memref's element type.
func.func @scalar_type(%x: memref<4xi32, #kernel.space<smem>>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'kernel.load' op result type 'f32' must be the memref element type 'i32' or a vector of it}}
  %v = kernel.load %x[%c0] : memref<4xi32, #kernel.space<smem>>, f32
  return
}

// -----

// Tests that masks go with vectors.
func.func @scalar_mask(%x: memref<4xi32, #kernel.space<smem>>, %v: i32, %m: i1) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'kernel.store' op a mask needs a vector value}}
  kernel.store %v, %x[%c0] mask %m : i32, memref<4xi32, #kernel.space<smem>>
  return
}

// -----

// Tests that scalable vectors are rejected.
func.func @scalable(%x: memref<8x128xf32, #kernel.space<vmem>>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'kernel.load' op scalable vectors are not supported}}
  %v = kernel.load %x[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x[128]xf32>
  return
}
