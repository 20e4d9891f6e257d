// RUN: tessera-opt %s -split-input-file --spmd-propagate="strategy=aggressive op-priorities=false user-priorities=false" | FileCheck %s
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a conflict within one factor ("a" vs "b") still leaves the
// result unsharded: the aggressive strategy only settles conflicts between
// different factors.
// CHECK-LABEL: func.func @conflict_tie_lower_index(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}]>}) -> tensor<8xf32>
func.func @conflict_tie_lower_index(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}, %arg1: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}]>}) -> tensor<8xf32> {
  %0 = arith.addf %arg0, %arg1 : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that when two factors want the same axis, the factor whose source
// tensor is larger wins: the rhs (16x32) is larger than the lhs (8x16), so
// the result columns take "a" and the rows stay unsharded.
// CHECK-LABEL: func.func @larger_source_wins(
// CHECK-SAME: %{{.*}}: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {}]>}, %{{.*}}: tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"a"}]>}) -> (tensor<8x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"a", ?}]>})
// CHECK: %{{.*}} = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{?}, {"a", ?}]>]>} : tensor<8x32xf32>
// CHECK: %{{.*}} = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{?}, {"a", ?}]>]>} ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x32xf32>) outs(%{{.*}} : tensor<8x32xf32>) -> tensor<8x32xf32>
func.func @larger_source_wins(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {}]>}, %arg1: tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"a"}]>}) -> tensor<8x32xf32> {
  %0 = tensor.empty() : tensor<8x32xf32>
  %1 = linalg.matmul ins(%arg0, %arg1 : tensor<8x16xf32>, tensor<16x32xf32>) outs(%0 : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %1 : tensor<8x32xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that with equal source sizes the lower tensor index wins the axis.
// CHECK-LABEL: func.func @equal_sources_lower_index(
// CHECK-SAME: %{{.*}}: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {}]>}, %{{.*}}: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"a"}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {?}]>})
// CHECK: %{{.*}} = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {?}]>]>} : tensor<8x8xf32>
// CHECK: %{{.*}} = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {?}]>]>} ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x8xf32>) outs(%{{.*}} : tensor<8x8xf32>) -> tensor<8x8xf32>
func.func @equal_sources_lower_index(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {}]>}, %arg1: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"a"}]>}) -> tensor<8x8xf32> {
  %0 = tensor.empty() : tensor<8x8xf32>
  %1 = linalg.matmul ins(%arg0, %arg1 : tensor<8x16xf32>, tensor<16x8xf32>) outs(%0 : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a closed tensor does not block the others: the closed operand
// keeps its sharding, the open ones still get "a".
// CHECK-LABEL: func.func @closed_does_not_block(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>})
// CHECK: %{{.*}} = arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>} : tensor<8xf32>
func.func @closed_does_not_block(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}, %arg1: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) -> tensor<8xf32> {
  %0 = arith.addf %arg0, %arg1 : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a replicated axis in one operand only stops that operand.
// CHECK-LABEL: func.func @replicated_only_stops_its_tensor(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}], replicated={"a"}>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>})
// CHECK: %{{.*}} = arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>} : tensor<8xf32>
func.func @replicated_only_stops_its_tensor(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}, %arg1: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}], replicated={"a"}>}) -> tensor<8xf32> {
  %0 = arith.addf %arg0, %arg1 : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that an elementwise op's result that stays replicated (closed) does
// not let the axis slide sideways into the other operand.
// CHECK-LABEL: func.func @no_sideways_past_closed_result(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}, %{{.*}}: tensor<8xf32>) -> tensor<8xf32>
// CHECK: %{{.*}} = arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}]>]>} : tensor<8xf32>
func.func @no_sideways_past_closed_result(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}, %arg1: tensor<8xf32>) -> tensor<8xf32> {
  %0 = arith.addf %arg0, %arg1 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}]>]>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that the longer of two compatible lists wins: ["a"] and ["a", "b"].
// CHECK-LABEL: func.func @longer_compatible(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", ?}]>}, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", ?}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", ?}]>})
// CHECK: %{{.*}} = arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", "b", ?}]>]>} : tensor<8xf32>
func.func @longer_compatible(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}, %arg1: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", ?}]>}) -> tensor<8xf32> {
  %0 = arith.addf %arg0, %arg1 : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests a two-layer MLP with column- then row-parallel weights: the batch
// stays on "a", the hidden dim takes "b" and the contracting "b" of the
// second matmul reaches nothing else.
// CHECK-LABEL: func.func @mlp(
// CHECK-SAME: %{{.*}}: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {}]>}, %{{.*}}: tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"b"}]>}, %{{.*}}: tensor<32x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}, {}]>}) -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {?}]>})
// CHECK: %{{.*}} = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} : tensor<8x32xf32>
// CHECK: %{{.*}} = linalg.fill {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} ins(%{{.*}} : f32) outs(%{{.*}} : tensor<8x32xf32>) -> tensor<8x32xf32>
// CHECK: %{{.*}} = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x32xf32>) outs(%{{.*}} : tensor<8x32xf32>) -> tensor<8x32xf32>
// CHECK: %{{.*}} = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {?}]>]>} : tensor<8x16xf32>
// CHECK: %{{.*}} = linalg.fill {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {?}]>]>} ins(%{{.*}} : f32) outs(%{{.*}} : tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK: %{{.*}} = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {?}]>]>} ins(%{{.*}}, %{{.*}} : tensor<8x32xf32>, tensor<32x16xf32>) outs(%{{.*}} : tensor<8x16xf32>) -> tensor<8x16xf32>
func.func @mlp(%x: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {}]>}, %w1: tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"b"}]>}, %w2: tensor<32x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}, {}]>}) -> tensor<8x16xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<8x32xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %2 = linalg.matmul ins(%x, %w1 : tensor<8x16xf32>, tensor<16x32xf32>) outs(%1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %3 = tensor.empty() : tensor<8x16xf32>
  %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %5 = linalg.matmul ins(%2, %w2 : tensor<8x32xf32>, tensor<32x16xf32>) outs(%4 : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %5 : tensor<8x16xf32>
}
