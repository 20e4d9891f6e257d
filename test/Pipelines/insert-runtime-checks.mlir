// RUN: tessera-opt %s --split-input-file --tessera-insert-runtime-checks | FileCheck %s

// Tests that tensor.extract and tensor.insert get one bounds check per index.
// CHECK-LABEL: func.func @extract_insert
// CHECK-SAME: (%[[T:.*]]: tensor<8x?xf32>, %[[I:.*]]: index, %[[J:.*]]: index
// CHECK: cf.assert %{{.*}}, "tensor.extract: index 0 out of bounds"
// CHECK: %[[D:.*]] = tensor.dim %[[T]], %{{.*}}
// CHECK: arith.cmpi slt, %[[J]], %[[D]]
// CHECK: cf.assert %{{.*}}, "tensor.extract: index 1 out of bounds"
// CHECK: tensor.extract %[[T]][%[[I]], %[[J]]]
// CHECK: cf.assert %{{.*}}, "tensor.insert: index 0 out of bounds"
// CHECK: cf.assert %{{.*}}, "tensor.insert: index 1 out of bounds"
// CHECK: tensor.insert
func.func @extract_insert(%t: tensor<8x?xf32>, %i: index, %j: index, %v: f32) -> (f32, tensor<8x?xf32>) {
  %0 = tensor.extract %t[%i, %j] : tensor<8x?xf32>
  %1 = tensor.insert %v into %t[%i, %j] : tensor<8x?xf32>
  return %0, %1 : f32, tensor<8x?xf32>
}

// -----

// Tests that a slice with a dynamic offset is checked along every dimension
// and a static one is not.
// CHECK-LABEL: func.func @slices
// CHECK: cf.assert %{{.*}}, "tensor.extract_slice: the slice is out of bounds along dimension 0"
// CHECK: cf.assert %{{.*}}, "tensor.extract_slice: the slice is out of bounds along dimension 1"
// CHECK: tensor.extract_slice %{{.*}}[%{{.*}}, 0] [4, 2] [1, 1]
// CHECK-NOT: cf.assert
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [4, 2] [1, 1]
func.func @slices(%t: tensor<8x4xf32>, %o: index) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %0 = tensor.extract_slice %t[%o, 0] [4, 2] [1, 1] : tensor<8x4xf32> to tensor<4x2xf32>
  %1 = tensor.extract_slice %t[0, 0] [4, 2] [1, 1] : tensor<8x4xf32> to tensor<4x2xf32>
  return %0, %1 : tensor<4x2xf32>, tensor<4x2xf32>
}

// -----

// Tests that integer divisions check their divisor, scalar or tensor (an
// or-reduction of the zero test), and float divisions are left alone.
// CHECK-LABEL: func.func @divisions
// CHECK: arith.cmpi ne
// CHECK: cf.assert %{{.*}}, "arith.divsi: division by zero"
// CHECK: arith.divsi
// CHECK: arith.cmpi eq, %{{.*}} : tensor<4xi32>
// CHECK: linalg.reduce
// CHECK: arith.ori
// CHECK: cf.assert %{{.*}}, "arith.remui: division by zero"
// CHECK: arith.remui
// CHECK-NOT: cf.assert
// CHECK: arith.divf
func.func @divisions(%a: i32, %b: i32, %t: tensor<4xi32>, %u: tensor<4xi32>, %f: f32) -> (i32, tensor<4xi32>, f32) {
  %0 = arith.divsi %a, %b : i32
  %1 = arith.remui %t, %u : tensor<4xi32>
  %2 = arith.divf %f, %f : f32
  return %0, %1, %2 : i32, tensor<4xi32>, f32
}
