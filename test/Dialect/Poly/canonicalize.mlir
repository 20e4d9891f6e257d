// RUN: tessera-opt %s --split-input-file --canonicalize --cse --loop-invariant-code-motion | FileCheck %s

// Tests that an assertion of the constant true is erased.
// CHECK-LABEL: func.func @true_assertion
// CHECK-NOT: poly.shape_assertion
// CHECK: return
func.func @true_assertion(%d: index) {
  %t = arith.constant true
  poly.shape_assertion %t, %d {error_message = "never fails {0}"} : index
  return
}

// -----

// Tests that an assertion of the constant false is kept: it fails at run
// time with its message.
// CHECK-LABEL: func.func @negative_false_assertion
// CHECK: %[[F:.*]] = arith.constant false
// CHECK: poly.shape_assertion %[[F]] {error_message = "always fails"}
func.func @negative_false_assertion() {
  %f = arith.constant false
  poly.shape_assertion %f {error_message = "always fails"}
  return
}

// -----

// Tests that an unused assertion of a run-time predicate is neither erased as
// dead nor merged with an equal one.
// CHECK-LABEL: func.func @negative_runtime_assertion
// CHECK: poly.shape_assertion %[[P:.*]] {error_message = "m"}
// CHECK-NEXT: poly.shape_assertion %[[P]] {error_message = "m"}
func.func @negative_runtime_assertion(%p: i1) {
  poly.shape_assertion %p {error_message = "m"}
  poly.shape_assertion %p {error_message = "m"}
  return
}

// -----

// Tests that an assertion inside a loop is not hoisted out of it.
// CHECK-LABEL: func.func @negative_no_hoisting
// CHECK: scf.for
// CHECK-NEXT: poly.shape_assertion
func.func @negative_no_hoisting(%p: i1, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    poly.shape_assertion %p {error_message = "in the loop"}
  }
  return
}
