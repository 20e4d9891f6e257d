// RUN: tessera-opt %s -split-input-file --spmd-propagate="strategy=basic op-priorities=false user-priorities=false" | FileCheck %s
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a multi-result op takes the operand's sharding on each result
// (linalg.generic with two outputs).
#id = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: func.func @multi_result(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>}, tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>})
// CHECK: %{{.*}} = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} : tensor<8x8xf32>
// CHECK: %{{.*}}:2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<8x8xf32>) outs(%{{.*}}, %{{.*}} : tensor<8x8xf32>, tensor<8x8xf32>) attrs =  {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>, <@mesh, [{"a", ?}, {"b", ?}]>]>} {
func.func @multi_result(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %e = tensor.empty() : tensor<8x8xf32>
  %0:2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8x8xf32>) outs(%e, %e : tensor<8x8xf32>, tensor<8x8xf32>) {
  ^bb0(%in: f32, %o0: f32, %o1: f32):
    %n = arith.negf %in : f32
    linalg.yield %in, %n : f32, f32
  } -> (tensor<8x8xf32>, tensor<8x8xf32>)
  return %0#0, %0#1 : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that results of a multi-result op agree and flow back into the
// operand.
#id = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: func.func @multi_result_backward(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c", ?}, {?}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c"}, {}]>}, tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c", ?}, {?}]>})
// CHECK: %{{.*}} = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"c", ?}, {?}]>]>} : tensor<8x8xf32>
// CHECK: %{{.*}}:2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<8x8xf32>) outs(%{{.*}}, %{{.*}} : tensor<8x8xf32>, tensor<8x8xf32>) attrs =  {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"c", ?}, {?}]>, <@mesh, [{"c", ?}, {?}]>]>} {
func.func @multi_result_backward(%arg0: tensor<8x8xf32>) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c"}, {}]>}, tensor<8x8xf32>) {
  %e = tensor.empty() : tensor<8x8xf32>
  %0:2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8x8xf32>) outs(%e, %e : tensor<8x8xf32>, tensor<8x8xf32>) {
  ^bb0(%in: f32, %o0: f32, %o1: f32):
    linalg.yield %in, %in : f32, f32
  } -> (tensor<8x8xf32>, tensor<8x8xf32>)
  return %0#0, %0#1 : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests batch_matmul: the batch factor is shared by all three tensors.
// CHECK-LABEL: func.func @batch_matmul(
// CHECK-SAME: %{{.*}}: tensor<4x8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}, {}]>}, %{{.*}}: tensor<4x16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {?}, {"c"}]>}) -> (tensor<4x8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}, {"c", ?}]>})
// CHECK: %{{.*}} = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}, {"c", ?}]>]>} : tensor<4x8x8xf32>
// CHECK: %{{.*}} = linalg.batch_matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}, {"c", ?}]>]>} ins(%{{.*}}, %{{.*}} : tensor<4x8x16xf32>, tensor<4x16x8xf32>) outs(%{{.*}} : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
func.func @batch_matmul(%arg0: tensor<4x8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}, {}]>}, %arg1: tensor<4x16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {?}, {"c"}]>}) -> tensor<4x8x8xf32> {
  %e = tensor.empty() : tensor<4x8x8xf32>
  %0 = linalg.batch_matmul ins(%arg0, %arg1 : tensor<4x8x16xf32>, tensor<4x16x8xf32>) outs(%e : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  return %0 : tensor<4x8x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests matvec: the rows flow to the result, the contracting dim to the
// vector.
// CHECK-LABEL: func.func @matvec(
// CHECK-SAME: %{{.*}}: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}, %{{.*}}: tensor<16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>})
// CHECK: %{{.*}} = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>} : tensor<8xf32>
// CHECK: %{{.*}} = linalg.matvec {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>} ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16xf32>) outs(%{{.*}} : tensor<8xf32>) -> tensor<8xf32>
func.func @matvec(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}, %arg1: tensor<16xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %0 = linalg.matvec ins(%arg0, %arg1 : tensor<8x16xf32>, tensor<16xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests a generic contraction with a transposed rhs: factors follow the
// indexing maps.
#lhs = affine_map<(i, j, k) -> (i, k)>
#rhs = affine_map<(i, j, k) -> (j, k)>
#out = affine_map<(i, j, k) -> (i, j)>
// CHECK-LABEL: func.func @generic_contraction_transposed(
// CHECK-SAME: %{{.*}}: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {}]>}, %{{.*}}: tensor<32x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}, {"c"}]>}) -> (tensor<8x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>})
// CHECK: %{{.*}} = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} : tensor<8x32xf32>
// CHECK: %{{.*}} = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<32x16xf32>) outs(%{{.*}} : tensor<8x32xf32>) attrs =  {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} {
func.func @generic_contraction_transposed(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {}]>}, %arg1: tensor<32x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}, {"c"}]>}) -> tensor<8x32xf32> {
  %e = tensor.empty() : tensor<8x32xf32>
  %0 = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<8x16xf32>, tensor<32x16xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests a generic with a broadcast operand (a constant-0 map result): the
// broadcast dim is not a factor of that operand.
#row = affine_map<(i, j) -> (0, j)>
#id = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: func.func @generic_broadcast_operand(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}, %{{.*}}: tensor<1x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"b", ?}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>})
// CHECK: %{{.*}} = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} : tensor<8x8xf32>
// CHECK: %{{.*}} = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<8x8xf32>, tensor<1x8xf32>) outs(%{{.*}} : tensor<8x8xf32>) attrs =  {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} {
func.func @generic_broadcast_operand(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}, %arg1: tensor<1x8xf32>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<8x8xf32>, tensor<1x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests concatenate: the non-concatenated dim propagates between all
// operands and the result; the concatenated dim (need_replication in
// Tessera's rule) still carries axes along, as in Shardy.
// CHECK-LABEL: func.func @concat(
// CHECK-SAME: %{{.*}}: tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}, %{{.*}}: tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>})
// CHECK: %{{.*}} = tensor.concat dim(0) %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
func.func @concat(%arg0: tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}, %arg1: tensor<4x8xf32>) -> tensor<8x8xf32> {
  %0 = tensor.concat dim(0) %arg0, %arg1 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests extract_slice: the unsliced dim propagates, the sliced dim is a
// permutation factor and propagates too (the partitioner pays for it).
// CHECK-LABEL: func.func @slice(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}) -> (tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>})
// CHECK: %{{.*}} = tensor.extract_slice %{{.*}}[2, 0] [4, 8] [1, 1] {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} : tensor<8x8xf32> to tensor<4x8xf32>
func.func @slice(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}) -> tensor<4x8xf32> {
  %0 = tensor.extract_slice %arg0[2, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests pad: the padded dim is a permutation factor.
// CHECK-LABEL: func.func @pad(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}) -> (tensor<12x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>})
// CHECK: } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} : tensor<8x8xf32> to tensor<12x8xf32>
func.func @pad(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}) -> tensor<12x8xf32> {
  %c = arith.constant 0.0 : f32
  %0 = tensor.pad %arg0 low[2, 0] high[2, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %c : f32
  } : tensor<8x8xf32> to tensor<12x8xf32>
  return %0 : tensor<12x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests insert_slice: the destination and result share all factors; the
// update only the unsliced ones.
// CHECK-LABEL: func.func @insert_slice(
// CHECK-SAME: %{{.*}}: tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"b", ?}]>}, %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {"b", ?}]>})
// CHECK: %{{.*}} = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [4, 8] [1, 1] {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}, {"b", ?}]>]>} : tensor<4x8xf32> into tensor<8x8xf32>
func.func @insert_slice(%arg0: tensor<4x8xf32>, %arg1: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}) -> tensor<8x8xf32> {
  %0 = tensor.insert_slice %arg0 into %arg1[0, 0] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests casts and comparisons as elementwise ops.
// CHECK-LABEL: func.func @casts_and_compare(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d"}]>}, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d", ?}]>}) -> (tensor<8xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"d", ?}]>}, tensor<8xi1> {spmd.sharding = #spmd.sharding<@mesh, [{"d", ?}]>})
// CHECK: %{{.*}} = arith.fptosi %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"d", ?}]>]>} : tensor<8xf32> to tensor<8xi32>
// CHECK: %{{.*}} = arith.cmpf olt, %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"d", ?}]>]>} : tensor<8xf32>
func.func @casts_and_compare(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"d"}]>}, %arg1: tensor<8xf32>) -> (tensor<8xi32>, tensor<8xi1>) {
  %0 = arith.fptosi %arg0 : tensor<8xf32> to tensor<8xi32>
  %1 = arith.cmpf olt, %arg0, %arg1 : tensor<8xf32>
  return %0, %1 : tensor<8xi32>, tensor<8xi1>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests select: the condition and both cases share every factor.
// CHECK-LABEL: func.func @select(
// CHECK-SAME: %{{.*}}: tensor<8xi1> {spmd.sharding = #spmd.sharding<@mesh, [{"c", ?}]>}, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c"}]>}, %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c", ?}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c", ?}]>})
// CHECK: %{{.*}} = arith.select %{{.*}}, %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"c", ?}]>]>} : tensor<8xi1>, tensor<8xf32>
func.func @select(%c: tensor<8xi1>, %arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"c"}]>}, %arg1: tensor<8xf32>) -> tensor<8xf32> {
  %0 = arith.select %c, %arg0, %arg1 : tensor<8xi1>, tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a dim sharded with two axes flows as one list, both ways.
// CHECK-LABEL: func.func @two_axes_one_dim(
// CHECK-SAME: %{{.*}}: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "d"}, {}]>}) -> (tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "d", ?}, {?}]>})
// CHECK: %{{.*}} = math.exp %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", "d", ?}, {?}]>]>} : tensor<16x8xf32>
// CHECK: %{{.*}} = math.log %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", "d", ?}, {?}]>]>} : tensor<16x8xf32>
func.func @two_axes_one_dim(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "d"}, {}]>}) -> tensor<16x8xf32> {
  %0 = math.exp %arg0 : tensor<16x8xf32>
  %1 = math.log %0 : tensor<16x8xf32>
  return %1 : tensor<16x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that an open dim that already has axes is extended by a longer
// compatible list, and that a shorter one leaves it alone.
// CHECK-LABEL: func.func @extend_open_dim(
// CHECK-SAME: %{{.*}}: tensor<16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}]>}, %{{.*}}: tensor<16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", ?}]>}) -> (tensor<16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", ?}]>})
// CHECK: %{{.*}} = arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", "b", ?}]>]>} : tensor<16xf32>
func.func @extend_open_dim(%arg0: tensor<16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}]>}, %arg1: tensor<16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}) -> tensor<16xf32> {
  %0 = arith.addf %arg0, %arg1 : tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a value's own sharding is kept when nothing is compatible with
// it ("a" vs "b" on one factor) and the other dims still propagate.
// CHECK-LABEL: func.func @conflict_on_one_dim_only(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"c"}]>}, %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}, {"c", ?}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"c", ?}]>})
// CHECK: %{{.*}} = arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{?}, {"c", ?}]>]>} : tensor<8x8xf32>
func.func @conflict_on_one_dim_only(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"c"}]>}, %arg1: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}, {?}]>}) -> tensor<8x8xf32> {
  %0 = arith.addf %arg0, %arg1 : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that a fill's value (a scalar) takes no part and its result follows
// its use.
// CHECK-LABEL: func.func @fill_follows_use(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}, {"c"}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b", ?}, {"c", ?}]>})
// CHECK: %{{.*}} = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}, {"c", ?}]>]>} : tensor<8x8xf32>
// CHECK: %{{.*}} = linalg.fill {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}, {"c", ?}]>]>} ins(%{{.*}} : f32) outs(%{{.*}} : tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK: %{{.*}} = arith.addf %{{.*}}, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"b", ?}, {"c", ?}]>]>} : tensor<8x8xf32>
func.func @fill_follows_use(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}, {"c"}]>}) -> tensor<8x8xf32> {
  %c = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%c : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %0 = arith.addf %arg0, %f : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=4]>

// Tests that an unreduced axis of a result does not reach its users but
// blocks them from taking it on that tensor only.
// CHECK-LABEL: func.func @unreduced_result(
// CHECK-SAME: %{{.*}}: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>})
// CHECK: %{{.*}} = arith.negf %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}], unreduced={"b"}>]>} : tensor<8xf32>
// CHECK: %{{.*}} = math.exp %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a", ?}]>]>} : tensor<8xf32>
func.func @unreduced_result(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>}) -> tensor<8xf32> {
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{?}], unreduced={"b"}>]>} : tensor<8xf32>
  %1 = math.exp %0 : tensor<8xf32>
  return %1 : tensor<8xf32>
}
