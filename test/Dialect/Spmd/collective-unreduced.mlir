// RUN: tessera-opt %s -split-input-file | FileCheck %s
// RUN: tessera-opt %s -split-input-file | tessera-opt -split-input-file | FileCheck %s

// Tests the collectives that create or reduce unreduced axes
// (sharded_to_unreduced, replicated_to_unreduced, all_reduce,
// reduce_scatter) on valid inputs, including the transitions of unreduced
// axes that the verifiers accept: reducing some axes and keeping others with
// their kind, reducing a sub-axis of an unreduced axis, and dropping
// unreduced axes of the op's kind.

spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=2]>

// CHECK-LABEL: func @sharded_to_unreduced
func.func @sharded_to_unreduced(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}, {"c"}], unreduced={"d"}>}) -> tensor<8x8xf32> {
  // CHECK: spmd.sharded_to_unreduced [{"b"}, {"c"}] %arg0 out_sharding=<@mesh, [{"a"}, {}], unreduced={"b", "c", "d"}>
  %0 = spmd.sharded_to_unreduced [{"b"}, {"c"}] %arg0 out_sharding=<@mesh, [{"a"}, {}], unreduced={"b", "c", "d"}> : tensor<8x8xf32>
  // The all_reduce over the same axes undoes it back to an all_gather.
  // CHECK: spmd.all_reduce {"b", "c"} %{{.*}} out_sharding=<@mesh, [{"a"}, {}], unreduced={"d"}>
  %1 = spmd.all_reduce {"b", "c"} %0 out_sharding=<@mesh, [{"a"}, {}], unreduced={"d"}> : tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=8, "y"=2]>

// A sub-axis gathered out of a full axis leaves its major part.
// CHECK-LABEL: func @sharded_to_unreduced_sub_axis
func.func @sharded_to_unreduced_sub_axis(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<16x8xf32> {
  // CHECK: spmd.sharded_to_unreduced [{}, {"x":(2)4}] %arg0 out_sharding=<@mesh, [{"y"}, {"x":(1)2}], unreduced={"x":(2)4}>
  %0 = spmd.sharded_to_unreduced [{}, {"x":(2)4}] %arg0 out_sharding=<@mesh, [{"y"}, {"x":(1)2}], unreduced={"x":(2)4}> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=2, "e"=2, "f"=2]>

// Implicitly ("a", "f") and explicitly ("c") replicated axes become
// unreduced; an explicitly replicated axis leaves `replicated`.
// CHECK-LABEL: func @replicated_to_unreduced
func.func @replicated_to_unreduced(%arg0: tensor<8x8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}, {}, {}], replicated={"c", "d"}, unreduced={"e"}>}) -> tensor<8x8x8xf32> {
  // CHECK: spmd.replicated_to_unreduced {"a", "c", "f"} %arg0 out_sharding=<@mesh, [{"b"}, {}, {}], replicated={"d"}, unreduced={"a", "c", "e", "f"}>
  %0 = spmd.replicated_to_unreduced {"a", "c", "f"} %arg0 out_sharding=<@mesh, [{"b"}, {}, {}], replicated={"d"}, unreduced={"a", "c", "e", "f"}> : tensor<8x8x8xf32>
  return %0 : tensor<8x8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=2]>

// Reducing the minor half of an unreduced axis keeps the major half
// unreduced.
// CHECK-LABEL: func @all_reduce_sub_axis_of_unreduced
func.func @all_reduce_sub_axis_of_unreduced(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], unreduced={"x"}>}) -> tensor<8xf32> {
  // CHECK: spmd.all_reduce {"x":(2)2} %arg0 out_sharding=<@mesh, [{}], unreduced={"x":(1)2}>
  %0 = spmd.all_reduce {"x":(2)2} %arg0 out_sharding=<@mesh, [{}], unreduced={"x":(1)2}> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// As in Shardy, an all_reduce may also finish the reduction of unreduced
// axes it does not name, when they were left unreduced with its kind.
// CHECK-LABEL: func @all_reduce_drops_other_unreduced_axes
func.func @all_reduce_drops_other_unreduced_axes(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], unreduced=max{"x", "y"}>}) -> tensor<8xf32> {
  // CHECK: spmd.all_reduce max {"x"} %arg0 out_sharding=<@mesh, [{}]>
  %0 = spmd.all_reduce max {"x"} %arg0 out_sharding=<@mesh, [{}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2]>

// CHECK-LABEL: func @reduce_scatter_reduces_unreduced_axes
func.func @reduce_scatter_reduces_unreduced_axes(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}], unreduced={"y", "z"}>}) -> tensor<16x8xf32> {
  // CHECK: spmd.reduce_scatter [{}, {"y"}] %arg0 out_sharding=<@mesh, [{"x"}, {"y"}], unreduced={"z"}>
  %0 = spmd.reduce_scatter [{}, {"y"}] %arg0 out_sharding=<@mesh, [{"x"}, {"y"}], unreduced={"z"}> : tensor<16x8xf32>
  // CHECK: spmd.reduce_scatter [{}, {}] %{{.*}} out_sharding=<@mesh, [{"x"}, {"y"}]>
  %1 = spmd.reduce_scatter [{}, {}] %0 out_sharding=<@mesh, [{"x"}, {"y"}]> : tensor<16x8xf32>
  return %1 : tensor<16x8xf32>
}
