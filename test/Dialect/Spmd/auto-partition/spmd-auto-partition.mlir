// RUN: tessera-opt %s --split-input-file --spmd-auto-partition | FileCheck %s

// Tests that a forward MLP whose batch divides the whole mesh gets pure data
// parallelism over both axes: the batch on ("data", "model"), the weights
// replicated, no constraint (no collective). (Column- then row-parallel
// weights would need an all-reduce.)
spmd.mesh @mesh = <["data"=2, "model"=4]>
// CHECK-LABEL: func.func @data_parallel
// CHECK-SAME: %{{.*}}: tensor<64x128xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data", "model"}, {}]>}
// CHECK-SAME: %{{.*}}: tensor<128x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}
// CHECK-SAME: %{{.*}}: tensor<256x128xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}
// CHECK-SAME: -> (tensor<64x128xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data", "model"}, {}]>})
// CHECK-NOT: spmd.sharding_constraint
// CHECK: linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"data", "model"}, {}]>]>}
// CHECK: linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"data", "model"}, {}]>]>}
func.func @data_parallel(%x: tensor<64x128xf32>, %w0: tensor<128x256xf32>, %w1: tensor<256x128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %h = linalg.matmul ins(%x, %w0 : tensor<64x128xf32>, tensor<128x256xf32>) outs(%f : tensor<64x256xf32>) -> tensor<64x256xf32>
  %e1 = tensor.empty() : tensor<64x128xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %r = linalg.matmul ins(%h, %w1 : tensor<64x256xf32>, tensor<256x128xf32>) outs(%f1 : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}

// -----

// Tests that with a tiny batch the large weight is sharded instead: its
// output features over both axes (column-parallel), no communication, and
// each device keeps an eighth of the weight.
spmd.mesh @mesh = <["data"=2, "model"=4]>
// CHECK-LABEL: func.func @column_parallel
// CHECK-SAME: {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}
// CHECK-SAME: {spmd.sharding = #spmd.sharding<@mesh, [{}, {"data", "model"}]>}
// CHECK: linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"data", "model"}]>]>}
func.func @column_parallel(%x: tensor<2x512xf32>, %w: tensor<512x1024xf32>) -> tensor<2x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x1024xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x1024xf32>) -> tensor<2x1024xf32>
  %r = linalg.matmul ins(%x, %w : tensor<2x512xf32>, tensor<512x1024xf32>) outs(%f : tensor<2x1024xf32>) -> tensor<2x1024xf32>
  return %r : tensor<2x1024xf32>
}

// -----

// Tests that a dimension the whole axis does not divide takes a sub-axis:
// 6 rows over "model"=4 use "model":(1)2.
spmd.mesh @mesh = <["model"=4]>
// CHECK-LABEL: func.func @sub_axis
// CHECK-SAME: {spmd.sharding = #spmd.sharding<@mesh, [{"model":(1)2}, {}]>}
func.func @sub_axis(%x: tensor<6x3xf32>) -> tensor<6x3xf32> {
  %e = tensor.empty() : tensor<6x3xf32>
  %r = linalg.exp ins(%x : tensor<6x3xf32>) outs(%e : tensor<6x3xf32>) -> tensor<6x3xf32>
  return %r : tensor<6x3xf32>
}

// -----

// Tests that user annotations are constraints: the annotated argument and
// result keep their shardings, and the op between them is planned around
// them (it computes on a quarter of the data: the argument sliced further
// by an explicit constraint, the result gathered along "y" on return).
spmd.mesh @mesh = <["x"=2, "y"=2]>
// CHECK-LABEL: func.func @user_annotations
// CHECK-SAME: %[[X:.*]]: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>}
// CHECK-SAME: -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
// CHECK: %[[C:.*]] = spmd.sharding_constraint %[[X]] <@mesh, [{"x"}, {"y"}]>
// CHECK: linalg.exp {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>} ins(%[[C]]
func.func @user_annotations(%x: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>})
    -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %e = tensor.empty() : tensor<8x8xf32>
  %r = linalg.exp ins(%x : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

// Tests that an op whose operand comes in with another sharding than the
// one its strategy needs gets an spmd.sharding_constraint: the argument is
// moved once (all-to-all) so that the transpose gives the declared result
// sharding without a second reshard.
spmd.mesh @mesh = <["x"=4]>
// CHECK-LABEL: func.func @constraint
// CHECK-SAME: %[[X:[^:]*]]: tensor<16x4xf32>
// CHECK: %[[C:.*]] = spmd.sharding_constraint %[[X]] <@mesh, [{}, {"x"}]>
// CHECK: %[[E:.*]] = linalg.exp {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"x"}]>]>} ins(%[[C]]
// CHECK: linalg.transpose ins(%[[E]]
// CHECK-SAME: {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>}
func.func @constraint(%x: tensor<16x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<4x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %e = tensor.empty() : tensor<16x4xf32>
  %a = linalg.exp ins(%x : tensor<16x4xf32>) outs(%e : tensor<16x4xf32>) -> tensor<16x4xf32>
  %t0 = tensor.empty() : tensor<4x16xf32>
  %t = linalg.transpose ins(%a : tensor<16x4xf32>) outs(%t0 : tensor<4x16xf32>) permutation = [1, 0]
  return %t : tensor<4x16xf32>
}

// -----

// Tests that Explicit axes are left alone: only the Auto axis "y" is
// planned.
spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, auto]>
// CHECK-LABEL: func.func @explicit_axes_untouched
// CHECK-SAME: {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}
func.func @explicit_axes_untouched(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %r = linalg.exp ins(%x : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

// Tests that a module without a mesh is left alone.
// CHECK-LABEL: func.func @no_mesh
// CHECK-NOT: spmd.sharding
func.func @no_mesh(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  return %x : tensor<8x8xf32>
}

// -----

// Tests that a value a region uses (the table a gather-like linalg body
// reads with tensor.extract, not an operand) stays replicated: no decision
// sees that use, and sharding the table would make the body read local
// rows at global indices. The batch input is still sharded.
spmd.mesh @mesh = <["data"=2, "model"=4]>
// CHECK-LABEL: func.func @captured
// CHECK-SAME: %arg0: tensor<64x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}
// CHECK-SAME: %arg1: tensor<32x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data", "model"}, {}]>}
func.func @captured(%table: tensor<64x16xf32>, %x: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %e = tensor.empty() : tensor<32x16xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(b, c) -> (b, c)>, affine_map<(b, c) -> (b, c)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<32x16xf32>) outs(%e : tensor<32x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %b = linalg.index 0 : index
    %c = linalg.index 1 : index
    %row = tensor.extract %table[%b, %c] : tensor<64x16xf32>
    %s = arith.addf %row, %in : f32
    linalg.yield %s : f32
  } -> tensor<32x16xf32>
  return %g : tensor<32x16xf32>
}
