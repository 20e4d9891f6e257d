// Tests the seed's matmul with a fused activation over an (i, j, k) grid:
// an f32 accumulator in VMEM scratch, zeroed on the first k step (Pallas's
// `pl.when(pl.program_id(2) == 0)`, an scf.if), accumulated with
// linalg.matmul on the blocks, and written to the output through a ReLU on
// the last k step. The output block is revisited along k, consecutively.
// The result is compared with linalg.matmul + max(., 0) in the same module
// (result2: the number of elements that differ by more than 1e-4), and
// --check compares the pipelined lowering with the interpret lowering.
// RUN: tessera-run %s --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --random-inputs --kernel-mode=interpret | FileCheck %s --check-prefix=ZERO

// CHECK: result2: i32[] = [0]
// CHECK: check: all 3 results match the single-device reference (kernels in interpret mode)
// ZERO: result2: i32[] = [0]
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @matmul_relu_body(%x: memref<16x128xf32, #kernel.space<vmem>>,
                              %y: memref<128x128xf32, #kernel.space<vmem>>,
                              %o: memref<16x128xf32, #kernel.space<vmem>>,
                              %acc: memref<16x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %k = kernel.program_id 2
    %nk = kernel.num_programs 2
    %first = arith.cmpi eq, %k, %c0 : index
    scf.if %first {
      %zero = arith.constant dense<0.0> : vector<16x128xf32>
      kernel.store %zero, %acc[%c0, %c0] : vector<16x128xf32>, memref<16x128xf32, #kernel.space<vmem>>
    }
    linalg.matmul ins(%x, %y : memref<16x128xf32, #kernel.space<vmem>>, memref<128x128xf32, #kernel.space<vmem>>)
                  outs(%acc : memref<16x128xf32, #kernel.space<vmem>>)
    %lastk = arith.subi %nk, %c1 : index
    %last = arith.cmpi eq, %k, %lastk : index
    scf.if %last {
      %v = kernel.load %acc[%c0, %c0] : memref<16x128xf32, #kernel.space<vmem>>, vector<16x128xf32>
      %zero = arith.constant dense<0.0> : vector<16x128xf32>
      %relu = arith.maximumf %v, %zero : vector<16x128xf32>
      kernel.store %relu, %o[%c0, %c0] : vector<16x128xf32>, memref<16x128xf32, #kernel.space<vmem>>
    }
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
      %rel = arith.constant 1.0e-4 : f32
      %t = arith.mulf %ay, %rel : f32
      %tol = arith.addf %t, %rel : f32
      %isbad = arith.cmpf ugt, %ad, %tol : f32
      %inc = arith.extui %isbad : i1 to i32
      %sum = arith.addi %n, %inc : i32
      linalg.yield %sum : i32
    } -> tensor<i32>
    return %bad : tensor<i32>
  }

  func.func @main(%x: tensor<32x384xf32>, %y: tensor<384x256xf32>) -> (tensor<32x256xf32>, tensor<32x256xf32>, tensor<i32>) {
    %0 = kernel.call @matmul_relu_body(%x, %y) grid = [2, 2, 3]
        cost_estimate = #kernel.cost<flops = 6291456, transcendentals = 0, bytes_accessed = 475136>
        in_specs = [#kernel.block<[16, 128], (i, j, k) -> (i, k)>,
                    #kernel.block<[128, 128], (i, j, k) -> (k, j)>]
        out_specs = [#kernel.block<[16, 128], (i, j, k) -> (i, j)>]
        scratch = [memref<16x128xf32, #kernel.space<vmem>>]
        dimension_semantics = [parallel, parallel, arbitrary]
        : (tensor<32x384xf32>, tensor<384x256xf32>) -> tensor<32x256xf32>
    %zero = arith.constant 0.0 : f32
    %init = tensor.empty() : tensor<32x256xf32>
    %filled = linalg.fill ins(%zero : f32) outs(%init : tensor<32x256xf32>) -> tensor<32x256xf32>
    %mm = linalg.matmul ins(%x, %y : tensor<32x384xf32>, tensor<384x256xf32>) outs(%filled : tensor<32x256xf32>) -> tensor<32x256xf32>
    %zeros = arith.constant dense<0.0> : tensor<32x256xf32>
    %ref = arith.maximumf %mm, %zeros : tensor<32x256xf32>
    %a = tensor.cast %0 : tensor<32x256xf32> to tensor<?x?xf32>
    %b = tensor.cast %ref : tensor<32x256xf32> to tensor<?x?xf32>
    %bad = func.call @mismatches(%a, %b) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<i32>
    return %0, %ref, %bad : tensor<32x256xf32>, tensor<32x256xf32>, tensor<i32>
  }
}
