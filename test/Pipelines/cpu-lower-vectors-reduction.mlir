// RUN: tessera-opt %s --tessera-cpu-lower-vectors | FileCheck %s

// A reduction of the innermost dimension (a row maximum of an (8, 128)
// tile, as the kernel layout passes emit) becomes one 1-D reduction per
// row, each with its element of the accumulator: no transpose of the tile.
// Each row's 128 elements are halved to one register's 16 first.
// CHECK-LABEL: func @row_max
// CHECK-NOT: vector.transpose
// CHECK-COUNT-8: vector.reduction <maximumf>, %{{.*}}, %{{.*}} : vector<16xf32> into f32
// CHECK-NOT: vector.reduction
// CHECK: return
func.func @row_max(%v: vector<8x128xf32>, %acc: vector<8xf32>) -> vector<8xf32> {
  %0 = vector.multi_reduction <maximumf>, %v, %acc [1] : vector<8x128xf32> to vector<8xf32>
  return %0 : vector<8xf32>
}

// The innermost two dimensions of a rank-3 value: one reduction of 256
// elements per kept element.
// CHECK-LABEL: func @inner_two
// CHECK-NOT: vector.transpose
// CHECK-COUNT-2: vector.reduction <add>, %{{.*}}, %{{.*}} : vector<16xf32> into f32
// CHECK-NOT: vector.reduction
// CHECK: return
func.func @inner_two(%v: vector<2x2x128xf32>, %acc: vector<2xf32>) -> vector<2xf32> {
  %0 = vector.multi_reduction <add>, %v, %acc [1, 2] : vector<2x2x128xf32> to vector<2xf32>
  return %0 : vector<2xf32>
}

// A reduction of the outer dimension combines whole rows elementwise.
// CHECK-LABEL: func @column_sum
// CHECK-NOT: vector.reduction
// CHECK-NOT: vector.transpose
// CHECK-COUNT-8: arith.addf %{{.*}}, %{{.*}} : vector<128xf32>
// CHECK: return
func.func @column_sum(%v: vector<8x128xf32>, %acc: vector<128xf32>) -> vector<128xf32> {
  %0 = vector.multi_reduction <add>, %v, %acc [0] : vector<8x128xf32> to vector<128xf32>
  return %0 : vector<128xf32>
}

// An outer dimension reduced with an inner one kept is transposed first,
// then combined elementwise.
// CHECK-LABEL: func @middle
// CHECK: vector.transpose
// CHECK-NOT: vector.reduction
// CHECK: return
func.func @middle(%v: vector<4x8x16xf32>, %acc: vector<4x16xf32>) -> vector<4x16xf32> {
  %0 = vector.multi_reduction <add>, %v, %acc [1] : vector<4x8x16xf32> to vector<4x16xf32>
  return %0 : vector<4x16xf32>
}

// A 1-D reduction wider than a 512-bit register combines halves
// elementwise (vector ops) down to one register, then reduces that.
// CHECK-LABEL: func @wide_sum
// CHECK: %[[LO:.*]] = vector.extract_strided_slice %arg0 {offsets = [0], sizes = [64], strides = [1]} : vector<128xf32> to vector<64xf32>
// CHECK: %[[HI:.*]] = vector.extract_strided_slice %arg0 {offsets = [64], sizes = [64], strides = [1]} : vector<128xf32> to vector<64xf32>
// CHECK: %[[S64:.*]] = arith.addf %[[LO]], %[[HI]] : vector<64xf32>
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<32xf32>
// CHECK: %[[S16:.*]] = arith.addf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK: %[[R:.*]] = vector.reduction <add>, %[[S16]], %arg1 : vector<16xf32> into f32
// CHECK: return %[[R]]
func.func @wide_sum(%v: vector<128xf32>, %acc: f32) -> f32 {
  %0 = vector.reduction <add>, %v, %acc : vector<128xf32> into f32
  return %0 : f32
}

// The same for integer kinds; a vector of one register (64 x i8) and one
// of an odd size are reduced as they are.
// CHECK-LABEL: func @int_kinds
// CHECK: arith.maxsi %{{.*}}, %{{.*}} : vector<16xi32>
// CHECK: vector.reduction <maxsi>, %{{.*}} : vector<16xi32> into i32
// CHECK: vector.reduction <add>, %arg1 : vector<64xi8> into i8
// CHECK: vector.reduction <mul>, %arg2 : vector<33xf32> into f32
func.func @int_kinds(%a: vector<32xi32>, %b: vector<64xi8>, %c: vector<33xf32>) -> (i32, i8, f32) {
  %0 = vector.reduction <maxsi>, %a : vector<32xi32> into i32
  %1 = vector.reduction <add>, %b : vector<64xi8> into i8
  %2 = vector.reduction <mul>, %c : vector<33xf32> into f32
  return %0, %1, %2 : i32, i8, f32
}

// Sums of floats narrower than f32 keep their order; their maxima, which
// do not depend on it, are halved.
// CHECK-LABEL: func @narrow_floats
// CHECK: vector.reduction <add>, %arg0 : vector<64xbf16> into bf16
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : vector<32xbf16>
// CHECK: vector.reduction <maximumf>, %{{.*}} : vector<32xbf16> into bf16
func.func @narrow_floats(%a: vector<64xbf16>) -> (bf16, bf16) {
  %0 = vector.reduction <add>, %a : vector<64xbf16> into bf16
  %1 = vector.reduction <maximumf>, %a : vector<64xbf16> into bf16
  return %0, %1 : bf16, bf16
}
