// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// Tests that kernel.run_scoped and kernel.yield report every verifier error.

// Tests that scoped buffers are not in HBM (pl.run_scoped has no HBM).
func.func @hbm_buffer() {
  // expected-error @+1 {{'kernel.run_scoped' op scoped buffer 0 must be a statically shaped memref in #kernel.space<vmem>, <smem> or <semaphore>, got 'memref<8x128xf32, #kernel.space<hbm>>'}}
  kernel.run_scoped (%b: memref<8x128xf32, #kernel.space<hbm>>) {
    kernel.yield
  }
  return
}

// -----

// Tests that semaphores live in the semaphore space.
func.func @semaphore_in_smem() {
  // expected-error @+1 {{'kernel.run_scoped' op scoped buffer 0 holds semaphores, which live in #kernel.space<semaphore>, got 'memref<!kernel.dma_semaphore, #kernel.space<smem>>'}}
  kernel.run_scoped (%s: memref<!kernel.dma_semaphore, #kernel.space<smem>>) {
    kernel.yield
  }
  return
}

// -----

// Tests that scoped buffers do not escape.
func.func @memref_result() {
  // expected-error @+1 {{'kernel.run_scoped' op results cannot be memrefs: scoped buffers do not outlive the region, got 'memref<8x128xf32, #kernel.space<vmem>>'}}
  %0 = kernel.run_scoped (%b: memref<8x128xf32, #kernel.space<vmem>>) -> memref<8x128xf32, #kernel.space<vmem>> {
    kernel.yield %b : memref<8x128xf32, #kernel.space<vmem>>
  }
  return
}

// -----

// Tests that kernel.yield returns the results' types.
func.func @yield_types() {
  // expected-error @+1 {{'kernel.run_scoped' op kernel.yield returns ('i32'), but the results are ('f32')}}
  %0 = kernel.run_scoped (%b: memref<8x128xf32, #kernel.space<vmem>>) -> f32 {
    %c = arith.constant 0 : i32
    // expected-note @+1 {{kernel.yield here}}
    kernel.yield %c : i32
  }
  return
}

// -----

// Tests that kernel.yield only ends kernel.run_scoped regions.
func.func @yield_outside() {
  // expected-error @+1 {{'kernel.yield' op expects parent op 'kernel.run_scoped'}}
  kernel.yield
}

// -----

// Tests that the region ends with kernel.yield (only the generic syntax can
// write another terminator).
func.func @no_yield() {
  // expected-error @+1 {{'kernel.run_scoped' op region must end with kernel.yield}}
  "kernel.run_scoped"() ({
  ^bb0(%b: memref<8x128xf32, #kernel.space<vmem>>):
    func.return
  }) {scratch = [memref<8x128xf32, #kernel.space<vmem>>]} : () -> ()
  return
}
