// RUN: tessera-opt %s --spmd-reshard-to-collectives | FileCheck %s

spmd.mesh @mesh = <["x"=2, "y"=4]>
spmd.mesh @sub = <["a"=4, "b"=2]>
spmd.mesh @reordered = <["x"=2, "y"=4], device_ids=[7, 6, 5, 4, 3, 2, 1, 0]>

// CHECK-LABEL: func @identity
func.func @identity(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x16xf32> {
  // CHECK-NEXT: return %arg0
  %0 = spmd.reshard %arg0 <@mesh, [{"x", ?}, {}]> : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// CHECK-LABEL: func @gather
func.func @gather(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>}) -> tensor<8x16xf32> {
  // CHECK-NEXT: %[[G:.*]] = spmd.all_gather [{"y"}, {}] %arg0 in_sharding=<@mesh, [{"x", "y"}, {}]> out_sharding=<@mesh, [{"x"}, {}]>
  // CHECK-NEXT: return %[[G]]
  %0 = spmd.reshard %arg0 <@mesh, [{"x"}, {}]> : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// CHECK-LABEL: func @slice
func.func @slice(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x16xf32> {
  // CHECK-NEXT: %[[S:.*]] = spmd.all_slice [{}, {"y"}] %arg0 in_sharding=<@mesh, [{"x"}, {}]> out_sharding=<@mesh, [{"x"}, {"y"}]>
  // CHECK-NEXT: return %[[S]]
  %0 = spmd.reshard %arg0 <@mesh, [{"x"}, {"y"}]> : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// An unannotated input is replicated.
// CHECK-LABEL: func @from_replicated
func.func @from_replicated(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // CHECK-NEXT: spmd.all_slice [{"y"}, {"x"}] %arg0
  %0 = spmd.reshard %arg0 <@mesh, [{"y"}, {"x"}]> : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// An axis list that moves between dimensions is one all-to-all.
// CHECK-LABEL: func @all_to_all
func.func @all_to_all(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>}) -> tensor<8x16xf32> {
  // CHECK-NEXT: %[[A:.*]] = spmd.all_to_all [{"y"}: 0->1] %arg0 in_sharding=<@mesh, [{"x", "y"}, {}]> out_sharding=<@mesh, [{"x"}, {"y"}]>
  // CHECK-NEXT: return %[[A]]
  %0 = spmd.reshard %arg0 <@mesh, [{"x"}, {"y"}]> : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// Swapping the axes of two dimensions: gather both, slice both.
// CHECK-LABEL: func @swap
func.func @swap(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<8x16xf32> {
  // CHECK-NEXT: %[[G:.*]] = spmd.all_gather [{"x"}, {"y"}] %arg0
  // CHECK-NEXT: %[[S:.*]] = spmd.all_slice [{"y"}, {"x"}] %[[G]]
  // CHECK-SAME: out_sharding=<@mesh, [{"y"}, {"x"}]>
  %0 = spmd.reshard %arg0 <@mesh, [{"y"}, {"x"}]> : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// Reordering the axes of one dimension keeps its number of parts: each
// device sends its block to one other device.
// CHECK-LABEL: func @reorder
func.func @reorder(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>}) -> tensor<8x16xf32> {
  // CHECK-NEXT: %[[P:.*]] = spmd.collective_permute %arg0 in_sharding=<@mesh, [{"x", "y"}, {}]> out_sharding=<@mesh, [{"y", "x"}, {}]>
  // CHECK-NEXT: return %[[P]]
  %0 = spmd.reshard %arg0 <@mesh, [{"y", "x"}, {}]> : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// Axes of the same size swapped between dimensions, and an axis replaced
// by a sub-axis of another of the same size: permutes.
// CHECK-LABEL: func @permute_dims
func.func @permute_dims(%arg0: tensor<16x16xf32> {spmd.sharding = #spmd.sharding<@sub, [{"a":(1)2}, {"b"}]>}) -> tensor<16x16xf32> {
  // CHECK-NEXT: %[[P:.*]] = spmd.collective_permute %arg0 in_sharding=<@sub, [{"a":(1)2}, {"b"}]> out_sharding=<@sub, [{"b"}, {"a":(2)2}]>
  // CHECK-NEXT: return %[[P]]
  %0 = spmd.reshard %arg0 <@sub, [{"b"}, {"a":(2)2}]> : tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// Partial sums do not move between devices: reduced first, then permuted.
// CHECK-LABEL: func @permute_unreduced
func.func @permute_unreduced(%arg0: tensor<16x16xf32> {spmd.sharding = #spmd.sharding<@sub, [{"a":(1)2}, {}], unreduced={"b"}>}) -> tensor<16x16xf32> {
  // CHECK-NEXT: %[[R:.*]] = spmd.all_reduce {"b"} %arg0
  // CHECK-NEXT: %[[P:.*]] = spmd.collective_permute %[[R]] in_sharding=<@sub, [{"a":(1)2}, {}]> out_sharding=<@sub, [{"b"}, {}]>
  // CHECK-NEXT: return %[[P]]
  %0 = spmd.reshard %arg0 <@sub, [{"b"}, {}]> : tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// Unreduced axes the target keeps stay unreduced, and the partial sums
// move by one permute (each to the device with the same coordinate along
// "b"), not by a gather and a slice.
// CHECK-LABEL: func @keep_unreduced
func.func @keep_unreduced(%arg0: tensor<16x16xf32> {spmd.sharding = #spmd.sharding<@sub, [{"a":(1)2}, {}], unreduced={"b"}>}) -> tensor<16x16xf32> {
  // CHECK-NEXT: %[[P:.*]] = spmd.collective_permute %arg0 in_sharding=<@sub, [{"a":(1)2}, {}], unreduced={"b"}> out_sharding=<@sub, [{"a":(2)2}, {}], unreduced={"b"}>
  // CHECK-NEXT: return %[[P]]
  %0 = spmd.reshard %arg0 <@sub, [{"a":(2)2}, {}], unreduced={"b"}> : tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// Sub-axes: the common prefix "a":(1)2 stays.
// CHECK-LABEL: func @sub_axes
func.func @sub_axes(%arg0: tensor<16x16xf32> {spmd.sharding = #spmd.sharding<@sub, [{"a"}, {}]>}) -> tensor<16x16xf32> {
  // CHECK-NEXT: %[[G:.*]] = spmd.all_gather [{"a"}, {}] %arg0
  // CHECK-NEXT: spmd.all_slice [{"a":(1)2}, {"a":(2)2}] %[[G]]
  %0 = spmd.reshard %arg0 <@sub, [{"a":(1)2}, {"a":(2)2}]> : tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// Unreduced axes the target drops are reduced first, with their kind (here
// with the slice that follows, one reduce_scatter).
// CHECK-LABEL: func @reduce(
func.func @reduce(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}], unreduced=max{"y"}>}) -> tensor<8x16xf32> {
  // CHECK-NEXT: %[[R:.*]] = spmd.reduce_scatter max [{}, {"y"}] %arg0
  // CHECK-SAME: out_sharding=<@mesh, [{"x"}, {"y"}]>
  // CHECK-NEXT: return %[[R]]
  %0 = spmd.reshard %arg0 <@mesh, [{"x"}, {"y"}]> : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// CHECK-LABEL: func @reduce_only
func.func @reduce_only(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}], unreduced=min{"y"}>}) -> tensor<8x16xf32> {
  // CHECK-NEXT: %[[R:.*]] = spmd.all_reduce min {"y"} %arg0
  // CHECK-SAME: out_sharding=<@mesh, [{"x"}, {}]>
  // CHECK-NEXT: return %[[R]]
  %0 = spmd.reshard %arg0 <@mesh, [{"x"}, {}]> : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// New sum-unreduced axes.
// CHECK-LABEL: func @introduce
func.func @introduce(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x16xf32> {
  // CHECK-NEXT: spmd.replicated_to_unreduced {"y"} %arg0
  // CHECK-SAME: out_sharding=<@mesh, [{"x"}, {}], unreduced={"y"}>
  %0 = spmd.reshard %arg0 <@mesh, [{"x"}, {}], unreduced={"y"}> : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// Another device order: the same dimension shardings are reached on the
// source mesh, then one collective_permute moves the blocks to the target
// mesh's devices.
// CHECK-LABEL: func @device_order
func.func @device_order(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x16xf32> {
  // CHECK-NEXT: %[[P:.*]] = spmd.collective_permute %arg0 in_sharding=<@mesh, [{"x"}, {}]> out_sharding=<@reordered, [{"x"}, {}]>
  // CHECK-NEXT: return %[[P]]
  %0 = spmd.reshard %arg0 <@reordered, [{"x"}, {}]> : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// Between device orders to a less sharded target: the blocks move first,
// while they are small (a quarter of the rows), then are gathered on the
// target mesh.
// CHECK-LABEL: func @device_order_then_gather
func.func @device_order_then_gather(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>}) -> tensor<8x16xf32> {
  // CHECK-NEXT: %[[P:.*]] = spmd.collective_permute %arg0 in_sharding=<@mesh, [{"x", "y"}, {}]> out_sharding=<@reordered, [{"x", "y"}, {}]>
  // CHECK-NEXT: %[[G:.*]] = spmd.all_gather [{"y"}, {}] %[[P]] in_sharding=<@reordered, [{"x", "y"}, {}]> out_sharding=<@reordered, [{"x"}, {}]>
  // CHECK-NEXT: return %[[G]]
  %0 = spmd.reshard %arg0 <@reordered, [{"x"}, {}]> : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// Between device orders with other dimension shardings: the layout changes
// on the source mesh first; partial sums the target keeps move unreduced
// (no all_reduce to make them partial again on the target mesh).
// CHECK-LABEL: func @device_order_relayout
func.func @device_order_relayout(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}], unreduced={"y"}>}) -> tensor<8x16xf32> {
  // CHECK-NEXT: %[[A:.*]] = spmd.all_to_all [{"x"}: 0->1] %arg0 in_sharding=<@mesh, [{"x"}, {}], unreduced={"y"}> out_sharding=<@mesh, [{}, {"x"}], unreduced={"y"}>
  // CHECK-NEXT: %[[P:.*]] = spmd.collective_permute %[[A]] in_sharding=<@mesh, [{}, {"x"}], unreduced={"y"}> out_sharding=<@reordered, [{}, {"x"}], unreduced={"y"}>
  // CHECK-NEXT: return %[[P]]
  %0 = spmd.reshard %arg0 <@reordered, [{}, {"x"}], unreduced={"y"}> : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// Between device orders, partial sums the target drops are reduced on the
// source mesh, fused with the slice after them; new unreduced axes are
// introduced on the target mesh.
// CHECK-LABEL: func @device_order_reduce_first
func.func @device_order_reduce_first(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}], unreduced={"y"}>}) -> tensor<8x16xf32> {
  // CHECK-NEXT: %[[R:.*]] = spmd.reduce_scatter [{}, {"y"}] %arg0 in_sharding=<@mesh, [{"x"}, {}], unreduced={"y"}> out_sharding=<@mesh, [{"x"}, {"y"}]>
  // CHECK-NEXT: %[[P:.*]] = spmd.collective_permute %[[R]] in_sharding=<@mesh, [{"x"}, {"y"}]> out_sharding=<@reordered, [{"x"}, {"y"}]>
  // CHECK-NEXT: return %[[P]]
  %0 = spmd.reshard %arg0 <@reordered, [{"x"}, {"y"}]> : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// Reducing unreduced axes into a sharded dimension of the same axes: one
// reduce_scatter (the all_reduce + all_slice pair is fused).
// CHECK-LABEL: func @reduce_scatter
func.func @reduce_scatter(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}], unreduced={"y"}>}) -> tensor<8x16xf32> {
  // CHECK-NEXT: %[[R:.*]] = spmd.reduce_scatter [{}, {"y"}] %arg0
  // CHECK-SAME: out_sharding=<@mesh, [{"x"}, {"y"}]>
  // CHECK-NEXT: return %[[R]]
  %0 = spmd.reshard %arg0 <@mesh, [{"x"}, {"y"}]> : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
