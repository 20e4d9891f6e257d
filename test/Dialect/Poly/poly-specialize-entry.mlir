// RUN: tessera-opt %s --split-input-file --poly-specialize | FileCheck %s

// Without polymorphic entry points no option is needed: the functions with
// static arguments that call polymorphic functions are specialized.

// Tests an entry point with static arguments that calls a polymorphic
// function through a cast: the callee is cloned for b = 3, the caller's
// dynamic values (and its dynamic result) become static.
// CHECK-NOT: @rows(
// CHECK-LABEL: func.func private @rows_b3
// CHECK-SAME: (%[[X:.*]]: tensor<3x4xf32>) -> tensor<6x4xf32>
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[T:.*]]: tensor<3x4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT: %[[R:.*]] = call @rows_b3(%[[T]]) : (tensor<3x4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT: return %[[R]] : tensor<6x4xf32>
func.func private @rows(%x: tensor<?x4xf32> {poly.shape = #poly.shape<"b, 4">}) -> tensor<?x4xf32> {
  %0 = tensor.concat dim(0) %x, %x : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
func.func @main(%t: tensor<3x4xf32>) -> tensor<?x4xf32> {
  %d = tensor.cast %t : tensor<3x4xf32> to tensor<?x4xf32>
  %r = func.call @rows(%d) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

// Tests a function with a static signature between an entry point and a
// polymorphic function: it is specialized in place, and a callee with a
// dynamic result but no dimension variables is cloned as `_static`.
// CHECK-NOT: @grow(
// CHECK-LABEL: func.func private @grow_n2
// CHECK-SAME: (%{{.*}}: tensor<2xf32>) -> tensor<4xf32>
// CHECK-LABEL: func.func @helper
// CHECK-SAME: (%[[X:.*]]: tensor<2xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[G:.*]] = call @grow_n2(%[[X]]) : (tensor<2xf32>) -> tensor<4xf32>
// CHECK-NEXT: return %[[G]] : tensor<4xf32>
// CHECK-NOT: @widen(
// CHECK-LABEL: func.func private @widen_static
// CHECK-SAME: (%{{.*}}: tensor<2xf32>) -> tensor<4xf32>
// CHECK-LABEL: func.func @entry
// CHECK-SAME: (%[[Y:.*]]: tensor<2xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: %[[H:.*]] = call @helper(%[[Y]]) : (tensor<2xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[W:.*]] = call @widen_static(%[[Y]]) : (tensor<2xf32>) -> tensor<4xf32>
// CHECK-NEXT: return %[[H]], %[[W]] : tensor<4xf32>, tensor<4xf32>
func.func private @grow(%x: tensor<?xf32> {poly.shape = #poly.shape<"n">}) -> tensor<?xf32> {
  %0 = tensor.concat dim(0) %x, %x : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
func.func @helper(%x: tensor<2xf32>) -> tensor<4xf32> {
  %d = tensor.cast %x : tensor<2xf32> to tensor<?xf32>
  %g = func.call @grow(%d) : (tensor<?xf32>) -> tensor<?xf32>
  %s = tensor.cast %g : tensor<?xf32> to tensor<4xf32>
  return %s : tensor<4xf32>
}
func.func private @widen(%x: tensor<2xf32>) -> tensor<?xf32> {
  %d = tensor.cast %x : tensor<2xf32> to tensor<?xf32>
  %g = func.call @grow(%d) : (tensor<?xf32>) -> tensor<?xf32>
  return %g : tensor<?xf32>
}
func.func @entry(%y: tensor<2xf32>) -> (tensor<4xf32>, tensor<?xf32>) {
  %h = func.call @helper(%y) : (tensor<2xf32>) -> tensor<4xf32>
  %w = func.call @widen(%y) : (tensor<2xf32>) -> tensor<?xf32>
  return %h, %w : tensor<4xf32>, tensor<?xf32>
}

// -----

// Tests that a module without polymorphic functions is left unchanged.
// CHECK-LABEL: func.func @static_only
// CHECK-SAME: (%[[X:.*]]: tensor<?xf32>) -> tensor<?xf32>
// CHECK-NEXT: return %[[X]] : tensor<?xf32>
func.func @static_only(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}
