// RUN: tessera-opt %s --split-input-file --spmd-flatten-call-graph | FileCheck %s

// Tests that a function called once is left alone.
// CHECK-LABEL: func.func @one_call
// CHECK-NEXT: call @foo(
// CHECK-LABEL: func.func private @foo(
// CHECK-NOT: func.func
func.func @one_call(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = func.call @foo(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
func.func private @foo(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = arith.negf %arg0 : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests that the second call of a function calls a private copy of it that
// names the original.
// CHECK-LABEL: func.func @two_calls
// CHECK-NEXT: call @foo(
// CHECK-NEXT: call @foo_0(
// CHECK-LABEL: func.func @foo(
// CHECK-NOT: spmd.original_func_name
// CHECK: arith.negf
// CHECK-LABEL: func.func private @foo_0(
// CHECK-SAME: attributes {spmd.original_func_name = "foo"}
// CHECK-NEXT: arith.negf
func.func @two_calls(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = func.call @foo(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = func.call @foo(%arg1) : (tensor<8xf32>) -> tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}
func.func @foo(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = arith.negf %arg0 : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests that a copy calls fresh copies of what the original calls, so
// every function ends up with one call (the symbol table numbers the new
// names with one counter: @inner_0 is made before @outer_1).
// CHECK-LABEL: func.func @nested
// CHECK-NEXT: call @outer(
// CHECK-NEXT: call @outer_1(
// CHECK-LABEL: func.func private @outer(
// CHECK-NEXT: call @inner(
// CHECK-LABEL: func.func private @inner(
// CHECK-LABEL: func.func private @inner_0(
// CHECK-SAME: spmd.original_func_name = "inner"
// CHECK-LABEL: func.func private @outer_1(
// CHECK-SAME: spmd.original_func_name = "outer"
// CHECK-NEXT: call @inner_0(
func.func @nested(%arg0: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = func.call @outer(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = func.call @outer(%0) : (tensor<8xf32>) -> tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}
func.func private @outer(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = func.call @inner(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
func.func private @inner(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = arith.negf %arg0 : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests that a function on a call cycle, and an external one, are not
// copied.
// CHECK-LABEL: func.func @recursion
// CHECK-NEXT: call @even(
// CHECK-NEXT: call @even(
// CHECK-NEXT: call @ext(
// CHECK-NEXT: call @ext(
// CHECK-NOT: spmd.original_func_name
func.func @recursion(%arg0: tensor<8xf32>, %n: i32) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = func.call @even(%arg0, %n) : (tensor<8xf32>, i32) -> tensor<8xf32>
  %1 = func.call @even(%0, %n) : (tensor<8xf32>, i32) -> tensor<8xf32>
  %2 = func.call @ext(%0) : (tensor<8xf32>) -> tensor<8xf32>
  %3 = func.call @ext(%1) : (tensor<8xf32>) -> tensor<8xf32>
  return %2, %3 : tensor<8xf32>, tensor<8xf32>
}
func.func private @even(%arg0: tensor<8xf32>, %n: i32) -> tensor<8xf32> {
  %0 = func.call @odd(%arg0, %n) : (tensor<8xf32>, i32) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
func.func private @odd(%arg0: tensor<8xf32>, %n: i32) -> tensor<8xf32> {
  %0 = func.call @even(%arg0, %n) : (tensor<8xf32>, i32) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
func.func private @ext(%arg0: tensor<8xf32>) -> tensor<8xf32>
