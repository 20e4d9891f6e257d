// RUN: tessera-opt %s -split-input-file --spmd-lift-inlined-meshes | FileCheck %s

// Tests that spmd-lift-inlined-meshes leaves one symbol per mesh: later
// duplicates of a mesh are erased and their users renamed, and inlined
// meshes become symbols (an equal existing one, else a new @mesh, @mesh_N,
// @empty_mesh or @maximal_mesh_<id>), wherever the shardings are.

// CHECK: spmd.mesh @a = <["x"=2, "y"=2]>
// CHECK-NEXT: spmd.mesh @b = <["x"=2, "y"=4]>
// CHECK-NEXT: func.func @nothing_to_do
// CHECK-SAME: #spmd.sharding<@a, [{"x"}, {}]>
// CHECK: #spmd.sharding_per_value<[<@b, [{"x"}, {}]>]>
spmd.mesh @a = <["x"=2, "y"=2]>
spmd.mesh @b = <["x"=2, "y"=4]>
func.func @nothing_to_do(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@a, [{"x"}, {}]>}) -> tensor<8x8xf32> {
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@b, [{"x"}, {}]>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// CHECK: spmd.mesh @a = <["x"=2, "y"=2]>
// CHECK-NEXT: spmd.mesh @b = <["x"=2, "y"=4]>
// CHECK-NOT: spmd.mesh
// CHECK-LABEL: func.func @duplicates
// CHECK-SAME: #spmd.sharding<@a, [{"x"}, {}]>
// CHECK-SAME: #spmd.sharding<@b, [{}, {}]>
// CHECK: #spmd.sharding_per_value<[<@a, [{}, {"y"}]>]>
spmd.mesh @a = <["x"=2, "y"=2]>
spmd.mesh @b = <["x"=2, "y"=4]>
spmd.mesh @c = <["x"=2, "y"=2]>
func.func @duplicates(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@a, [{"x"}, {}]>},
                      %arg1: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@b, [{}, {}]>}) -> tensor<8x8xf32> {
  %0 = arith.addf %arg0, %arg1 {spmd.sharding = #spmd.sharding_per_value<[<@c, [{}, {"y"}]>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// The comm ops of a manual computation over a duplicate mesh follow it to
// the mesh it repeats.
// CHECK: spmd.mesh @a = <["x"=2]>
// CHECK-NOT: spmd.mesh
// CHECK-LABEL: func.func @comm_ops
// CHECK: spmd.manual_computation(%arg0) in_shardings=[<@a, [{"x"}]>] out_shardings=[<@a, [{"x"}]>]
// CHECK: comm.axis_index over @a {"x"}
// CHECK: comm.all_reduce sum %{{.*}} over @a {"x"}
spmd.mesh @a = <["x"=2]>
spmd.mesh @c = <["x"=2]>
func.func @comm_ops(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@c, [{"x"}]>] out_shardings=[<@c, [{"x"}]>] manual_axes={"x"} (%l: tensor<4xf32>) {
    %i = comm.axis_index over @c {"x"} : index
    %r = comm.all_reduce sum %l over @c {"x"} : tensor<4xf32>
    spmd.return %r : tensor<4xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// CHECK: spmd.mesh @mesh = <["x"=2, "y"=4]>
// CHECK-NEXT: spmd.mesh @mesh_0 = <["x"=2, "y"=2]>
// CHECK-LABEL: func.func @inlined
// CHECK: #spmd.sharding_per_value<[<@mesh_0, [{"x"}, {}]>]>
// CHECK: #spmd.sharding_per_value<[<@mesh, [{}, {"y"}]>]>
spmd.mesh @mesh = <["x"=2, "y"=4]>
func.func @inlined(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<mesh<["x"=2, "y"=2]>, [{"x"}, {}]>]>} : tensor<8x8xf32>
  %1 = arith.negf %0 {spmd.sharding = #spmd.sharding_per_value<[<mesh<["x"=2, "y"=4]>, [{}, {"y"}]>]>} : tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}

// -----

// CHECK: spmd.mesh @empty_mesh = <[]>
// CHECK-NEXT: spmd.mesh @maximal_mesh_3 = <[], device_ids=[3]>
// CHECK-NEXT: spmd.mesh @maximal_mesh_7 = <[], device_ids=[7]>
// CHECK-LABEL: func.func @empty_and_maximal
// CHECK-SAME: #spmd.sharding<@empty_mesh, [{}, {}]>
// CHECK-SAME: #spmd.sharding<@maximal_mesh_3, []>
// CHECK: #spmd.sharding_per_value<[<@maximal_mesh_7, []>]>
func.func @empty_and_maximal(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<mesh<[]>, [{}, {}]>},
                             %arg1: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<mesh<[], device_ids=[3]>, []>}) -> tensor<8x8xf32> {
  %0 = arith.addf %arg0, %arg1 {spmd.sharding = #spmd.sharding_per_value<[<mesh<[], device_ids=[7]>, []>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// Names freed by erased duplicates are reused; the signature comes before
// the body; spmd ops (constraints, manual computations, collectives) are
// rewritten too.
// CHECK: spmd.mesh @mesh = <["x"=2, "y"=4]>
// CHECK-NEXT: spmd.mesh @mesh_0 = <["x"=2, "y"=4], device_ids=[7, 6, 5, 4, 3, 2, 1, 0]>
// CHECK-NEXT: spmd.mesh @mesh_1 = <["x"=8]>
// CHECK-NEXT: spmd.mesh @mesh_2 = <["a"=8]>
// CHECK-LABEL: func.func @everywhere
// CHECK-SAME: #spmd.sharding<@mesh_0, [{"x"}, {}]>
// CHECK-SAME: -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh_1, [{?}, {?}]>})
// CHECK: spmd.sharding_constraint %{{.*}} <@mesh, [{}, {"y"}]>
// CHECK: spmd.manual_computation(%{{.*}}) in_shardings=[<@mesh_2, [{"a"}, {}]>] out_shardings=[<@mesh_2, [{"a"}, {}]>]
// CHECK: spmd.all_gather [{"x"}, {}] %{{.*}} in_sharding=<@mesh, [{"x"}, {}]> out_sharding=<@mesh, [{}, {}]>
spmd.mesh @mesh = <["x"=2, "y"=4]>
spmd.mesh @mesh_1 = <["x"=2, "y"=4]>
spmd.mesh @mesh_0 = <["x"=2, "y"=4], device_ids=[7, 6, 5, 4, 3, 2, 1, 0]>
func.func @everywhere(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<mesh<["x"=2, "y"=4], device_ids=[7, 6, 5, 4, 3, 2, 1, 0]>, [{"x"}, {}]>})
    -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<mesh<["x"=8]>, [{?}, {?}]>}) {
  %0 = spmd.sharding_constraint %arg0 <@mesh_1, [{}, {"y"}]> : tensor<8x8xf32>
  %1 = spmd.manual_computation(%0) in_shardings=[<mesh<["a"=8]>, [{"a"}, {}]>] out_shardings=[<mesh<["a"=8]>, [{"a"}, {}]>] manual_axes={"a"} (%arg1: tensor<1x8xf32>) {
    spmd.return %arg1 : tensor<1x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %2 = spmd.all_gather [{"x"}, {}] %1 in_sharding=<mesh<["x"=2, "y"=4]>, [{"x"}, {}]> out_sharding=<@mesh_1, [{}, {}]> : tensor<8x8xf32>
  return %2 : tensor<8x8xf32>
}
