// RUN: tessera-opt %s -split-input-file --spmd-propagate | FileCheck %s
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that an out_sharding enters the body and reaches the users of the
// manual computation (no manual axes).
// CHECK-LABEL: func.func @out_sharding_enters_body(
// CHECK-SAME: %{{.*}}: tensor<32x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {?}]>}) -> (tensor<32x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {?}]>})
// CHECK: %{{.*}} = spmd.manual_computation(%{{.*}}) in_shardings=[<@mesh, [{"a", ?}, {?}]>] out_shardings=[<@mesh, [{"a", ?}, {?}]>] manual_axes={} (%{{.*}}: tensor<32x32xf32>) {
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {?}]>]>} : tensor<32x32xf32>
// CHECK: %{{.*}} = arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {?}]>]>} : tensor<32x32xf32>
func.func @out_sharding_enters_body(%arg0: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{?}, {?}]>] out_shardings=[<@mesh, [{"a", ?}, {?}]>] manual_axes={} (%arg1: tensor<32x32xf32>) {
    %1 = arith.negf %arg1 : tensor<32x32xf32>
    %2 = arith.addf %1, %1 : tensor<32x32xf32>
    spmd.return %2 : tensor<32x32xf32>
  } : (tensor<32x32xf32>) -> tensor<32x32xf32>
  return %0 : tensor<32x32xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a sharding inside the body leaves it forward to out_shardings
// and backward to in_shardings and the operand.
// CHECK-LABEL: func.func @body_sharding_exits(
// CHECK-SAME: %{{.*}}: tensor<32x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}, {?}]>}) -> (tensor<32x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}, {?}]>})
// CHECK: %{{.*}} = spmd.manual_computation(%{{.*}}) in_shardings=[<@mesh, [{"b", ?}, {?}]>] out_shardings=[<@mesh, [{"b", ?}, {?}]>] manual_axes={} (%{{.*}}: tensor<32x32xf32>) {
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b"}, {}]>]>} : tensor<32x32xf32>
func.func @body_sharding_exits(%arg0: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{?}, {?}]>] out_shardings=[<@mesh, [{?}, {?}]>] manual_axes={} (%arg1: tensor<32x32xf32>) {
    %1 = arith.negf %arg1 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b"}, {}]>]>} : tensor<32x32xf32>
    spmd.return %1 : tensor<32x32xf32>
  } : (tensor<32x32xf32>) -> tensor<32x32xf32>
  return %0 : tensor<32x32xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that only free axes propagate inside the body: the manual axis "a"
// stays out, the free axis "b" of the in_sharding reaches the body ops (in
// the local view) and the out_sharding keeps "a" major.
// CHECK-LABEL: func.func @free_axes_only(
// CHECK-SAME: %{{.*}}: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}, {}]>}) -> (tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", ?}, {?}]>})
// CHECK: %{{.*}} = spmd.manual_computation(%{{.*}}) in_shardings=[<@mesh, [{"a", "b", ?}, {?}]>] out_shardings=[<@mesh, [{"a", "b", ?}, {?}]>] manual_axes={"a"} (%{{.*}}: tensor<8x8xf32>) {
// CHECK: %{{.*}} = math.exp %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}, {?}]>]>} : tensor<8x8xf32>
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", "b", ?}, {?}]>]>} : tensor<16x8xf32>
func.func @free_axes_only(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}, {}]>}) -> tensor<16x8xf32> {
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{"a", "b", ?}, {?}]>] out_shardings=[<@mesh, [{"a", ?}, {?}]>] manual_axes={"a"} (%arg1: tensor<8x8xf32>) {
    %1 = math.exp %arg1 : tensor<8x8xf32>
    spmd.return %1 : tensor<8x8xf32>
  } : (tensor<16x8xf32>) -> tensor<16x8xf32>
  %2 = arith.negf %0 : tensor<16x8xf32>
  return %2 : tensor<16x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that an operand's sharding reaches an open in_sharding.
// CHECK-LABEL: func.func @operand_to_in_sharding(
// CHECK-SAME: %{{.*}}: tensor<16x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c"}, {"d"}]>}) -> (tensor<16x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c", ?}, {"d", ?}]>})
// CHECK: %{{.*}} = spmd.manual_computation(%{{.*}}) in_shardings=[<@mesh, [{"c", ?}, {"d", ?}]>] out_shardings=[<@mesh, [{"c", ?}, {"d", ?}]>] manual_axes={} (%{{.*}}: tensor<16x16xf32>) {
func.func @operand_to_in_sharding(%arg0: tensor<16x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c"}, {"d"}]>}) -> tensor<16x16xf32> {
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{?}, {?}]>] out_shardings=[<@mesh, [{?}, {?}]>] manual_axes={} (%arg1: tensor<16x16xf32>) {
    spmd.return %arg1 : tensor<16x16xf32>
  } : (tensor<16x16xf32>) -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a free axis found inside the body leaves it backward: the
// in_sharding appends it after the manual axis, and the operand (outside,
// where "b" is an ordinary axis) takes the whole global sharding.
// CHECK-LABEL: func.func @free_axis_from_inside_to_operand(
// CHECK-SAME: %{{.*}}: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", "c", ?}, {?}]>}) -> (tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", "c", ?}, {?}]>})
// CHECK: %{{.*}} = spmd.manual_computation(%{{.*}}) in_shardings=[<@mesh, [{"b", "c", ?}, {?}]>] out_shardings=[<@mesh, [{"b", "c", ?}, {?}]>] manual_axes={"b"} (%{{.*}}: tensor<8x8xf32>) {
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"c", ?}, {?}]>]>} : tensor<8x8xf32>
func.func @free_axis_from_inside_to_operand(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{"b", ?}, {?}]>] out_shardings=[<@mesh, [{"b", ?}, {?}]>] manual_axes={"b"} (%arg1: tensor<8x8xf32>) {
    %1 = arith.negf %arg1 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"c", ?}, {?}]>]>} : tensor<8x8xf32>
    spmd.return %1 : tensor<8x8xf32>
  } : (tensor<16x8xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that an operand's sharding that extends the in_sharding past its
// manual axis reaches the body in the local view.
// CHECK-LABEL: func.func @free_axis_from_operand_into_body(
// CHECK-SAME: %{{.*}}: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", "c", ?}, {?}]>}) -> (tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}, {?}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", "c", ?}, {?}]>]>} : tensor<16x8xf32>
// CHECK: %{{.*}} = spmd.manual_computation(%{{.*}}) in_shardings=[<@mesh, [{"b", "c", ?}, {?}]>] out_shardings=[<@mesh, [{"b"}, {}]>] manual_axes={"b"} (%{{.*}}: tensor<8x8xf32>) {
// CHECK: %{{.*}} = math.exp %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"c", ?}, {?}]>]>} : tensor<8x8xf32>
func.func @free_axis_from_operand_into_body(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", "c", ?}, {?}]>]>} : tensor<16x8xf32>
  %1 = spmd.manual_computation(%0) in_shardings=[<@mesh, [{"b", ?}, {?}]>] out_shardings=[<@mesh, [{"b"}, {}]>] manual_axes={"b"} (%arg1: tensor<8x8xf32>) {
    %2 = math.exp %arg1 : tensor<8x8xf32>
    spmd.return %2 : tensor<8x8xf32>
  } : (tensor<16x8xf32>) -> tensor<16x8xf32>
  return %1 : tensor<16x8xf32>
}
