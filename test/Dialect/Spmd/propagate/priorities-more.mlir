// RUN: tessera-opt %s -split-input-file --spmd-propagate | FileCheck %s
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a p1 dim does not take axes from a p2 dim of the same factor,
// and that the p2 dim then keeps its own.
// CHECK-LABEL: func.func @p1_over_p2(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>})
// CHECK: %{{.*}} = arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>} : tensor<8xf32>
func.func @p1_over_p2(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}p1]>}, %arg1: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}p2]>}) -> tensor<8xf32> {
  %0 = arith.addf %arg0, %arg1 : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that priorities on an op's own sharding are honored like those on
// arguments.
// CHECK-LABEL: func.func @op_sharding_priority(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c", ?}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"c", ?}]>]>} : tensor<8xf32>
// CHECK: %{{.*}} = math.exp %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"c", ?}]>]>} : tensor<8xf32>
func.func @op_sharding_priority(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}p3]>}) -> tensor<8xf32> {
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"c", ?}p1]>]>} : tensor<8xf32>
  %1 = math.exp %0 : tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a function result priority applies too.
// CHECK-LABEL: func.func @result_priority(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}]>]>} : tensor<8xf32>
func.func @result_priority(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}p2]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}p1]>}) {
  %0 = arith.negf %arg0 : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a broadcast does not push its operand's sharding forward
// before the elementwise chain after it has settled (op priorities).
// CHECK-LABEL: func.func @broadcast_waits(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}, %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}, {?}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}, {?}]>})
// CHECK: %{{.*}} = linalg.broadcast ins(%{{.*}} : tensor<8xf32>) outs(%{{.*}} : tensor<8x8xf32>) dimensions = [1]  {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}, {?}]>]>}
// CHECK: %{{.*}} = math.exp %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}, {?}]>]>} : tensor<8x8xf32>
// CHECK: %{{.*}} = arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}, {?}]>]>} : tensor<8x8xf32>
func.func @broadcast_waits(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}, %arg1: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}, {?}]>}) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %0 = linalg.broadcast ins(%arg0 : tensor<8xf32>) outs(%e : tensor<8x8xf32>) dimensions = [1]
  %1 = math.exp %0 : tensor<8x8xf32>
  %2 = arith.addf %1, %arg1 : tensor<8x8xf32>
  return %2 : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a reshape propagates in the first stage, before a matmul
// competes for the same value.
// CHECK-LABEL: func.func @reshape_before_matmul(
// CHECK-SAME: %{{.*}}: tensor<4x4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {}, {}]>}, %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}, {}]>}) -> (tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {?}]>})
// CHECK: %{{.*}} = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2{{\]\]}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} : tensor<4x4x8xf32> into tensor<16x8xf32>
// CHECK: %{{.*}} = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {?}]>]>} : tensor<16x8xf32>
// CHECK: %{{.*}} = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {?}]>]>} ins(%{{.*}}, %{{.*}} : tensor<16x8xf32>, tensor<8x8xf32>) outs(%{{.*}} : tensor<16x8xf32>) -> tensor<16x8xf32>
func.func @reshape_before_matmul(%arg0: tensor<4x4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {}, {}]>}, %arg1: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}, {}]>}) -> tensor<16x8xf32> {
  %0 = tensor.collapse_shape %arg0 [[0, 1], [2]] : tensor<4x4x8xf32> into tensor<16x8xf32>
  %e = tensor.empty() : tensor<16x8xf32>
  %1 = linalg.matmul ins(%0, %arg1 : tensor<16x8xf32>, tensor<8x8xf32>) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %1 : tensor<16x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that transposes are pass-through ops: the sharding goes there and
// back through an elementwise op.
// CHECK-LABEL: func.func @transpose_chain(
// CHECK-SAME: %{{.*}}: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"d"}]>}) -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"d", ?}]>})
// CHECK: %{{.*}} = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"d", ?}, {"a", ?}]>]>} : tensor<16x8xf32>
// CHECK: %{{.*}} = linalg.transpose ins(%{{.*}} : tensor<8x16xf32>) outs(%{{.*}} : tensor<16x8xf32>) permutation = [1, 0]  {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"d", ?}, {"a", ?}]>]>}
// CHECK: %{{.*}} = math.exp %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"d", ?}, {"a", ?}]>]>} : tensor<16x8xf32>
// CHECK: %{{.*}} = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"d", ?}]>]>} : tensor<8x16xf32>
// CHECK: %{{.*}} = linalg.transpose ins(%{{.*}} : tensor<16x8xf32>) outs(%{{.*}} : tensor<8x16xf32>) permutation = [1, 0]  {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"d", ?}]>]>}
func.func @transpose_chain(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"d"}]>}) -> tensor<8x16xf32> {
  %e0 = tensor.empty() : tensor<16x8xf32>
  %0 = linalg.transpose ins(%arg0 : tensor<8x16xf32>) outs(%e0 : tensor<16x8xf32>) permutation = [1, 0]
  %1 = math.exp %0 : tensor<16x8xf32>
  %e1 = tensor.empty() : tensor<8x16xf32>
  %2 = linalg.transpose ins(%1 : tensor<16x8xf32>) outs(%e1 : tensor<8x16xf32>) permutation = [1, 0]
  return %2 : tensor<8x16xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests a group spanning a loop's result and an op outside it.
// CHECK-LABEL: func.func @group_with_loop_result(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d"}]>}, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d", ?}]>}, %{{.*}}: index) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d", ?}]>}, tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d", ?}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"d", ?}]>]>} : tensor<8xf32>
// CHECK: } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"d", ?}]>]>}
// CHECK: %{{.*}} = math.exp %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"d", ?}]>]>} : tensor<8xf32>
// CHECK: spmd.sharding_group %{{.*}} group_id=0 : tensor<8xf32>
// CHECK: spmd.sharding_group %{{.*}} group_id=0 : tensor<8xf32>
func.func @group_with_loop_result(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d"}]>}, %arg1: tensor<8xf32>, %n: index) -> (tensor<8xf32>, tensor<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %arg1) -> tensor<8xf32> {
    %y = arith.negf %x : tensor<8xf32>
    scf.yield %y : tensor<8xf32>
  }
  %z = math.exp %arg0 : tensor<8xf32>
  spmd.sharding_group %r group_id=0 : tensor<8xf32>
  spmd.sharding_group %z group_id=0 : tensor<8xf32>
  return %r, %z : tensor<8xf32>, tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a barrier with several uses of its result only lets the
// allowed direction through to every use.
// CHECK-LABEL: func.func @barrier_multiple_uses(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", ?}]>}, tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", ?}]>})
// CHECK: %{{.*}} = spmd.propagation_barrier %{{.*}} allowed_direction=FORWARD {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", "b", ?}]>]>} : tensor<8xf32>
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", "b", ?}]>]>} : tensor<8xf32>
// CHECK: %{{.*}} = math.exp %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", "b", ?}]>]>} : tensor<8xf32>
func.func @barrier_multiple_uses(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = spmd.propagation_barrier %arg0 allowed_direction=FORWARD : tensor<8xf32>
  %1 = arith.negf %0 : tensor<8xf32>
  %2 = math.exp %0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", "b", ?}]>]>} : tensor<8xf32>
  return %1, %2 : tensor<8xf32>, tensor<8xf32>
}
