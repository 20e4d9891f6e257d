// RUN: tessera-opt %s -split-input-file | FileCheck %s
// RUN: tessera-opt %s -split-input-file | tessera-opt -split-input-file | FileCheck %s

// Tests that shardings resolve their mesh symbols wherever the mesh is
// declared in their symbol table: after their users, or in a nested module
// whose mesh shadows the outer one. Mesh-dependent checks run with the
// module's shared symbol tables, so the position of the mesh does not
// matter (see bench/spmd-verify-bench.sh).

// CHECK-LABEL: func.func @mesh_declared_last
// CHECK-SAME: spmd.sharding = #spmd.sharding<@late, [{"x"}, {}]>
// CHECK: spmd.sharding_constraint %{{.*}} <@late, [{}, {"y"}]>
// CHECK: spmd.mesh @late = <["x"=2, "y"=4]>
func.func @mesh_declared_last(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@late, [{"x"}, {}]>})
    -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@late, [{"x"}, {"y"}]>}) {
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@late, [{"x"}, {"y"}]>]>} : tensor<8x8xf32>
  %1 = spmd.sharding_constraint %0 <@late, [{}, {"y"}]> : tensor<8x8xf32>
  %2 = spmd.all_slice [{"x"}, {}] %1 out_sharding=<@late, [{"x"}, {"y"}]> : tensor<8x8xf32>
  return %2 : tensor<8x8xf32>
}
spmd.mesh @late = <["x"=2, "y"=4]>

// -----

// A nested module's shardings see its own mesh, which shadows the outer one.
// CHECK-LABEL: module @inner
// CHECK: spmd.sharding = #spmd.sharding<@mesh, [{"z"}]>
spmd.mesh @mesh = <["x"=2]>
module @inner {
  func.func @f(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"z"}]>}) -> tensor<8xf32> {
    return %arg0 : tensor<8xf32>
  }
  spmd.mesh @mesh = <["z"=4]>
}

