// Tests the block and body features both lowerings share, each kernel
// result compared with a linalg computation of the same values in the
// module (resultN: the number of elements that differ), and --check
// comparing the pipelined lowering with the interpret lowering:
//  0. a squeezed block dimension (`None`) and a scalar-prefetch index map
//     function that picks the row of blocks each step reads;
//  1. element blocks with padding: a 3-row stencil (x[i-1] + x[i] + x[i+1])
//     over 16-row windows of the array padded by one row on each side, the
//     rows outside the array masked out of a masked load;
//  2. manual DMA: the input in `any` memory copied block by block into a
//     kernel.run_scoped VMEM buffer with kernel.async_copy start/wait on a
//     DMA semaphore, and an output aliased to a second input
//     (input_output_aliases) of which only half the blocks are written.
// RUN: tessera-run %s --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --random-inputs --kernel-mode=interpret | FileCheck %s --check-prefix=ZERO
// The DMA engines on threads of their own (the default where the host has
// a spare processor per core) and performed by the cores when they wait:
// RUN: env TESSERA_KERNEL_DMA=threads tessera-run %s --random-inputs --check | FileCheck %s
// RUN: env TESSERA_KERNEL_DMA=inline tessera-run %s --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --random-inputs --stats | FileCheck %s --check-prefix=STATS
// RUN: env TESSERA_KERNEL_DMA=threads tessera-run %s --random-inputs --stats | FileCheck %s --check-prefix=THREADS
// RUN: env TESSERA_KERNEL_DMA=inline tessera-run %s --random-inputs --stats | FileCheck %s --check-prefix=INLINE
// RUN: env TESSERA_KERNEL_DMA=thread not tessera-run %s --random-inputs 2>&1 | FileCheck %s --check-prefix=BAD-POLICY
// THREADS: stats: kernel @dma_body on device 0: pipelined, TPU v5e, 1 TensorCore, 2 grid steps, DMA engines on their own threads
// INLINE: stats: kernel @dma_body on device 0: pipelined, TPU v5e, 1 TensorCore, 2 grid steps, DMAs performed by the cores
// BAD-POLICY: error: the program failed on the emulated mesh: TESSERA_KERNEL_DMA='thread' is not 'auto', 'threads' or 'inline'

// The run_scoped buffer (4 KiB) lives in the VMEM arena next to the two
// double-buffered 4 KiB windows and is released at the end of each step:
// 20 KiB at most, not 4 KiB more per step.
// STATS: stats: kernel @dma_body on device 0: pipelined, TPU v5e, 1 TensorCore, 2 grid steps
// STATS: stats:   2048 FLOPs, VMEM high-water 20.0 KiB of 16.0 MiB, SMEM 0 B of 1.0 MiB

// CHECK: result0: i32[] = [0]
// CHECK: result1: i32[] = [0]
// CHECK: result2: i32[] = [0]
// CHECK: check: all 3 results match the single-device reference (kernels in interpret mode)
// ZERO: result0: i32[] = [0]
// ZERO: result1: i32[] = [0]
// ZERO: result2: i32[] = [0]
module attributes {kernel.target = #kernel.target<"v5e">} {
  // The number of elements of %a and %b that differ by more than 1e-5
  // (relative) or are NaN.
  func.func private @mismatches(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<i32> {
    %zero = arith.constant 0 : i32
    %init = tensor.empty() : tensor<i32>
    %acc = linalg.fill ins(%zero : i32) outs(%init : tensor<i32>) -> tensor<i32>
    %bad = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                           iterator_types = ["reduction", "reduction"]}
        ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%acc : tensor<i32>) {
    ^bb0(%x: f32, %y: f32, %n: i32):
      %d = arith.subf %x, %y : f32
      %ad = math.absf %d : f32
      %ay = math.absf %y : f32
      %rel = arith.constant 1.0e-5 : f32
      %t = arith.mulf %ay, %rel : f32
      %tol = arith.addf %t, %rel : f32
      %isbad = arith.cmpf ugt, %ad, %tol : f32
      %inc = arith.extui %isbad : i1 to i32
      %sum = arith.addi %n, %inc : i32
      linalg.yield %sum : i32
    } -> tensor<i32>
    return %bad : tensor<i32>
  }

  // 0. out[b, :, :] = x[rows[b], b, :, :] * 2 with a squeezed leading dim.
  func.func @pick_row(%b: index, %rows: memref<2xi32, #kernel.space<smem>>) -> (index, index, index, index) {
    %c0 = arith.constant 0 : index
    %r = kernel.load %rows[%b] : memref<2xi32, #kernel.space<smem>>, i32
    %ri = arith.index_cast %r : i32 to index
    return %ri, %b, %c0, %c0 : index, index, index, index
  }
  func.func @double_body(%rows: memref<2xi32, #kernel.space<smem>>, %x: memref<8x128xf32, #kernel.space<vmem>>,
                         %o: memref<8x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    %d = arith.addf %a, %a : vector<8x128xf32>
    kernel.store %d, %o[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
    return
  }

  // 1. o[i] = x[i-1] + x[i] + x[i+1] (zero outside): the window of step s
  // is rows 8s-1 .. 8s+14 of x padded by one row on each side.
  func.func @stencil_body(%x: memref<16x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c23 = arith.constant 23 : index
    %s = kernel.program_id 0
    // Rows of the window outside x (padding, or past the padded array)
    // count as zero: masked out.
    %first = arith.muli %s, %c8 : index
    %lo = arith.subi %first, %c1 : index
    %iota = vector.step : vector<16xindex>
    %base = vector.broadcast %lo : index to vector<16xindex>
    %row = arith.addi %iota, %base : vector<16xindex>
    %zero = arith.constant dense<0> : vector<16xindex>
    %last = vector.broadcast %c23 : index to vector<16xindex>
    %ge = arith.cmpi sge, %row, %zero : vector<16xindex>
    %le = arith.cmpi sle, %row, %last : vector<16xindex>
    %in = arith.andi %ge, %le : vector<16xi1>
    %m2 = vector.broadcast %in : vector<16xi1> to vector<128x16xi1>
    %mask = vector.transpose %m2, [1, 0] : vector<128x16xi1> to vector<16x128xi1>
    %w = kernel.load %x[%c0, %c0] mask %mask : memref<16x128xf32, #kernel.space<vmem>>, vector<16x128xf32>
    %zeros = arith.constant dense<0.0> : vector<16x128xf32>
    %v = arith.select %mask, %w, %zeros : vector<16x128xi1>, vector<16x128xf32>
    %a = vector.extract_strided_slice %v {offsets = [0, 0], sizes = [8, 128], strides = [1, 1]} : vector<16x128xf32> to vector<8x128xf32>
    %b = vector.extract_strided_slice %v {offsets = [1, 0], sizes = [8, 128], strides = [1, 1]} : vector<16x128xf32> to vector<8x128xf32>
    %c = vector.extract_strided_slice %v {offsets = [2, 0], sizes = [8, 128], strides = [1, 1]} : vector<16x128xf32> to vector<8x128xf32>
    %ab = arith.addf %a, %b : vector<8x128xf32>
    %abc = arith.addf %ab, %c : vector<8x128xf32>
    kernel.store %abc, %o[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
    return
  }

  // 2. Manual DMA: o[blocks 0, 2] = x + 1, o[blocks 1, 3] keep y.
  func.func @dma_body(%x: memref<32x128xf32, #kernel.space<any>>, %y: memref<8x128xf32, #kernel.space<vmem>>,
                      %o: memref<8x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %i = kernel.program_id 0
    %row = arith.muli %i, %c16 : index
    %src = memref.subview %x[%row, 0] [8, 128] [1, 1] : memref<32x128xf32, #kernel.space<any>> to memref<8x128xf32, strided<[128, 1], offset: ?>, #kernel.space<any>>
    kernel.run_scoped (%buf: memref<8x128xf32, #kernel.space<vmem>>, %sem: memref<!kernel.dma_semaphore, #kernel.space<semaphore>>) {
      kernel.async_copy start %src, %buf, %sem[] : memref<8x128xf32, strided<[128, 1], offset: ?>, #kernel.space<any>>, memref<8x128xf32, #kernel.space<vmem>>, memref<!kernel.dma_semaphore, #kernel.space<semaphore>>
      kernel.async_copy wait %src, %buf, %sem[] : memref<8x128xf32, strided<[128, 1], offset: ?>, #kernel.space<any>>, memref<8x128xf32, #kernel.space<vmem>>, memref<!kernel.dma_semaphore, #kernel.space<semaphore>>
      %a = kernel.load %buf[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
      %one = arith.constant dense<1.0> : vector<8x128xf32>
      %b = arith.addf %a, %one : vector<8x128xf32>
      kernel.store %b, %o[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
      kernel.yield
    }
    return
  }

  func.func @main(%rows: tensor<2xi32>, %x: tensor<3x2x8x128xf32>, %s: tensor<24x128xf32>,
                  %d: tensor<32x128xf32>, %e: tensor<32x128xf32>) -> (tensor<i32>, tensor<i32>, tensor<i32>) {
    // 0. The prefetched rows are clamped to 0..2 first (random inputs).
    %c3 = arith.constant dense<3> : tensor<2xi32>
    %abs = math.absi %rows : tensor<2xi32>
    %r = arith.remsi %abs, %c3 : tensor<2xi32>
    %0 = kernel.call @double_body(%r, %x) grid = [2] scalar_prefetch = 1
        in_specs = [#kernel.block<[None, None, 8, 128], @pick_row>]
        out_specs = [#kernel.block<[None, 8, 128], (b) -> (b, 0, 0)>]
        : (tensor<2xi32>, tensor<3x2x8x128xf32>) -> tensor<2x8x128xf32>
    %r0 = arith.constant 0 : index
    %i0 = tensor.extract %r[%r0] : tensor<2xi32>
    %r1 = arith.constant 1 : index
    %i1 = tensor.extract %r[%r1] : tensor<2xi32>
    %j0 = arith.index_cast %i0 : i32 to index
    %j1 = arith.index_cast %i1 : i32 to index
    %p0 = tensor.extract_slice %x[%j0, 0, 0, 0] [1, 1, 8, 128] [1, 1, 1, 1] : tensor<3x2x8x128xf32> to tensor<8x128xf32>
    %p1 = tensor.extract_slice %x[%j1, 1, 0, 0] [1, 1, 8, 128] [1, 1, 1, 1] : tensor<3x2x8x128xf32> to tensor<8x128xf32>
    %q0 = arith.addf %p0, %p0 : tensor<8x128xf32>
    %q1 = arith.addf %p1, %p1 : tensor<8x128xf32>
    %ref0 = tensor.concat dim(0) %q0, %q1 : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<16x128xf32>
    %k0 = tensor.collapse_shape %0 [[0, 1], [2]] : tensor<2x8x128xf32> into tensor<16x128xf32>
    %a0 = tensor.cast %k0 : tensor<16x128xf32> to tensor<?x?xf32>
    %b0 = tensor.cast %ref0 : tensor<16x128xf32> to tensor<?x?xf32>
    %bad0 = func.call @mismatches(%a0, %b0) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<i32>

    // 1.
    %1 = kernel.call @stencil_body(%s) grid = [3]
        in_specs = [#kernel.block<[element(16, padding = (1, 1)), element(128)], (i) -> (i * 8, 0)>]
        out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        : (tensor<24x128xf32>) -> tensor<24x128xf32>
    %z = arith.constant dense<0.0> : tensor<1x128xf32>
    %padded = tensor.concat dim(0) %z, %s, %z : (tensor<1x128xf32>, tensor<24x128xf32>, tensor<1x128xf32>) -> tensor<26x128xf32>
    %up = tensor.extract_slice %padded[0, 0] [24, 128] [1, 1] : tensor<26x128xf32> to tensor<24x128xf32>
    %mid = tensor.extract_slice %padded[1, 0] [24, 128] [1, 1] : tensor<26x128xf32> to tensor<24x128xf32>
    %down = tensor.extract_slice %padded[2, 0] [24, 128] [1, 1] : tensor<26x128xf32> to tensor<24x128xf32>
    %t0 = arith.addf %up, %mid : tensor<24x128xf32>
    %ref1 = arith.addf %t0, %down : tensor<24x128xf32>
    %a1 = tensor.cast %1 : tensor<24x128xf32> to tensor<?x?xf32>
    %b1 = tensor.cast %ref1 : tensor<24x128xf32> to tensor<?x?xf32>
    %bad1 = func.call @mismatches(%a1, %b1) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<i32>

    // 2.
    %2 = kernel.call @dma_body(%d, %e) grid = [2]
        in_specs = [#kernel.block<full, space = any>, #kernel.block<[8, 128], (i) -> (2 * i, 0)>]
        out_specs = [#kernel.block<[8, 128], (i) -> (2 * i, 0)>]
        input_output_aliases = {1 -> 0}
        : (tensor<32x128xf32>, tensor<32x128xf32>) -> tensor<32x128xf32>
    %ones = arith.constant dense<1.0> : tensor<8x128xf32>
    %d0 = tensor.extract_slice %d[0, 0] [8, 128] [1, 1] : tensor<32x128xf32> to tensor<8x128xf32>
    %d2 = tensor.extract_slice %d[16, 0] [8, 128] [1, 1] : tensor<32x128xf32> to tensor<8x128xf32>
    %n0 = arith.addf %d0, %ones : tensor<8x128xf32>
    %n2 = arith.addf %d2, %ones : tensor<8x128xf32>
    %w0 = tensor.insert_slice %n0 into %e[0, 0] [8, 128] [1, 1] : tensor<8x128xf32> into tensor<32x128xf32>
    %ref2 = tensor.insert_slice %n2 into %w0[16, 0] [8, 128] [1, 1] : tensor<8x128xf32> into tensor<32x128xf32>
    %a2 = tensor.cast %2 : tensor<32x128xf32> to tensor<?x?xf32>
    %b2 = tensor.cast %ref2 : tensor<32x128xf32> to tensor<?x?xf32>
    %bad2 = func.call @mismatches(%a2, %b2) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<i32>
    return %bad0, %bad1, %bad2 : tensor<i32>, tensor<i32>, tensor<i32>
  }
}
