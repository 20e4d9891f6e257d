// RUN: tessera-opt %s --split-input-file --kernel-verify | FileCheck %s
// RUN: tessera-opt %s --split-input-file --kernel-verify=footprints=true --verify-diagnostics

// Tests that kernel-verify accepts kernels that follow every rule, leaves
// them unchanged, and computes their VMEM and SMEM footprints (windows
// padded to the memory tiling, times their buffers, plus scratch).

// Tests the seed's add kernel: three double-buffered (8, 128) f32 windows.
// CHECK-LABEL: func.func @add
// CHECK: kernel.call @add_body
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @add_body(%x: memref<8x128xf32, #kernel.space<vmem>>, %y: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    %b = kernel.load %y[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    %s = arith.addf %a, %b : vector<8x128xf32>
    kernel.store %s, %o[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
    return
  }
  func.func @add(%x: tensor<64x128xf32>, %y: tensor<64x128xf32>) -> tensor<64x128xf32> {
    // expected-remark @+1 {{TPU v5e: VMEM 24.00K of 16.00M (input window allocation for operator input 0: 2 x 4.00K; input window allocation for operator input 1: 2 x 4.00K; output window allocation for operator output 0: 2 x 4.00K), SMEM 0B of 1.00M ()}}
    %0 = kernel.call @add_body(%x, %y) grid = [8]
        in_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>, #kernel.block<[8, 128], (i) -> (i, 0)>]
        out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        dimension_semantics = [parallel]
        : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
    return %0 : tensor<64x128xf32>
  }
}

// -----

// Tests blocks whose minor dimensions equal the array's (not multiples of
// 8 and 128), padded to (8, 128) tiles in VMEM; a full window is single
// buffered.
// CHECK-LABEL: func.func @array_sized_dims
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<8x100xf32, #kernel.space<vmem>>, %y: memref<12x100xf32, #kernel.space<vmem>>, %o: memref<8x100xf32, #kernel.space<vmem>>) {
    return
  }
  func.func @array_sized_dims(%x: tensor<24x100xf32>, %y: tensor<12x100xf32>) -> tensor<24x100xf32> {
    // expected-remark @+1 {{TPU v5e: VMEM 24.00K of 16.00M (input window allocation for operator input 0: 2 x 4.00K; input window allocation for operator input 1: 8.00K; output window allocation for operator output 0: 2 x 4.00K), SMEM 0B of 1.00M ()}}
    %0 = kernel.call @body(%x, %y) grid = [3]
        in_specs = [#kernel.block<[8, 100], (i) -> (i, 0)>, #kernel.block<full>]
        out_specs = [#kernel.block<[8, 100], (i) -> (i, 0)>]
        : (tensor<24x100xf32>, tensor<12x100xf32>) -> tensor<24x100xf32>
    return %0 : tensor<24x100xf32>
  }
}

// -----

// Tests the three rank-1 block forms: a multiple of 1024, a power of two of
// at least 128 * packing, and the whole array.
// CHECK-LABEL: func.func @rank_one
module attributes {kernel.target = #kernel.target<"v6e">} {
  func.func @body(%x: memref<2048xf32, #kernel.space<vmem>>, %y: memref<256xbf16, #kernel.space<vmem>>, %z: memref<1000xi8, #kernel.space<vmem>>, %o: memref<2048xf32, #kernel.space<vmem>>) {
    return
  }
  func.func @rank_one(%x: tensor<4096xf32>, %y: tensor<512xbf16>, %z: tensor<1000xi8>) -> tensor<4096xf32> {
    // expected-remark @+1 {{TPU v6e: VMEM 34.00K of 32.00M (input window allocation for operator input 0: 2 x 8.00K; input window allocation for operator input 1: 2 x 512B; input window allocation for operator input 2: 1.00K; output window allocation for operator output 0: 2 x 8.00K), SMEM 0B of 1.00M ()}}
    %0 = kernel.call @body(%x, %y, %z) grid = [2]
        in_specs = [#kernel.block<[2048], (i) -> (i)>, #kernel.block<[256], (i) -> (i)>, #kernel.block<[1000], (i) -> (0)>]
        out_specs = [#kernel.block<[2048], (i) -> (i)>]
        : (tensor<4096xf32>, tensor<512xbf16>, tensor<1000xi8>) -> tensor<4096xf32>
    return %0 : tensor<4096xf32>
  }
}

// -----

// Tests a matmul with the reduction on the last, arbitrary axis: the output
// block is revisited only consecutively, accumulated in a VMEM scratch
// buffer initialized on the first step (pl.when as scf.if).
// CHECK-LABEL: func.func @matmul
module attributes {kernel.target = #kernel.target<"v5p">} {
  func.func @matmul_body(%x: memref<128x256xf32, #kernel.space<vmem>>, %y: memref<256x128xf32, #kernel.space<vmem>>, %o: memref<128x128xf32, #kernel.space<vmem>>, %acc: memref<128x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %k = kernel.program_id 2
    %first = arith.cmpi eq, %k, %c0 : index
    scf.if %first {
      %zero = arith.constant dense<0.0> : vector<128x128xf32>
      kernel.store %zero, %acc[%c0, %c0] : vector<128x128xf32>, memref<128x128xf32, #kernel.space<vmem>>
    }
    %a = kernel.load %x[%c0, %c0] : memref<128x256xf32, #kernel.space<vmem>>, vector<128x256xf32>
    %b = kernel.load %y[%c0, %c0] : memref<256x128xf32, #kernel.space<vmem>>, vector<256x128xf32>
    %c = kernel.load %acc[%c0, %c0] : memref<128x128xf32, #kernel.space<vmem>>, vector<128x128xf32>
    %d = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<128x256xf32>, vector<256x128xf32> into vector<128x128xf32>
    kernel.store %d, %acc[%c0, %c0] : vector<128x128xf32>, memref<128x128xf32, #kernel.space<vmem>>
    %n = kernel.num_programs 2
    %c1 = arith.constant 1 : index
    %last_k = arith.subi %n, %c1 : index
    %last = arith.cmpi eq, %k, %last_k : index
    scf.if %last {
      kernel.store %d, %o[%c0, %c0] : vector<128x128xf32>, memref<128x128xf32, #kernel.space<vmem>>
    }
    return
  }
  func.func @matmul(%x: tensor<256x1024xf32>, %y: tensor<1024x256xf32>) -> tensor<256x256xf32> {
    // expected-remark @+1 {{TPU v5p: VMEM 704.00K of 16.00M (input window allocation for operator input 0: 2 x 128.00K; input window allocation for operator input 1: 2 x 128.00K; output window allocation for operator output 0: 2 x 64.00K; scratch allocation for scratch operand 0: 64.00K), SMEM 0B of 1.00M ()}}
    %0 = kernel.call @matmul_body(%x, %y) grid = [2, 2, 4]
        cost_estimate = #kernel.cost<flops = 134217728, transcendentals = 0, bytes_accessed = 2359296>
        in_specs = [#kernel.block<[128, 256], (i, j, k) -> (i, k)>, #kernel.block<[256, 128], (i, j, k) -> (k, j)>]
        out_specs = [#kernel.block<[128, 128], (i, j, k) -> (i, j)>]
        scratch = [memref<128x128xf32, #kernel.space<vmem>>]
        dimension_semantics = [parallel, parallel, arbitrary]
        : (tensor<256x1024xf32>, tensor<1024x256xf32>) -> tensor<256x256xf32>
    return %0 : tensor<256x256xf32>
  }
}

// -----

// Tests that aliased outputs are exempt from the revisit check (as in
// Pallas's interpret mode), that index functions are not enumerated, and
// that scalar-prefetch operands count against SMEM.
// CHECK-LABEL: func.func @block_sparse
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @block_row(%i: index, %j: index, %rows: memref<4xi32, #kernel.space<smem>>) -> (index, index) {
    %r = kernel.load %rows[%j] : memref<4xi32, #kernel.space<smem>>, i32
    %ri = arith.index_cast %r : i32 to index
    %c0 = arith.constant 0 : index
    return %ri, %c0 : index, index
  }
  func.func @body(%rows: memref<4xi32, #kernel.space<smem>>, %x: memref<8x128xf32, #kernel.space<vmem>>, %a: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    return
  }
  func.func @block_sparse(%rows: tensor<4xi32>, %x: tensor<32x128xf32>, %a: tensor<16x128xf32>) -> tensor<16x128xf32> {
    // expected-remark @+1 {{TPU v5e: VMEM 24.00K of 16.00M (input window allocation for operator input 1: 2 x 4.00K; input window allocation for operator input 2: 2 x 4.00K; output window allocation for operator output 0: 2 x 4.00K), SMEM 16B of 1.00M (scalar prefetch operand 0: 16B)}}
    %0 = kernel.call @body(%rows, %x, %a) grid = [2, 4] scalar_prefetch = 1
        in_specs = [#kernel.block<[8, 128], @block_row>, #kernel.block<[8, 128], (i, j) -> (j mod 2, 0)>]
        out_specs = [#kernel.block<[8, 128], (i, j) -> (j mod 2, 0)>]
        input_output_aliases = {2 -> 0}
        : (tensor<4xi32>, tensor<32x128xf32>, tensor<16x128xf32>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
}

// -----

// Tests that single buffering (buffers = 1) halves a window's footprint
// so that two 8 MiB windows fit v5e's default 16 MiB.
// CHECK-LABEL: func.func @single_buffered
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<1024x2048xf32, #kernel.space<vmem>>, %o: memref<1024x2048xf32, #kernel.space<vmem>>) {
    return
  }
  func.func @single_buffered(%x: tensor<4096x2048xf32>) -> tensor<4096x2048xf32> {
    // expected-remark @+1 {{TPU v5e: VMEM 16.00M of 16.00M (input window allocation for operator input 0: 8.00M; output window allocation for operator output 0: 8.00M), SMEM 0B of 1.00M ()}}
    %0 = kernel.call @body(%x) grid = [4]
        in_specs = [#kernel.block<[1024, 2048], (i) -> (i, 0), buffers = 1>]
        out_specs = [#kernel.block<[1024, 2048], (i) -> (i, 0), buffers = 1>]
        : (tensor<4096x2048xf32>) -> tensor<4096x2048xf32>
    return %0 : tensor<4096x2048xf32>
  }
}

// -----

// Tests that vmem_limit_bytes raises the scoped VMEM limit.
// CHECK-LABEL: func.func @raised_limit
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<1024x2048xf32, #kernel.space<vmem>>, %o: memref<1024x2048xf32, #kernel.space<vmem>>) {
    return
  }
  func.func @raised_limit(%x: tensor<4096x2048xf32>) -> tensor<4096x2048xf32> {
    // expected-remark @+1 {{TPU v5e: VMEM 32.00M of 64.00M}}
    %0 = kernel.call @body(%x) grid = [4]
        in_specs = [#kernel.block<[1024, 2048], (i) -> (i, 0)>]
        out_specs = [#kernel.block<[1024, 2048], (i) -> (i, 0)>]
        vmem_limit_bytes = 67108864
        : (tensor<4096x2048xf32>) -> tensor<4096x2048xf32>
    return %0 : tensor<4096x2048xf32>
  }
}

// -----

// Tests SMEM blocks with a trivial window (exempt from the tiling rules),
// element blocks with padding, bf16 tiling on TPU7x, and revisits that are
// consecutive through a floordiv index map.
// CHECK-LABEL: func.func @smem_and_elements
module attributes {kernel.target = #kernel.target<"v7x">} {
  func.func @body(%t: memref<3x5xi32, #kernel.space<smem>>, %x: memref<16x128xf32, #kernel.space<vmem>>, %o: memref<8x128xbf16, #kernel.space<vmem>>) {
    return
  }
  func.func @smem_and_elements(%t: tensor<3x5xi32>, %x: tensor<64x128xf32>) -> tensor<16x128xbf16> {
    // expected-remark @+1 {{TPU v7x: VMEM 24.00K of 32.00M (input window allocation for operator input 1: 2 x 8.00K; output window allocation for operator output 0: 2 x 4.00K), SMEM 60B of 1.00M (input window allocation for operator input 0: 60B)}}
    %0 = kernel.call @body(%t, %x) grid = [4]
        in_specs = [#kernel.block<full, space = smem>, #kernel.block<[element(16, padding = (4, 4)), element(128)], (i) -> (i * 8, 0)>]
        out_specs = [#kernel.block<[8, 128], (i) -> (i floordiv 2, 0)>]
        : (tensor<3x5xi32>, tensor<64x128xf32>) -> tensor<16x128xbf16>
    return %0 : tensor<16x128xbf16>
  }
}

// -----

// Tests balanced semaphores: DMA copies waited for (also in loops with
// static trip counts), signals matched by waits, and counts that are not
// static (inside scf.if) left alone.
// CHECK-LABEL: func.func @manual_dma
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%h: memref<64x128xf32, #kernel.space<any>>, %o: memref<8x128xf32, #kernel.space<vmem>>, %buf: memref<2x8x128xf32, #kernel.space<vmem>>, %dma: memref<2x!kernel.dma_semaphore, #kernel.space<semaphore>>, %sem: memref<!kernel.semaphore, #kernel.space<semaphore>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %src = memref.subview %h[0, 0] [8, 128] [1, 1] : memref<64x128xf32, #kernel.space<any>> to memref<8x128xf32, strided<[128, 1]>, #kernel.space<any>>
    %dst = memref.subview %buf[1, 0, 0] [1, 8, 128] [1, 1, 1] : memref<2x8x128xf32, #kernel.space<vmem>> to memref<8x128xf32, strided<[128, 1], offset: 1024>, #kernel.space<vmem>>
    kernel.async_copy start %src, %dst, %dma[%c1] : memref<8x128xf32, strided<[128, 1]>, #kernel.space<any>>, memref<8x128xf32, strided<[128, 1], offset: 1024>, #kernel.space<vmem>>, memref<2x!kernel.dma_semaphore, #kernel.space<semaphore>>
    kernel.async_copy wait %src, %dst, %dma[%c1] : memref<8x128xf32, strided<[128, 1]>, #kernel.space<any>>, memref<8x128xf32, strided<[128, 1], offset: 1024>, #kernel.space<vmem>>, memref<2x!kernel.dma_semaphore, #kernel.space<semaphore>>
    kernel.semaphore_signal %sem[], %one : memref<!kernel.semaphore, #kernel.space<semaphore>>
    %i = kernel.program_id 0
    %first = arith.cmpi eq, %i, %c0 : index
    scf.if %first {
      kernel.semaphore_signal %sem[], %one : memref<!kernel.semaphore, #kernel.space<semaphore>>
    }
    kernel.semaphore_wait %sem[], %one : memref<!kernel.semaphore, #kernel.space<semaphore>>
    %c2 = arith.constant 2 : index
    scf.for %k = %c0 to %c2 step %c1 {
      kernel.async_copy start %src, %dst, %dma[%k] : memref<8x128xf32, strided<[128, 1]>, #kernel.space<any>>, memref<8x128xf32, strided<[128, 1], offset: 1024>, #kernel.space<vmem>>, memref<2x!kernel.dma_semaphore, #kernel.space<semaphore>>
    }
    scf.for %k = %c0 to %c2 step %c1 {
      kernel.async_copy wait %src, %dst, %dma[%k] : memref<8x128xf32, strided<[128, 1]>, #kernel.space<any>>, memref<8x128xf32, strided<[128, 1], offset: 1024>, #kernel.space<vmem>>, memref<2x!kernel.dma_semaphore, #kernel.space<semaphore>>
    }
    %v = kernel.load %dst[%c0, %c0] : memref<8x128xf32, strided<[128, 1], offset: 1024>, #kernel.space<vmem>>, vector<8x128xf32>
    kernel.store %v, %o[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
    return
  }
  func.func @manual_dma(%h: tensor<64x128xf32>) -> tensor<64x128xf32> {
    // expected-remark @+1 {{TPU v5e: VMEM 16.00K of 16.00M (output window allocation for operator output 0: 2 x 4.00K; scratch allocation for scratch operand 0: 8.00K), SMEM 0B of 1.00M ()}}
    %0 = kernel.call @body(%h) grid = [8]
        in_specs = [#kernel.block<full, space = any>]
        out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        scratch = [memref<2x8x128xf32, #kernel.space<vmem>>, memref<2x!kernel.dma_semaphore, #kernel.space<semaphore>>, memref<!kernel.semaphore, #kernel.space<semaphore>>]
        : (tensor<64x128xf32>) -> tensor<64x128xf32>
    return %0 : tensor<64x128xf32>
  }
}

// -----

// Tests that kernel.run_scoped allocations count at their peak: nested
// scopes add up, sibling scopes share memory.
// CHECK-LABEL: func.func @scoped
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    kernel.run_scoped (%a: memref<64x128xf32, #kernel.space<vmem>>) {
      kernel.run_scoped (%b: memref<8x128xf32, #kernel.space<vmem>>, %s: memref<4xi32, #kernel.space<smem>>) {
        kernel.yield
      }
      kernel.yield
    }
    kernel.run_scoped (%c: memref<16x128xf32, #kernel.space<vmem>>) {
      kernel.yield
    }
    return
  }
  func.func @scoped(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
    // expected-remark @+1 {{TPU v5e: VMEM 44.00K of 16.00M (input window allocation for operator input 0: 4.00K; output window allocation for operator output 0: 4.00K; kernel.run_scoped allocations (peak): 36.00K), SMEM 16B of 1.00M (kernel.run_scoped allocations (peak): 16B)}}
    %0 = kernel.call @body(%x) grid = [] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>]
        : (tensor<8x128xf32>) -> tensor<8x128xf32>
    return %0 : tensor<8x128xf32>
  }
}

// -----

// Tests the element types of newer generations (fp8, i4, unsigned and
// boolean arrays on v6e), a partial edge block (rows 16:24 of a 20-row
// array) and a windowed SMEM block, which follows the tiling rule and is
// double buffered.
// CHECK-LABEL: func.func @dtypes_and_edges
module attributes {kernel.target = #kernel.target<"v6e">} {
  func.func @body(%a: memref<32x128xf8E4M3FN, #kernel.space<vmem>>, %b: memref<64x128xi4, #kernel.space<vmem>>, %c: memref<8x128xui8, #kernel.space<vmem>>, %d: memref<8x128xi1, #kernel.space<vmem>>, %s: memref<8x128xi32, #kernel.space<smem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    return
  }
  func.func @dtypes_and_edges(%a: tensor<32x128xf8E4M3FN>, %b: tensor<64x128xi4>, %c: tensor<20x128xui8>, %d: tensor<8x128xi1>, %s: tensor<16x128xi32>) -> tensor<20x128xf32> {
    // expected-remark @+1 {{TPU v6e: VMEM 28.00K of 32.00M (input window allocation for operator input 0: 4.00K; input window allocation for operator input 1: 4.00K; input window allocation for operator input 2: 2 x 4.00K; input window allocation for operator input 3: 4.00K; output window allocation for operator output 0: 2 x 4.00K), SMEM 8.00K of 1.00M (input window allocation for operator input 4: 2 x 4.00K)}}
    %0 = kernel.call @body(%a, %b, %c, %d, %s) grid = [3]
        in_specs = [#kernel.block<full>, #kernel.block<full>, #kernel.block<[8, 128], (i) -> (i, 0)>, #kernel.block<full>, #kernel.block<[8, 128], (i) -> (i mod 2, 0), space = smem>]
        out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        : (tensor<32x128xf8E4M3FN>, tensor<64x128xi4>, tensor<20x128xui8>, tensor<8x128xi1>, tensor<16x128xi32>) -> tensor<20x128xf32>
    return %0 : tensor<20x128xf32>
  }
}
