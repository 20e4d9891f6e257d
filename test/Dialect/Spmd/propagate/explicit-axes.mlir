// RUN: tessera-opt %s -split-input-file --spmd-propagate | FileCheck %s
spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, auto]>

// Tests that propagation moves Auto axes only: "y" reaches the result,
// the Explicit "x" does not (explicit inference owns it).
// CHECK-LABEL: func.func @explicit_axis_not_propagated(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"y", ?}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{?}, {"y", ?}]>]>} : tensor<8x8xf32>
func.func @explicit_axis_not_propagated(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<8x8xf32> {
  %0 = arith.negf %arg0 : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, auto]>

// Tests that an Auto axis minor to an Explicit one in the same dim does not
// move either (it would need the Explicit axis first).
// CHECK-LABEL: func.func @auto_after_explicit(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}]>}) -> tensor<8xf32>
func.func @auto_after_explicit(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}]>}) -> tensor<8xf32> {
  %0 = arith.negf %arg0 : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, auto]>

// Tests that an existing Explicit sharding on a result is kept and the Auto
// axis is added to its other dim.
// CHECK-LABEL: func.func @explicit_kept_auto_added(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"y", ?}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y", ?}]>]>} : tensor<8x8xf32>
func.func @explicit_kept_auto_added(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>}) -> tensor<8x8xf32> {
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {?}]>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

// Tests that inside spmd.auto_axes the named axes are Auto and propagate
// from a constraint in the body.
// CHECK-LABEL: func.func @inside_auto_axes(
// CHECK-SAME: %{{.*}}: tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK: %{{.*}} = spmd.auto_axes(%{{.*}}) axes={"x"} out_shardings=[<@mesh, [{"x"}, {}]>] (%{{.*}}: tensor<8x4xf32>) {
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x", ?}, {?}]>]>} : tensor<8x4xf32>
// CHECK: %{{.*}} = spmd.sharding_constraint %{{.*}} <@mesh, [{"x", ?}, {?}]> : tensor<8x4xf32>
// CHECK: %{{.*}} = math.exp %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x", ?}, {?}]>]>} : tensor<8x4xf32>
func.func @inside_auto_axes(%arg0: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = spmd.auto_axes(%arg0) axes={"x"} out_shardings=[<@mesh, [{"x"}, {}]>] (%arg1: tensor<8x4xf32>) {
    %1 = arith.negf %arg1 : tensor<8x4xf32>
    %2 = spmd.sharding_constraint %1 <@mesh, [{"x", ?}, {?}]> : tensor<8x4xf32>
    %3 = math.exp %2 : tensor<8x4xf32>
    spmd.return %3 : tensor<8x4xf32>
  } : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
