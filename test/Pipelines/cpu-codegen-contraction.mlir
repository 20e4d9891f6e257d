// RUN: tessera-opt %s --split-input-file --tessera-cpu-codegen="vector-bits=512 vector-registers=32 l1-cache-bytes=49152 l2-cache-bytes=1048576" | FileCheck %s
// RUN: tessera-opt %s --split-input-file --tessera-cpu-codegen="vector-bits=256 vector-registers=16 l1-cache-bytes=32768 l2-cache-bytes=524288" | FileCheck %s --check-prefix=AVX2

// Tests that tessera-cpu-codegen turns contractions into the packed register
// kernel: B copied into panels of nr columns (a reused buffer of the block's
// size), and per register tile a k loop that carries an mr x nr accumulator
// in vectors and updates it with one vector.contract per k. AVX-512 (32
// registers of 16 f32): 4 x 64 tiles; AVX2 (16 registers of 8 f32): 4 x 16.

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: tensor<128x256xf32>, %[[B:.*]]: tensor<256x128xf32>)
// CHECK: %[[C:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [128, 2, 64]
// CHECK: %[[PANELS:.*]] = bufferization.alloc_tensor() : tensor<2x256x64xf32>
// CHECK: vector.transfer_read %{{.*}} : tensor<16x64xf32>, vector<16x64xf32>
// CHECK: vector.transfer_write %{{.*}} : vector<1x16x64xf32>, tensor<1x16x64xf32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[INIT:.*]] = vector.transfer_read %{{.*}} : tensor<4x1x64xf32>, vector<4x1x64xf32>
// CHECK: %[[ACC:.*]] = scf.for %{{.*}} iter_args(%[[ITER:.*]] = %[[INIT]]) -> (vector<4x1x64xf32>)
// CHECK: tensor.extract_slice %[[A]]
// CHECK: vector.contract {{.*}} %[[ITER]] : vector<4x1x1x64xf32>, vector<4x1x1x64xf32> into vector<4x1x64xf32>
// CHECK: vector.transfer_write %[[ACC]]
// CHECK: tensor.collapse_shape
// CHECK-NOT: linalg.matmul

// AVX2-LABEL: func.func @matmul
// AVX2: bufferization.alloc_tensor() : tensor<8x256x16xf32>
// AVX2: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<4x1x16xf32>)
// AVX2: vector.contract {{.*}} : vector<4x1x1x16xf32>, vector<4x1x1x16xf32> into vector<4x1x16xf32>
func.func @matmul(%a: tensor<128x256xf32>, %b: tensor<256x128xf32>) -> tensor<128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<128x128xf32>
  %c = linalg.fill ins(%zero : f32) outs(%empty : tensor<128x128xf32>) -> tensor<128x128xf32>
  %r = linalg.matmul ins(%a, %b : tensor<128x256xf32>, tensor<256x128xf32>) outs(%c : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %r : tensor<128x128xf32>
}

// -----

// The columns of C that do not fill a panel (70 = 64 + 6) are a second
// contraction on a padded copy of their slice; the first one updates C in
// place. The row that does not fill a register tile (33 = 8 * 4 + 1) is a
// masked tile.

// CHECK-LABEL: func.func @matmul_unaligned
// CHECK: vector.contract {{.*}} into vector<4x1x64xf32>
// CHECK: vector.mask %{{.*}} { vector.contract {{.*}} into vector<4x1x64xf32> }
// CHECK: %[[WHOLE:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [33, 64] [1, 1]
// CHECK: tensor.pad %{{.*}} low[0, 0] high[0, 58]
// CHECK: vector.contract {{.*}} into vector<4x1x64xf32>
// CHECK: tensor.insert_slice %{{.*}} into %[[WHOLE]][0, 64] [33, 6] [1, 1]
func.func @matmul_unaligned(%a: tensor<33x20xf32>, %b: tensor<20x70xf32>) -> tensor<33x70xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<33x70xf32>
  %c = linalg.fill ins(%zero : f32) outs(%empty : tensor<33x70xf32>) -> tensor<33x70xf32>
  %r = linalg.matmul ins(%a, %b : tensor<33x20xf32>, tensor<20x70xf32>) outs(%c : tensor<33x70xf32>) -> tensor<33x70xf32>
  return %r : tensor<33x70xf32>
}

// -----

// Batch dimensions are outer loops; B's panels are per batch.

// CHECK-LABEL: func.func @batch_matmul
// CHECK: bufferization.alloc_tensor() : tensor<1x1x16x64xf32>
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<1x4x1x64xf32>)
// CHECK: vector.contract {{.*}} : vector<1x4x1x1x64xf32>, vector<1x4x1x1x64xf32> into vector<1x4x1x64xf32>
func.func @batch_matmul(%a: tensor<2x8x16xf32>, %b: tensor<2x16x64xf32>, %c: tensor<2x8x64xf32>) -> tensor<2x8x64xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x8x16xf32>, tensor<2x16x64xf32>) outs(%c : tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
  return %r : tensor<2x8x64xf32>
}

// -----

// A generic contraction with B transposed (n, k): its panels are transposed
// blocks of 64 x 16.

// CHECK-LABEL: func.func @matmul_transposed_b
// CHECK: bufferization.alloc_tensor() : tensor<1x32x64xf32>
// CHECK: vector.transpose %{{.*}}, [0, 2, 1] : vector<1x64x16xf32> to vector<1x16x64xf32>
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<4x1x64xf32>)
// CHECK: vector.contract {{.*}} into vector<4x1x64xf32>
// CHECK-NOT: linalg.generic
#a = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @matmul_transposed_b(%a: tensor<8x32xf32>, %b: tensor<64x32xf32>, %c: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %r = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<8x32xf32>, tensor<64x32xf32>) outs(%c : tensor<8x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}

// -----

// Dynamic shapes: the panel buffer has the static size of a block (10
// panels of 384 x 64); partial blocks and tiles are masked.

// CHECK-LABEL: func.func @matmul_dynamic
// CHECK: bufferization.alloc_tensor() : tensor<10x384x64xf32>
// CHECK: vector.create_mask
// CHECK: vector.contract {{.*}} into vector<4x1x64xf32>
// CHECK: vector.mask %{{.*}} { vector.contract
func.func @matmul_dynamic(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// 16-bit floats (computed in f32 registers) are not packed: they are
// vectorized along n, the accumulator carried through the k loop.

// CHECK-LABEL: func.func @matmul_bf16
// CHECK-NOT: bufferization.alloc_tensor
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<1x128xbf16>)
func.func @matmul_bf16(%a: tensor<16x32xbf16>, %b: tensor<32x128xbf16>, %c: tensor<16x128xbf16>) -> tensor<16x128xbf16> {
  %r = linalg.matmul ins(%a, %b : tensor<16x32xbf16>, tensor<32x128xbf16>) outs(%c : tensor<16x128xbf16>) -> tensor<16x128xbf16>
  return %r : tensor<16x128xbf16>
}
