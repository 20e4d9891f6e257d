// RUN: tessera-opt %s --split-input-file --spmd-print-types --verify-diagnostics
// RUN: tessera-opt %s --split-input-file --spmd-print-types 2>&1 >/dev/null | FileCheck %s
// RUN: tessera-opt %s --split-input-file --spmd-print-types=all-axes=true 2>&1 >/dev/null | FileCheck %s --check-prefix=ALL

// `spmd-print-types` on the spmd ops that carry their results' shardings
// (ResultShardingOpInterface), and on values inside the region ops that
// change axis types. Same three RUN lines as spmd-print-types.mlir.

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

// Tests that sharding_constraint and reshard results have the sharding the
// op carries, unreduced axes included.
func.func @constraint_and_reshard(%a: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x8xf32> {
  // CHECK: remark: f32[8@x,8]{{$}}
  // ALL: remark: f32[8@x,8]{{$}}
  // expected-remark @+1 {{f32[8@x,8]}}
  %0 = spmd.sharding_constraint %a <@mesh, [{"x"}, {?}]> : tensor<8x8xf32>
  // CHECK: remark: f32[8,8@y]{U:x}{{$}}
  // ALL: remark: f32[8,8@y]{U:x}{{$}}
  // expected-remark @+1 {{f32[8,8@y]{U:x}}}
  %1 = spmd.reshard %0 <@mesh, [{}, {"y"}], unreduced={"x"}> : tensor<8x8xf32>
  // CHECK: remark: f32[8@(y,x),8]{{$}}
  // ALL: remark: f32[8@(y,x),8]{{$}}
  // expected-remark @+1 {{f32[8@(y,x),8]}}
  %2 = spmd.reshard %1 <@mesh, [{"y", "x"}, {}]> : tensor<8x8xf32>
  return %2 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

// Tests that a propagation barrier's result is sharded by its spmd.sharding
// attribute, and unsharded without one.
func.func @propagation_barrier(%a: tensor<8xf32>) -> tensor<8xf32> {
  // CHECK: remark: f32[8@y]{{$}}
  // ALL: remark: f32[8@y]{{$}}
  // expected-remark @+1 {{f32[8@y]}}
  %0 = spmd.propagation_barrier %a allowed_direction=FORWARD {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"y"}]>]>} : tensor<8xf32>
  // CHECK: remark: f32[8]{{$}}
  // ALL: remark: f32[8]{{$}}
  // expected-remark @+1 {{f32[8]}}
  %1 = spmd.propagation_barrier %0 allowed_direction=NONE : tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, auto]>

// Tests that the global-view collectives print their out_sharding, with the
// Auto axis "z" erased by default.
func.func @collectives(%a: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}], unreduced={"z"}>}) -> tensor<16x8xf32> {
  // CHECK: remark: f32[16@x,8@y]{{$}}
  // ALL: remark: f32[16@x,8@y]{{$}}
  // expected-remark @+1 {{f32[16@x,8@y]}}
  %0 = spmd.all_reduce {"z"} %a out_sharding=<@mesh, [{"x"}, {"y"}]> : tensor<16x8xf32>
  // CHECK: remark: f32[16,8@y]{{$}}
  // ALL: remark: f32[16,8@y]{{$}}
  // expected-remark @+1 {{f32[16,8@y]}}
  %1 = spmd.all_gather [{"x"}, {}] %0 out_sharding=<@mesh, [{}, {"y"}]> : tensor<16x8xf32>
  // CHECK: remark: f32[16@y,8]{{$}}
  // ALL: remark: f32[16@y,8]{{$}}
  // expected-remark @+1 {{f32[16@y,8]}}
  %2 = spmd.all_to_all [{"y"}: 1->0] %1 out_sharding=<@mesh, [{"y"}, {}]> : tensor<16x8xf32>
  // CHECK: remark: f32[16@y,8@x]{{$}}
  // ALL: remark: f32[16@(y,z),8@x]{{$}}
  // expected-remark @+1 {{f32[16@y,8@x]}}
  %3 = spmd.all_slice [{"z"}, {"x"}] %2 out_sharding=<@mesh, [{"y", "z"}, {"x"}]> : tensor<16x8xf32>
  return %3 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

// Tests a manual computation: its results have the global out_shardings,
// values in the body have local types and only free-axis shardings.
func.func @manual_computation(%a: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // CHECK: remark: f32[8@x,16@y]{{$}}
  // ALL: remark: f32[8@x,16@y]{{$}}
  // expected-remark @+1 {{f32[8@x,16@y]}}
  %0 = spmd.manual_computation(%a) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {"y"}]>] manual_axes={"x"} (%l: tensor<4x16xf32>) {
    // CHECK: remark: f32[4,16@y]{{$}}
    // ALL: remark: f32[4,16@y]{{$}}
    // expected-remark @+1 {{f32[4,16@y]}}
    %1 = spmd.sharding_constraint %l <@mesh, [{}, {"y"}]> : tensor<4x16xf32>
    // CHECK: remark: f32[4,16]{{$}}
    // ALL: remark: f32[4,16]{{$}}
    // expected-remark @+1 {{f32[4,16]}}
    %2 = arith.negf %1 : tensor<4x16xf32>
    spmd.return %2 : tensor<4x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

// Tests that inside spmd.auto_axes the listed axes are Auto, so they are
// erased from types there (shown with `all-axes`), and that the result has
// the out_sharding, where the axis is Explicit again.
func.func @auto_axes(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<8x4xf32> {
  // CHECK: remark: f32[8@x,4]{{$}}
  // ALL: remark: f32[8@x,4]{{$}}
  // expected-remark @+1 {{f32[8@x,4]}}
  %0 = spmd.auto_axes(%a) axes={"x"} out_shardings=[<@mesh, [{"x"}, {}]>] (%arg: tensor<8x4xf32>) {
    // CHECK: remark: f32[8,4@y]{{$}}
    // ALL: remark: f32[8@x,4@y]{{$}}
    // expected-remark @+1 {{f32[8,4@y]}}
    %1 = arith.negf %arg {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>} : tensor<8x4xf32>
    spmd.return %1 : tensor<8x4xf32>
  } : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Tests that inside spmd.explicit_axes the listed axes are Explicit on an
// otherwise Auto mesh, and Auto again outside (JAX's explicit_axes).
func.func @explicit_axes(%a: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // CHECK: remark: f32[8,4]{{$}}
  // ALL: remark: f32[8,4@y]{{$}}
  // expected-remark @+1 {{f32[8,4]}}
  %0 = spmd.explicit_axes(%a) axes={"x"} in_shardings=[<@mesh, [{"x"}, {}]>] (%arg: tensor<8x4xf32>) {
    // CHECK: remark: f32[8@x,4]{{$}}
    // ALL: remark: f32[8@x,4@y]{{$}}
    // expected-remark @+1 {{f32[8@x,4]}}
    %1 = arith.negf %arg {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>} : tensor<8x4xf32>
    spmd.return %1 : tensor<8x4xf32>
  } : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
