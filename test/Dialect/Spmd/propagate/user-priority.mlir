// RUN: tessera-opt %s -split-input-file --spmd-propagate | FileCheck %s
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a p0 dim wins over a p1 dim of the same factor: the result
// takes "b" from %arg1 although %arg0's "a" comes first; priorities are
// dropped from the output.
// CHECK-LABEL: func.func @p0_beats_p1(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {}]>}, %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}, {}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}, {?}]>})
// CHECK: %{{.*}} = arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}, {?}]>]>} : tensor<8x8xf32>
func.func @p0_beats_p1(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}p1, {}]>}, %arg1: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}p0, {}]>}) -> tensor<8x8xf32> {
  %0 = arith.addf %arg0, %arg1 : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a dim without a priority is p0.
// CHECK-LABEL: func.func @no_priority_is_p0(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}]>})
// CHECK: %{{.*}} = arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}]>]>} : tensor<8xf32>
func.func @no_priority_is_p0(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}p2]>}, %arg1: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}]>}) -> tensor<8xf32> {
  %0 = arith.addf %arg0, %arg1 : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a lower priority can still shard further what a higher one
// left open: p0 gives "a", p1 adds nothing that conflicts ("a", "b" extends
// "a").
// CHECK-LABEL: func.func @lower_priority_extends(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", ?}]>}, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", ?}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", ?}]>})
// CHECK: %{{.*}} = arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", "b", ?}]>]>} : tensor<8xf32>
func.func @lower_priority_extends(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}p0]>}, %arg1: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", ?}p1]>}) -> tensor<8xf32> {
  %0 = arith.addf %arg0, %arg1 : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that priorities are honored in increasing order across an op chain:
// the p1 constraint wins the chain before the p3 one can.
// CHECK-LABEL: func.func @priorities_in_order(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c", ?}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d", ?}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"c", ?}]>]>} : tensor<8xf32>
// CHECK: %{{.*}} = spmd.sharding_constraint %{{.*}} <@mesh, [{"c", ?}]> : tensor<8xf32>
// CHECK: %{{.*}} = math.exp %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"d", ?}]>]>} : tensor<8xf32>
// CHECK: %{{.*}} = spmd.sharding_constraint %{{.*}} <@mesh, [{"d", ?}]> : tensor<8xf32>
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"d", ?}]>]>} : tensor<8xf32>
func.func @priorities_in_order(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = arith.negf %arg0 : tensor<8xf32>
  %1 = spmd.sharding_constraint %0 <@mesh, [{"c", ?}p3]> : tensor<8xf32>
  %2 = math.exp %1 : tensor<8xf32>
  %3 = spmd.sharding_constraint %2 <@mesh, [{"d", ?}p1]> : tensor<8xf32>
  %4 = arith.negf %3 : tensor<8xf32>
  return %4 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that the dims of one sharding with different priorities are each
// restored in their own round and both reach the result.
// CHECK-LABEL: func.func @dims_different_priorities(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>})
// CHECK: %{{.*}} = math.exp %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} : tensor<8x8xf32>
func.func @dims_different_priorities(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}p1, {"b", ?}p0]>}) -> tensor<8x8xf32> {
  %0 = math.exp %arg0 : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
