// RUN: tessera-opt %s --spmd-insert-reshards | FileCheck %s

spmd.mesh @mesh = <["x"=2, "y"=4]>

// Two candidates of equal weight (the result's "y" on the rows, the right
// operand's "y" on the columns): as in Shardy, the higher factor index (the
// columns) wins.
// CHECK-LABEL: func @tie_higher_factor
func.func @tie_higher_factor(
    %a: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>},
    %b: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>},
    %c: tensor<8x16xf32>)
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}) {
  // CHECK: %[[A:.*]] = spmd.reshard %arg0 <@mesh, [{}, {}]>
  // CHECK: %[[M:.*]] = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"y"}]>]>} ins(%[[A]], %arg1
  // CHECK-NEXT: %[[R:.*]] = spmd.reshard %[[M]] <@mesh, [{"y"}, {}]>
  // CHECK-NEXT: return %[[R]]
  %m = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"y"}, {}]>]>} ins(%a, %b : tensor<8x8xf32>, tensor<8x16xf32>) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %m : tensor<8x16xf32>
}

// The rows take "y":(1)2 first (the left operand and the result start with
// it), then extend it to the whole "y" the result has, which leaves nothing
// for the contracting dimension: no all-reduce.
// CHECK-LABEL: func @extend_sub_axis
func.func @extend_sub_axis(
    %a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y":(1)2}, {"y":(2)2}]>},
    %b: tensor<4x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>},
    %c: tensor<8x16xf32>)
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}) {
  // CHECK: %[[A:.*]] = spmd.reshard %arg0 <@mesh, [{"y"}, {}]>
  // CHECK: %[[B:.*]] = spmd.reshard %arg1 <@mesh, [{}, {}]>
  // CHECK: %[[M:.*]] = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"y"}, {}]>]>} ins(%[[A]], %[[B]]
  // CHECK-NOT: spmd.all_reduce
  // CHECK: return %[[M]]
  %m = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"y"}, {}]>]>} ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %m : tensor<8x16xf32>
}

// A factor after another in a dimension waits until that one is fully
// sharded: the result's columns are [j, k] with "x", "y" (j = 2 takes
// "x":(1)2, k the rest); k, the highest factor, would win the tie but
// waits for j, which takes "y" from the operand after i takes "x".
spmd.mesh @mesh42 = <["x"=4, "y"=2]>

// CHECK-LABEL: func @factor_order
func.func @factor_order(
    %a: tensor<4x2x8xf32> {spmd.sharding = #spmd.sharding<@mesh42, [{"x"}, {"y"}, {}]>})
    -> tensor<4x16xf32> {
  // CHECK-NOT: spmd.reshard %arg0
  // CHECK: %[[C:.*]] = tensor.collapse_shape %arg0 {{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh42, [{"x"}, {"y"}]>]>}
  // CHECK-NEXT: spmd.reshard %[[C]] <@mesh42, [{}, {"x", "y"}]>
  %0 = tensor.collapse_shape %a [[0], [1, 2]] {spmd.sharding = #spmd.sharding_per_value<[<@mesh42, [{}, {"x", "y"}]>]>} : tensor<4x2x8xf32> into tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// The concatenated dimension needs replication: the axes it would take
// move to a batching dimension with room for them (here after "x"), as in
// Shardy, instead of being dropped.
// CHECK-LABEL: func @concat_axes_to_batching
func.func @concat_axes_to_batching(
    %a: tensor<8x4x16xf32> {spmd.sharding = #spmd.sharding<@mesh42, [{"x"}, {"y"}, {}]>},
    %b: tensor<8x12x16xf32> {spmd.sharding = #spmd.sharding<@mesh42, [{}, {"y"}, {}]>})
    -> (tensor<8x16x16xf32> {spmd.sharding = #spmd.sharding<@mesh42, [{"x"}, {"y"}, {}]>}) {
  // CHECK: %[[A:.*]] = spmd.reshard %arg0 <@mesh42, [{"x", "y"}, {}, {}]>
  // CHECK: %[[B:.*]] = spmd.reshard %arg1 <@mesh42, [{"x", "y"}, {}, {}]>
  // CHECK: %[[C:.*]] = tensor.concat dim(1) %[[A]], %[[B]] {spmd.sharding = #spmd.sharding_per_value<[<@mesh42, [{"x", "y"}, {}, {}]>]>}
  // CHECK-NEXT: spmd.reshard %[[C]] <@mesh42, [{"x"}, {"y"}, {}]>
  %0 = tensor.concat dim(1) %a, %b {spmd.sharding = #spmd.sharding_per_value<[<@mesh42, [{"x"}, {"y"}, {}]>]>} : (tensor<8x4x16xf32>, tensor<8x12x16xf32>) -> tensor<8x16x16xf32>
  return %0 : tensor<8x16x16xf32>
}

// Replicated operands, a result sharded along the concatenated dimension:
// "x" goes to the other dimension.
// CHECK-LABEL: func @concat_replicated_operands
func.func @concat_replicated_operands(%a: tensor<4x64xf32>)
    -> (tensor<8x64xf32> {spmd.sharding = #spmd.sharding<@mesh42, [{"x"}, {}]>}) {
  // CHECK: %[[A:.*]] = spmd.reshard %arg0 <@mesh42, [{}, {"x"}]>
  // CHECK: %[[B:.*]] = spmd.reshard %arg0 <@mesh42, [{}, {"x"}]>
  // CHECK: %[[C:.*]] = tensor.concat dim(0) %[[A]], %[[B]] {spmd.sharding = #spmd.sharding_per_value<[<@mesh42, [{}, {"x"}]>]>}
  // CHECK-NEXT: spmd.reshard %[[C]] <@mesh42, [{"x"}, {}]>
  %0 = tensor.concat dim(0) %a, %a {spmd.sharding = #spmd.sharding_per_value<[<@mesh42, [{"x"}, {}]>]>} : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}
