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
