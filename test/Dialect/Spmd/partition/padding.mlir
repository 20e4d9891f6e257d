// RUN: tessera-opt %s --spmd-partition | FileCheck %s

// Dimensions the axes do not divide are padded at the end: each device
// holds ceil(n / parts) elements. A collective that changes the layout of
// such a dimension moves it through the whole dimension: gathered without
// its padding (an all_gather of the valid part: the padding never moves),
// then padded with zeros and sliced.

spmd.mesh @mesh = <["x"=2, "y"=4]>
spmd.mesh @perm = <["x"=2, "y"=4], device_ids=[7, 6, 5, 4, 3, 2, 1, 0]>

// CHECK-LABEL: func @local_types
// CHECK-SAME: (%arg0: tensor<2x3xf32> {spmd.global_sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>, spmd.global_type = tensor<6x5xf32>})
// CHECK-SAME: -> (tensor<2x3xf32> {spmd.global_sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>, spmd.global_type = tensor<6x5xf32>})
func.func @local_types(%arg0: tensor<6x5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>})
    -> (tensor<6x5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) {
  // CHECK: math.exp %arg0 : tensor<2x3xf32>
  %0 = math.exp %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"y"}, {"x"}]>]>} : tensor<6x5xf32>
  return %0 : tensor<6x5xf32>
}

// 6 rows over 8 devices (1 each, the last two padding) to 6 rows over 2.
// CHECK-LABEL: func @gather
// CHECK-SAME: (%arg0: tensor<1x16xf32>
// CHECK: %[[W:.*]] = comm.all_gather %arg0 over @mesh {"x", "y"} dim 0 valid 6 : tensor<1x16xf32> -> tensor<6x16xf32>
// CHECK-NOT: tensor.extract_slice %[[W]][0, 0] [6, 16]
// CHECK: %[[I:.*]] = comm.axis_index over @mesh {"x"} : index
// CHECK: %[[O:.*]] = arith.muli %[[I]], %c3
// CHECK: %[[S:.*]] = tensor.extract_slice %[[W]][%[[O]], 0] [3, 16] [1, 1] : tensor<6x16xf32> to tensor<3x16xf32>
// CHECK: return %[[S]] : tensor<3x16xf32>
func.func @gather(%arg0: tensor<6x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>})
    -> (tensor<6x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %0 = spmd.all_gather [{"y"}, {}] %arg0 out_sharding=<@mesh, [{"x"}, {}]> : tensor<6x16xf32>
  return %0 : tensor<6x16xf32>
}

// The padded dimension is padded with zeros and sliced; the divisible one
// takes the usual slice.
// CHECK-LABEL: func @slice
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 0] high[2, 0]
// CHECK: tensor.yield %[[Z]] : f32
// CHECK: } : tensor<6x16xf32> to tensor<8x16xf32>
// CHECK: %[[I:.*]] = comm.axis_index over @mesh {"y"} : index
// CHECK: %[[O:.*]] = arith.muli %[[I]], %c2
// CHECK: %[[R:.*]] = tensor.extract_slice %[[P]][%[[O]], 0] [2, 16] [1, 1] : tensor<8x16xf32> to tensor<2x16xf32>
// CHECK: %[[J:.*]] = comm.axis_index over @mesh {"x"} : index
// CHECK: %[[Q:.*]] = arith.muli %[[J]], %c8
// CHECK: %[[S:.*]] = tensor.extract_slice %[[R]][0, %[[Q]]] [2, 8] [1, 1] : tensor<2x16xf32> to tensor<2x8xf32>
// CHECK: return %[[S]] : tensor<2x8xf32>
func.func @slice(%arg0: tensor<6x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>})
    -> (tensor<6x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) {
  %0 = spmd.all_slice [{"y"}, {"x"}] %arg0 out_sharding=<@mesh, [{"y"}, {"x"}]> : tensor<6x16xf32>
  return %0 : tensor<6x16xf32>
}

// An all-to-all that touches a padded dimension: both dimensions go
// through whole, every gather before any slice.
// CHECK-LABEL: func @all_to_all
// CHECK-SAME: (%arg0: tensor<2x8xf32>
// CHECK: %[[W:.*]] = comm.all_gather %arg0 over @mesh {"y"} dim 0 valid 6 : tensor<2x8xf32> -> tensor<6x8xf32>
// CHECK: %[[I:.*]] = comm.axis_index over @mesh {"y"} : index
// CHECK: %[[O:.*]] = arith.muli %[[I]], %c2
// CHECK: %[[S:.*]] = tensor.extract_slice %[[W]][0, %[[O]]] [6, 2] [1, 1] : tensor<6x8xf32> to tensor<6x2xf32>
// CHECK: return %[[S]] : tensor<6x2xf32>
func.func @all_to_all(%arg0: tensor<6x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>})
    -> (tensor<6x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>}) {
  %0 = spmd.all_to_all [{"y"}: 0->1] %arg0 out_sharding=<@mesh, [{}, {"y"}]> : tensor<6x8xf32>
  return %0 : tensor<6x8xf32>
}

// The other way: the gather of dimension 1 comes before the slice of the
// padded dimension 0.
// CHECK-LABEL: func @all_to_all_back
// CHECK-SAME: (%arg0: tensor<6x2xf32>
// CHECK: %[[G:.*]] = comm.all_gather %arg0 over @mesh {"y"} dim 1 : tensor<6x2xf32> -> tensor<6x8xf32>
// CHECK: %[[P:.*]] = tensor.pad %[[G]] low[0, 0] high[2, 0]
// CHECK: } : tensor<6x8xf32> to tensor<8x8xf32>
// CHECK: comm.axis_index over @mesh {"y"}
// CHECK: %[[S:.*]] = tensor.extract_slice %[[P]][%{{.*}}, 0] [2, 8] [1, 1] : tensor<8x8xf32> to tensor<2x8xf32>
// CHECK: return %[[S]] : tensor<2x8xf32>
func.func @all_to_all_back(%arg0: tensor<6x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>})
    -> (tensor<6x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}) {
  %0 = spmd.all_to_all [{"y"}: 1->0] %arg0 out_sharding=<@mesh, [{"y"}, {}]> : tensor<6x8xf32>
  return %0 : tensor<6x8xf32>
}

// A reduce-scatter into a padded dimension: all-reduce, pad, slice.
// CHECK-LABEL: func @reduce_scatter
// CHECK: %[[R:.*]] = comm.all_reduce sum %arg0 over @mesh {"y"} : tensor<6x8xf32>
// CHECK: %[[P:.*]] = tensor.pad %[[R]] low[0, 0] high[2, 0]
// CHECK: } : tensor<6x8xf32> to tensor<8x8xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %[[P]][%{{.*}}, 0] [2, 8] [1, 1] : tensor<8x8xf32> to tensor<2x8xf32>
// CHECK-NOT: comm.reduce_scatter
// CHECK: return %[[S]]
func.func @reduce_scatter(%arg0: tensor<6x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}], unreduced={"y"}>})
    -> (tensor<6x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}) {
  %0 = spmd.reduce_scatter [{"y"}, {}] %arg0 out_sharding=<@mesh, [{"y"}, {}]> : tensor<6x8xf32>
  return %0 : tensor<6x8xf32>
}

// A padded dimension becoming unreduced: gathered whole, sliced by the
// axes it keeps, and kept on the first device of the unreduced axes (zeros
// on the others).
// CHECK-LABEL: func @to_unreduced
// CHECK: %[[W:.*]] = comm.all_gather %arg0 over @mesh {"x", "y"} dim 0 valid 6 : tensor<1x8xf32> -> tensor<6x8xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %[[W]][%{{.*}}, 0] [3, 8] [1, 1] : tensor<6x8xf32> to tensor<3x8xf32>
// CHECK: %[[I:.*]] = comm.axis_index over @mesh {"y"} : index
// CHECK: %[[F:.*]] = arith.cmpi eq, %[[I]], %c0
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<3x8xf32>
// CHECK: %[[V:.*]] = arith.select %[[F]], %[[S]], %[[Z]] : tensor<3x8xf32>
// CHECK-NEXT: return %[[V]]
func.func @to_unreduced(%arg0: tensor<6x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>})
    -> (tensor<6x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}], unreduced={"y"}>}) {
  %0 = spmd.sharded_to_unreduced [{"y"}, {}] %arg0 out_sharding=<@mesh, [{"x"}, {}], unreduced={"y"}> : tensor<6x8xf32>
  return %0 : tensor<6x8xf32>
}

// A permute to another device order: each device's padded block goes to
// the device of @perm (devices in reverse order) that holds the same block;
// the padding moves with it. Block 0 is held by devices 0 and 4 (positions
// 7 and 3 of @perm) and needed at positions 0 and 4 of @perm.
// CHECK-LABEL: func @permute
// CHECK: %[[P:.*]] = comm.permute %arg0 over @perm {"x", "y"} pairs [7 -> 0, 3 -> 4, 6 -> 1, 2 -> 5, 5 -> 2, 1 -> 6, 4 -> 3, 0 -> 7] : tensor<2x8xf32>
// CHECK-NEXT: return %[[P]]
func.func @permute(%arg0: tensor<6x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>})
    -> (tensor<6x8xf32> {spmd.sharding = #spmd.sharding<@perm, [{"y"}, {}]>}) {
  %0 = spmd.collective_permute %arg0 out_sharding=<@perm, [{"y"}, {}]> : tensor<6x8xf32>
  return %0 : tensor<6x8xf32>
}

// A sharded non-splat constant: each device's block of the padded value.
// CHECK-LABEL: func @constant
// CHECK-SAME: -> (tensor<2xf32> {spmd.global_sharding = #spmd.sharding<@mesh, [{"y"}]>, spmd.global_type = tensor<5xf32>})
// CHECK: %[[C:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00]> : tensor<5xf32>
// CHECK: %[[P:.*]] = tensor.pad %[[C]] low[0] high[3]
// CHECK: } : tensor<5xf32> to tensor<8xf32>
// CHECK: tensor.extract_slice %[[P]][%{{.*}}] [2] [1] : tensor<8xf32> to tensor<2xf32>
func.func @constant() -> (tensor<5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}]>}) {
  %c = arith.constant {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"y"}]>]>} dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<5xf32>
  return %c : tensor<5xf32>
}
