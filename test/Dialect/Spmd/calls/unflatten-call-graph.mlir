// RUN: tessera-opt %s --split-input-file --spmd-unflatten-call-graph | FileCheck %s

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests that copies with the same argument and result shardings as an
// earlier one are merged into it and erased, and copies with other
// shardings stay (without spmd.original_func_name).
// CHECK-LABEL: func.func @main
// CHECK-NEXT: call @foo(
// CHECK-NEXT: call @foo(
// CHECK-NEXT: call @foo_1(
// CHECK-LABEL: func.func private @foo(
// CHECK-LABEL: func.func private @foo_1(
// CHECK-SAME: [{}, {"y", ?}]
// CHECK-NOT: spmd.original_func_name
// CHECK-NOT: @foo_0
func.func @main(%arg0: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %0 = func.call @foo(%arg0) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = func.call @foo_0(%arg0) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %2 = func.call @foo_1(%arg0) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0, %1, %2 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}
func.func private @foo(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", ?}, {?}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", ?}, {?}]>}) {
  %0 = arith.negf %arg0 : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
func.func private @foo_0(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", ?}, {?}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", ?}, {?}]>}) attributes {spmd.original_func_name = "foo"} {
  %0 = arith.negf %arg0 : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
func.func private @foo_1(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y", ?}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y", ?}]>}) attributes {spmd.original_func_name = "foo"} {
  %0 = arith.negf %arg0 : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests that a merged copy's own callee copies go with it, and that
// functions of different origins are never merged.
// CHECK-LABEL: func.func @chain
// CHECK-NEXT: call @outer(
// CHECK-NEXT: call @outer(
// CHECK-NEXT: call @other(
// CHECK-LABEL: func.func private @outer(
// CHECK-NEXT: call @inner(
// CHECK-LABEL: func.func private @inner(
// CHECK-LABEL: func.func private @other(
// CHECK-NOT: func.func
func.func @chain(%arg0: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = func.call @outer(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = func.call @outer_0(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  %2 = func.call @other(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  return %0, %1, %2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
func.func private @outer(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = func.call @inner(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
func.func private @inner(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  return %arg0 : tensor<8xf32>
}
func.func private @other(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  return %arg0 : tensor<8xf32>
}
func.func private @outer_0(%arg0: tensor<8xf32>) -> tensor<8xf32> attributes {spmd.original_func_name = "outer"} {
  %0 = func.call @inner_0(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
func.func private @inner_0(%arg0: tensor<8xf32>) -> tensor<8xf32> attributes {spmd.original_func_name = "inner"} {
  return %arg0 : tensor<8xf32>
}
