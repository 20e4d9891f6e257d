// RUN: tessera-opt %s --tessera-cpu-lower-vectors | FileCheck %s

// A 2-D transpose of f32 whose dimensions are multiples of 16 (the
// transposed packing of a contraction operand, as for q k^T) is split into
// 16 x 16 blocks, each transposed with shuffles of whole 16-element rows
// (4 rounds of 16 shuffles), not element by element.
// CHECK-LABEL: func @transpose_32x16
// CHECK-NOT: vector.transpose
// CHECK-COUNT-16: vector.extract %{{.*}}[{{[0-9]+}}] : vector<16xf32> from vector<32x16xf32>
// CHECK-COUNT-64: vector.shuffle %{{.*}}, %{{.*}} [{{.*}}] : vector<16xf32>, vector<16xf32>
// CHECK-COUNT-16: vector.extract %{{.*}}[{{[0-9]+}}] : vector<16xf32> from vector<32x16xf32>
// CHECK-COUNT-64: vector.shuffle %{{.*}}, %{{.*}} [{{.*}}] : vector<16xf32>, vector<16xf32>
// CHECK-NOT: vector.transpose
// CHECK-NOT: vector.extract %{{.*}}[{{[0-9]+}}, {{[0-9]+}}]
// CHECK: return
func.func @transpose_32x16(%a: vector<32x16xf32>) -> vector<16x32xf32> {
  %t = vector.transpose %a, [1, 0] : vector<32x16xf32> to vector<16x32xf32>
  return %t : vector<16x32xf32>
}

// A transpose of other sizes is left to the LLVM conversion.
// CHECK-LABEL: func @transpose_8x4
// CHECK: vector.transpose %{{.*}}, [1, 0] : vector<8x4xf32> to vector<4x8xf32>
func.func @transpose_8x4(%a: vector<8x4xf32>) -> vector<4x8xf32> {
  %t = vector.transpose %a, [1, 0] : vector<8x4xf32> to vector<4x8xf32>
  return %t : vector<4x8xf32>
}
