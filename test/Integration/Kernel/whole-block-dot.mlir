// Tests whole-block contractions in kernel bodies (Pallas's
// `acc_ref[...] += jnp.dot(x_ref[...], y_ref[...])`): vector.contract of
// two (128, 128) blocks, which the vector layout passes rewrite as a linalg
// op on the buffers the blocks were loaded from (tiled and vectorized by
// tessera-cpu; as one vector contraction LLVM took more than 5 minutes): a
// float matmul accumulated over the k axis of the grid into a resident
// output block, from bf16 operands into an f32 accumulator, and an integer
// product with the right operand transposed (maps (i, k), (j, k)) and
// computed in the body (2 y, stored tile by tile into a layout buffer the
// linalg op reads), whose (256, 256) accumulator is a 256 KiB layout buffer
// in VMEM. The float operands are whole numbers in [-8, 8), so every sum is
// exact in any order. Each is compared with linalg on the whole arrays in
// the same module (result1 and result3 count the elements that differ);
// --check compares the pipelined run with the interpret run.
// RUN: tessera-run %s --random-inputs --seed 5 --check | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 5 --kernel-mode=interpret --stats | FileCheck %s --check-prefix=ZERO

// CHECK: result1: i32[] = [0]
// CHECK: result3: i32[] = [0]
// CHECK: check: all 4 results match the single-device reference (kernels in interpret mode)
// ZERO: result1: i32[] = [0]
// ZERO: result3: i32[] = [0]
// The FLOPs are 2 M N K per contraction (and one per element of 2 y), and
// the VMEM high-water mark of @nt_body counts its layout buffers: the
// (256, 256) i32 accumulator and the (256, 128) buffer of 2 y (384 KiB) on
// top of its 512 KiB of blocks.
// ZERO: stats: kernel @matmul_body on device 0: interpret
// ZERO: stats:   50331648 FLOPs,
// ZERO: stats: kernel @nt_body on device 0: interpret
// ZERO: stats:   67239936 FLOPs, VMEM high-water 896.0 KiB of 16.0 MiB
#mk = affine_map<(i, j, k) -> (i, k)>
#kn = affine_map<(i, j, k) -> (k, j)>
#nk = affine_map<(i, j, k) -> (j, k)>
#mn = affine_map<(i, j, k) -> (i, j)>
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @matmul_body(%x: memref<128x128xbf16, #kernel.space<vmem>>, %y: memref<128x128xbf16, #kernel.space<vmem>>,
                         %o: memref<128x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %k = kernel.program_id 2
    %first = arith.cmpi eq, %k, %c0 : index
    scf.if %first {
      %zero = arith.constant dense<0.0> : vector<128x128xf32>
      kernel.store %zero, %o[%c0, %c0] : vector<128x128xf32>, memref<128x128xf32, #kernel.space<vmem>>
    }
    %a = kernel.load %x[%c0, %c0] : memref<128x128xbf16, #kernel.space<vmem>>, vector<128x128xbf16>
    %b = kernel.load %y[%c0, %c0] : memref<128x128xbf16, #kernel.space<vmem>>, vector<128x128xbf16>
    %acc = kernel.load %o[%c0, %c0] : memref<128x128xf32, #kernel.space<vmem>>, vector<128x128xf32>
    %r = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"],
                          kind = #vector.kind<add>} %a, %b, %acc : vector<128x128xbf16>, vector<128x128xbf16> into vector<128x128xf32>
    kernel.store %r, %o[%c0, %c0] : vector<128x128xf32>, memref<128x128xf32, #kernel.space<vmem>>
    return
  }

  func.func @nt_body(%x: memref<256x128xi32, #kernel.space<vmem>>, %y: memref<256x128xi32, #kernel.space<vmem>>,
                     %o: memref<256x256xi32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<256x128xi32, #kernel.space<vmem>>, vector<256x128xi32>
    %b = kernel.load %y[%c0, %c0] : memref<256x128xi32, #kernel.space<vmem>>, vector<256x128xi32>
    // A computed operand: 2 y.
    %two = arith.constant dense<2> : vector<256x128xi32>
    %b2 = arith.muli %b, %two : vector<256x128xi32>
    %zero = arith.constant dense<0> : vector<256x256xi32>
    %r = vector.contract {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"],
                          kind = #vector.kind<add>} %a, %b2, %zero : vector<256x128xi32>, vector<256x128xi32> into vector<256x256xi32>
    kernel.store %r, %o[%c0, %c0] : vector<256x256xi32>, memref<256x256xi32, #kernel.space<vmem>>
    return
  }

  // The number of elements of %a and %b that differ (floats, exactly).
  func.func private @float_mismatches(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<i32> {
    %zero = arith.constant 0 : i32
    %init = tensor.empty() : tensor<i32>
    %acc = linalg.fill ins(%zero : i32) outs(%init : tensor<i32>) -> tensor<i32>
    %bad = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                           iterator_types = ["reduction", "reduction"]}
        ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%acc : tensor<i32>) {
    ^bb0(%p: f32, %q: f32, %n: i32):
      %ne = arith.cmpf une, %p, %q : f32
      %inc = arith.extui %ne : i1 to i32
      %sum = arith.addi %n, %inc : i32
      linalg.yield %sum : i32
    } -> tensor<i32>
    return %bad : tensor<i32>
  }

  // The number of elements of %a and %b that differ.
  func.func private @int_mismatches(%a: tensor<?x?xi32>, %b: tensor<?x?xi32>) -> tensor<i32> {
    %zero = arith.constant 0 : i32
    %init = tensor.empty() : tensor<i32>
    %acc = linalg.fill ins(%zero : i32) outs(%init : tensor<i32>) -> tensor<i32>
    %bad = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                           iterator_types = ["reduction", "reduction"]}
        ins(%a, %b : tensor<?x?xi32>, tensor<?x?xi32>) outs(%acc : tensor<i32>) {
    ^bb0(%p: i32, %q: i32, %n: i32):
      %ne = arith.cmpi ne, %p, %q : i32
      %inc = arith.extui %ne : i1 to i32
      %sum = arith.addi %n, %inc : i32
      linalg.yield %sum : i32
    } -> tensor<i32>
    return %bad : tensor<i32>
  }

  func.func @main(%u: tensor<256x384xf32>, %v: tensor<384x256xf32>, %p: tensor<512x128xi32>, %q: tensor<512x128xi32>)
      -> (tensor<256x256xf32>, tensor<i32>, tensor<512x512xi32>, tensor<i32>) {
    // Whole numbers in [-8, 8) as bf16.
    %eight = arith.constant 8.0 : f32
    %e0 = tensor.empty() : tensor<256x384xbf16>
    %x = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
        ins(%u : tensor<256x384xf32>) outs(%e0 : tensor<256x384xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %s = arith.mulf %in, %eight : f32
      %f = math.floor %s : f32
      %t = arith.truncf %f : f32 to bf16
      linalg.yield %t : bf16
    } -> tensor<256x384xbf16>
    %e1 = tensor.empty() : tensor<384x256xbf16>
    %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
        ins(%v : tensor<384x256xf32>) outs(%e1 : tensor<384x256xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %s = arith.mulf %in, %eight : f32
      %f = math.floor %s : f32
      %t = arith.truncf %f : f32 to bf16
      linalg.yield %t : bf16
    } -> tensor<384x256xbf16>

    %0 = kernel.call @matmul_body(%x, %y) grid = [2, 2, 3]
        in_specs = [#kernel.block<[128, 128], (i, j, k) -> (i, k)>, #kernel.block<[128, 128], (i, j, k) -> (k, j)>]
        out_specs = [#kernel.block<[128, 128], (i, j, k) -> (i, j)>]
        dimension_semantics = [parallel, parallel, arbitrary]
        : (tensor<256x384xbf16>, tensor<384x256xbf16>) -> tensor<256x256xf32>
    %zf = arith.constant 0.0 : f32
    %i0 = tensor.empty() : tensor<256x256xf32>
    %f0 = linalg.fill ins(%zf : f32) outs(%i0 : tensor<256x256xf32>) -> tensor<256x256xf32>
    %ref0 = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%x, %y : tensor<256x384xbf16>, tensor<384x256xbf16>) outs(%f0 : tensor<256x256xf32>) {
    ^bb0(%a: bf16, %b: bf16, %c: f32):
      %af = arith.extf %a : bf16 to f32
      %bf = arith.extf %b : bf16 to f32
      %m = arith.mulf %af, %bf : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    } -> tensor<256x256xf32>
    %a0 = tensor.cast %0 : tensor<256x256xf32> to tensor<?x?xf32>
    %r0 = tensor.cast %ref0 : tensor<256x256xf32> to tensor<?x?xf32>
    %bad0 = func.call @float_mismatches(%a0, %r0) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<i32>

    // 2 p q^T, block by block (256 KiB accumulators, layout buffers in VMEM).
    %1 = kernel.call @nt_body(%p, %q) grid = [2, 2]
        in_specs = [#kernel.block<[256, 128], (i, j) -> (i, 0)>, #kernel.block<[256, 128], (i, j) -> (j, 0)>]
        out_specs = [#kernel.block<[256, 256], (i, j) -> (i, j)>]
        dimension_semantics = [parallel, parallel]
        : (tensor<512x128xi32>, tensor<512x128xi32>) -> tensor<512x512xi32>
    %zi = arith.constant 0 : i32
    %i1 = tensor.empty() : tensor<512x512xi32>
    %f1 = linalg.fill ins(%zi : i32) outs(%i1 : tensor<512x512xi32>) -> tensor<512x512xi32>
    %ref1 = linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%p, %q : tensor<512x128xi32>, tensor<512x128xi32>) outs(%f1 : tensor<512x512xi32>) {
    ^bb0(%a: i32, %b: i32, %c: i32):
      %two = arith.constant 2 : i32
      %b2 = arith.muli %b, %two : i32
      %m = arith.muli %a, %b2 : i32
      %s = arith.addi %c, %m : i32
      linalg.yield %s : i32
    } -> tensor<512x512xi32>
    %a1 = tensor.cast %1 : tensor<512x512xi32> to tensor<?x?xi32>
    %r1 = tensor.cast %ref1 : tensor<512x512xi32> to tensor<?x?xi32>
    %bad1 = func.call @int_mismatches(%a1, %r1) : (tensor<?x?xi32>, tensor<?x?xi32>) -> tensor<i32>
    return %0, %bad0, %1, %bad1 : tensor<256x256xf32>, tensor<i32>, tensor<512x512xi32>, tensor<i32>
  }
}
