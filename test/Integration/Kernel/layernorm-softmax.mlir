// Tests row-wise normalizations over (8k, 128k) blocks, as Pallas users
// write them on whole blocks: a layer norm of (32, 256) blocks (row mean
// and variance by reductions over the last axis, rsqrt, a per-column scale
// and shift broadcast from (1, 256) blocks) and a softmax of (16, 512)
// blocks (row maximum, exp, row sum, divide). Each is compared with the
// same math in linalg on the whole arrays in the same module (result1,
// result3: the number of elements that differ by more than 1e-4
// relative), and --check compares the pipelined run with the interpret run.
// RUN: tessera-run %s --random-inputs --seed 19 --check | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 19 --kernel-mode=interpret | FileCheck %s --check-prefix=ZERO

// CHECK: result1: i32[] = [0]
// CHECK: result3: i32[] = [0]
// CHECK: check: all 4 results match the single-device reference (kernels in interpret mode)
// ZERO: result1: i32[] = [0]
// ZERO: result3: i32[] = [0]
#rows = affine_map<(i, j) -> (i)>
#all = affine_map<(i, j) -> (i, j)>
#cols = affine_map<(i, j) -> (0, j)>
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @layernorm_body(%x: memref<32x256xf32, #kernel.space<vmem>>, %g: memref<1x256xf32, #kernel.space<vmem>>,
                            %b: memref<1x256xf32, #kernel.space<vmem>>, %o: memref<32x256xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<32x256xf32, #kernel.space<vmem>>, vector<32x256xf32>
    %zr = arith.constant dense<0.0> : vector<32xf32>
    %n = arith.constant dense<0.00390625> : vector<32x1xf32>
    %sum = vector.multi_reduction <add>, %a, %zr [1] : vector<32x256xf32> to vector<32xf32>
    %sum2 = vector.shape_cast %sum : vector<32xf32> to vector<32x1xf32>
    %mean = arith.mulf %sum2, %n : vector<32x1xf32>
    %meanb = vector.broadcast %mean : vector<32x1xf32> to vector<32x256xf32>
    %xc = arith.subf %a, %meanb : vector<32x256xf32>
    %sq = arith.mulf %xc, %xc : vector<32x256xf32>
    %ss = vector.multi_reduction <add>, %sq, %zr [1] : vector<32x256xf32> to vector<32xf32>
    %ss2 = vector.shape_cast %ss : vector<32xf32> to vector<32x1xf32>
    %var = arith.mulf %ss2, %n : vector<32x1xf32>
    %eps = arith.constant dense<1.0e-5> : vector<32x1xf32>
    %ve = arith.addf %var, %eps : vector<32x1xf32>
    %inv = math.rsqrt %ve : vector<32x1xf32>
    %invb = vector.broadcast %inv : vector<32x1xf32> to vector<32x256xf32>
    %norm = arith.mulf %xc, %invb : vector<32x256xf32>
    %gv = kernel.load %g[%c0, %c0] : memref<1x256xf32, #kernel.space<vmem>>, vector<1x256xf32>
    %bv = kernel.load %b[%c0, %c0] : memref<1x256xf32, #kernel.space<vmem>>, vector<1x256xf32>
    %gb = vector.broadcast %gv : vector<1x256xf32> to vector<32x256xf32>
    %bb = vector.broadcast %bv : vector<1x256xf32> to vector<32x256xf32>
    %scaled = arith.mulf %norm, %gb : vector<32x256xf32>
    %y = arith.addf %scaled, %bb : vector<32x256xf32>
    kernel.store %y, %o[%c0, %c0] : vector<32x256xf32>, memref<32x256xf32, #kernel.space<vmem>>
    return
  }

  func.func @softmax_body(%x: memref<16x512xf32, #kernel.space<vmem>>, %o: memref<16x512xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<16x512xf32, #kernel.space<vmem>>, vector<16x512xf32>
    %low = arith.constant dense<0xFF800000> : vector<16xf32>
    %m = vector.multi_reduction <maximumf>, %a, %low [1] : vector<16x512xf32> to vector<16xf32>
    %m2 = vector.shape_cast %m : vector<16xf32> to vector<16x1xf32>
    %mb = vector.broadcast %m2 : vector<16x1xf32> to vector<16x512xf32>
    %c = arith.subf %a, %mb : vector<16x512xf32>
    %e = math.exp %c : vector<16x512xf32>
    %zr = arith.constant dense<0.0> : vector<16xf32>
    %s = vector.multi_reduction <add>, %e, %zr [1] : vector<16x512xf32> to vector<16xf32>
    %s2 = vector.shape_cast %s : vector<16xf32> to vector<16x1xf32>
    %sb = vector.broadcast %s2 : vector<16x1xf32> to vector<16x512xf32>
    %y = arith.divf %e, %sb : vector<16x512xf32>
    kernel.store %y, %o[%c0, %c0] : vector<16x512xf32>, memref<16x512xf32, #kernel.space<vmem>>
    return
  }

  // The number of elements of %a and %b that differ by more than 1e-4
  // (relative and absolute) or are NaN.
  func.func private @mismatches(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<i32> {
    %zero = arith.constant 0 : i32
    %init = tensor.empty() : tensor<i32>
    %acc = linalg.fill ins(%zero : i32) outs(%init : tensor<i32>) -> tensor<i32>
    %bad = linalg.generic {indexing_maps = [#all, #all, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]}
        ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%acc : tensor<i32>) {
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

  func.func @main(%x: tensor<64x256xf32>, %g: tensor<1x256xf32>, %b: tensor<1x256xf32>, %s: tensor<64x512xf32>)
      -> (tensor<64x256xf32>, tensor<i32>, tensor<64x512xf32>, tensor<i32>) {
    %zf = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %inv_n = arith.constant 0.00390625 : f32
    %eps = arith.constant 1.0e-5 : f32

    // 0. The layer norm, two row blocks.
    %0 = kernel.call @layernorm_body(%x, %g, %b) grid = [2]
        in_specs = [#kernel.block<[32, 256], (i) -> (i, 0)>, #kernel.block<[1, 256], (i) -> (0, 0)>,
                    #kernel.block<[1, 256], (i) -> (0, 0)>]
        out_specs = [#kernel.block<[32, 256], (i) -> (i, 0)>]
        dimension_semantics = [parallel]
        : (tensor<64x256xf32>, tensor<1x256xf32>, tensor<1x256xf32>) -> tensor<64x256xf32>
    %e64 = tensor.empty() : tensor<64xf32>
    %z64 = linalg.fill ins(%zf : f32) outs(%e64 : tensor<64xf32>) -> tensor<64xf32>
    %sum = linalg.generic {indexing_maps = [#all, #rows], iterator_types = ["parallel", "reduction"]}
        ins(%x : tensor<64x256xf32>) outs(%z64 : tensor<64xf32>) {
    ^bb0(%v: f32, %acc: f32):
      %r = arith.addf %acc, %v : f32
      linalg.yield %r : f32
    } -> tensor<64xf32>
    %ss = linalg.generic {indexing_maps = [#all, #rows, #rows], iterator_types = ["parallel", "reduction"]}
        ins(%x, %sum : tensor<64x256xf32>, tensor<64xf32>) outs(%z64 : tensor<64xf32>) {
    ^bb0(%v: f32, %t: f32, %acc: f32):
      %mean = arith.mulf %t, %inv_n : f32
      %d = arith.subf %v, %mean : f32
      %d2 = arith.mulf %d, %d : f32
      %r = arith.addf %acc, %d2 : f32
      linalg.yield %r : f32
    } -> tensor<64xf32>
    %e0 = tensor.empty() : tensor<64x256xf32>
    %ref0 = linalg.generic {indexing_maps = [#all, #rows, #rows, #cols, #cols, #all], iterator_types = ["parallel", "parallel"]}
        ins(%x, %sum, %ss, %g, %b : tensor<64x256xf32>, tensor<64xf32>, tensor<64xf32>, tensor<1x256xf32>, tensor<1x256xf32>)
        outs(%e0 : tensor<64x256xf32>) {
    ^bb0(%v: f32, %t: f32, %q: f32, %gv: f32, %bv: f32, %out: f32):
      %mean = arith.mulf %t, %inv_n : f32
      %var = arith.mulf %q, %inv_n : f32
      %ve = arith.addf %var, %eps : f32
      %inv = math.rsqrt %ve : f32
      %d = arith.subf %v, %mean : f32
      %n = arith.mulf %d, %inv : f32
      %sc = arith.mulf %n, %gv : f32
      %r = arith.addf %sc, %bv : f32
      linalg.yield %r : f32
    } -> tensor<64x256xf32>
    %k0 = tensor.cast %0 : tensor<64x256xf32> to tensor<?x?xf32>
    %r0 = tensor.cast %ref0 : tensor<64x256xf32> to tensor<?x?xf32>
    %bad0 = func.call @mismatches(%k0, %r0) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<i32>

    // 1. The softmax, four row blocks.
    %1 = kernel.call @softmax_body(%s) grid = [4]
        in_specs = [#kernel.block<[16, 512], (i) -> (i, 0)>]
        out_specs = [#kernel.block<[16, 512], (i) -> (i, 0)>]
        dimension_semantics = [parallel]
        : (tensor<64x512xf32>) -> tensor<64x512xf32>
    %n64 = linalg.fill ins(%ninf : f32) outs(%e64 : tensor<64xf32>) -> tensor<64xf32>
    %mx = linalg.generic {indexing_maps = [#all, #rows], iterator_types = ["parallel", "reduction"]}
        ins(%s : tensor<64x512xf32>) outs(%n64 : tensor<64xf32>) {
    ^bb0(%v: f32, %acc: f32):
      %r = arith.maximumf %acc, %v : f32
      linalg.yield %r : f32
    } -> tensor<64xf32>
    %den = linalg.generic {indexing_maps = [#all, #rows, #rows], iterator_types = ["parallel", "reduction"]}
        ins(%s, %mx : tensor<64x512xf32>, tensor<64xf32>) outs(%z64 : tensor<64xf32>) {
    ^bb0(%v: f32, %m: f32, %acc: f32):
      %d = arith.subf %v, %m : f32
      %e = math.exp %d : f32
      %r = arith.addf %acc, %e : f32
      linalg.yield %r : f32
    } -> tensor<64xf32>
    %e1 = tensor.empty() : tensor<64x512xf32>
    %ref1 = linalg.generic {indexing_maps = [#all, #rows, #rows, #all], iterator_types = ["parallel", "parallel"]}
        ins(%s, %mx, %den : tensor<64x512xf32>, tensor<64xf32>, tensor<64xf32>) outs(%e1 : tensor<64x512xf32>) {
    ^bb0(%v: f32, %m: f32, %t: f32, %out: f32):
      %d = arith.subf %v, %m : f32
      %e = math.exp %d : f32
      %r = arith.divf %e, %t : f32
      linalg.yield %r : f32
    } -> tensor<64x512xf32>
    %k1 = tensor.cast %1 : tensor<64x512xf32> to tensor<?x?xf32>
    %r1 = tensor.cast %ref1 : tensor<64x512xf32> to tensor<?x?xf32>
    %bad1 = func.call @mismatches(%k1, %r1) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<i32>
    return %0, %bad0, %1, %bad1 : tensor<64x256xf32>, tensor<i32>, tensor<64x512xf32>, tensor<i32>
  }
}
