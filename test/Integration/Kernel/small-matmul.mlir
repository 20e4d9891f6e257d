// Tests small-batch matmuls in kernel bodies: an (8, 128) x (128, 128)
// jnp.dot per step accumulated over the k axis of the grid into a resident
// output block, the dot of a left operand computed in the body
// (`jnp.dot(2 * x, y)`), and a batched contraction (maps with a batch
// dimension). Each is compared with linalg on the whole arrays in the same
// module (result1, result3, result5: the number of elements that differ
// by more than 1e-4 relative), and --check compares the pipelined run with
// the interpret run. --stats counts 2 M N K FLOPs per contraction and
// step, whatever its maps (plus one per element of the 2 * x), and the
// VMEM high-water mark includes the contraction's accumulator buffer.
// RUN: tessera-run %s --random-inputs --seed 11 --check | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 11 --kernel-mode=interpret | FileCheck %s --check-prefix=ZERO
// RUN: tessera-run %s --random-inputs --seed 11 --stats | FileCheck %s --check-prefix=STATS

// CHECK: result1: i32[] = [0]
// CHECK: result3: i32[] = [0]
// CHECK: result5: i32[] = [0]
// CHECK: check: all 6 results match the single-device reference (kernels in interpret mode)
// ZERO: result1: i32[] = [0]
// ZERO: result3: i32[] = [0]
// ZERO: result5: i32[] = [0]
// 8 steps of 2 * 8 * 128 * 128; the double-buffered windows (144 KiB) and
// the accumulator (4 KiB):
// STATS: stats: kernel @dot_body on device 0:
// STATS-NEXT: stats:
// STATS-NEXT: stats:   2097152 FLOPs, VMEM high-water 148.0 KiB of 16.0 MiB
// 8 steps of 2 * 8 * 128 * 128 and of the 1024 elements of 2 * x:
// STATS: stats: kernel @scaled_dot_body on device 0:
// STATS-NEXT: stats:
// STATS-NEXT: stats:   2105344 FLOPs,
// 2 steps of 2 * 2 * 8 * 128 * 128:
// STATS: stats: kernel @batched_body on device 0:
// STATS-NEXT: stats:
// STATS-NEXT: stats:   1048576 FLOPs,
#mk = affine_map<(i, j, k) -> (i, k)>
#kn = affine_map<(i, j, k) -> (k, j)>
#mn = affine_map<(i, j, k) -> (i, j)>
#bmk = affine_map<(b, i, j, k) -> (b, i, k)>
#bkn = affine_map<(b, i, j, k) -> (b, k, j)>
#bmn = affine_map<(b, i, j, k) -> (b, i, j)>
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @dot_body(%x: memref<8x128xf32, #kernel.space<vmem>>, %y: memref<128x128xf32, #kernel.space<vmem>>,
                      %o: memref<8x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %k = kernel.program_id 1
    %first = arith.cmpi eq, %k, %c0 : index
    scf.if %first {
      %zero = arith.constant dense<0.0> : vector<8x128xf32>
      kernel.store %zero, %o[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
    }
    %a = kernel.load %x[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    %b = kernel.load %y[%c0, %c0] : memref<128x128xf32, #kernel.space<vmem>>, vector<128x128xf32>
    %acc = kernel.load %o[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    %r = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"],
                          kind = #vector.kind<add>} %a, %b, %acc : vector<8x128xf32>, vector<128x128xf32> into vector<8x128xf32>
    kernel.store %r, %o[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
    return
  }

  func.func @scaled_dot_body(%x: memref<8x128xf32, #kernel.space<vmem>>, %y: memref<128x128xf32, #kernel.space<vmem>>,
                             %o: memref<8x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %k = kernel.program_id 1
    %first = arith.cmpi eq, %k, %c0 : index
    scf.if %first {
      %zero = arith.constant dense<0.0> : vector<8x128xf32>
      kernel.store %zero, %o[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
    }
    %a = kernel.load %x[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    %two = arith.constant dense<2.0> : vector<8x128xf32>
    %a2 = arith.mulf %a, %two : vector<8x128xf32>
    %b = kernel.load %y[%c0, %c0] : memref<128x128xf32, #kernel.space<vmem>>, vector<128x128xf32>
    %acc = kernel.load %o[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    %r = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"],
                          kind = #vector.kind<add>} %a2, %b, %acc : vector<8x128xf32>, vector<128x128xf32> into vector<8x128xf32>
    kernel.store %r, %o[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
    return
  }

  func.func @batched_body(%x: memref<2x8x128xf32, #kernel.space<vmem>>, %y: memref<2x128x128xf32, #kernel.space<vmem>>,
                          %o: memref<2x8x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0, %c0] : memref<2x8x128xf32, #kernel.space<vmem>>, vector<2x8x128xf32>
    %b = kernel.load %y[%c0, %c0, %c0] : memref<2x128x128xf32, #kernel.space<vmem>>, vector<2x128x128xf32>
    %zero = arith.constant dense<0.0> : vector<2x8x128xf32>
    %r = vector.contract {indexing_maps = [#bmk, #bkn, #bmn], iterator_types = ["parallel", "parallel", "parallel", "reduction"],
                          kind = #vector.kind<add>} %a, %b, %zero : vector<2x8x128xf32>, vector<2x128x128xf32> into vector<2x8x128xf32>
    kernel.store %r, %o[%c0, %c0, %c0] : vector<2x8x128xf32>, memref<2x8x128xf32, #kernel.space<vmem>>
    return
  }

  // The number of elements of %a and %b that differ by more than 1e-4
  // (relative) or are NaN.
  func.func private @mismatches(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<i32> {
    %zero = arith.constant 0 : i32
    %init = tensor.empty() : tensor<i32>
    %acc = linalg.fill ins(%zero : i32) outs(%init : tensor<i32>) -> tensor<i32>
    %bad = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
                           iterator_types = ["reduction"]}
        ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%acc : tensor<i32>) {
    ^bb0(%p: f32, %q: f32, %n: i32):
      %d = arith.subf %p, %q : f32
      %ad = math.absf %d : f32
      %aq = math.absf %q : f32
      %rel = arith.constant 1.0e-4 : f32
      %t = arith.mulf %aq, %rel : f32
      %tol = arith.addf %t, %rel : f32
      %isbad = arith.cmpf ugt, %ad, %tol : f32
      %inc = arith.extui %isbad : i1 to i32
      %sum = arith.addi %n, %inc : i32
      linalg.yield %sum : i32
    } -> tensor<i32>
    return %bad : tensor<i32>
  }

  func.func @main(%x: tensor<8x512xf32>, %y: tensor<512x256xf32>, %bx: tensor<4x8x128xf32>, %by: tensor<4x128x128xf32>)
      -> (tensor<8x256xf32>, tensor<i32>, tensor<8x256xf32>, tensor<i32>, tensor<4x8x128xf32>, tensor<i32>) {
    %zf = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<8x256xf32>
    %f = linalg.fill ins(%zf : f32) outs(%e : tensor<8x256xf32>) -> tensor<8x256xf32>

    // 0. x y, accumulated over k.
    %0 = kernel.call @dot_body(%x, %y) grid = [2, 4]
        in_specs = [#kernel.block<[8, 128], (j, k) -> (0, k)>, #kernel.block<[128, 128], (j, k) -> (k, j)>]
        out_specs = [#kernel.block<[8, 128], (j, k) -> (0, j)>]
        dimension_semantics = [parallel, arbitrary]
        : (tensor<8x512xf32>, tensor<512x256xf32>) -> tensor<8x256xf32>
    %ref0 = linalg.matmul ins(%x, %y : tensor<8x512xf32>, tensor<512x256xf32>) outs(%f : tensor<8x256xf32>) -> tensor<8x256xf32>
    %k0 = tensor.collapse_shape %0 [[0, 1]] : tensor<8x256xf32> into tensor<2048xf32>
    %r0 = tensor.collapse_shape %ref0 [[0, 1]] : tensor<8x256xf32> into tensor<2048xf32>
    %a0 = tensor.cast %k0 : tensor<2048xf32> to tensor<?xf32>
    %b0 = tensor.cast %r0 : tensor<2048xf32> to tensor<?xf32>
    %bad0 = func.call @mismatches(%a0, %b0) : (tensor<?xf32>, tensor<?xf32>) -> tensor<i32>

    // 1. (2 x) y.
    %1 = kernel.call @scaled_dot_body(%x, %y) grid = [2, 4]
        in_specs = [#kernel.block<[8, 128], (j, k) -> (0, k)>, #kernel.block<[128, 128], (j, k) -> (k, j)>]
        out_specs = [#kernel.block<[8, 128], (j, k) -> (0, j)>]
        dimension_semantics = [parallel, arbitrary]
        : (tensor<8x512xf32>, tensor<512x256xf32>) -> tensor<8x256xf32>
    %twos = arith.constant dense<2.0> : tensor<8x512xf32>
    %x2 = arith.mulf %x, %twos : tensor<8x512xf32>
    %ref1 = linalg.matmul ins(%x2, %y : tensor<8x512xf32>, tensor<512x256xf32>) outs(%f : tensor<8x256xf32>) -> tensor<8x256xf32>
    %k1 = tensor.collapse_shape %1 [[0, 1]] : tensor<8x256xf32> into tensor<2048xf32>
    %r1 = tensor.collapse_shape %ref1 [[0, 1]] : tensor<8x256xf32> into tensor<2048xf32>
    %a1 = tensor.cast %k1 : tensor<2048xf32> to tensor<?xf32>
    %b1 = tensor.cast %r1 : tensor<2048xf32> to tensor<?xf32>
    %bad1 = func.call @mismatches(%a1, %b1) : (tensor<?xf32>, tensor<?xf32>) -> tensor<i32>

    // 2. A batched contraction, two batches per step.
    %2 = kernel.call @batched_body(%bx, %by) grid = [2]
        in_specs = [#kernel.block<[2, 8, 128], (b) -> (b, 0, 0)>, #kernel.block<[2, 128, 128], (b) -> (b, 0, 0)>]
        out_specs = [#kernel.block<[2, 8, 128], (b) -> (b, 0, 0)>]
        dimension_semantics = [parallel]
        : (tensor<4x8x128xf32>, tensor<4x128x128xf32>) -> tensor<4x8x128xf32>
    %e2 = tensor.empty() : tensor<4x8x128xf32>
    %f2 = linalg.fill ins(%zf : f32) outs(%e2 : tensor<4x8x128xf32>) -> tensor<4x8x128xf32>
    %ref2 = linalg.batch_matmul ins(%bx, %by : tensor<4x8x128xf32>, tensor<4x128x128xf32>) outs(%f2 : tensor<4x8x128xf32>) -> tensor<4x8x128xf32>
    %k2 = tensor.collapse_shape %2 [[0, 1, 2]] : tensor<4x8x128xf32> into tensor<4096xf32>
    %r2 = tensor.collapse_shape %ref2 [[0, 1, 2]] : tensor<4x8x128xf32> into tensor<4096xf32>
    %a2 = tensor.cast %k2 : tensor<4096xf32> to tensor<?xf32>
    %b2 = tensor.cast %r2 : tensor<4096xf32> to tensor<?xf32>
    %bad2 = func.call @mismatches(%a2, %b2) : (tensor<?xf32>, tensor<?xf32>) -> tensor<i32>
    return %0, %bad0, %1, %bad1, %2, %bad2
        : tensor<8x256xf32>, tensor<i32>, tensor<8x256xf32>, tensor<i32>, tensor<4x8x128xf32>, tensor<i32>
  }
}
