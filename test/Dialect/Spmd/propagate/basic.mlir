// RUN: tessera-opt %s -split-input-file --spmd-propagate="strategy=basic op-priorities=false user-priorities=false" | FileCheck %s
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that an argument's sharding flows forward through elementwise ops
// into the function result, as open dims.
// CHECK-LABEL: func.func @elementwise_forward(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}, %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>})
// CHECK: %{{.*}} = arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} : tensor<8x8xf32>
// CHECK: %{{.*}} = math.exp %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} : tensor<8x8xf32>
func.func @elementwise_forward(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}, %arg1: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = arith.addf %arg0, %arg1 : tensor<8x8xf32>
  %1 = math.exp %0 : tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}

// -----


spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a function result's sharding flows backward to the arguments.
// CHECK-LABEL: func.func @elementwise_backward(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"c", ?}]>}, %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"c", ?}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"c", ?}]>})
// CHECK: %{{.*}} = arith.mulf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{?}, {"c", ?}]>]>} : tensor<8x8xf32>
func.func @elementwise_backward(%arg0: tensor<8x8xf32>, %arg1: tensor<8x8xf32>) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"c", ?}]>}) {
  %0 = arith.mulf %arg0, %arg1 : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----


spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a closed dim is never extended, while an open one is.
// CHECK-LABEL: func.func @closed_dim_not_extended(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}, {"c"}]>}, %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"c", ?}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"c", ?}]>})
// CHECK: %{{.*}} = arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"c", ?}]>]>} : tensor<8x8xf32>
func.func @closed_dim_not_extended(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}, {"c"}]>}, %arg1: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {?}]>}) -> tensor<8x8xf32> {
  %0 = arith.addf %arg0, %arg1 : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----


spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that the basic strategy takes the longest common major prefix:
// ["a", "b"] and ["a", "c"] give ["a"].
// CHECK-LABEL: func.func @common_prefix(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", ?}]>}, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "c", ?}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>})
// CHECK: %{{.*}} = arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>} : tensor<8xf32>
func.func @common_prefix(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", ?}]>}, %arg1: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "c", ?}]>}) -> tensor<8xf32> {
  %0 = arith.addf %arg0, %arg1 : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----


spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a real conflict between operands ("a" vs "b" on the same
// factor) leaves the result unsharded with the basic strategy.
// CHECK-LABEL: func.func @conflict_leaves_unsharded(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}]>}) -> tensor<8xf32>
func.func @conflict_leaves_unsharded(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}, %arg1: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}]>}) -> tensor<8xf32> {
  %0 = arith.addf %arg0, %arg1 : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----


spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a sub-axis that is a prefix of a full axis merges with it:
// ["d":(1)2] and ["d"] give ["d"].
// CHECK-LABEL: func.func @sub_axis_prefix(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d", ?}]>}, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d", ?}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d", ?}]>})
// CHECK: %{{.*}} = arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"d", ?}]>]>} : tensor<8xf32>
func.func @sub_axis_prefix(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d":(1)2, ?}]>}, %arg1: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d", ?}]>}) -> tensor<8xf32> {
  %0 = arith.addf %arg0, %arg1 : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----


spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that an explicitly replicated axis of a tensor blocks the factor.
// CHECK-LABEL: func.func @replicated_axis_blocks(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>}, %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"b", ?}], replicated={"a"}>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"b", ?}]>})
// CHECK: %{{.*}} = arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{?}, {"b", ?}]>]>} : tensor<8x8xf32>
func.func @replicated_axis_blocks(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>}, %arg1: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {?}], replicated={"a"}>}) -> tensor<8x8xf32> {
  %0 = arith.addf %arg0, %arg1 : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----


spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that an unreduced axis of a tensor blocks the factor.
// CHECK-LABEL: func.func @unreduced_axis_blocks(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", ?}]>}, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}], unreduced={"b"}>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>})
// CHECK: %{{.*}} = arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>} : tensor<8xf32>
func.func @unreduced_axis_blocks(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", ?}]>}, %arg1: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}], unreduced={"b"}>}) -> tensor<8xf32> {
  %0 = arith.addf %arg0, %arg1 : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----


spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests matmul: the batch and free factors reach the result, the contracting
// factor does not; the lhs contracting axis reaches the rhs.
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %{{.*}}: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}, %{{.*}}: tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}, {"c"}]>}) -> (tensor<8x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"c", ?}]>})
// CHECK: %{{.*}} = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"c", ?}]>]>} : tensor<8x32xf32>
// CHECK: %{{.*}} = linalg.fill {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"c", ?}]>]>} ins(%{{.*}} : f32) outs(%{{.*}} : tensor<8x32xf32>) -> tensor<8x32xf32>
// CHECK: %{{.*}} = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"c", ?}]>]>} ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x32xf32>) outs(%{{.*}} : tensor<8x32xf32>) -> tensor<8x32xf32>
func.func @matmul(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}, %arg1: tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"c"}]>}) -> tensor<8x32xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<8x32xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %2 = linalg.matmul ins(%arg0, %arg1 : tensor<8x16xf32>, tensor<16x32xf32>) outs(%1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %2 : tensor<8x32xf32>
}

// -----


spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that an axis used by another factor of any tensor blocks a factor:
// "a" shards both the lhs rows and the rhs columns, so neither reaches the
// result (the aggressive strategy resolves this, see aggressive.mlir).
// CHECK-LABEL: func.func @axis_used_by_other_factor(
// CHECK-SAME: %{{.*}}: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {}]>}, %{{.*}}: tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"a"}]>}) -> tensor<8x32xf32>
func.func @axis_used_by_other_factor(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {}]>}, %arg1: tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"a"}]>}) -> tensor<8x32xf32> {
  %0 = tensor.empty() : tensor<8x32xf32>
  %1 = linalg.matmul ins(%arg0, %arg1 : tensor<8x16xf32>, tensor<16x32xf32>) outs(%0 : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %1 : tensor<8x32xf32>
}

// -----


spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that the result's sharding flows backward into a matmul's operands.
// CHECK-LABEL: func.func @matmul_backward(
// CHECK-SAME: %{{.*}}: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {?}]>}, %{{.*}}: tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"b", ?}]>}) -> (tensor<8x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>})
// CHECK: %{{.*}} = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} : tensor<8x32xf32>
// CHECK: %{{.*}} = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x32xf32>) outs(%{{.*}} : tensor<8x32xf32>) -> tensor<8x32xf32>
func.func @matmul_backward(%arg0: tensor<8x16xf32>, %arg1: tensor<16x32xf32>) -> (tensor<8x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}) {
  %0 = tensor.empty() : tensor<8x32xf32>
  %1 = linalg.matmul ins(%arg0, %arg1 : tensor<8x16xf32>, tensor<16x32xf32>) outs(%0 : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %1 : tensor<8x32xf32>
}

// -----


spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests transpose: dims follow their permutation both ways.
// CHECK-LABEL: func.func @transpose(
// CHECK-SAME: %{{.*}}: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b", "c"}]>}) -> (tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", "c", ?}, {"a", ?}]>})
// CHECK: %{{.*}} = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", "c", ?}, {"a", ?}]>]>} : tensor<16x8xf32>
// CHECK: %{{.*}} = linalg.transpose ins(%{{.*}} : tensor<8x16xf32>) outs(%{{.*}} : tensor<16x8xf32>) permutation = [1, 0]  {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", "c", ?}, {"a", ?}]>]>}
func.func @transpose(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b", "c"}]>}) -> tensor<16x8xf32> {
  %0 = tensor.empty() : tensor<16x8xf32>
  %1 = linalg.transpose ins(%arg0 : tensor<8x16xf32>) outs(%0 : tensor<16x8xf32>) permutation = [1, 0]
  return %1 : tensor<16x8xf32>
}

// -----


spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests broadcast: the kept dim flows forward; the new dim's sharding flows
// backward nowhere.
// CHECK-LABEL: func.func @broadcast(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}) -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>})
// CHECK: %{{.*}} = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} : tensor<8x16xf32>
// CHECK: %{{.*}} = linalg.broadcast ins(%{{.*}} : tensor<8xf32>) outs(%{{.*}} : tensor<8x16xf32>) dimensions = [1]  {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>}
func.func @broadcast(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}) -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"b", ?}]>}) {
  %0 = tensor.empty() : tensor<8x16xf32>
  %1 = linalg.broadcast ins(%arg0 : tensor<8xf32>) outs(%0 : tensor<8x16xf32>) dimensions = [1]
  return %1 : tensor<8x16xf32>
}

// -----


spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests reduce: the kept dim propagates both ways, the reduced one does not
// reach the result.
// CHECK-LABEL: func.func @reduce(
// CHECK-SAME: %{{.*}}: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>})
// CHECK: %{{.*}} = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>} : tensor<8xf32>
// CHECK: %{{.*}} = linalg.reduce ins(%{{.*}} : tensor<8x16xf32>) outs(%{{.*}} : tensor<8xf32>) dimensions = [1]  {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>}
func.func @reduce(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}) -> tensor<8xf32> {
  %0 = tensor.empty() : tensor<8xf32>
  %1 = linalg.reduce ins(%arg0 : tensor<8x16xf32>) outs(%0 : tensor<8xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %2 = arith.addf %in, %init : f32
      linalg.yield %2 : f32
    }
  return %1 : tensor<8xf32>
}

// -----


spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that shardings on different meshes do not propagate into each other.
spmd.mesh @other = <["a"=2, "b"=2]>
// CHECK-LABEL: func.func @different_meshes(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@other, [{"b"}]>}) -> tensor<8xf32>
func.func @different_meshes(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}, %arg1: tensor<8xf32> {spmd.sharding = #spmd.sharding<@other, [{"b"}]>}) -> tensor<8xf32> {
  %0 = arith.addf %arg0, %arg1 : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----


spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a maximal sharding is never propagated.
spmd.mesh @maximal = <[], device_ids=[0]>
// CHECK-LABEL: func.func @maximal_not_propagated(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@maximal, []>}) -> tensor<8xf32>
func.func @maximal_not_propagated(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@maximal, []>}) -> tensor<8xf32> {
  %0 = arith.negf %arg0 : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----


spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a factor of size 1 cannot be sharded, and that the axis can
// still shard the other factor.
// CHECK-LABEL: func.func @size_one_dim(
// CHECK-SAME: %{{.*}}: tensor<1x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"a", ?}]>}, %{{.*}}: tensor<1x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"a", ?}]>}) -> (tensor<1x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"a", ?}]>})
// CHECK: %{{.*}} = arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{?}, {"a", ?}]>]>} : tensor<1x8xf32>
func.func @size_one_dim(%arg0: tensor<1x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"a", ?}]>}, %arg1: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %0 = arith.addf %arg0, %arg1 : tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----


spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a minor-most factor takes axes that do not divide it (padding
// is left to the partitioner), as Shardy does.
// CHECK-LABEL: func.func @non_divisible_minor(
// CHECK-SAME: %{{.*}}: tensor<6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d"}]>}) -> (tensor<6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d", ?}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"d", ?}]>]>} : tensor<6xf32>
func.func @non_divisible_minor(%arg0: tensor<6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d"}]>}) -> tensor<6xf32> {
  %0 = arith.negf %arg0 : tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----


spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a user-written rule overrides the derived one: with a blocked
// factor nothing moves along it.
// CHECK-LABEL: func.func @blocked_factor_override(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {?}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {?}]>]>, spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i, j]) {i=8, j=8} blocked_propagation={j}, custom>} : tensor<8x8xf32>
func.func @blocked_factor_override(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}) -> tensor<8x8xf32> {
  %0 = arith.negf %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i, j]) {i=8, j=8} blocked_propagation={j}, custom>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----


spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a value with several uses gets the axes all of them agree on.
// CHECK-LABEL: func.func @multiple_uses(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}, tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>} : tensor<8xf32>
// CHECK: %{{.*}} = arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>} : tensor<8xf32>
// CHECK: %{{.*}} = arith.mulf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>} : tensor<8xf32>
func.func @multiple_uses(%arg0: tensor<8xf32>, %arg1: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = arith.negf %arg0 : tensor<8xf32>
  %1 = arith.addf %0, %arg1 : tensor<8xf32>
  %2 = arith.mulf %0, %0 : tensor<8xf32>
  return %1, %2 : tensor<8xf32>, tensor<8xf32>
}

// -----


spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that propagation crosses several ops to a fixpoint, backward and
// then forward into a sibling.
// CHECK-LABEL: func.func @chain_fixpoint(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c", ?}]>}, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c", ?}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c", ?}]>}, tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c"}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"c", ?}]>]>} : tensor<8xf32>
// CHECK: %{{.*}} = arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"c", ?}]>]>} : tensor<8xf32>
// CHECK: %{{.*}} = math.absf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"c", ?}]>]>} : tensor<8xf32>
func.func @chain_fixpoint(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c"}]>}) {
  %0 = arith.negf %arg0 : tensor<8xf32>
  %1 = arith.addf %0, %arg1 : tensor<8xf32>
  %2 = math.absf %0 : tensor<8xf32>
  return %2, %1 : tensor<8xf32>, tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a sharding on an empty mesh is replaced by the op's mesh, with
// its closed dims respected.
spmd.mesh @empty = <[]>
// CHECK-LABEL: func.func @empty_mesh_replaced(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}, %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {?}]>})
// CHECK: %{{.*}} = arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {?}]>]>} : tensor<8x8xf32>
func.func @empty_mesh_replaced(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}, %arg1: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@empty, [{?}, {}]>}) -> tensor<8x8xf32> {
  %0 = arith.addf %arg0, %arg1 : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that two mesh symbols with equal axes are one mesh for propagation;
// new shardings use the first one's name.
spmd.mesh @same = <["a"=2, "b"=2, "c"=2, "d"=4]>
// CHECK-LABEL: func.func @equal_meshes_different_names(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {?}]>}, %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@same, [{"a"}, {?}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {?}]>})
// CHECK: %{{.*}} = arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {?}]>]>} : tensor<8x8xf32>
func.func @equal_meshes_different_names(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {?}]>}, %arg1: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@same, [{"a"}, {?}]>}) -> tensor<8x8xf32> {
  %0 = arith.addf %arg0, %arg1 : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh6 = <["a"=6]>

// Tests that sub-axes from incompatible splits of one axis never meet: the
// function result's "a":(3)2 reaches the op first, so the argument's
// "a":(1)2 (2 x 3 vs 3 x 2) cannot join it.
// CHECK-LABEL: func.func @sub_axes_cannot_coexist(
// CHECK-SAME: %{{.*}}: tensor<2x2xf32> {spmd.sharding = #spmd.sharding<@mesh6, [{"a":(1)2}, {}]>}) -> (tensor<2x2xf32> {spmd.sharding = #spmd.sharding<@mesh6, [{}, {"a":(3)2}]>})
// CHECK: %{{.*}} = math.sin %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh6, [{?}, {"a":(3)2, ?}]>]>} : tensor<2x2xf32>
func.func @sub_axes_cannot_coexist(%arg0: tensor<2x2xf32> {spmd.sharding = #spmd.sharding<@mesh6, [{"a":(1)2}, {}]>}) -> (tensor<2x2xf32> {spmd.sharding = #spmd.sharding<@mesh6, [{}, {"a":(3)2}]>}) {
  %0 = math.sin %arg0 : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----
spmd.mesh @mesh = <["a"=1, "b"=2]>

// Tests that a size-0 dim may carry size-1 axes, which propagate like any
// other axis.
// CHECK-LABEL: func.func @size_zero_dim(
// CHECK-SAME: %{{.*}}: tensor<8x0xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}, {"a"}]>}) -> (tensor<8x0xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}, {"a", ?}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}, {"a", ?}]>]>} : tensor<8x0xf32>
func.func @size_zero_dim(%arg0: tensor<8x0xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}, {"a"}]>}) -> tensor<8x0xf32> {
  %0 = arith.negf %arg0 : tensor<8x0xf32>
  return %0 : tensor<8x0xf32>
}
