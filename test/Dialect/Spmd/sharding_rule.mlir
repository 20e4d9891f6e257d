// RUN: tessera-opt %s --split-input-file --allow-unregistered-dialect | FileCheck %s
// RUN: tessera-opt %s --split-input-file --allow-unregistered-dialect | tessera-opt --split-input-file --allow-unregistered-dialect | FileCheck %s
// RUN: tessera-opt %s --split-input-file --allow-unregistered-dialect --mlir-print-op-generic | tessera-opt --split-input-file --allow-unregistered-dialect | FileCheck %s

// Tests that every form of #spmd.op_sharding_rule (and its parts
// #spmd.dim_mapping / #spmd.tensor_mapping) round-trips in its canonical
// form, and that valid rules pass verification against their ops.

// Tests that a matrix multiplication's rule, with reduction factor `k`,
// round-trips and that the input spacing is normalized.
// CHECK-LABEL: func.func @matmul
func.func @matmul(%a: tensor<8x32xf32>, %b: tensor<32x16xf32>, %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // CHECK: linalg.matmul {spmd.sharding_rule = #spmd.op_sharding_rule<([i, k], [k, j], [i, j])->([i, j]) {i=8, j=16, k=32} reduction={k}>}
  %0 = linalg.matmul {spmd.sharding_rule = #spmd.op_sharding_rule<([i, k],[k, j],[i, j])->([i, j]) {i=8, j=16, k=32} reduction={k}>}
      ins(%a, %b : tensor<8x32xf32>, tensor<32x16xf32>) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// Tests that a rule whose values are all scalars round-trips.
// CHECK-LABEL: func.func @scalar
func.func @scalar(%arg0: tensor<f32>) -> tensor<f32> {
  // CHECK: arith.addf %{{.*}}, %{{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([], [])->([])>} : tensor<f32>
  %0 = arith.addf %arg0, %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([], [])->([])>} : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Tests that a non-shaped value (the fill value) is a scalar mapped to `[]`.
// CHECK-LABEL: func.func @non_shaped_scalar
func.func @non_shaped_scalar(%cst: f32, %init: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK: linalg.fill {spmd.sharding_rule = #spmd.op_sharding_rule<([], [i, j])->([i, j]) {i=4, j=8}>}
  %0 = linalg.fill {spmd.sharding_rule = #spmd.op_sharding_rule<([], [i, j])->([i, j]) {i=4, j=8}>}
      ins(%cst : f32) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests that compound dimensions round-trip in both directions: a collapse
// and an expand.
// CHECK-LABEL: func.func @compound
func.func @compound(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([ij]) {i=2, j=4}>}
  %0 = tensor.collapse_shape %arg0 [[0, 1]] {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([ij]) {i=2, j=4}>} : tensor<2x4xf32> into tensor<8xf32>
  // CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [2, 4] {spmd.sharding_rule = #spmd.op_sharding_rule<([ij])->([i, j]) {i=2, j=4}>}
  %1 = tensor.expand_shape %0 [[0, 1]] output_shape [2, 4] {spmd.sharding_rule = #spmd.op_sharding_rule<([ij])->([i, j]) {i=2, j=4}>} : tensor<8xf32> into tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}

// -----

// Tests that a three-factor compound dimension whose name `min` is lexed as
// an MLIR keyword token round-trips.
// CHECK-LABEL: func.func @compound_keyword_name
func.func @compound_keyword_name(%arg0: tensor<2x3x5x7x11x13xf32>) -> tensor<3x5x7x286xf32> {
  // CHECK: #spmd.op_sharding_rule<([i, j, k, l, m, n])->([j, k, l, min]) {i=2, j=3, k=5, l=7, m=11, n=13}>
  %0 = "test.transpose_reshape"(%arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j, k, l, m, n])->([j, k, l, min]) {i=2, j=3, k=5, l=7, m=11, n=13}>} : (tensor<2x3x5x7x11x13xf32>) -> tensor<3x5x7x286xf32>
  return %0 : tensor<3x5x7x286xf32>
}

// -----

// Tests that a need-replication factor may describe dimensions of different
// sizes (a concatenation).
// CHECK-LABEL: func.func @need_replication
func.func @need_replication(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>) -> tensor<4x8xf32> {
  // CHECK: tensor.concat dim(1) %{{.*}}, %{{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j], [i, j])->([i, j]) {i=4, j=8} need_replication={j}>}
  %0 = tensor.concat dim(1) %a, %b {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j], [i, j])->([i, j]) {i=4, j=8} need_replication={j}>} : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests that a permutation factor may describe dimensions of different sizes
// (a slice).
// CHECK-LABEL: func.func @permutation
func.func @permutation(%arg0: tensor<32x8xf32>) -> tensor<32x2xf32> {
  // CHECK: tensor.extract_slice {{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i, j]) {i=32, j=8} permutation={j}>}
  %0 = tensor.extract_slice %arg0[0, 1] [32, 2] [1, 2] {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i, j]) {i=32, j=8} permutation={j}>} : tensor<32x8xf32> to tensor<32x2xf32>
  return %0 : tensor<32x2xf32>
}

// -----

// Tests that a blocked-propagation factor round-trips.
// CHECK-LABEL: func.func @blocked_propagation
func.func @blocked_propagation(%arg0: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // CHECK: arith.negf %{{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i, j]) {i=8, j=4} blocked_propagation={j}>}
  %0 = arith.negf %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i, j]) {i=8, j=4} blocked_propagation={j}>} : tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// Tests that every factor set at once round-trips in canonical order, with a
// custom rule; a blocked factor may also have a kind.
// CHECK-LABEL: func.func @all_sets_custom
func.func @all_sets_custom(%arg0: tensor<2x3x5x7xf32>) -> tensor<2x11x7xf32> {
  // CHECK: #spmd.op_sharding_rule<([i, j, k, l])->([i, k, l]) {i=2, j=3, k=5, l=7} reduction={j} need_replication={i} permutation={k} blocked_propagation={k, l}, custom>
  %0 = "test.custom"(%arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j, k, l])->([i, k, l]) {i=2, j=3, k=5, l=7} reduction={j} need_replication={i} permutation={k} blocked_propagation={k, l}, custom>} : (tensor<2x3x5x7xf32>) -> tensor<2x11x7xf32>
  return %0 : tensor<2x11x7xf32>
}

// -----

// Tests that a custom rule may override the rule of any op.
// CHECK-LABEL: func.func @custom_on_upstream_op
func.func @custom_on_upstream_op(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // CHECK: arith.negf %{{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i, j]) {i=16, j=32}, custom>}
  %0 = arith.negf %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i, j]) {i=16, j=32}, custom>} : tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

// Tests that empty factor sets are dropped from the canonical form.
// CHECK-LABEL: func.func @empty_sets_dropped
func.func @empty_sets_dropped(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // CHECK: arith.negf %{{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([i])->([i]) {i=8}>}
  %0 = arith.negf %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([i]) -> ([i]) {i=8} reduction={} permutation={}>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests that size-1 factors round-trip: on a size-1 dimension, and on
// dimensions that the rule leaves unsharded whatever their size (the reduced
// dimension of a top-k).
// CHECK-LABEL: func.func @size_one_factors
func.func @size_one_factors(%arg0: tensor<8x1xf32>, %arg1: tensor<16x8xf32>) -> (tensor<8x1xf32>, tensor<16x2xf32>) {
  // CHECK: arith.negf %{{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i, j]) {i=8, j=1}>}
  %0 = arith.negf %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i, j]) {i=8, j=1}>} : tensor<8x1xf32>
  // CHECK: #spmd.op_sharding_rule<([i, j])->([i, k]) {i=16, j=1, k=1}>
  %1 = "test.top_k"(%arg1) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i, k]) {i=16, j=1, k=1}>} : (tensor<16x8xf32>) -> tensor<16x2xf32>
  return %0, %1 : tensor<8x1xf32>, tensor<16x2xf32>
}

// -----

// Tests that a size-0 factor describes a dimension of size 0.
// CHECK-LABEL: func.func @size_zero_factor
func.func @size_zero_factor(%arg0: tensor<2x0xf32>) -> tensor<2x0xf32> {
  // CHECK: arith.negf %{{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i, j]) {i=2, j=0}>}
  %0 = arith.negf %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i, j]) {i=2, j=0}>} : tensor<2x0xf32>
  return %0 : tensor<2x0xf32>
}

// -----

// Tests that factor names beyond `z` (z_1, z_2) and the compound `zz_1`
// round-trip.
// CHECK-LABEL: func.func @zz_1
func.func @zz_1(%arg0: tensor<2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2xf32>) -> tensor<2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x4x2xf32> {
  // CHECK:      #spmd.op_sharding_rule<([i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y, z, z_1, z_2])
  // CHECK-SAME: ->([i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y, zz_1, z_2])
  // CHECK-SAME: {i=2, j=2, k=2, l=2, m=2, n=2, o=2, p=2, q=2, r=2, s=2, t=2, u=2, v=2, w=2, x=2, y=2, z=2, z_1=2, z_2=2}>
  %0 = "test.reshape"(%arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y, z, z_1, z_2])->([i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y, zz_1, z_2]) {i=2, j=2, k=2, l=2, m=2, n=2, o=2, p=2, q=2, r=2, s=2, t=2, u=2, v=2, w=2, x=2, y=2, z=2, z_1=2, z_2=2}>} : (tensor<2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2xf32>) -> tensor<2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x4x2xf32>
  return %0 : tensor<2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x4x2xf32>
}

// -----

// Tests that a compound of three `z_N` factors (`z_8z_9z_10`) and factor sets
// naming factors beyond `z` round-trip.
// CHECK-LABEL: func.func @z_8z_9z_10
func.func @z_8z_9z_10(%arg0: tensor<2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2xf32>) -> tensor<2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x8xf32> {
  // CHECK:      #spmd.op_sharding_rule<([i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y, z, z_1, z_2, z_3, z_4, z_5, z_6, z_7, z_8, z_9, z_10])
  // CHECK-SAME: ->([i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y, z, z_1, z_2, z_3, z_4, z_5, z_6, z_7, z_8z_9z_10])
  // CHECK-SAME: {i=2, j=2, k=2, l=2, m=2, n=2, o=2, p=2, q=2, r=2, s=2, t=2, u=2, v=2, w=2, x=2, y=2, z=2, z_1=2, z_2=2, z_3=2, z_4=2, z_5=2, z_6=2, z_7=2, z_8=2, z_9=2, z_10=2}
  // CHECK-SAME: need_replication={z_1} blocked_propagation={z, z_10}>
  %0 = "test.reshape"(%arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y, z, z_1, z_2, z_3, z_4, z_5, z_6, z_7, z_8, z_9, z_10])->([i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y, z, z_1, z_2, z_3, z_4, z_5, z_6, z_7, z_8z_9z_10]) {i=2, j=2, k=2, l=2, m=2, n=2, o=2, p=2, q=2, r=2, s=2, t=2, u=2, v=2, w=2, x=2, y=2, z=2, z_1=2, z_2=2, z_3=2, z_4=2, z_5=2, z_6=2, z_7=2, z_8=2, z_9=2, z_10=2} need_replication={z_1} blocked_propagation={z, z_10}>} : (tensor<2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2xf32>) -> tensor<2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x8xf32>
  return %0 : tensor<2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x8xf32>
}

// -----

// Tests that a rule for several results, including a scalar one,
// round-trips.
// CHECK-LABEL: func.func @multiple_results
func.func @multiple_results(%arg0: tensor<8x4xf32>) -> (tensor<8xf32>, tensor<8xi32>, tensor<f32>) {
  // CHECK: #spmd.op_sharding_rule<([i, j])->([i], [i], []) {i=8, j=4} reduction={j}>
  %0:3 = "test.argmax"(%arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i], [i], []) {i=8, j=4} reduction={j}>} : (tensor<8x4xf32>) -> (tensor<8xf32>, tensor<8xi32>, tensor<f32>)
  return %0#0, %0#1, %0#2 : tensor<8xf32>, tensor<8xi32>, tensor<f32>
}

// -----

// Tests that the standalone forms of the rule's parts round-trip.
// CHECK-LABEL: func.func @parts
func.func @parts() {
  // CHECK: "test.parts"() {dim = #spmd.dim_mapping<zz_1>, scalar = #spmd.tensor_mapping<[]>, tensor = #spmd.tensor_mapping<[i, jk]>} : () -> ()
  "test.parts"() {dim = #spmd.dim_mapping<zz_1>, tensor = #spmd.tensor_mapping<[i, jk]>, scalar = #spmd.tensor_mapping<[]>} : () -> ()
  return
}

// -----

// A factor of dynamic size is written `?`; it maps dynamic dimensions.
// CHECK-LABEL: func.func @dynamic_factor
// CHECK: spmd.sharding_rule = #spmd.op_sharding_rule<([i, j], [i, j])->([i, j]) {i=?, j=4}>
// CHECK: spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([ij]) {i=?, j=4}>
func.func @dynamic_factor(%arg0: tensor<?x4xf32>) -> tensor<?xf32> {
  %0 = "test.add"(%arg0, %arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j], [i, j])->([i, j]) {i=?, j=4}>} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = "test.collapse"(%0) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([ij]) {i=?, j=4}>} : (tensor<?x4xf32>) -> tensor<?xf32>
  return %1 : tensor<?xf32>
}
