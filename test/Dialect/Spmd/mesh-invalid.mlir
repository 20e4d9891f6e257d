// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// Tests every invariant of spmd.mesh and #spmd.mesh.

// expected-error @+1 {{duplicate axis name: "a"}}
spmd.mesh @mesh = <["a"=2, "a"=4]>

// -----

// expected-error @+2 {{failed to parse Spmd_Mesh parameter 'axes' which is to be a `::llvm::ArrayRef<MeshAxisAttr>`}}
// expected-error @+1 {{axis size must be at least 1, got: 0 for axis "a"}}
spmd.mesh @mesh = <["a"=0]>

// -----

// expected-error @+2 {{failed to parse Spmd_Mesh parameter 'axes' which is to be a `::llvm::ArrayRef<MeshAxisAttr>`}}
// expected-error @+1 {{axis size must be at least 1, got: -2 for axis "b"}}
spmd.mesh @mesh = <["a"=2, "b"=-2]>

// -----

// expected-error @+1 {{total product of axis sizes must match total number of device ids, got: 4 != 6}}
spmd.mesh @mesh = <["a"=2, "b"=2], device_ids=[0, 1, 2, 3, 4, 5]>

// -----

// expected-error @+1 {{sorted device ids must be iota(product(axes)), got: 0, 1, 2, 4}}
spmd.mesh @mesh = <["a"=2, "b"=2], device_ids=[0, 4, 2, 1]>

// -----

// expected-error @+1 {{sorted device ids must be iota(product(axes)), got: 0, 0, 1, 2}}
spmd.mesh @mesh = <["a"=2, "b"=2], device_ids=[0, 0, 2, 1]>

// -----

// expected-error @+1 {{device id must be non-negative, got: -1}}
spmd.mesh @mesh = <["a"=2], device_ids=[-1, 0]>

// -----

// expected-error @+1 {{axes is empty and device_ids has more than one element}}
spmd.mesh @mesh = <[], device_ids=[0, 1]>

// -----

// expected-error @+1 {{device id must be non-negative, got: -3}}
spmd.mesh @mesh = <[], device_ids=[-3]>

// -----

// expected-error @+1 {{axis_types must have one entry per axis, got: 1 != 2}}
spmd.mesh @mesh = <["a"=2, "b"=2], axis_types=[explicit]>

// -----

// expected-error @+1 {{unknown axis type 'automatic', expected 'explicit', 'auto' or 'manual'}}
spmd.mesh @mesh = <["a"=2], axis_types=[automatic]>

// -----

// expected-error @+1 {{expected 'device_ids' or 'axis_types' (each at most once), got 'devices'}}
spmd.mesh @mesh = <["a"=2], devices=[1, 0]>

// -----

// expected-error @+1 {{expected 'device_ids' or 'axis_types' (each at most once), got 'device_ids'}}
spmd.mesh @mesh = <["a"=2], device_ids=[1, 0], device_ids=[1, 0]>

// -----

// expected-error @+3 {{failed to parse Spmd_Mesh parameter 'axes' which is to be a `::llvm::ArrayRef<MeshAxisAttr>`}}
// expected-error @+2 {{failed to parse Spmd_MeshAxis parameter 'name' which is to be a `::llvm::StringRef`}}
// expected-error @+1 {{expected string}}
spmd.mesh @mesh = <[a=2]>

// -----

// expected-error @+1 {{mesh has too many devices: the product of the axis sizes overflows}}
spmd.mesh @mesh = <["a"=65536, "b"=65536]>

// -----

func.func @f() {
  // expected-error @+1 {{'spmd.mesh' op expects parent op 'builtin.module'}}
  "spmd.mesh"() <{sym_name = "m", mesh = #spmd.mesh<["a"=2]>}> : () -> ()
  return
}

// -----

// expected-note @+1 {{see existing symbol definition here}}
spmd.mesh @mesh = <["a"=2]>
// expected-error @+1 {{redefinition of symbol named 'mesh'}}
spmd.mesh @mesh = <["a"=2]>
