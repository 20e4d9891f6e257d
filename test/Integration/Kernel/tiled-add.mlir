// Tests the tiled 2-D add (the docs' example) with several block sizes over
// a 2-D grid: (8, 128), (16, 256), the whole array (a trivial window,
// single-buffered by the pipelined lowering), and (16, 128) blocks over a
// (40, 320) array whose last row and column of blocks are partial. Every
// kernel result is compared with a linalg add in the same module (resultN:
// the number of elements that differ), and --check compares the pipelined
// lowering with the interpret lowering.
// RUN: tessera-run %s --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --random-inputs --kernel-mode=interpret | FileCheck %s --check-prefix=ZERO
// CHECK: result0: i32[] = [0]
// ZERO: result0: i32[] = [0]
// CHECK: result1: i32[] = [0]
// ZERO: result1: i32[] = [0]
// CHECK: result2: i32[] = [0]
// ZERO: result2: i32[] = [0]
// CHECK: result3: i32[] = [0]
// ZERO: result3: i32[] = [0]
// CHECK: check: all 4 results match the single-device reference (kernels in interpret mode)
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @add_8x128(%x: memref<8x128xf32, #kernel.space<vmem>>, %y: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    %b = kernel.load %y[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    %s = arith.addf %a, %b : vector<8x128xf32>
    kernel.store %s, %o[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
    return
  }

  func.func @add_16x128(%x: memref<16x128xf32, #kernel.space<vmem>>, %y: memref<16x128xf32, #kernel.space<vmem>>, %o: memref<16x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<16x128xf32, #kernel.space<vmem>>, vector<16x128xf32>
    %b = kernel.load %y[%c0, %c0] : memref<16x128xf32, #kernel.space<vmem>>, vector<16x128xf32>
    %s = arith.addf %a, %b : vector<16x128xf32>
    kernel.store %s, %o[%c0, %c0] : vector<16x128xf32>, memref<16x128xf32, #kernel.space<vmem>>
    return
  }

  func.func @add_16x256(%x: memref<16x256xf32, #kernel.space<vmem>>, %y: memref<16x256xf32, #kernel.space<vmem>>, %o: memref<16x256xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<16x256xf32, #kernel.space<vmem>>, vector<16x256xf32>
    %b = kernel.load %y[%c0, %c0] : memref<16x256xf32, #kernel.space<vmem>>, vector<16x256xf32>
    %s = arith.addf %a, %b : vector<16x256xf32>
    kernel.store %s, %o[%c0, %c0] : vector<16x256xf32>, memref<16x256xf32, #kernel.space<vmem>>
    return
  }

  func.func @add_32x256(%x: memref<32x256xf32, #kernel.space<vmem>>, %y: memref<32x256xf32, #kernel.space<vmem>>, %o: memref<32x256xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<32x256xf32, #kernel.space<vmem>>, vector<32x256xf32>
    %b = kernel.load %y[%c0, %c0] : memref<32x256xf32, #kernel.space<vmem>>, vector<32x256xf32>
    %s = arith.addf %a, %b : vector<32x256xf32>
    kernel.store %s, %o[%c0, %c0] : vector<32x256xf32>, memref<32x256xf32, #kernel.space<vmem>>
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

  func.func @main(%x0: tensor<32x256xf32>, %y0: tensor<32x256xf32>, %x1: tensor<32x256xf32>, %y1: tensor<32x256xf32>, %x2: tensor<32x256xf32>, %y2: tensor<32x256xf32>, %x3: tensor<40x320xf32>, %y3: tensor<40x320xf32>) -> (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) {
    %k0 = kernel.call @add_8x128(%x0, %y0) grid = [4, 2]
        in_specs = [#kernel.block<[8, 128], (i, j) -> (i, j)>, #kernel.block<[8, 128], (i, j) -> (i, j)>]
        out_specs = [#kernel.block<[8, 128], (i, j) -> (i, j)>]
        dimension_semantics = [parallel, parallel]
        : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<32x256xf32>
    %r0 = arith.addf %x0, %y0 : tensor<32x256xf32>
    %a0 = tensor.cast %k0 : tensor<32x256xf32> to tensor<?x?xf32>
    %b0 = tensor.cast %r0 : tensor<32x256xf32> to tensor<?x?xf32>
    %bad0 = func.call @mismatches(%a0, %b0) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<i32>
    %k1 = kernel.call @add_16x256(%x1, %y1) grid = [2, 1]
        in_specs = [#kernel.block<[16, 256], (i, j) -> (i, j)>, #kernel.block<[16, 256], (i, j) -> (i, j)>]
        out_specs = [#kernel.block<[16, 256], (i, j) -> (i, j)>]
        dimension_semantics = [parallel, parallel]
        : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<32x256xf32>
    %r1 = arith.addf %x1, %y1 : tensor<32x256xf32>
    %a1 = tensor.cast %k1 : tensor<32x256xf32> to tensor<?x?xf32>
    %b1 = tensor.cast %r1 : tensor<32x256xf32> to tensor<?x?xf32>
    %bad1 = func.call @mismatches(%a1, %b1) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<i32>
    %k2 = kernel.call @add_32x256(%x2, %y2) grid = [1, 1]
        in_specs = [#kernel.block<[32, 256], (i, j) -> (i, j)>, #kernel.block<[32, 256], (i, j) -> (i, j)>]
        out_specs = [#kernel.block<[32, 256], (i, j) -> (i, j)>]
        dimension_semantics = [parallel, parallel]
        : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<32x256xf32>
    %r2 = arith.addf %x2, %y2 : tensor<32x256xf32>
    %a2 = tensor.cast %k2 : tensor<32x256xf32> to tensor<?x?xf32>
    %b2 = tensor.cast %r2 : tensor<32x256xf32> to tensor<?x?xf32>
    %bad2 = func.call @mismatches(%a2, %b2) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<i32>
    %k3 = kernel.call @add_16x128(%x3, %y3) grid = [3, 3]
        in_specs = [#kernel.block<[16, 128], (i, j) -> (i, j)>, #kernel.block<[16, 128], (i, j) -> (i, j)>]
        out_specs = [#kernel.block<[16, 128], (i, j) -> (i, j)>]
        dimension_semantics = [parallel, parallel]
        : (tensor<40x320xf32>, tensor<40x320xf32>) -> tensor<40x320xf32>
    %r3 = arith.addf %x3, %y3 : tensor<40x320xf32>
    %a3 = tensor.cast %k3 : tensor<40x320xf32> to tensor<?x?xf32>
    %b3 = tensor.cast %r3 : tensor<40x320xf32> to tensor<?x?xf32>
    %bad3 = func.call @mismatches(%a3, %b3) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<i32>
    return %bad0, %bad1, %bad2, %bad3 : tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
  }
}
