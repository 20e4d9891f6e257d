// RUN: tessera-opt %s --split-input-file --kernel-infer-vector-layout --kernel-apply-vector-layout | FileCheck %s

// Tests that kernel-apply-vector-layout rewrites every op of a kernel body
// on a vector of several tiles onto tiles of its layout, one case per op
// family and element type: loops over tiles (not unrolled), tiles computed
// where their value is used, layout buffers (the arguments of one
// kernel.run_scoped around the body) for values used more than once or by
// ops that need memory.

// Tests an f32 chain (Pallas's `o_ref[...] = x_ref[...] * 2 + y_ref[...]`):
// one loop nest over the (8, 128) tiles of the stored value, each tile
// loaded, computed and stored in registers; no layout buffer.
// CHECK-LABEL: func.func @chain_f32
// CHECK-NOT: kernel.run_scoped
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[A:.*]] = kernel.load %{{.*}}[%[[R]], %[[C]]] : memref<32x256xf32, #kernel.space<vmem>>, vector<8x128xf32>
// CHECK: %[[TWO:.*]] = arith.constant dense<2.000000e+00> : vector<8x128xf32>
// CHECK: %[[M:.*]] = arith.mulf %[[A]], %[[TWO]] : vector<8x128xf32>
// CHECK: %[[B:.*]] = kernel.load %{{.*}}[%[[R]], %[[C]]] : memref<32x256xf32, #kernel.space<vmem>>, vector<8x128xf32>
// CHECK: %[[S:.*]] = arith.addf %[[M]], %[[B]] : vector<8x128xf32>
// CHECK: kernel.store %[[S]], %{{.*}}[%[[R]], %[[C]]] : vector<8x128xf32>, memref<32x256xf32, #kernel.space<vmem>>
// CHECK-NOT: vector<32x256xf32>
// CHECK-NOT: kernel.out_layouts
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @chain_f32(%x: memref<32x256xf32, #kernel.space<vmem>>, %y: memref<32x256xf32, #kernel.space<vmem>>,
                       %o: memref<32x256xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %two = arith.constant dense<2.0> : vector<32x256xf32>
    %a = kernel.load %x[%c0, %c0] : memref<32x256xf32, #kernel.space<vmem>>, vector<32x256xf32>
    %b = kernel.load %y[%c0, %c0] : memref<32x256xf32, #kernel.space<vmem>>, vector<32x256xf32>
    %m = arith.mulf %a, %two : vector<32x256xf32>
    %s = arith.addf %m, %b : vector<32x256xf32>
    kernel.store %s, %o[%c0, %c0] : vector<32x256xf32>, memref<32x256xf32, #kernel.space<vmem>>
    return
  }
  func.func @f(%x: tensor<32x256xf32>, %y: tensor<32x256xf32>) -> tensor<32x256xf32> {
    %0 = kernel.call @chain_f32(%x, %y) grid = [] in_specs = [#kernel.block<full>, #kernel.block<full>]
        out_specs = [#kernel.block<full>] : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<32x256xf32>
    return %0 : tensor<32x256xf32>
  }
}

// -----

// Tests packed types: a bf16 chain on (16, 128) tiles and an int8 one on
// (32, 128) tiles; a cast runs on the tiles of its result (bf16 to f32:
// (8, 128) f32 tiles from (8, 128) bf16 reads; f32 to bf16: (16, 128)).
// CHECK-LABEL: func.func @packed
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c16 {
// CHECK: kernel.load {{.*}} : memref<32x256xbf16, #kernel.space<vmem>>, vector<16x128xbf16>
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<16x128xbf16>
// CHECK: kernel.store {{.*}} : vector<16x128xbf16>, memref<32x256xbf16, #kernel.space<vmem>>
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c32{{.*}} {
// CHECK: kernel.load {{.*}} : memref<64x256xi8, #kernel.space<vmem>>, vector<32x128xi8>
// CHECK: arith.muli %{{.*}}, %{{.*}} : vector<32x128xi8>
// CHECK: kernel.store {{.*}} : vector<32x128xi8>, memref<64x256xi8, #kernel.space<vmem>>
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c8 {
// CHECK: %[[H:.*]] = kernel.load {{.*}} : memref<32x256xbf16, #kernel.space<vmem>>, vector<8x128xbf16>
// CHECK: arith.extf %[[H]] : vector<8x128xbf16> to vector<8x128xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c16{{.*}} {
// CHECK: %[[F:.*]] = kernel.load {{.*}} : memref<32x256xf32, #kernel.space<vmem>>, vector<16x128xf32>
// CHECK: arith.truncf %[[F]] : vector<16x128xf32> to vector<16x128xbf16>
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @packed(%h: memref<32x256xbf16, #kernel.space<vmem>>, %q: memref<64x256xi8, #kernel.space<vmem>>,
                    %f: memref<32x256xf32, #kernel.space<vmem>>, %oh: memref<32x256xbf16, #kernel.space<vmem>>,
                    %oq: memref<64x256xi8, #kernel.space<vmem>>, %of: memref<32x256xf32, #kernel.space<vmem>>,
                    %ot: memref<32x256xbf16, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %h[%c0, %c0] : memref<32x256xbf16, #kernel.space<vmem>>, vector<32x256xbf16>
    %a2 = arith.addf %a, %a : vector<32x256xbf16>
    kernel.store %a2, %oh[%c0, %c0] : vector<32x256xbf16>, memref<32x256xbf16, #kernel.space<vmem>>
    %b = kernel.load %q[%c0, %c0] : memref<64x256xi8, #kernel.space<vmem>>, vector<64x256xi8>
    %b2 = arith.muli %b, %b : vector<64x256xi8>
    kernel.store %b2, %oq[%c0, %c0] : vector<64x256xi8>, memref<64x256xi8, #kernel.space<vmem>>
    %c = kernel.load %h[%c0, %c0] : memref<32x256xbf16, #kernel.space<vmem>>, vector<32x256xbf16>
    %e = arith.extf %c : vector<32x256xbf16> to vector<32x256xf32>
    kernel.store %e, %of[%c0, %c0] : vector<32x256xf32>, memref<32x256xf32, #kernel.space<vmem>>
    %d = kernel.load %f[%c0, %c0] : memref<32x256xf32, #kernel.space<vmem>>, vector<32x256xf32>
    %t = arith.truncf %d : vector<32x256xf32> to vector<32x256xbf16>
    kernel.store %t, %ot[%c0, %c0] : vector<32x256xbf16>, memref<32x256xbf16, #kernel.space<vmem>>
    return
  }
  func.func @f(%h: tensor<32x256xbf16>, %q: tensor<64x256xi8>, %f: tensor<32x256xf32>)
      -> (tensor<32x256xbf16>, tensor<64x256xi8>, tensor<32x256xf32>, tensor<32x256xbf16>) {
    %0:4 = kernel.call @packed(%h, %q, %f) grid = [] in_specs = [#kernel.block<full>, #kernel.block<full>, #kernel.block<full>]
        out_specs = [#kernel.block<full>, #kernel.block<full>, #kernel.block<full>, #kernel.block<full>]
        : (tensor<32x256xbf16>, tensor<64x256xi8>, tensor<32x256xf32>) -> (tensor<32x256xbf16>, tensor<64x256xi8>, tensor<32x256xf32>, tensor<32x256xbf16>)
    return %0#0, %0#1, %0#2, %0#3 : tensor<32x256xbf16>, tensor<64x256xi8>, tensor<32x256xf32>, tensor<32x256xbf16>
  }
}

// -----

// Tests broadcasts: of a scalar, of a row (1, 256), of a column (64, 1) and
// of a rank-1 vector, each tile broadcast from the matching part of its
// source.
// CHECK-LABEL: func.func @broadcasts
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %c8 {
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %c128 {
// CHECK: %[[COL:.*]] = kernel.load %{{.*}}[%[[R]], %{{.*}}] : memref<64x1xf32, #kernel.space<vmem>>, vector<8x1xf32>
// CHECK: vector.broadcast %[[COL]] : vector<8x1xf32> to vector<8x128xf32>
// CHECK: %[[ROW:.*]] = kernel.load %{{.*}}[%{{.*}}, %[[C]]] : memref<1x256xf32, #kernel.space<vmem>>, vector<1x128xf32>
// CHECK: vector.broadcast %[[ROW]] : vector<1x128xf32> to vector<8x128xf32>
// CHECK: %[[VEC:.*]] = kernel.load %{{.*}}[%{{.*}}, %[[C]]] : memref<1x256xf32, #kernel.space<vmem>>, vector<128xf32>
// CHECK: vector.broadcast %[[VEC]] : vector<128xf32> to vector<8x128xf32>
// CHECK: vector.broadcast %{{.*}} : f32 to vector<8x128xf32>
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @broadcasts(%col: memref<64x1xf32, #kernel.space<vmem>>, %row: memref<1x256xf32, #kernel.space<vmem>>,
                        %o: memref<64x256xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %col[%c0, %c0] : memref<64x1xf32, #kernel.space<vmem>>, vector<64x1xf32>
    %b = kernel.load %row[%c0, %c0] : memref<1x256xf32, #kernel.space<vmem>>, vector<1x256xf32>
    %v = kernel.load %row[%c0, %c0] : memref<1x256xf32, #kernel.space<vmem>>, vector<256xf32>
    %s = kernel.load %col[%c0, %c0] : memref<64x1xf32, #kernel.space<vmem>>, f32
    %ab = vector.broadcast %a : vector<64x1xf32> to vector<64x256xf32>
    %bb = vector.broadcast %b : vector<1x256xf32> to vector<64x256xf32>
    %vb = vector.broadcast %v : vector<256xf32> to vector<64x256xf32>
    %sb = vector.broadcast %s : f32 to vector<64x256xf32>
    %t1 = arith.addf %ab, %bb : vector<64x256xf32>
    %t2 = arith.addf %t1, %vb : vector<64x256xf32>
    %t3 = arith.addf %t2, %sb : vector<64x256xf32>
    kernel.store %t3, %o[%c0, %c0] : vector<64x256xf32>, memref<64x256xf32, #kernel.space<vmem>>
    return
  }
  func.func @f(%col: tensor<64x1xf32>, %row: tensor<1x256xf32>) -> tensor<64x256xf32> {
    %0 = kernel.call @broadcasts(%col, %row) grid = [] in_specs = [#kernel.block<full>, #kernel.block<full>]
        out_specs = [#kernel.block<full>] : (tensor<64x1xf32>, tensor<1x256xf32>) -> tensor<64x256xf32>
    return %0 : tensor<64x256xf32>
  }
}

// -----

// Tests reductions: per tile of the kept dimensions, a loop over the
// reduced tiles combines them elementwise in registers (from the neutral
// element), then one multi_reduction of the tile with its part of the
// accumulator; row sums go into a layout buffer, column maxima too, a
// whole-block sum and a rank-1 vector.reduction to scalars.
// CHECK-LABEL: func.func @reductions
// CHECK: kernel.run_scoped (%[[ROWS:.*]]: memref<32xf32, #kernel.space<vmem>>, %{{.*}}: memref<32xf32, #kernel.space<vmem>>, %[[COLS:.*]]: memref<256xf32, #kernel.space<vmem>>)
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %c8 {
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8x128xf32>
// CHECK: %[[SUM:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c128{{.*}} iter_args(%[[P:.*]] = %[[ZERO]]) -> (vector<8x128xf32>) {
// CHECK: %[[T:.*]] = kernel.load
// CHECK: arith.addf %[[T]], %[[P]] : vector<8x128xf32>
// CHECK: vector.multi_reduction <add>, %[[SUM]], %{{.*}} [1] : vector<8x128xf32> to vector<8xf32>
// CHECK: vector.transfer_write %{{.*}}, %[[ROWS]][%[[R]]]
// CHECK: arith.constant dense<0xFF800000> : vector<8x128xf32>
// CHECK: arith.maximumf
// CHECK: vector.multi_reduction <maximumf>, %{{.*}}, %{{.*}} [0] : vector<8x128xf32> to vector<128xf32>
// CHECK: vector.transfer_write %{{.*}}, %[[COLS]]
// CHECK: vector.multi_reduction <add>, %{{.*}}, %{{.*}} [0, 1] : vector<8x128xf32> to f32
// CHECK: vector.reduction <mul>, %{{.*}}, %{{.*}} : vector<128xf32> into f32
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @reductions(%x: memref<32x256xf32, #kernel.space<vmem>>, %o: memref<32x1xf32, #kernel.space<vmem>>,
                        %p: memref<8x256xf32, #kernel.space<vmem>>, %s: memref<8x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<32x256xf32, #kernel.space<vmem>>, vector<32x256xf32>
    %zr = arith.constant dense<0.0> : vector<32xf32>
    %rows = vector.multi_reduction <add>, %a, %zr [1] : vector<32x256xf32> to vector<32xf32>
    %rows2 = vector.shape_cast %rows : vector<32xf32> to vector<32x1xf32>
    kernel.store %rows2, %o[%c0, %c0] : vector<32x1xf32>, memref<32x1xf32, #kernel.space<vmem>>
    %low = arith.constant dense<0xFF800000> : vector<256xf32>
    %cols = vector.multi_reduction <maximumf>, %a, %low [0] : vector<32x256xf32> to vector<256xf32>
    %colsb = vector.broadcast %cols : vector<256xf32> to vector<8x256xf32>
    kernel.store %colsb, %p[%c0, %c0] : vector<8x256xf32>, memref<8x256xf32, #kernel.space<vmem>>
    %zs = arith.constant 0.0 : f32
    %total = vector.multi_reduction <add>, %a, %zs [0, 1] : vector<32x256xf32> to f32
    %v = kernel.load %x[%c0, %c0] : memref<32x256xf32, #kernel.space<vmem>>, vector<256xf32>
    %prod = vector.reduction <mul>, %v, %total : vector<256xf32> into f32
    %pb = vector.broadcast %prod : f32 to vector<8x128xf32>
    kernel.store %pb, %s[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
    return
  }
  func.func @f(%x: tensor<32x256xf32>) -> (tensor<32x1xf32>, tensor<8x256xf32>, tensor<8x128xf32>) {
    %0:3 = kernel.call @reductions(%x) grid = [] in_specs = [#kernel.block<full>]
        out_specs = [#kernel.block<full>, #kernel.block<full>, #kernel.block<full>]
        : (tensor<32x256xf32>) -> (tensor<32x1xf32>, tensor<8x256xf32>, tensor<8x128xf32>)
    return %0#0, %0#1, %0#2 : tensor<32x1xf32>, tensor<8x256xf32>, tensor<8x128xf32>
  }
}

// -----

// Tests contractions: a linalg.generic of the contraction's maps on the
// operands' buffers (the blocks they were loaded from, at constant indices
// inside them) into an accumulator buffer that starts as the accumulator;
// f32, bf16 into f32 (extended in the body), int8 into int32 (sign
// extended), with the right operand's maps transposed.
// CHECK-LABEL: func.func @contractions
// CHECK: kernel.run_scoped (%[[F:.*]]: memref<8x128xf32, #kernel.space<vmem>>, %[[B:.*]]: memref<16x128xf32, #kernel.space<vmem>>, %[[I:.*]]: memref<32x128xi32, #kernel.space<vmem>>)
// CHECK: %[[XV:.*]] = memref.subview %{{.*}}[0, 0] [8, 128] [1, 1] : memref<8x128xf32, #kernel.space<vmem>> to memref<8x128xf32, strided<[128, 1]>, #kernel.space<vmem>>
// CHECK: %[[YV:.*]] = memref.subview %{{.*}}[0, 0] [128, 128] [1, 1]
// CHECK: vector.transfer_write %{{.*}}, %[[F]]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[XV]], %[[YV]] : {{.*}}) outs(%[[F]] : memref<8x128xf32, #kernel.space<vmem>>)
// CHECK: ^bb0(%[[L:.*]]: f32, %[[R:.*]]: f32, %[[A:.*]]: f32):
// CHECK: %[[M:.*]] = arith.mulf %[[L]], %[[R]] : f32
// CHECK: arith.addf %[[M]], %[[A]] : f32
// CHECK: vector.transfer_read %[[F]]
// CHECK: kernel.store
// CHECK: linalg.generic {{.*}} outs(%[[B]] : memref<16x128xf32, #kernel.space<vmem>>)
// CHECK: ^bb0(%[[L:.*]]: bf16, %[[R:.*]]: bf16, %[[A:.*]]: f32):
// CHECK: arith.extf %[[L]] : bf16 to f32
// CHECK: arith.extf %[[R]] : bf16 to f32
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[NT:.*]], #{{.*}}], {{.*}} outs(%[[I]] : memref<32x128xi32, #kernel.space<vmem>>)
// CHECK: ^bb0(%[[L:.*]]: i8, %[[R:.*]]: i8, %[[A:.*]]: i32):
// CHECK: arith.extsi %[[L]] : i8 to i32
// CHECK: arith.extsi %[[R]] : i8 to i32
// CHECK: arith.muli
// CHECK: arith.addi
// CHECK-NOT: vector.contract
#mk = affine_map<(i, j, k) -> (i, k)>
#kn = affine_map<(i, j, k) -> (k, j)>
#nk = affine_map<(i, j, k) -> (j, k)>
#mn = affine_map<(i, j, k) -> (i, j)>
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @contractions(%x: memref<8x128xf32, #kernel.space<vmem>>, %y: memref<128x128xf32, #kernel.space<vmem>>,
                          %hx: memref<16x128xbf16, #kernel.space<vmem>>, %hy: memref<128x128xbf16, #kernel.space<vmem>>,
                          %qx: memref<32x128xi8, #kernel.space<vmem>>, %qy: memref<128x128xi8, #kernel.space<vmem>>,
                          %o: memref<8x128xf32, #kernel.space<vmem>>, %oh: memref<16x128xf32, #kernel.space<vmem>>,
                          %oq: memref<32x128xi32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    %b = kernel.load %y[%c0, %c0] : memref<128x128xf32, #kernel.space<vmem>>, vector<128x128xf32>
    %zf = arith.constant dense<0.0> : vector<8x128xf32>
    %r = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>}
        %a, %b, %zf : vector<8x128xf32>, vector<128x128xf32> into vector<8x128xf32>
    kernel.store %r, %o[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
    %ha = kernel.load %hx[%c0, %c0] : memref<16x128xbf16, #kernel.space<vmem>>, vector<16x128xbf16>
    %hb = kernel.load %hy[%c0, %c0] : memref<128x128xbf16, #kernel.space<vmem>>, vector<128x128xbf16>
    %zh = arith.constant dense<0.0> : vector<16x128xf32>
    %hr = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>}
        %ha, %hb, %zh : vector<16x128xbf16>, vector<128x128xbf16> into vector<16x128xf32>
    kernel.store %hr, %oh[%c0, %c0] : vector<16x128xf32>, memref<16x128xf32, #kernel.space<vmem>>
    %qa = kernel.load %qx[%c0, %c0] : memref<32x128xi8, #kernel.space<vmem>>, vector<32x128xi8>
    %qb = kernel.load %qy[%c0, %c0] : memref<128x128xi8, #kernel.space<vmem>>, vector<128x128xi8>
    %zq = arith.constant dense<0> : vector<32x128xi32>
    %qr = vector.contract {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>}
        %qa, %qb, %zq : vector<32x128xi8>, vector<128x128xi8> into vector<32x128xi32>
    kernel.store %qr, %oq[%c0, %c0] : vector<32x128xi32>, memref<32x128xi32, #kernel.space<vmem>>
    return
  }
  func.func @f(%x: tensor<8x128xf32>, %y: tensor<128x128xf32>, %hx: tensor<16x128xbf16>, %hy: tensor<128x128xbf16>,
               %qx: tensor<32x128xi8>, %qy: tensor<128x128xi8>) -> (tensor<8x128xf32>, tensor<16x128xf32>, tensor<32x128xi32>) {
    %0:3 = kernel.call @contractions(%x, %y, %hx, %hy, %qx, %qy) grid = []
        in_specs = [#kernel.block<full>, #kernel.block<full>, #kernel.block<full>, #kernel.block<full>, #kernel.block<full>, #kernel.block<full>]
        out_specs = [#kernel.block<full>, #kernel.block<full>, #kernel.block<full>]
        : (tensor<8x128xf32>, tensor<128x128xf32>, tensor<16x128xbf16>, tensor<128x128xbf16>, tensor<32x128xi8>, tensor<128x128xi8>)
          -> (tensor<8x128xf32>, tensor<16x128xf32>, tensor<32x128xi32>)
    return %0#0, %0#1, %0#2 : tensor<8x128xf32>, tensor<16x128xf32>, tensor<32x128xi32>
  }
}

// -----

// Tests the memory ops: a transpose (linalg.transpose between layout
// buffers), a shape cast (a collapsed and expanded view of the operand's
// buffer), an extract of a row and an extract_strided_slice (views), and an
// insert_strided_slice (a copy of the destination with the source stored
// into a view of it).
// CHECK-LABEL: func.func @memory_ops
// CHECK: kernel.run_scoped (%[[A:.*]]: memref<16x256xf32, #kernel.space<vmem>>, %[[T:.*]]: memref<256x16xf32, #kernel.space<vmem>>, %[[D:.*]]: memref<16x256xf32, #kernel.space<vmem>>)
// CHECK: vector.transfer_write %{{.*}}, %[[A]]
// CHECK: linalg.transpose ins(%[[A]] : memref<16x256xf32, #kernel.space<vmem>>) outs(%[[T]] : memref<256x16xf32, #kernel.space<vmem>>) permutation = [1, 0]
// CHECK: vector.transfer_read %[[T]]{{.*}} : memref<256x16xf32, #kernel.space<vmem>>, vector<8x16xf32>
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %[[A]] {{\[}}[0, 1]] : memref<16x256xf32, #kernel.space<vmem>> into memref<4096xf32, #kernel.space<vmem>>
// CHECK: %[[CAST:.*]] = memref.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [32, 128] : memref<4096xf32, #kernel.space<vmem>> into memref<32x128xf32, #kernel.space<vmem>>
// CHECK: vector.transfer_read %[[CAST]]
// CHECK: %[[ROW:.*]] = memref.subview %[[A]][3, 0] [1, 256] [1, 1] : memref<16x256xf32, #kernel.space<vmem>> to memref<256xf32, strided<[1], offset: 768>, #kernel.space<vmem>>
// CHECK: %[[SLICE:.*]] = memref.subview %[[A]][8, 128] [8, 128] [1, 1]
// CHECK: %[[S:.*]] = vector.transfer_read %[[SLICE]]{{.*}} : memref<8x128xf32, strided<[256, 1], offset: 2176>, #kernel.space<vmem>>, vector<8x128xf32>
// CHECK: vector.transfer_write %{{.*}}, %[[D]]
// CHECK: %[[PART:.*]] = memref.subview %[[D]][0, 0] [8, 128] [1, 1]
// CHECK: vector.transfer_write %[[S]], %[[PART]]
// CHECK: vector.transfer_read %[[D]]
// CHECK: vector.transfer_read %[[ROW]]
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @memory_ops(%x: memref<16x256xf32, #kernel.space<vmem>>, %o: memref<256x16xf32, #kernel.space<vmem>>,
                        %p: memref<32x128xf32, #kernel.space<vmem>>, %r: memref<16x256xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<16x256xf32, #kernel.space<vmem>>, vector<16x256xf32>
    %t = vector.transpose %a, [1, 0] : vector<16x256xf32> to vector<256x16xf32>
    kernel.store %t, %o[%c0, %c0] : vector<256x16xf32>, memref<256x16xf32, #kernel.space<vmem>>
    %s = vector.shape_cast %a : vector<16x256xf32> to vector<32x128xf32>
    kernel.store %s, %p[%c0, %c0] : vector<32x128xf32>, memref<32x128xf32, #kernel.space<vmem>>
    %row = vector.extract %a[3] : vector<256xf32> from vector<16x256xf32>
    %sl = vector.extract_strided_slice %a {offsets = [8, 128], sizes = [8, 128], strides = [1, 1]} : vector<16x256xf32> to vector<8x128xf32>
    %one = arith.constant dense<1.0> : vector<16x256xf32>
    %ins = vector.insert_strided_slice %sl, %one {offsets = [0, 0], strides = [1, 1]} : vector<8x128xf32> into vector<16x256xf32>
    %rb = vector.broadcast %row : vector<256xf32> to vector<16x256xf32>
    %sum = arith.addf %ins, %rb : vector<16x256xf32>
    kernel.store %sum, %r[%c0, %c0] : vector<16x256xf32>, memref<16x256xf32, #kernel.space<vmem>>
    return
  }
  func.func @f(%x: tensor<16x256xf32>) -> (tensor<256x16xf32>, tensor<32x128xf32>, tensor<16x256xf32>) {
    %0:3 = kernel.call @memory_ops(%x) grid = [] in_specs = [#kernel.block<full>]
        out_specs = [#kernel.block<full>, #kernel.block<full>, #kernel.block<full>]
        : (tensor<16x256xf32>) -> (tensor<256x16xf32>, tensor<32x128xf32>, tensor<16x256xf32>)
    return %0#0, %0#1, %0#2 : tensor<256x16xf32>, tensor<32x128xf32>, tensor<16x256xf32>
  }
}

// -----

// Tests masks and iotas: an iota (vector.step) compared with a bound,
// each tile's iota offset by the tile's position; the comparison, used
// twice, is kept in a layout buffer of bytes (i8); a mask from
// vector.create_mask, each tile's bounds moved to it; a select and masked
// stores.
// CHECK-LABEL: func.func @masks
// CHECK: kernel.run_scoped (%[[M:.*]]: memref<16x256xi8, #kernel.space<vmem>>)
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %c8 {
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %c128 {
// CHECK: %[[STEP:.*]] = vector.step : vector<128xindex>
// CHECK: %[[OFF:.*]] = vector.broadcast %[[C]] : index to vector<128xindex>
// CHECK: arith.addi %[[STEP]], %[[OFF]] : vector<128xindex>
// CHECK: %[[LT:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : vector<8x128xindex>
// CHECK: %[[BYTES:.*]] = arith.extui %[[LT]] : vector<8x128xi1> to vector<8x128xi8>
// CHECK: vector.transfer_write %[[BYTES]], %[[M]][%[[R]], %[[C]]]
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %c8{{.*}} {
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %c128{{.*}} {
// CHECK: %[[READ:.*]] = vector.transfer_read %[[M]][%[[R]], %[[C]]]{{.*}} : memref<16x256xi8, #kernel.space<vmem>>, vector<8x128xi8>
// CHECK: %[[SEL:.*]] = arith.trunci %[[READ]] : vector<8x128xi8> to vector<8x128xi1>
// CHECK: arith.select %[[SEL]]
// CHECK: %[[B0:.*]] = arith.subi %{{.*}}, %[[R]] : index
// CHECK: %[[B1:.*]] = arith.subi %{{.*}}, %[[C]] : index
// CHECK: %[[MT:.*]] = vector.create_mask %[[B0]], %[[B1]] : vector<8x128xi1>
// CHECK: kernel.store %{{.*}}, %{{.*}}[%[[R]], %[[C]]] mask %[[MT]] : vector<8x128xf32>
// CHECK: vector.transfer_read %[[M]]
// CHECK: kernel.store %{{.*}} mask
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @masks(%x: memref<16x256xf32, #kernel.space<vmem>>, %o: memref<16x256xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %c100 = arith.constant 100 : index
    %i = kernel.program_id 0
    %rows = arith.addi %i, %c100 : index
    %m = vector.create_mask %rows, %c100 : vector<16x256xi1>
    %a = kernel.load %x[%c0, %c0] : memref<16x256xf32, #kernel.space<vmem>>, vector<16x256xf32>
    %iota = vector.step : vector<256xindex>
    %iota2 = vector.broadcast %iota : vector<256xindex> to vector<16x256xindex>
    %bound = arith.constant dense<200> : vector<16x256xindex>
    %lt = arith.cmpi slt, %iota2, %bound : vector<16x256xindex>
    %zero = arith.constant dense<0.0> : vector<16x256xf32>
    %v = arith.select %lt, %a, %zero : vector<16x256xi1>, vector<16x256xf32>
    kernel.store %v, %o[%c0, %c0] mask %m : vector<16x256xf32>, memref<16x256xf32, #kernel.space<vmem>>
    kernel.store %a, %o[%c0, %c0] mask %lt : vector<16x256xf32>, memref<16x256xf32, #kernel.space<vmem>>
    return
  }
  func.func @f(%x: tensor<16x256xf32>) -> tensor<16x256xf32> {
    %0 = kernel.call @masks(%x) grid = [2] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>]
        : (tensor<16x256xf32>) -> tensor<16x256xf32>
    return %0 : tensor<16x256xf32>
  }
}

// -----

// Tests values carried by loops and conditionals: the accumulator of an
// scf.for lives in a layout buffer (the initial value stored before the
// loop, each iteration's value at its scf.yield, the loop no longer
// carries it) and so do the results of an scf.if (each branch stores its
// value).
// CHECK-LABEL: func.func @regions
// CHECK: kernel.run_scoped (%[[ACC:.*]]: memref<16x256xf32, #kernel.space<vmem>>, %[[SEL:.*]]: memref<16x256xf32, #kernel.space<vmem>>)
// CHECK: vector.transfer_write %{{.*}}, %[[ACC]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[OLD:.*]] = vector.transfer_read %[[ACC]]
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %{{.*}} : vector<8x128xf32>
// CHECK: vector.transfer_write %[[NEW]], %[[ACC]]
// CHECK: scf.if %{{.*}} {
// CHECK: vector.transfer_read %[[ACC]]
// CHECK: vector.transfer_write %{{.*}}, %[[SEL]]
// CHECK: } else {
// CHECK: vector.transfer_write %{{.*}}, %[[SEL]]
// CHECK: vector.transfer_read %[[SEL]]
// CHECK: kernel.store
// CHECK-NOT: vector<16x256xf32>
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @regions(%x: memref<16x256xf32, #kernel.space<vmem>>, %o: memref<16x256xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %i0 = kernel.program_id 0
    %c = arith.cmpi eq, %i0, %c0 : index
    %zero = arith.constant dense<0.0> : vector<16x256xf32>
    %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (vector<16x256xf32>) {
      %a = kernel.load %x[%c0, %c0] : memref<16x256xf32, #kernel.space<vmem>>, vector<16x256xf32>
      %n = arith.addf %acc, %a : vector<16x256xf32>
      scf.yield %n : vector<16x256xf32>
    }
    %s = scf.if %c -> (vector<16x256xf32>) {
      scf.yield %r : vector<16x256xf32>
    } else {
      %b = kernel.load %x[%c0, %c0] : memref<16x256xf32, #kernel.space<vmem>>, vector<16x256xf32>
      scf.yield %b : vector<16x256xf32>
    }
    kernel.store %s, %o[%c0, %c0] : vector<16x256xf32>, memref<16x256xf32, #kernel.space<vmem>>
    return
  }
  func.func @f(%x: tensor<16x256xf32>) -> tensor<16x256xf32> {
    %0 = kernel.call @regions(%x) grid = [2] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>]
        : (tensor<16x256xf32>) -> tensor<16x256xf32>
    return %0 : tensor<16x256xf32>
  }
}

// -----

// Tests when values are computed once into a layout buffer: an elementwise
// value used twice, and a load whose block is written before its use (read
// where it is, not where it is used).
// CHECK-LABEL: func.func @buffers
// CHECK: kernel.run_scoped (%[[E:.*]]: memref<16x256xf32, #kernel.space<vmem>>, %[[L:.*]]: memref<16x256xf32, #kernel.space<vmem>>)
// CHECK: math.exp %{{.*}} : vector<8x128xf32>
// CHECK: vector.transfer_write %{{.*}}, %[[E]]
// CHECK: %[[T:.*]] = kernel.load %[[O:.*]][%{{.*}}, %{{.*}}] : memref<16x256xf32, #kernel.space<vmem>>, vector<8x128xf32>
// CHECK: vector.transfer_write %[[T]], %[[L]]
// CHECK: kernel.store %{{.*}}, %[[O]]
// CHECK: vector.transfer_read %[[E]]
// CHECK: vector.transfer_read %[[E]]
// CHECK: vector.transfer_read %[[L]]
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @buffers(%x: memref<16x256xf32, #kernel.space<vmem>>, %o: memref<16x256xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<16x256xf32, #kernel.space<vmem>>, vector<16x256xf32>
    %e = math.exp %a : vector<16x256xf32>
    %old = kernel.load %o[%c0, %c0] : memref<16x256xf32, #kernel.space<vmem>>, vector<16x256xf32>
    kernel.store %a, %o[%c0, %c0] : vector<16x256xf32>, memref<16x256xf32, #kernel.space<vmem>>
    %ee = arith.mulf %e, %e : vector<16x256xf32>
    %s = arith.addf %ee, %old : vector<16x256xf32>
    kernel.store %s, %x[%c0, %c0] : vector<16x256xf32>, memref<16x256xf32, #kernel.space<vmem>>
    return
  }
  func.func @f(%x: tensor<16x256xf32>) -> tensor<16x256xf32> {
    %0 = kernel.call @buffers(%x) grid = [] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>]
        : (tensor<16x256xf32>) -> tensor<16x256xf32>
    return %0 : tensor<16x256xf32>
  }
}

// -----

// Tests a constant that is not a splat (a private global copied into a
// layout buffer), layouts given by hand (kept by
// kernel-infer-vector-layout; the loops step by their tiles) and a value of
// one tile (left as it is).
// CHECK: memref.global "private" constant @__tessera_layout_constant : memref<8x4xf32> = dense<{{.*}}>
// CHECK-LABEL: func.func @misc
// CHECK: kernel.run_scoped (%[[K:.*]]: memref<8x4xf32, #kernel.space<vmem>>)
// CHECK: %[[G:.*]] = memref.get_global @__tessera_layout_constant : memref<8x4xf32>
// CHECK: memref.copy %[[G]], %[[K]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c4 {
// CHECK: vector.transfer_read %[[K]]{{.*}} vector<4x4xf32>
// CHECK: kernel.store {{.*}} : vector<4x4xf32>, memref<8x4xf32, #kernel.space<vmem>>
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c4{{.*}} {
// CHECK: kernel.load {{.*}} vector<4x128xf32>
// CHECK: %[[SMALL:.*]] = kernel.load %{{.*}} : memref<16x256xf32, #kernel.space<vmem>>, vector<8x128xf32>
// CHECK: %[[TWICE:.*]] = arith.addf %[[SMALL]], %[[SMALL]] : vector<8x128xf32>
// CHECK: kernel.store %[[TWICE]]
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @misc(%x: memref<16x256xf32, #kernel.space<vmem>>, %o: memref<16x256xf32, #kernel.space<vmem>>,
                  %ok: memref<8x4xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %k = arith.constant {kernel.out_layouts = [#kernel.layout<[4, 4]>]}
        dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0],
               [1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 9.0]]> : vector<8x4xf32>
    kernel.store %k, %ok[%c0, %c0] : vector<8x4xf32>, memref<8x4xf32, #kernel.space<vmem>>
    %a = kernel.load %x[%c0, %c0] {kernel.out_layouts = [#kernel.layout<[4, 128]>]} : memref<16x256xf32, #kernel.space<vmem>>, vector<16x256xf32>
    %s = arith.addf %a, %a {kernel.out_layouts = [#kernel.layout<[4, 128]>]} : vector<16x256xf32>
    kernel.store %s, %o[%c0, %c0] : vector<16x256xf32>, memref<16x256xf32, #kernel.space<vmem>>
    %small = kernel.load %x[%c0, %c0] : memref<16x256xf32, #kernel.space<vmem>>, vector<8x128xf32>
    %twice = arith.addf %small, %small : vector<8x128xf32>
    kernel.store %twice, %o[%c0, %c0] : vector<8x128xf32>, memref<16x256xf32, #kernel.space<vmem>>
    return
  }
  func.func @f(%x: tensor<16x256xf32>) -> (tensor<16x256xf32>, tensor<8x4xf32>) {
    %0:2 = kernel.call @misc(%x) grid = [] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>, #kernel.block<full>]
        : (tensor<16x256xf32>) -> (tensor<16x256xf32>, tensor<8x4xf32>)
    return %0#0, %0#1 : tensor<16x256xf32>, tensor<8x4xf32>
  }
}
