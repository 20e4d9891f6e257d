// RUN: tessera-opt %s --spmd-reshard-to-collectives | FileCheck %s

// Tests reshards to and from maximal (single-device) meshes: every device
// holds such a value whole, so a reshard to one gathers the value on its
// own mesh, one from it slices the whole value on the target mesh, and one
// between two devices' meshes moves nothing.

spmd.mesh @mesh = <["x"=2, "y"=2]>
spmd.mesh @dev1 = <[], device_ids=[1]>
spmd.mesh @dev3 = <[], device_ids=[3]>

// CHECK-LABEL: func @to_one
func.func @to_one(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<8x8xf32> {
  // CHECK-NEXT: %[[G:.*]] = spmd.all_gather [{"x"}, {"y"}] %arg0 in_sharding=<@mesh, [{"x"}, {"y"}]> out_sharding=<@mesh, [{}, {}]>
  // CHECK-NEXT: return %[[G]]
  %0 = spmd.reshard %arg0 <@dev1, []> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// CHECK-LABEL: func @from_one
func.func @from_one(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@dev1, []>}) -> tensor<8x8xf32> {
  // CHECK-NEXT: %[[S:.*]] = spmd.all_slice [{}, {"x", "y"}] %arg0 in_sharding=<@mesh, [{}, {}]> out_sharding=<@mesh, [{}, {"x", "y"}]>
  // CHECK-NEXT: return %[[S]]
  %0 = spmd.reshard %arg0 <@mesh, [{}, {"x", "y"}]> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// CHECK-LABEL: func @one_to_other
func.func @one_to_other(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@dev1, []>}) -> tensor<8xf32> {
  // CHECK-NEXT: return %arg0
  %0 = spmd.reshard %arg0 <@dev3, []> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// Replicated data is already whole on every device.
// CHECK-LABEL: func @replicated_to_one
func.func @replicated_to_one(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) -> tensor<8xf32> {
  // CHECK-NEXT: return %arg0
  %0 = spmd.reshard %arg0 <@dev3, []> : tensor<8xf32>
  return %0 : tensor<8xf32>
}
