// RUN: tessera-opt %s --tessera-cpu="vector-bits=512 vector-registers=32 l1-cache-bytes=49152 l2-cache-bytes=1048576" | FileCheck %s
// RUN: tessera-opt %s --tessera-cpu=vectorize=false | FileCheck %s --check-prefix=SCALAR
// RUN: tessera-opt %s --tessera-cpu-codegen="vector-bits=512 vector-registers=32 l1-cache-bytes=49152 l2-cache-bytes=1048576" --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --tessera-cpu-lower-vectors | FileCheck %s --check-prefix=LOWERED

// Tests the tessera-cpu pipeline end to end: vectorized, a matmul becomes
// FMAs on whole registers' worth of vectors (64 f32, four AVX-512
// registers) with no stack buffers; with vectorize=false, scalar loops.

// After tessera-cpu-lower-vectors, the register kernel's contraction is an
// FMA on the 4 x 64 accumulator tile and B's panel row broadcast to it.
// LOWERED-LABEL: func.func @matmul
// LOWERED: scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<4x64xf32>)
// LOWERED: %[[B:.*]] = vector.transfer_read %{{.*}} : memref<1x1x64xf32, {{.*}}>, vector<64xf32>
// LOWERED: %[[BB:.*]] = vector.broadcast %[[B]] : vector<64xf32> to vector<4x64xf32>
// LOWERED: vector.fma %{{.*}}, %[[BB]], %[[ACC]] : vector<4x64xf32>
// LOWERED-NOT: vector.contract

// CHECK-LABEL: llvm.func @matmul
// CHECK-NOT: llvm.alloca
// CHECK: llvm.intr.fmuladd({{.*}}) : (vector<64xf32>, vector<64xf32>, vector<64xf32>) -> vector<64xf32>
// CHECK-NOT: llvm.alloca
// CHECK: llvm.return

// SCALAR-LABEL: llvm.func @matmul
// SCALAR-NOT: vector<
// SCALAR: llvm.fmul {{.*}} : f32
// SCALAR: llvm.fadd {{.*}} : f32
// SCALAR-NOT: vector<
// SCALAR: llvm.return
func.func @matmul(%a: tensor<128x256xf32>, %b: tensor<256x128xf32>) -> tensor<128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<128x128xf32>
  %c = linalg.fill ins(%zero : f32) outs(%empty : tensor<128x128xf32>) -> tensor<128x128xf32>
  %r = linalg.matmul ins(%a, %b : tensor<128x256xf32>, tensor<256x128xf32>) outs(%c : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %r : tensor<128x128xf32>
}
