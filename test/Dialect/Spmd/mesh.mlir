// RUN: tessera-opt %s | FileCheck %s
// RUN: tessera-opt %s | tessera-opt | FileCheck %s
// RUN: tessera-opt %s --mlir-print-op-generic | tessera-opt | FileCheck %s

// Tests that every form of spmd.mesh round-trips, and that an iota device
// order and all-auto axis types are dropped.

// CHECK: spmd.mesh @plain = <["x"=3, "y"=2]>
spmd.mesh @plain = <["x"=3, "y"=2]>

// CHECK: spmd.mesh @ordered = <["a"=3, "b"=2], device_ids=[0, 2, 4, 1, 3, 5]>
spmd.mesh @ordered = <["a"=3, "b"=2], device_ids=[0, 2, 4, 1, 3, 5]>

// CHECK: spmd.mesh @iota = <["a"=2, "b"=3]>
spmd.mesh @iota = <["a"=2, "b"=3], device_ids=[0, 1, 2, 3, 4, 5]>

// CHECK: spmd.mesh @typed = <["x"=2, "y"=3], axis_types=[explicit, manual]>
spmd.mesh @typed = <["x"=2, "y"=3], axis_types=[explicit, manual]>

// CHECK: spmd.mesh @all_auto = <["x"=2, "y"=3]>
spmd.mesh @all_auto = <["x"=2, "y"=3], axis_types=[auto, auto]>

// CHECK: spmd.mesh @mixed = <["x"=3, "y"=2], device_ids=[5, 4, 3, 2, 1, 0], axis_types=[auto, explicit]>
spmd.mesh @mixed = <["x"=3, "y"=2], device_ids=[5, 4, 3, 2, 1, 0], axis_types=[auto, explicit]>

// CHECK: spmd.mesh @size_one = <["x"=1, "y"=6]>
spmd.mesh @size_one = <["x"=1, "y"=6]>

// As in Shardy, a module may hold meshes of different sizes.
// CHECK: spmd.mesh @four = <["a"=4]>
spmd.mesh @four = <["a"=4]>

// CHECK: spmd.mesh @maximal = <[], device_ids=[3]>
spmd.mesh @maximal = <[], device_ids=[3]>

// CHECK: spmd.mesh @maximal_zero = <[], device_ids=[0]>
spmd.mesh @maximal_zero = <[], device_ids=[0]>

// CHECK: spmd.mesh @empty = <[]>
spmd.mesh @empty = <[]>

// CHECK: spmd.mesh @with_attr = <["x"=6]> {foo = 1 : i32}
spmd.mesh @with_attr = <["x"=6]> {foo = 1 : i32}

// CHECK: #spmd.mesh<["q"=2]>
func.func private @standalone_mesh_attr() attributes {m = #spmd.mesh<["q"=2]>}
