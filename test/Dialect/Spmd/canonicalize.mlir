// RUN: tessera-opt %s --split-input-file --canonicalize | FileCheck %s

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests that collectives whose axes are all empty are removed.
// CHECK-LABEL: func.func @empty_collectives
// CHECK-SAME: (%[[ARG:.*]]: tensor<16x8xf32>
func.func @empty_collectives(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<16x8xf32> {
  // CHECK-NEXT: return %[[ARG]]
  %0 = spmd.all_gather [{}, {}] %arg0 out_sharding=<@mesh, [{"x"}, {}]> : tensor<16x8xf32>
  %1 = spmd.all_slice [{}, {}] %0 out_sharding=<@mesh, [{"x"}, {}]> : tensor<16x8xf32>
  %2 = spmd.all_reduce {} %1 out_sharding=<@mesh, [{"x"}, {}]> : tensor<16x8xf32>
  %3 = spmd.reduce_scatter max [{}, {}] %2 out_sharding=<@mesh, [{"x"}, {}]> : tensor<16x8xf32>
  %4 = spmd.all_to_all [{}: 0->1] %3 out_sharding=<@mesh, [{"x"}, {}]> : tensor<16x8xf32>
  return %4 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests that a collective_permute to the operand's own layout is removed.
// CHECK-LABEL: func.func @noop_collective_permute
// CHECK-SAME: (%[[ARG:.*]]: tensor<16x8xf32>
func.func @noop_collective_permute(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<16x8xf32> {
  // CHECK-NEXT: return %[[ARG]]
  %0 = spmd.collective_permute %arg0 out_sharding=<@mesh, [{"x"}, {"y", ?}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>
spmd.mesh @mesh_non_iota = <["x"=2, "y"=2], device_ids=[3, 2, 1, 0]>

// Tests that a collective_permute that only changes the device order stays.
// CHECK-LABEL: func.func @negative_collective_permute_device_order
func.func @negative_collective_permute_device_order(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<16x8xf32> {
  // CHECK-NEXT: %[[P:.*]] = spmd.collective_permute %{{.*}} out_sharding=<@mesh_non_iota, [{"x"}, {"y"}]>
  // CHECK-NEXT: return %[[P]]
  %0 = spmd.collective_permute %arg0 out_sharding=<@mesh_non_iota, [{"x"}, {"y"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>
spmd.mesh @mesh_non_iota = <["x"=2, "y"=2], device_ids=[3, 2, 1, 0]>

// Tests that a collective_permute of a single-use collective_permute becomes
// one permute from the inner op's input to the outer op's output.
// CHECK-LABEL: func.func @collective_permute_fusion
// CHECK-SAME: (%[[ARG:.*]]: tensor<16x8xf32>
func.func @collective_permute_fusion(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<16x8xf32> {
  // CHECK-NEXT: %[[P:.*]] = spmd.collective_permute %[[ARG]] in_sharding=<@mesh, [{"x"}, {"y"}]> out_sharding=<@mesh_non_iota, [{"y"}, {"x"}]>
  // CHECK-NEXT: return %[[P]]
  %0 = spmd.collective_permute %arg0 in_sharding=<@mesh, [{"x"}, {"y"}]> out_sharding=<@mesh, [{"y"}, {"x"}]> : tensor<16x8xf32>
  %1 = spmd.collective_permute %0 in_sharding=<@mesh, [{"y"}, {"x"}]> out_sharding=<@mesh_non_iota, [{"y"}, {"x"}]> : tensor<16x8xf32>
  return %1 : tensor<16x8xf32>
}

// Tests that permutes stay apart when the inner one has another use.
// CHECK-LABEL: func.func @negative_collective_permute_fusion
// CHECK: spmd.collective_permute
// CHECK: spmd.collective_permute
func.func @negative_collective_permute_fusion(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> (tensor<16x8xf32>, tensor<16x8xf32>) {
  %0 = spmd.collective_permute %arg0 in_sharding=<@mesh, [{"x"}, {"y"}]> out_sharding=<@mesh, [{"y"}, {"x"}]> : tensor<16x8xf32>
  %1 = spmd.collective_permute %0 in_sharding=<@mesh, [{"y"}, {"x"}]> out_sharding=<@mesh_non_iota, [{"y"}, {"x"}]> : tensor<16x8xf32>
  return %0, %1 : tensor<16x8xf32>, tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests that a non-empty all_gather stays.
// CHECK-LABEL: func.func @negative_all_gather_with_axes
func.func @negative_all_gather_with_axes(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<16x8xf32> {
  // CHECK-NEXT: %[[G:.*]] = spmd.all_gather [{"x"}, {}]
  // CHECK-NEXT: return %[[G]]
  %0 = spmd.all_gather [{"x"}, {}] %arg0 out_sharding=<@mesh, [{}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests that a reshard to exactly the operand's sharding is removed.
// CHECK-LABEL: func.func @noop_reshard
// CHECK-SAME: (%[[ARG:.*]]: tensor<16x8xf32>
func.func @noop_reshard(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", ?}, {"y"}p1]>}) -> tensor<16x8xf32> {
  // CHECK-NEXT: return %[[ARG]]
  %0 = spmd.reshard %arg0 <@mesh, [{"x", ?}, {"y"}p1]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests that a reshard that closes a dimension stays, though the layout is
// the same: it stops propagation from extending that dimension.
// CHECK-LABEL: func.func @negative_reshard_closes_dim
func.func @negative_reshard_closes_dim(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", ?}, {"y"}]>}) -> tensor<16x8xf32> {
  // CHECK-NEXT: %[[R:.*]] = spmd.reshard %{{.*}} <@mesh, [{"x"}, {"y"}]>
  // CHECK-NEXT: return %[[R]]
  %0 = spmd.reshard %arg0 <@mesh, [{"x"}, {"y"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests that a reshard that changes only a priority stays.
// CHECK-LABEL: func.func @negative_reshard_priority
func.func @negative_reshard_priority(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", ?}p2, {"y"}]>}) -> tensor<16x8xf32> {
  // CHECK-NEXT: %[[R:.*]] = spmd.reshard %{{.*}} <@mesh, [{"x", ?}p1, {"y"}]>
  // CHECK-NEXT: return %[[R]]
  %0 = spmd.reshard %arg0 <@mesh, [{"x", ?}p1, {"y"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests that a reshard to another layout stays.
// CHECK-LABEL: func.func @negative_reshard_other_layout
func.func @negative_reshard_other_layout(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<16x8xf32> {
  // CHECK-NEXT: %[[R:.*]] = spmd.reshard %{{.*}} <@mesh, [{"x"}, {}], unreduced={"y"}>
  // CHECK-NEXT: return %[[R]]
  %0 = spmd.reshard %arg0 <@mesh, [{"x"}, {}], unreduced={"y"}> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests that reshard(reshard(x)) becomes one reshard of x.
// CHECK-LABEL: func.func @reshard_of_reshard
// CHECK-SAME: (%[[ARG:.*]]: tensor<16x8xf32>)
func.func @reshard_of_reshard(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // CHECK-NEXT: %[[R:.*]] = spmd.reshard %[[ARG]] <@mesh, [{}, {"y"}]> : tensor<16x8xf32>
  // CHECK-NEXT: return %[[R]]
  %0 = spmd.reshard %arg0 <@mesh, [{"x"}, {}]> : tensor<16x8xf32>
  %1 = spmd.reshard %0 <@mesh, [{}, {"y"}]> : tensor<16x8xf32>
  return %1 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests that reshard(reshard(x)) stays when the inner reshard has another
// use.
// CHECK-LABEL: func.func @negative_reshard_of_reshard_multiple_uses
func.func @negative_reshard_of_reshard_multiple_uses(%arg0: tensor<16x8xf32>) -> (tensor<16x8xf32>, tensor<16x8xf32>) {
  // CHECK-NEXT: %[[R0:.*]] = spmd.reshard %{{.*}} <@mesh, [{"x"}, {}]>
  // CHECK-NEXT: %[[R1:.*]] = spmd.reshard %[[R0]] <@mesh, [{}, {"y"}]>
  // CHECK-NEXT: return %[[R0]], %[[R1]]
  %0 = spmd.reshard %arg0 <@mesh, [{"x"}, {}]> : tensor<16x8xf32>
  %1 = spmd.reshard %0 <@mesh, [{}, {"y"}]> : tensor<16x8xf32>
  return %0, %1 : tensor<16x8xf32>, tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests that reshard(reshard(x)) stays when the direct reshard would change
// the kind of an unreduced axis (max -> reduced -> sum is fine in two steps).
// CHECK-LABEL: func.func @negative_reshard_of_reshard_unreduced_kind
func.func @negative_reshard_of_reshard_unreduced_kind(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}], unreduced=max{"x"}>}) -> tensor<16x8xf32> {
  // CHECK-NEXT: %[[R0:.*]] = spmd.reshard %{{.*}} <@mesh, [{}, {}]>
  // CHECK-NEXT: %[[R1:.*]] = spmd.reshard %[[R0]] <@mesh, [{}, {}], unreduced={"x"}>
  // CHECK-NEXT: return %[[R1]]
  %0 = spmd.reshard %arg0 <@mesh, [{}, {}]> : tensor<16x8xf32>
  %1 = spmd.reshard %0 <@mesh, [{}, {}], unreduced={"x"}> : tensor<16x8xf32>
  return %1 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=2]>

// Tests that all_slice(all_gather(x, A), A) is x, with sub-axes.
// CHECK-LABEL: func.func @all_slice_of_all_gather
// CHECK-SAME: (%[[ARG:.*]]: tensor<16x8xf32>
func.func @all_slice_of_all_gather(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<16x8xf32> {
  // CHECK-NEXT: return %[[ARG]]
  %0 = spmd.all_gather [{"x":(2)2}, {"y"}] %arg0 out_sharding=<@mesh, [{"x":(1)2}, {}]> : tensor<16x8xf32>
  %1 = spmd.all_slice [{"x":(2)2}, {"y"}] %0 out_sharding=<@mesh, [{"x"}, {"y"}]> : tensor<16x8xf32>
  return %1 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests that all_gather(all_slice(x, A), A) is x.
// CHECK-LABEL: func.func @all_gather_of_all_slice
// CHECK-SAME: (%[[ARG:.*]]: tensor<16x8xf32>
func.func @all_gather_of_all_slice(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>}) -> tensor<16x8xf32> {
  // CHECK-NEXT: return %[[ARG]]
  %0 = spmd.all_slice [{"x"}, {}] %arg0 out_sharding=<@mesh, [{"x"}, {"y"}]> : tensor<16x8xf32>
  %1 = spmd.all_gather [{"x"}, {}] %0 out_sharding=<@mesh, [{}, {"y"}]> : tensor<16x8xf32>
  return %1 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests that all_slice(all_gather(x, A), B) stays when A != B.
// CHECK-LABEL: func.func @negative_all_slice_of_all_gather_other_axes
func.func @negative_all_slice_of_all_gather_other_axes(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<16x8xf32> {
  // CHECK-NEXT: %[[G:.*]] = spmd.all_gather [{"x"}, {}]
  // CHECK-NEXT: %[[S:.*]] = spmd.all_slice [{}, {"x"}] %[[G]]
  // CHECK-NEXT: return %[[S]]
  %0 = spmd.all_gather [{"x"}, {}] %arg0 out_sharding=<@mesh, [{}, {}]> : tensor<16x8xf32>
  %1 = spmd.all_slice [{}, {"x"}] %0 out_sharding=<@mesh, [{}, {"x"}]> : tensor<16x8xf32>
  return %1 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests that all_reduce followed by all_slice on the same axes is a
// reduce_scatter.
// CHECK-LABEL: func.func @reduce_scatter_fusion
// CHECK-SAME: (%[[ARG:.*]]: tensor<16x2xf32>
func.func @reduce_scatter_fusion(%arg0: tensor<16x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}], unreduced={"x"}>}) -> tensor<16x2xf32> {
  // CHECK-NEXT: %[[RS:.*]] = spmd.reduce_scatter [{}, {"x"}] %[[ARG]] out_sharding=<@mesh, [{"y"}, {"x"}]> : tensor<16x2xf32>
  // CHECK-NEXT: return %[[RS]]
  %0 = spmd.all_reduce {"x"} %arg0 out_sharding=<@mesh, [{"y"}, {}]> : tensor<16x2xf32>
  %1 = spmd.all_slice [{}, {"x"}] %0 out_sharding=<@mesh, [{"y"}, {"x"}]> : tensor<16x2xf32>
  return %1 : tensor<16x2xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2, "p"=2]>

// Tests reduce_scatter fusion with leftover slicing axes and a max reduction.
// CHECK-LABEL: func.func @reduce_scatter_fusion_with_residual_slice
// CHECK-SAME: (%[[ARG:.*]]: tensor<16x8xf32>)
func.func @reduce_scatter_fusion_with_residual_slice(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // CHECK-NEXT: %[[RS:.*]] = spmd.reduce_scatter max [{"x"}, {"y"}] %[[ARG]] out_sharding=<@mesh, [{"x"}, {"y"}]> : tensor<16x8xf32>
  // CHECK-NEXT: %[[S:.*]] = spmd.all_slice [{"z"}, {"p"}] %[[RS]] out_sharding=<@mesh, [{"x", "z"}, {"y", "p"}]> : tensor<16x8xf32>
  // CHECK-NEXT: return %[[S]]
  %0 = spmd.all_reduce max {"x", "y"} %arg0 out_sharding=<@mesh, [{}, {}]> : tensor<16x8xf32>
  %1 = spmd.all_slice [{"x", "z"}, {"y", "p"}] %0 out_sharding=<@mesh, [{"x", "z"}, {"y", "p"}]> : tensor<16x8xf32>
  return %1 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests that identical all_slice users of one all_reduce share the fused
// reduce_scatter.
// CHECK-LABEL: func.func @reduce_scatter_fusion_identical_users
func.func @reduce_scatter_fusion_identical_users(%arg0: tensor<16x2xf32>) -> (tensor<16x2xf32>, tensor<16x2xf32>) {
  // CHECK-NEXT: %[[RS:.*]] = spmd.reduce_scatter [{"x"}, {}] %{{.*}} out_sharding=<@mesh, [{"x"}, {}]>
  // CHECK-NEXT: return %[[RS]], %[[RS]]
  %0 = spmd.all_reduce {"x"} %arg0 out_sharding=<@mesh, [{}, {}]> : tensor<16x2xf32>
  %1 = spmd.all_slice [{"x"}, {}] %0 out_sharding=<@mesh, [{"x"}, {}]> : tensor<16x2xf32>
  %2 = spmd.all_slice [{"x"}, {}] %0 out_sharding=<@mesh, [{"x"}, {}]> : tensor<16x2xf32>
  return %1, %2 : tensor<16x2xf32>, tensor<16x2xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests that no reduce_scatter is formed when a reduction axis does not lead
// the slicing axes of a dimension.
// CHECK-LABEL: func.func @negative_reduce_scatter_axis_not_leading
func.func @negative_reduce_scatter_axis_not_leading(%arg0: tensor<16x2xf32>) -> tensor<16x2xf32> {
  // CHECK-NEXT: %[[AR:.*]] = spmd.all_reduce {"x"}
  // CHECK-NEXT: %[[S:.*]] = spmd.all_slice [{"y", "x"}, {}] %[[AR]]
  // CHECK-NEXT: return %[[S]]
  %0 = spmd.all_reduce {"x"} %arg0 out_sharding=<@mesh, [{}, {}]> : tensor<16x2xf32>
  %1 = spmd.all_slice [{"y", "x"}, {}] %0 out_sharding=<@mesh, [{"y", "x"}, {}]> : tensor<16x2xf32>
  return %1 : tensor<16x2xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests that no reduce_scatter is formed when the all_reduce has another
// user.
// CHECK-LABEL: func.func @negative_reduce_scatter_other_user
func.func @negative_reduce_scatter_other_user(%arg0: tensor<16x2xf32>) -> (tensor<16x2xf32>, tensor<16x2xf32>) {
  // CHECK-NEXT: %[[AR:.*]] = spmd.all_reduce {"x"}
  // CHECK-NEXT: %[[S:.*]] = spmd.all_slice [{"x"}, {}] %[[AR]]
  // CHECK-NEXT: return %[[AR]], %[[S]]
  %0 = spmd.all_reduce {"x"} %arg0 out_sharding=<@mesh, [{}, {}]> : tensor<16x2xf32>
  %1 = spmd.all_slice [{"x"}, {}] %0 out_sharding=<@mesh, [{"x"}, {}]> : tensor<16x2xf32>
  return %0, %1 : tensor<16x2xf32>, tensor<16x2xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests that no reduce_scatter is formed when not every reduction axis is
// sliced.
// CHECK-LABEL: func.func @negative_reduce_scatter_unsliced_reduction_axis
func.func @negative_reduce_scatter_unsliced_reduction_axis(%arg0: tensor<16x2xf32>) -> tensor<16x2xf32> {
  // CHECK-NEXT: %[[AR:.*]] = spmd.all_reduce {"x", "y"}
  // CHECK-NEXT: %[[S:.*]] = spmd.all_slice [{"x"}, {}] %[[AR]]
  // CHECK-NEXT: return %[[S]]
  %0 = spmd.all_reduce {"x", "y"} %arg0 out_sharding=<@mesh, [{}, {}]> : tensor<16x2xf32>
  %1 = spmd.all_slice [{"x"}, {}] %0 out_sharding=<@mesh, [{"x"}, {}]> : tensor<16x2xf32>
  return %1 : tensor<16x2xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests that chained all_to_all ops on disjoint dimensions merge, with the
// parameters sorted by source dimension.
// CHECK-LABEL: func.func @all_to_all_fusion
// CHECK-SAME: (%[[ARG:.*]]: tensor<8x8x8x8xf32>
func.func @all_to_all_fusion(%arg0: tensor<8x8x8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}, {"y"}, {}]>}) -> tensor<8x8x8x8xf32> {
  // CHECK-NEXT: %[[A:.*]] = spmd.all_to_all [{"x"}: 0->1, {"y"}: 2->3] %[[ARG]] out_sharding=<@mesh, [{}, {"x"}, {}, {"y"}]>
  // CHECK-NEXT: return %[[A]]
  %0 = spmd.all_to_all [{"y"}: 2->3] %arg0 out_sharding=<@mesh, [{"x"}, {}, {}, {"y"}]> : tensor<8x8x8x8xf32>
  %1 = spmd.all_to_all [{"x"}: 0->1] %0 out_sharding=<@mesh, [{}, {"x"}, {}, {"y"}]> : tensor<8x8x8x8xf32>
  return %1 : tensor<8x8x8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests that three chained all_to_all ops merge into one.
// CHECK-LABEL: func.func @all_to_all_fusion_chain
func.func @all_to_all_fusion_chain(%arg0: tensor<8x8x8x8x8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}, {"y"}, {}, {}, {}]>}) -> tensor<8x8x8x8x8x8xf32> {
  // CHECK-NEXT: %[[A:.*]] = spmd.all_to_all [{"x"}: 0->1, {"y"}: 2->3, {}: 4->5] %{{.*}} out_sharding=<@mesh, [{}, {"x"}, {}, {"y"}, {}, {}]>
  // CHECK-NEXT: return %[[A]]
  %0 = spmd.all_to_all [{"x"}: 0->1] %arg0 out_sharding=<@mesh, [{}, {"x"}, {"y"}, {}, {}, {}]> : tensor<8x8x8x8x8x8xf32>
  %1 = spmd.all_to_all [{"y"}: 2->3] %0 out_sharding=<@mesh, [{}, {"x"}, {}, {"y"}, {}, {}]> : tensor<8x8x8x8x8x8xf32>
  %2 = spmd.all_to_all [{}: 4->5] %1 out_sharding=<@mesh, [{}, {"x"}, {}, {"y"}, {}, {}]> : tensor<8x8x8x8x8x8xf32>
  return %2 : tensor<8x8x8x8x8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests that chained all_to_all ops that share a dimension stay apart.
// CHECK-LABEL: func.func @negative_all_to_all_fusion_overlapping_dims
func.func @negative_all_to_all_fusion_overlapping_dims(%arg0: tensor<8x8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}, {}]>}) -> tensor<8x8x8xf32> {
  // CHECK-NEXT: %[[A0:.*]] = spmd.all_to_all [{"x"}: 0->1]
  // CHECK-NEXT: %[[A1:.*]] = spmd.all_to_all [{"x"}: 1->2] %[[A0]]
  // CHECK-NEXT: return %[[A1]]
  %0 = spmd.all_to_all [{"x"}: 0->1] %arg0 out_sharding=<@mesh, [{}, {"x"}, {}]> : tensor<8x8x8xf32>
  %1 = spmd.all_to_all [{"x"}: 1->2] %0 out_sharding=<@mesh, [{}, {}, {"x"}]> : tensor<8x8x8xf32>
  return %1 : tensor<8x8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests that an all_to_all with another use is not merged into its user.
// CHECK-LABEL: func.func @negative_all_to_all_fusion_multiple_uses
func.func @negative_all_to_all_fusion_multiple_uses(%arg0: tensor<8x8x8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}, {"y"}, {}]>}) -> (tensor<8x8x8x8xf32>, tensor<8x8x8x8xf32>) {
  // CHECK-NEXT: %[[A0:.*]] = spmd.all_to_all [{"y"}: 2->3]
  // CHECK-NEXT: %[[A1:.*]] = spmd.all_to_all [{"x"}: 0->1] %[[A0]]
  // CHECK-NEXT: return %[[A0]], %[[A1]]
  %0 = spmd.all_to_all [{"y"}: 2->3] %arg0 out_sharding=<@mesh, [{"x"}, {}, {}, {"y"}]> : tensor<8x8x8x8xf32>
  %1 = spmd.all_to_all [{"x"}: 0->1] %0 out_sharding=<@mesh, [{}, {"x"}, {}, {"y"}]> : tensor<8x8x8x8xf32>
  return %0, %1 : tensor<8x8x8x8xf32>, tensor<8x8x8x8xf32>
}

// -----

// Tests that a repeated sharding_group (same value, same group) is removed.
// CHECK-LABEL: func.func @duplicate_sharding_group
// CHECK-SAME: (%[[A:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>)
func.func @duplicate_sharding_group(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>) {
  // CHECK-NEXT: spmd.sharding_group %[[A]] group_id=0
  // CHECK-NEXT: spmd.sharding_group %[[B]] group_id=0
  // CHECK-NEXT: return
  spmd.sharding_group %arg0 group_id=0 : tensor<8xf32>
  spmd.sharding_group %arg1 group_id=0 : tensor<8xf32>
  spmd.sharding_group %arg0 group_id=0 : tensor<8xf32>
  return
}

// -----

// Tests that a value in two groups keeps both sharding_group ops.
// CHECK-LABEL: func.func @negative_sharding_group_different_groups
func.func @negative_sharding_group_different_groups(%arg0: tensor<8xf32>) {
  // CHECK-NEXT: spmd.sharding_group %{{.*}} group_id=0
  // CHECK-NEXT: spmd.sharding_group %{{.*}} group_id=1
  spmd.sharding_group %arg0 group_id=0 : tensor<8xf32>
  spmd.sharding_group %arg0 group_id=1 : tensor<8xf32>
  return
}

// -----

spmd.mesh @mesh = <["x"=2]>

// Tests that unused manual_computation inputs are dropped with their
// in_shardings.
// CHECK-LABEL: func.func @manual_computation_unused_input
// CHECK-SAME: (%[[A:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>)
func.func @manual_computation_unused_input(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>) -> tensor<8xf32> {
  // CHECK-NEXT: spmd.manual_computation(%[[B]]) in_shardings=[<@mesh, [{}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%[[L:.*]]: tensor<8xf32>) {
  // CHECK-NEXT:   %[[S:.*]] = tensor.extract_slice %[[L]][0] [4] [1]
  // CHECK-NEXT:   spmd.return %[[S]]
  %0 = spmd.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"x"}]>, <@mesh, [{}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%arg2: tensor<4xf32>, %arg3: tensor<8xf32>) {
    %1 = tensor.extract_slice %arg3[0] [4] [1] : tensor<8xf32> to tensor<4xf32>
    spmd.return %1 : tensor<4xf32>
  } : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2]>

// Tests that a manual_computation whose inputs are all used is unchanged.
// CHECK-LABEL: func.func @negative_manual_computation_inputs_used
func.func @negative_manual_computation_inputs_used(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // CHECK-NEXT: spmd.manual_computation(%{{.*}}) in_shardings=[<@mesh, [{"x"}]>]
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%arg1: tensor<4xf32>) {
    spmd.return %arg1 : tensor<4xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @iota = <["x"=2]>
spmd.mesh @reversed = <["x"=2], device_ids=[1, 0]>

// A gather on one mesh and a slice on another with a different device
// order move blocks between devices: they do not cancel.
// CHECK-LABEL: func @gather_slice_other_mesh
func.func @gather_slice_other_mesh(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@iota, [{"x"}]>}) -> tensor<8xf32> {
  // CHECK: spmd.all_gather
  // CHECK: spmd.all_slice
  %0 = spmd.all_gather [{"x"}] %arg0 out_sharding=<@iota, [{}]> : tensor<8xf32>
  %1 = spmd.all_slice [{"x"}] %0 in_sharding=<@reversed, [{}]> out_sharding=<@reversed, [{"x"}]> : tensor<8xf32>
  return %1 : tensor<8xf32>
}
