// Tests whole-block kernels (Pallas's `o_ref[...] = x_ref[...] * 2 +
// y_ref[...]`): loads, elementwise ops and stores of whole (64, 512) blocks,
// which the vector layout passes run tile by tile in loops over (8, 128) tiles
// (compiling in well under a second; as whole vectors they took LLVM minutes).
// The second kernel accumulates whole blocks into a revisited output block
// (zeroed on the first step with a splat store). Results are compared with
// tensor code in the same module (result1 and result3 count the elements that
// differ); --check compares the pipelined run with the interpret run.
// RUN: tessera-run %s --random-inputs --seed 6 --check | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 6 --kernel-mode=interpret | FileCheck %s --check-prefix=ZERO

// CHECK: result1: i32[] = [0]
// CHECK: result3: i32[] = [0]
// CHECK: check: all 4 results match the single-device reference (kernels in interpret mode)
// ZERO: result1: i32[] = [0]
// ZERO: result3: i32[] = [0]
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @axpy_body(%x: memref<64x512xf32, #kernel.space<vmem>>, %y: memref<64x512xf32, #kernel.space<vmem>>,
                       %o: memref<64x512xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %two = arith.constant dense<2.0> : vector<64x512xf32>
    %a = kernel.load %x[%c0, %c0] : memref<64x512xf32, #kernel.space<vmem>>, vector<64x512xf32>
    %b = kernel.load %y[%c0, %c0] : memref<64x512xf32, #kernel.space<vmem>>, vector<64x512xf32>
    %m = arith.mulf %a, %two : vector<64x512xf32>
    %s = arith.addf %m, %b : vector<64x512xf32>
    kernel.store %s, %o[%c0, %c0] : vector<64x512xf32>, memref<64x512xf32, #kernel.space<vmem>>
    return
  }

  func.func @sum_body(%x: memref<64x512xf32, #kernel.space<vmem>>, %o: memref<64x512xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %k = kernel.program_id 1
    %first = arith.cmpi eq, %k, %c0 : index
    scf.if %first {
      %zero = arith.constant dense<0.0> : vector<64x512xf32>
      kernel.store %zero, %o[%c0, %c0] : vector<64x512xf32>, memref<64x512xf32, #kernel.space<vmem>>
    }
    %a = kernel.load %x[%c0, %c0] : memref<64x512xf32, #kernel.space<vmem>>, vector<64x512xf32>
    %s = kernel.load %o[%c0, %c0] : memref<64x512xf32, #kernel.space<vmem>>, vector<64x512xf32>
    %t = arith.addf %s, %a : vector<64x512xf32>
    kernel.store %t, %o[%c0, %c0] : vector<64x512xf32>, memref<64x512xf32, #kernel.space<vmem>>
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

  func.func @main(%x: tensor<128x1024xf32>, %y: tensor<128x1024xf32>, %z: tensor<128x1536xf32>)
      -> (tensor<128x1024xf32>, tensor<i32>, tensor<128x512xf32>, tensor<i32>) {
    %0 = kernel.call @axpy_body(%x, %y) grid = [2, 2]
        in_specs = [#kernel.block<[64, 512], (i, j) -> (i, j)>, #kernel.block<[64, 512], (i, j) -> (i, j)>]
        out_specs = [#kernel.block<[64, 512], (i, j) -> (i, j)>]
        dimension_semantics = [parallel, parallel]
        : (tensor<128x1024xf32>, tensor<128x1024xf32>) -> tensor<128x1024xf32>
    %two = arith.constant dense<2.0> : tensor<128x1024xf32>
    %m = arith.mulf %x, %two : tensor<128x1024xf32>
    %ref = arith.addf %m, %y : tensor<128x1024xf32>
    %a0 = tensor.cast %0 : tensor<128x1024xf32> to tensor<?x?xf32>
    %r0 = tensor.cast %ref : tensor<128x1024xf32> to tensor<?x?xf32>
    %bad0 = func.call @mismatches(%a0, %r0) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<i32>

    %1 = kernel.call @sum_body(%z) grid = [2, 3]
        in_specs = [#kernel.block<[64, 512], (i, k) -> (i, k)>]
        out_specs = [#kernel.block<[64, 512], (i, k) -> (i, 0)>]
        dimension_semantics = [parallel, arbitrary]
        : (tensor<128x1536xf32>) -> tensor<128x512xf32>
    %e = tensor.expand_shape %z [[0], [1, 2]] output_shape [128, 3, 512] : tensor<128x1536xf32> into tensor<128x3x512xf32>
    %zero = arith.constant 0.0 : f32
    %init = tensor.empty() : tensor<128x512xf32>
    %filled = linalg.fill ins(%zero : f32) outs(%init : tensor<128x512xf32>) -> tensor<128x512xf32>
    %sref = linalg.reduce ins(%e : tensor<128x3x512xf32>) outs(%filled : tensor<128x512xf32>) dimensions = [1]
      (%in: f32, %acc: f32) {
        %s = arith.addf %acc, %in : f32
        linalg.yield %s : f32
      }
    %a1 = tensor.cast %1 : tensor<128x512xf32> to tensor<?x?xf32>
    %r1 = tensor.cast %sref : tensor<128x512xf32> to tensor<?x?xf32>
    %bad1 = func.call @mismatches(%a1, %r1) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<i32>
    return %0, %bad0, %1, %bad1 : tensor<128x1024xf32>, tensor<i32>, tensor<128x512xf32>, tensor<i32>
  }
}
