// RUN: tessera-opt %s --spmd-reshard-to-collectives | FileCheck %s

// Tests that reshards between meshes of other axes over the same devices
// (a 2x4 mesh, its 8-device 1-D view, a 4x2 regrouping) become one
// collective_permute to the layout the target mesh's axes spell, then the
// target mesh's own collectives; and that a layout the target's axes
// cannot spell is gathered on the source mesh first.

spmd.mesh @mesh = <["x"=2, "y"=4]>
spmd.mesh @flat = <["z"=8]>
spmd.mesh @grid = <["a"=4, "b"=2]>
spmd.mesh @mesh23 = <["p"=2, "q"=3]>
spmd.mesh @mesh32 = <["r"=3, "s"=2]>

// The same layout: one permute (which moves nothing: both meshes order the
// devices alike).
// CHECK-LABEL: func @one_dimensional_view
func.func @one_dimensional_view(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>}) -> tensor<8x16xf32> {
  // CHECK-NEXT: %[[P:.*]] = spmd.collective_permute %arg0 in_sharding=<@mesh, [{"x", "y"}, {}]> out_sharding=<@flat, [{"z"}, {}]>
  // CHECK-NEXT: return %[[P]]
  %0 = spmd.reshard %arg0 <@flat, [{"z"}, {}]> : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// "x" is "z":(1)2 of the 1-D view; the layout then changes on @flat.
// CHECK-LABEL: func @then_relayout
func.func @then_relayout(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x16xf32> {
  // CHECK-NEXT: %[[P:.*]] = spmd.collective_permute %arg0 in_sharding=<@mesh, [{"x"}, {}]> out_sharding=<@flat, [{"z":(1)2}, {}]>
  // CHECK-NEXT: %[[S:.*]] = spmd.all_slice [{"z":(2)4}, {}] %[[P]] in_sharding=<@flat, [{"z":(1)2}, {}]> out_sharding=<@flat, [{"z"}, {}]>
  // CHECK-NEXT: return %[[S]]
  %0 = spmd.reshard %arg0 <@flat, [{"z"}, {}]> : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// Regrouped axes: "y" of the 2x4 mesh is "a":(2)2 and "b" of the 4x2 one,
// "x" is "a":(1)2. Every dimension keeps its number of parts: the
// translation's permute and the one to the target layout merge into one.
// CHECK-LABEL: func @regrouped
func.func @regrouped(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<8x16xf32> {
  // CHECK-NEXT: %[[P:.*]] = spmd.collective_permute %arg0 in_sharding=<@mesh, [{"y"}, {"x"}]> out_sharding=<@grid, [{"a"}, {"b"}]>
  // CHECK-NEXT: return %[[P]]
  %0 = spmd.reshard %arg0 <@grid, [{"a"}, {"b"}]> : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// Partial sums move as they are and are reduced on the target mesh, where
// the reduction and the slice after it are one reduce_scatter.
// CHECK-LABEL: func @partial_sums
func.func @partial_sums(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}], unreduced={"y"}>}) -> tensor<8x16xf32> {
  // CHECK-NEXT: %[[P:.*]] = spmd.collective_permute %arg0 in_sharding=<@mesh, [{"x"}, {}], unreduced={"y"}> out_sharding=<@flat, [{"z":(1)2}, {}], unreduced={"z":(2)4}>
  // CHECK-NEXT: %[[R:.*]] = spmd.reduce_scatter [{"z":(2)4}, {}] %[[P]]
  // CHECK-SAME: out_sharding=<@flat, [{"z"}, {}]>
  // CHECK-NEXT: return %[[R]]
  %0 = spmd.reshard %arg0 <@flat, [{"z"}, {}]> : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// "p"=2 of a 2x3 mesh is no sub-axis of a 3x2 mesh: gathered on the source
// mesh, where the data is the same on every device of both meshes.
// CHECK-LABEL: func @no_common_layout
func.func @no_common_layout(%arg0: tensor<6x4xf32> {spmd.sharding = #spmd.sharding<@mesh23, [{"p"}, {}]>}) -> tensor<6x4xf32> {
  // CHECK-NEXT: %[[G:.*]] = spmd.all_gather [{"p"}, {}] %arg0 in_sharding=<@mesh23, [{"p"}, {}]> out_sharding=<@mesh23, [{}, {}]>
  // CHECK-NEXT: %[[P:.*]] = spmd.collective_permute %[[G]] in_sharding=<@mesh23, [{}, {}]> out_sharding=<@mesh32, [{}, {}]>
  // CHECK-NEXT: %[[S:.*]] = spmd.all_slice [{"r"}, {}] %[[P]]
  // CHECK-NEXT: return %[[S]]
  %0 = spmd.reshard %arg0 <@mesh32, [{"r"}, {}]> : tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}
