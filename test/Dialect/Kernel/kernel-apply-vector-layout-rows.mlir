// RUN: tessera-opt %s --split-input-file --kernel-infer-vector-layout --kernel-apply-vector-layout=rows-per-step=1 | FileCheck %s
// RUN: tessera-opt %s --split-input-file --kernel-infer-vector-layout --kernel-apply-vector-layout=rows-per-step=3 | FileCheck %s --check-prefix=WHOLE
// RUN: not tessera-opt %s --split-input-file --kernel-apply-vector-layout=rows-per-step=-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: kernel-apply-vector-layout: rows-per-step must be at least 0 (0: whole tiles), got -1

// Tests that with rows-per-step=1 the loops over the tiles of a value
// compute one row of a tile per iteration: a chain of elementwise ops that
// ends in a store is one loop nest stepping by 1 row and 128 lanes, on
// (1, 128) vectors. A step that does not divide the tile's 8 rows (3)
// keeps whole tiles.
// CHECK-LABEL: func.func @chain
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %[[C32]] step %[[C1]] {
// CHECK: scf.for %[[L:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[A:.*]] = kernel.load %{{.*}}[%[[R]], %[[L]]] : memref<32x256xf32, #kernel.space<vmem>>, vector<1x128xf32>
// CHECK: %[[E:.*]] = math.exp %[[A]] : vector<1x128xf32>
// CHECK: %[[M:.*]] = arith.mulf %[[E]], %{{.*}} : vector<1x128xf32>
// CHECK: kernel.store %[[M]], %{{.*}}[%[[R]], %[[L]]] : vector<1x128xf32>, memref<32x256xf32, #kernel.space<vmem>>
// CHECK-NOT: vector<8x128xf32>
// CHECK-NOT: vector<32x256xf32>
// CHECK: return
// WHOLE-LABEL: func.func @chain
// WHOLE: math.exp %{{.*}} : vector<8x128xf32>
// WHOLE-NOT: vector<1x128xf32>
// WHOLE: return
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @chain(%x: memref<32x256xf32, #kernel.space<vmem>>, %o: memref<32x256xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %two = arith.constant dense<2.0> : vector<32x256xf32>
    %a = kernel.load %x[%c0, %c0] : memref<32x256xf32, #kernel.space<vmem>>, vector<32x256xf32>
    %e = math.exp %a : vector<32x256xf32>
    %m = arith.mulf %e, %two : vector<32x256xf32>
    kernel.store %m, %o[%c0, %c0] : vector<32x256xf32>, memref<32x256xf32, #kernel.space<vmem>>
    return
  }
  func.func @f(%x: tensor<32x256xf32>) -> tensor<32x256xf32> {
    %0 = kernel.call @chain(%x) grid = [] in_specs = [#kernel.block<full>]
        out_specs = [#kernel.block<full>] : (tensor<32x256xf32>) -> tensor<32x256xf32>
    return %0 : tensor<32x256xf32>
  }
}

// -----

// Tests a row reduction (flash attention's running maximum) with
// rows-per-step=1: per row, a loop over the lane tiles combines (1, 128)
// parts in registers, then one multi_reduction of the row into one element
// of the result's layout buffer; the broadcast back along the lanes reads
// that buffer per row.
// CHECK-LABEL: func.func @row_max
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[P:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<1x128xf32>) {
// CHECK: kernel.load %{{.*}} : memref<16x256xf32, #kernel.space<vmem>>, vector<1x128xf32>
// CHECK: arith.maximumf %{{.*}}, %[[ACC]] : vector<1x128xf32>
// CHECK: vector.multi_reduction <maximumf>, %[[P]], %{{.*}} [1] : vector<1x128xf32> to vector<1xf32>
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%[[R]]] {in_bounds = [true]} : vector<1xf32>, memref<16xf32, #kernel.space<vmem>>
// CHECK: scf.for
// CHECK: vector.broadcast %{{.*}} : vector<1x1xf32> to vector<1x128xf32>
// CHECK: kernel.store %{{.*}} : vector<1x128xf32>, memref<16x128xf32, #kernel.space<vmem>>
// CHECK-NOT: vector<8x128xf32>
// CHECK: return
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @row_max(%x: memref<16x256xf32, #kernel.space<vmem>>, %o: memref<16x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<16x256xf32, #kernel.space<vmem>>, vector<16x256xf32>
    %low = arith.constant dense<0xFF800000> : vector<16xf32>
    %r = vector.multi_reduction <maximumf>, %a, %low [1] : vector<16x256xf32> to vector<16xf32>
    %r2 = vector.shape_cast %r : vector<16xf32> to vector<16x1xf32>
    %b = vector.broadcast %r2 : vector<16x1xf32> to vector<16x128xf32>
    kernel.store %b, %o[%c0, %c0] : vector<16x128xf32>, memref<16x128xf32, #kernel.space<vmem>>
    return
  }
  func.func @f(%x: tensor<16x256xf32>) -> tensor<16x128xf32> {
    %0 = kernel.call @row_max(%x) grid = [] in_specs = [#kernel.block<full>]
        out_specs = [#kernel.block<full>] : (tensor<16x256xf32>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
}

// -----

// Tests that rows-per-step=1 steps bf16 values by rows of their (16, 128)
// tiles, and leaves values of one tile as they are.
// CHECK-LABEL: func.func @bf16
// CHECK: scf.for
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<1x128xbf16>
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<8x128xf32>
// CHECK: return
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @bf16(%x: memref<32x128xbf16, #kernel.space<vmem>>, %y: memref<8x128xf32, #kernel.space<vmem>>,
                  %o: memref<32x128xbf16, #kernel.space<vmem>>, %p: memref<8x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<32x128xbf16, #kernel.space<vmem>>, vector<32x128xbf16>
    %s = arith.addf %a, %a : vector<32x128xbf16>
    kernel.store %s, %o[%c0, %c0] : vector<32x128xbf16>, memref<32x128xbf16, #kernel.space<vmem>>
    %b = kernel.load %y[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    %t = arith.mulf %b, %b : vector<8x128xf32>
    kernel.store %t, %p[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
    return
  }
  func.func @f(%x: tensor<32x128xbf16>, %y: tensor<8x128xf32>) -> (tensor<32x128xbf16>, tensor<8x128xf32>) {
    %0, %1 = kernel.call @bf16(%x, %y) grid = [] in_specs = [#kernel.block<full>, #kernel.block<full>]
        out_specs = [#kernel.block<full>, #kernel.block<full>]
        : (tensor<32x128xbf16>, tensor<8x128xf32>) -> (tensor<32x128xbf16>, tensor<8x128xf32>)
    return %0, %1 : tensor<32x128xbf16>, tensor<8x128xf32>
  }
}
