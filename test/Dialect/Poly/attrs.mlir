// RUN: tessera-opt %s --split-input-file --allow-unregistered-dialect | tessera-opt --split-input-file --allow-unregistered-dialect | FileCheck %s
// RUN: tessera-opt %s --split-input-file --allow-unregistered-dialect --mlir-print-op-generic | tessera-opt --split-input-file --allow-unregistered-dialect | FileCheck %s
// RUN: tessera-opt %s --split-input-file --allow-unregistered-dialect --verify-roundtrip

// Tests that argument specs, with placeholders, and result specs round-trip
// as written (poly-infer normalizes them, the parser does not).
// CHECK-LABEL: func.func @argument_specs
// CHECK-SAME: {poly.shape = #poly.shape<"b, _">}
// CHECK-SAME: {poly.shape = #poly.shape<"(2*d, ...)">}
// CHECK-SAME: {poly.shape = #poly.shape<"">}
// CHECK-SAME: -> (tensor<?xf32> {poly.shape = #poly.shape<"b + 2*d">})
func.func @argument_specs(%x: tensor<?x4xf32> {poly.shape = #poly.shape<"b, _">},
                          %y: tensor<?x3x5xf32> {poly.shape = #poly.shape<"(2*d, ...)">},
                          %z: tensor<f32> {poly.shape = #poly.shape<"">})
    -> (tensor<?xf32> {poly.shape = #poly.shape<"b + 2*d">}) {
  %0 = tensor.empty() : tensor<3xf32>
  %1 = tensor.cast %0 : tensor<3xf32> to tensor<?xf32>
  return %1 : tensor<?xf32>
}

// -----

// Tests every factor of JAX's grammar: mod, floordiv, max, min and powers.
// CHECK-LABEL: func.func @operations
// CHECK-SAME: #poly.shape<"mod(b, 4), floordiv(b, 4), max(b, c), min(b, 8) + c^2">
func.func @operations(%x: tensor<?x?x?x?xf32> {poly.shape = #poly.shape<"mod(b, 4), floordiv(b, 4), max(b, c), min(b, 8) + c^2">}) {
  return
}

// -----

// Tests that explicit constraints round-trip in order.
// CHECK-LABEL: func.func @constraints
// CHECK-SAME: attributes {poly.constraints = ["a >= b", "b >= 16", "mod(a, 4) == 0"]}
func.func @constraints(%x: tensor<?x?xf32> {poly.shape = #poly.shape<"a, b">})
    attributes {poly.constraints = ["a >= b", "b >= 16", "mod(a, 4) == 0"]} {
  return
}

// -----

// Tests the annotations poly-infer writes on op results: one #poly.shape for
// one result, #poly.expr for an index value.
// CHECK-LABEL: func.func @op_annotations
// CHECK: tensor.dim {poly.value = #poly.expr<"b">}
// CHECK: arith.muli {{.*}} {poly.value = #poly.expr<"2*b">}
// CHECK: tensor.empty({{.*}}) {poly.shape = #poly.shape<"2*b, 4">}
func.func @op_annotations(%x: tensor<?x4xf32> {poly.shape = #poly.shape<"b, 4">}) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %b = tensor.dim {poly.value = #poly.expr<"b">} %x, %c0 : tensor<?x4xf32>
  %n = arith.muli %b, %c2 {poly.value = #poly.expr<"2*b">} : index
  %e = tensor.empty(%n) {poly.shape = #poly.shape<"2*b, 4">} : tensor<?x4xf32>
  return %e : tensor<?x4xf32>
}

// -----

// Tests the array form for several results, with unit for results without
// an annotation.
// CHECK-LABEL: func.func @multi_result
// CHECK: poly.shape = [#poly.shape<"b">, unit]
// CHECK-SAME: poly.value = [unit, #poly.expr<"b">]
func.func @multi_result(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) {
  %0:2 = "test.two"(%x) {poly.shape = [#poly.shape<"b">, unit], poly.value = [unit, #poly.expr<"b">]} : (tensor<?xf32>) -> (tensor<?xf32>, index)
  return
}

// -----

// Tests poly.shape_assertion with inputs, placeholders and an escaped brace.
// CHECK-LABEL: func.func @shape_assertion
// CHECK: poly.shape_assertion %[[P:.*]], %[[D:.*]], %[[C:.*]] {error_message = "Found inconsistency between dimension size args[0].shape[0] (= {0}) and the specification 'b' (= {1}) {{[{][{]}}in braces}"} : index, i64
// CHECK: poly.shape_assertion %[[P]] {error_message = "no inputs"}
func.func @shape_assertion(%p: i1, %d: index, %c: i64) {
  poly.shape_assertion %p, %d, %c {error_message = "Found inconsistency between dimension size args[0].shape[0] (= {0}) and the specification 'b' (= {1}) {{in braces}"} : index, i64
  poly.shape_assertion %p {error_message = "no inputs"}
  return
}

// -----

// Tests a standalone #poly.expr attribute.
// CHECK-LABEL: func.func @standalone
// CHECK-SAME: test.expr = #poly.expr<"floordiv(b, 2) + 1">
func.func @standalone() attributes {test.expr = #poly.expr<"floordiv(b, 2) + 1">} {
  return
}
