// RUN: tessera-opt %s --spmd-partition | FileCheck %s

// Tests that collective_permutes of partial sums and between meshes of
// other axes move blocks device to device.

spmd.mesh @mesh = <["x"=2, "y"=4]>
spmd.mesh @flat = <["z"=8]>
spmd.mesh @rev = <["z"=8], device_ids=[7, 6, 5, 4, 3, 2, 1, 0]>

// Partial sums move without a gather: each goes to a device that needs its
// block with the same coordinate along the unreduced "y":(2)2 (position
// 4 * x + y holds block y / 2, partial y % 2, and needs block x, partial
// y % 2), so every target group of "y":(2)2 receives both partial sums of
// its block.
// CHECK-LABEL: func @permute_unreduced
// CHECK-NEXT: %[[P:.*]] = comm.permute %arg0 over @mesh {"x", "y"} pairs [0 -> 0, 4 -> 2, 1 -> 1, 5 -> 3, 6 -> 6, 2 -> 4, 7 -> 7, 3 -> 5] : tensor<4x16xf32>
// CHECK-NEXT: return %[[P]]
func.func @permute_unreduced(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y":(1)2}, {}], unreduced={"y":(2)2}>})
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}], unreduced={"y":(2)2}>}) {
  %0 = spmd.collective_permute %arg0 out_sharding=<@mesh, [{"x"}, {}], unreduced={"y":(2)2}> : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// The same layout spelled in the 1-D view's axes, on devices in the same
// order: nothing moves.
// CHECK-LABEL: func @one_dimensional_view
// CHECK-NEXT: return %arg0 : tensor<4x16xf32>
func.func @one_dimensional_view(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}], unreduced={"y"}>})
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@flat, [{"z":(1)2}, {}], unreduced={"z":(2)4}>}) {
  %0 = spmd.collective_permute %arg0 out_sharding=<@flat, [{"z":(1)2}, {}], unreduced={"z":(2)4}> : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// A 1-D view in the reverse device order: device d holds block d and the
// device at position q of @rev (device 7 - q) needs block q.
// CHECK-LABEL: func @reversed_view
// CHECK-NEXT: %[[P:.*]] = comm.permute %arg0 over @rev {"z"} pairs [7 -> 0, 6 -> 1, 5 -> 2, 4 -> 3, 3 -> 4, 2 -> 5, 1 -> 6, 0 -> 7] : tensor<1x16xf32>
// CHECK-NEXT: return %[[P]]
func.func @reversed_view(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>})
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@rev, [{"z"}, {}]>}) {
  %0 = spmd.collective_permute %arg0 out_sharding=<@rev, [{"z"}, {}]> : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
