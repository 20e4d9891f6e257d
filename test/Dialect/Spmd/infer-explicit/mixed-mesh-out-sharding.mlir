// RUN: tessera-opt %s -split-input-file --spmd-infer-explicit | FileCheck %s
// RUN: tessera-opt %s -split-input-file --spmd-infer-explicit --spmd-propagate | FileCheck %s --check-prefix=PROP
// RUN: tessera-opt %s -split-input-file --spmd-infer-explicit --spmd-print-types -o /dev/null 2>&1 | FileCheck %s --check-prefix=TYPES

// Tests that on meshes mixing Explicit and Auto axes an op's
// `spmd.out_sharding` is its result's type exactly, as JAX types creation
// and elementwise ops given out_sharding= on such a mesh: the sharding
// written is the one given (closed dims stay closed, an open dim stays
// open), and spmd-propagate then reads it without writing another one
// there, while it adds Auto axes to the values around it.

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, auto]>

// CHECK-LABEL: func.func @elementwise_closed
// CHECK: arith.negf %arg0 {spmd.out_sharding = #spmd.sharding<@mesh, [{}, {"x"}]>, spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"x"}]>]>}
// CHECK: arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{?}, {"x", ?}]>]>}
// PROP-LABEL: func.func @elementwise_closed
// PROP: arith.negf %arg0 {spmd.out_sharding = #spmd.sharding<@mesh, [{}, {"x"}]>, spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"x"}]>]>}
// PROP: arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"y", ?}, {"x", ?}]>]>}
// TYPES: remark: f32[8,4@x]
// TYPES: remark: f32[8,4@x]
func.func @elementwise_closed(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>},
                              %b: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}) -> tensor<8x4xf32> {
  %0 = arith.negf %a {spmd.out_sharding = #spmd.sharding<@mesh, [{}, {"x"}]>} : tensor<8x4xf32>
  %1 = arith.addf %0, %b : tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}

// -----

// JAX's test_broadcasted_iota_mix_axes: an Auto "x" and Explicit "y", "z";
// out_sharding=P(('y', 'z'), None) is the creation op's type.
spmd.mesh @mesh3 = <["x"=2, "y"=2, "z"=2], axis_types=[auto, explicit, explicit]>

// CHECK-LABEL: func.func @creation
// CHECK: tensor.empty() {spmd.out_sharding = #spmd.sharding<@mesh3, [{"y", "z"}, {}]>, spmd.sharding = #spmd.sharding_per_value<[<@mesh3, [{"y", "z"}, {}]>]>} : tensor<16x24xi32>
// PROP-LABEL: func.func @creation
// PROP: tensor.empty() {spmd.out_sharding = #spmd.sharding<@mesh3, [{"y", "z"}, {}]>, spmd.sharding = #spmd.sharding_per_value<[<@mesh3, [{"y", "z"}, {}]>]>} : tensor<16x24xi32>
// TYPES: remark: i32[16@(y,z),24]
func.func @creation() -> tensor<16x24xi32> {
  %0 = tensor.empty() {spmd.out_sharding = #spmd.sharding<@mesh3, [{"y", "z"}, {}]>} : tensor<16x24xi32>
  return %0 : tensor<16x24xi32>
}

// -----

// JAX's test_singleton_explicit_axis_multi_auto_axes: a size-1 Explicit
// axis is still part of the type.
spmd.mesh @mesh1 = <["x"=1, "y"=2], axis_types=[explicit, auto]>

// CHECK-LABEL: func.func @singleton_explicit
// CHECK: arith.constant {spmd.out_sharding = #spmd.sharding<@mesh1, [{"x"}, {}]>, spmd.sharding = #spmd.sharding_per_value<[<@mesh1, [{"x"}, {}]>]>} dense<1> : tensor<2x2xi32>
// TYPES: remark: i32[2@x,2]
func.func @singleton_explicit() -> tensor<2x2xi32> {
  %0 = arith.constant {spmd.out_sharding = #spmd.sharding<@mesh1, [{"x"}, {}]>} dense<1> : tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, auto]>

// An out_sharding with open dims is written as given too; propagation
// leaves that result alone and shards its users with the Auto "y".
// CHECK-LABEL: func.func @open_out_sharding
// CHECK: math.exp %arg0 {spmd.out_sharding = #spmd.sharding<@mesh, [{"x", ?}, {?}]>, spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x", ?}, {?}]>]>}
// PROP-LABEL: func.func @open_out_sharding
// PROP: math.exp %arg0 {spmd.out_sharding = #spmd.sharding<@mesh, [{"x", ?}, {?}]>, spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x", ?}, {?}]>]>}
// PROP: arith.mulf %{{.*}}, %arg1 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x", ?}, {"y", ?}]>]>}
// TYPES: remark: f32[8@x,4]
// TYPES: remark: f32[8@x,4]
func.func @open_out_sharding(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>},
                             %b: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<8x4xf32> {
  %0 = math.exp %a {spmd.out_sharding = #spmd.sharding<@mesh, [{"x", ?}, {?}]>} : tensor<8x4xf32>
  %1 = arith.mulf %0, %b : tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}
