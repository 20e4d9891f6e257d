// RUN: tessera-opt %s -split-input-file --spmd-propagate="user-priorities=false" | FileCheck %s
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a matmul propagates in a later stage than elementwise ops and
// still shards its result with the rows of %arg0 and the columns of %arg1,
// which the elementwise op after it then takes.
// CHECK-LABEL: func.func @elementwise_before_matmul(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {}]>}, %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"b"}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>})
// CHECK: %{{.*}} = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} : tensor<8x8xf32>
// CHECK: %{{.*}} = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} ins(%{{.*}}, %{{.*}} : tensor<8x8xf32>, tensor<8x8xf32>) outs(%{{.*}} : tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} : tensor<8x8xf32>
func.func @elementwise_before_matmul(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {}]>}, %arg1: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"b"}]>}) -> tensor<8x8xf32> {
  %0 = tensor.empty() : tensor<8x8xf32>
  %1 = linalg.matmul ins(%arg0, %arg1 : tensor<8x8xf32>, tensor<8x8xf32>) outs(%0 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %2 = arith.negf %1 : tensor<8x8xf32>
  return %2 : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a broadcast propagates forward only in the last stage: the
// elementwise op after it takes the sharding of its other operand first
// ("b"), which then reaches the broadcast's result; the broadcast's closed
// operand keeps "a".
// CHECK-LABEL: func.func @broadcast_forward_last(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}, %{{.*}}: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}, {}]>}) -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}, {?}]>})
// CHECK: %{{.*}} = linalg.broadcast ins(%{{.*}} : tensor<8xf32>) outs(%{{.*}} : tensor<8x16xf32>) dimensions = [1]  {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}, {?}]>]>}
// CHECK: %{{.*}} = arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}, {?}]>]>} : tensor<8x16xf32>
func.func @broadcast_forward_last(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}, %arg1: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}, {}]>}) -> tensor<8x16xf32> {
  %0 = tensor.empty() : tensor<8x16xf32>
  %1 = linalg.broadcast ins(%arg0 : tensor<8xf32>) outs(%0 : tensor<8x16xf32>) dimensions = [1]
  %2 = arith.addf %1, %arg1 : tensor<8x16xf32>
  return %2 : tensor<8x16xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that an elementwise op whose operand has several uses waits for the
// second stage: the single-use chain from %arg1 wins %1 first.
// CHECK-LABEL: func.func @multi_use_operand_waits(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}]>}, tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}]>]>} : tensor<8xf32>
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}]>]>} : tensor<8xf32>
// CHECK: %{{.*}} = arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}]>]>} : tensor<8xf32>
// CHECK: %{{.*}} = arith.mulf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>} : tensor<8xf32>
func.func @multi_use_operand_waits(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}, %arg1: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}]>}) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = arith.negf %arg0 : tensor<8xf32>
  %1 = arith.negf %arg1 : tensor<8xf32>
  %2 = arith.addf %0, %1 : tensor<8xf32>
  %3 = arith.mulf %arg0, %arg0 : tensor<8xf32>
  return %2, %3 : tensor<8xf32>, tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a reshape is a pass-through op of the first stage.
// CHECK-LABEL: func.func @reshape_first_stage(
// CHECK-SAME: %{{.*}}: tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}) -> (tensor<32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>})
// CHECK: %{{.*}} = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1{{\]\]}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>} : tensor<4x8xf32> into tensor<32xf32>
// CHECK: %{{.*}} = math.exp %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>} : tensor<32xf32>
func.func @reshape_first_stage(%arg0: tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}) -> tensor<32xf32> {
  %0 = tensor.collapse_shape %arg0 [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  %1 = math.exp %0 : tensor<32xf32>
  return %1 : tensor<32xf32>
}
