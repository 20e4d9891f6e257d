// RUN: tessera-opt %s --poly-insert-assertions --poly-specialize=arg-shapes=3x3x4,5 | FileCheck %s

// Tests arg-shapes: one shape per argument with `poly.shape` (the static
// and scalar arguments take none), solved as Exported.call solves concrete
// arguments (b = 3, d = 2). The runtime assertions inserted before are
// discharged, the dimension values are constants, and the function is static.
// CHECK-LABEL: func.func @f
// CHECK-SAME: (%[[X:.*]]: tensor<3x3x4xf32>, %[[S:.*]]: tensor<2xf32>, %[[N:.*]]: index, %[[Y:.*]]: tensor<5xf32>) -> (index, tensor<3x5xf32>)
// CHECK-NOT: poly.
// CHECK-DAG: %[[C6:.*]] = arith.constant 6 : index
// CHECK-DAG: %[[E:.*]] = tensor.empty() : tensor<3x5xf32>
// CHECK: return %[[C6]], %[[E]] : index, tensor<3x5xf32>
func.func @f(%x: tensor<?x?x?xf32> {poly.shape = #poly.shape<"b, b, 2*d">}, %s: tensor<2xf32>, %n: index,
             %y: tensor<?xf32> {poly.shape = #poly.shape<"d + 3">}) -> (index, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %b = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %s2 = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %d = arith.divsi %s2, %c2 : index
  %bd = arith.muli %b, %d : index
  %y0 = tensor.dim %y, %c0 : tensor<?xf32>
  %e = tensor.empty(%b, %y0) : tensor<?x?xf32>
  return %bd, %e : index, tensor<?x?xf32>
}
