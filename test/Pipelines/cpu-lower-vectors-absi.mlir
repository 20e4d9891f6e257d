// RUN: tessera-opt %s --tessera-cpu-lower-vectors | FileCheck %s

// math.absi on a vector of any rank becomes max(x, 0 - x), which keeps
// the minimum value as math.absi does (MathToLLVM lowers only 1-D ones).
// CHECK-LABEL: func @absi_2d
// CHECK: %[[Z:.*]] = arith.constant dense<0> : vector<4x64xi32>
// CHECK: %[[N:.*]] = arith.subi %[[Z]], %arg0 : vector<4x64xi32>
// CHECK: %[[M:.*]] = arith.maxsi %arg0, %[[N]] : vector<4x64xi32>
// CHECK: return %[[M]]
func.func @absi_2d(%v: vector<4x64xi32>) -> vector<4x64xi32> {
  %0 = math.absi %v : vector<4x64xi32>
  return %0 : vector<4x64xi32>
}

// Scalars keep math.absi (MathToLLVM's llvm.intr.abs).
// CHECK-LABEL: func @absi_scalar
// CHECK: math.absi %arg0 : i32
func.func @absi_scalar(%x: i32) -> i32 {
  %0 = math.absi %x : i32
  return %0 : i32
}
