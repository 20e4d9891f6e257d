// Tests the seed's `sum` reduction: each (8, 128) output block is the sum
// of the four column blocks of its rows, accumulated in the output window,
// which is revisited on consecutive steps along the reduction axis (last,
// `arbitrary`) and zeroed on the first one (`pl.when`, an scf.if). The
// pipelined lowering keeps the block resident and writes it back only when
// the next step's block differs. The result is compared with a linalg.reduce
// in the same module (result2: the number of elements that differ), and
// --check compares the pipelined lowering with the interpret lowering.
// RUN: tessera-run %s --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --random-inputs --kernel-mode=interpret | FileCheck %s --check-prefix=ZERO

// CHECK: result2: i32[] = [0]
// CHECK: check: all 3 results match the single-device reference (kernels in interpret mode)
// ZERO: result2: i32[] = [0]
module attributes {kernel.target = #kernel.target<"v5e">} {
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

  func.func @main(%x: tensor<16x512xf32>) -> (tensor<16x128xf32>, tensor<16x128xf32>, tensor<i32>) {
    %0 = kernel.call @sum_body(%x) grid = [2, 4]
        in_specs = [#kernel.block<[8, 128], (i, k) -> (i, k)>]
        out_specs = [#kernel.block<[8, 128], (i, k) -> (i, 0)>]
        dimension_semantics = [parallel, arbitrary]
        : (tensor<16x512xf32>) -> tensor<16x128xf32>
    %e = tensor.expand_shape %x [[0], [1, 2]] output_shape [16, 4, 128] : tensor<16x512xf32> into tensor<16x4x128xf32>
    %zero = arith.constant 0.0 : f32
    %init = tensor.empty() : tensor<16x128xf32>
    %filled = linalg.fill ins(%zero : f32) outs(%init : tensor<16x128xf32>) -> tensor<16x128xf32>
    %ref = linalg.reduce ins(%e : tensor<16x4x128xf32>) outs(%filled : tensor<16x128xf32>) dimensions = [1]
      (%in: f32, %acc: f32) {
        %s = arith.addf %acc, %in : f32
        linalg.yield %s : f32
      }
    %a = tensor.cast %0 : tensor<16x128xf32> to tensor<?x?xf32>
    %b = tensor.cast %ref : tensor<16x128xf32> to tensor<?x?xf32>
    %bad = func.call @mismatches(%a, %b) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<i32>
    return %0, %ref, %bad : tensor<16x128xf32>, tensor<16x128xf32>, tensor<i32>
  }
}
