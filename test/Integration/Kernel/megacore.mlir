// Tests the megacore split of the pipelined lowering: on TPU v5p the two
// TensorCores of a chip form one device, and the leading `parallel` grid
// axes are split across them, each core a thread of the emulated device
// with its own VMEM arena and DMA engine. The seed's megacore add (grid of 8
// row blocks, 4 per core) and a `sum` reduction with an odd number of row
// blocks (3: two on core 0, one on core 1) along a parallel axis, with the
// reduction axis `arbitrary` (revisited output blocks stay on one core).
// Results are compared with plain tensor code in the same module (result1
// and result3 count the elements that differ), and --check compares the
// pipelined run with the interpret run.
// RUN: tessera-run %s --random-inputs --seed 4 --check | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 4 --kernel-mode=interpret | FileCheck %s --check-prefix=ZERO
// RUN: tessera-run %s --random-inputs --seed 4 --stats | FileCheck %s --check-prefix=STATS
// With a DMA engine thread per TensorCore (copies overlap the body):
// RUN: env TESSERA_KERNEL_DMA=threads tessera-run %s --random-inputs --seed 4 --check | FileCheck %s

// CHECK: result1: i32[] = [0]
// CHECK: result3: i32[] = [0]
// CHECK: check: all 4 results match the single-device reference (kernels in interpret mode)
// ZERO: result1: i32[] = [0]
// ZERO: result3: i32[] = [0]

// The cost report: the add moves 2 x 64 KiB in and 64 KiB out in 8 steps
// (16 block DMAs in, 8 out, nothing skipped), adds 8 x 1024 elements, holds
// 2 windows of 4 KiB per operand per core; on v5p its 192 KiB take 0.071 us
// at 2765 GB/s. The sum skips the revisited output block's write-back on 3
// of each 4 steps (9 skipped) and its input blocks all change.
// STATS: stats: kernel @add_body on device 0: pipelined, TPU v5p, 2 TensorCores, 8 grid steps
// STATS-NEXT: stats:   HBM->VMEM 64.0 KiB, VMEM->HBM 32.0 KiB, DMAs 24 issued, 0 skipped
// STATS-NEXT: stats:   8192 FLOPs, VMEM high-water 24.0 KiB of 16.0 MiB, SMEM 0 B of 1.0 MiB
// STATS-NEXT: stats:   estimate on TPU v5p 0.036 us (memory-bound: 0.036 us memory, 0.000 us compute), measured on the CPU {{[0-9.]+}} ms
// STATS: stats: kernel @sum_body on device 0: pipelined, TPU v5p, 2 TensorCores, 12 grid steps
// STATS-NEXT: stats:   HBM->VMEM 48.0 KiB, VMEM->HBM 12.0 KiB, DMAs 15 issued, 9 skipped
module attributes {kernel.target = #kernel.target<"v5p">} {
  func.func @add_body(%x: memref<8x128xf32, #kernel.space<vmem>>, %y: memref<8x128xf32, #kernel.space<vmem>>,
                      %o: memref<8x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    %b = kernel.load %y[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    %s = arith.addf %a, %b : vector<8x128xf32>
    kernel.store %s, %o[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
    return
  }

  func.func @sum_body(%x: memref<8x128xf32, #kernel.space<vmem>>,
                      %o: memref<8x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %k = kernel.program_id 1
    %first = arith.cmpi eq, %k, %c0 : index
    scf.if %first {
      %zero = arith.constant dense<0.0> : vector<8x128xf32>
      kernel.store %zero, %o[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
    }
    %a = kernel.load %x[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    %s = kernel.load %o[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    %t = arith.addf %s, %a : vector<8x128xf32>
    kernel.store %t, %o[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
    return
  }

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

  func.func @main(%x: tensor<64x128xf32>, %y: tensor<64x128xf32>, %z: tensor<24x512xf32>)
      -> (tensor<64x128xf32>, tensor<i32>, tensor<24x128xf32>, tensor<i32>) {
    %0 = kernel.call @add_body(%x, %y) grid = [8]
        in_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>, #kernel.block<[8, 128], (i) -> (i, 0)>]
        out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        dimension_semantics = [parallel]
        : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
    %ref = arith.addf %x, %y : tensor<64x128xf32>
    %a0 = tensor.cast %0 : tensor<64x128xf32> to tensor<?x?xf32>
    %r0 = tensor.cast %ref : tensor<64x128xf32> to tensor<?x?xf32>
    %bad0 = func.call @mismatches(%a0, %r0) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<i32>

    %1 = kernel.call @sum_body(%z) grid = [3, 4]
        in_specs = [#kernel.block<[8, 128], (i, k) -> (i, k)>]
        out_specs = [#kernel.block<[8, 128], (i, k) -> (i, 0)>]
        dimension_semantics = [parallel, arbitrary]
        : (tensor<24x512xf32>) -> tensor<24x128xf32>
    %e = tensor.expand_shape %z [[0], [1, 2]] output_shape [24, 4, 128] : tensor<24x512xf32> into tensor<24x4x128xf32>
    %zero = arith.constant 0.0 : f32
    %init = tensor.empty() : tensor<24x128xf32>
    %filled = linalg.fill ins(%zero : f32) outs(%init : tensor<24x128xf32>) -> tensor<24x128xf32>
    %sref = linalg.reduce ins(%e : tensor<24x4x128xf32>) outs(%filled : tensor<24x128xf32>) dimensions = [1]
      (%in: f32, %acc: f32) {
        %s = arith.addf %acc, %in : f32
        linalg.yield %s : f32
      }
    %a1 = tensor.cast %1 : tensor<24x128xf32> to tensor<?x?xf32>
    %r1 = tensor.cast %sref : tensor<24x128xf32> to tensor<?x?xf32>
    %bad1 = func.call @mismatches(%a1, %r1) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<i32>
    return %0, %bad0, %1, %bad1 : tensor<64x128xf32>, tensor<i32>, tensor<24x128xf32>, tensor<i32>
  }
}
