// RUN: tessera-opt %s --spmd-insert-reshards | FileCheck %s

spmd.mesh @mesh = <["x"=2, "y"=4]>

// Operands that already agree are left alone.
// CHECK-LABEL: func @consistent
func.func @consistent(
    %a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>},
    %b: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>})
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) {
  // CHECK-NOT: spmd.reshard
  // CHECK: arith.addf %arg0, %arg1 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>}
  %0 = arith.addf %a, %b {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>} : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// Two factors want the same axis: the one with more data behind it (the
// operand and the declared result) gets it; the other operand is resharded
// (an all-to-all).
// CHECK-LABEL: func @axis_conflict
func.func @axis_conflict(
    %a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>},
    %b: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>})
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}) {
  // CHECK: %[[R:.*]] = spmd.reshard %arg1 <@mesh, [{"y"}, {}]>
  // CHECK: arith.addf %arg0, %[[R]] {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"y"}, {}]>]>}
  // CHECK-NOT: spmd.reshard
  %0 = arith.addf %a, %b {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"y"}, {}]>]>} : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// Factors that want different axes both get theirs: the operands are
// sliced (no communication) and the result gathered back.
// CHECK-LABEL: func @both_factors
func.func @both_factors(
    %a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
    %b: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>})
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  // CHECK: %[[A:.*]] = spmd.reshard %arg0 <@mesh, [{"x"}, {"y"}]>
  // CHECK: %[[B:.*]] = spmd.reshard %arg1 <@mesh, [{"x"}, {"y"}]>
  // CHECK: %[[S:.*]] = arith.addf %[[A]], %[[B]]
  // CHECK: spmd.reshard %[[S]] <@mesh, [{"x"}, {}]>
  %0 = arith.addf %a, %b : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// A sharded contracting dimension: the op's values are partial sums over
// it (its sharding does not list "y"), the destination is added once, and
// an all-reduce over "y" follows, as in Shardy. The destination is zeros,
// which are their own unreduced form: the fill is made unreduced in place.
// CHECK-LABEL: func @contracting
func.func @contracting(
    %a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>},
    %b: tensor<16x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>})
    -> (tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : tensor<8x4xf32>
  %f = linalg.fill {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} ins(%z : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  // CHECK: %[[F:.*]] = linalg.fill {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}], unreduced={"y"}>]>}
  // CHECK-NOT: spmd.reshard
  // CHECK: %[[M:.*]] = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} ins(%arg0, %arg1 : {{.*}}) outs(%[[F]] : {{.*}})
  // CHECK-NEXT: %[[R:.*]] = spmd.all_reduce {"y"} %[[M]] out_sharding=<@mesh, [{"x"}, {}]>
  // CHECK-NEXT: return %[[R]]
  %m = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%f : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %m : tensor<8x4xf32>
}

// A destination that is not zeros is added once: it is resharded to
// unreduced (kept on one device of each "y" group). So is a zero fill that
// has another use, which must stay a plain replicated value.
// CHECK-LABEL: func @contracting_destinations
func.func @contracting_destinations(
    %a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>},
    %b: tensor<16x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>})
    -> (tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
        tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
        tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %one = arith.constant 1.0 : f32
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : tensor<8x4xf32>
  %ones = linalg.fill {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} ins(%one : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %zeros = linalg.fill {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} ins(%z : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  // CHECK: %[[ONES:.*]] = linalg.fill {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>}
  // CHECK: %[[ZEROS:.*]] = linalg.fill {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>}
  // CHECK: %[[U1:.*]] = spmd.reshard %[[ONES]] <@mesh, [{"x"}, {}], unreduced={"y"}>
  // CHECK: linalg.matmul {{.*}} outs(%[[U1]] :
  // CHECK: %[[U2:.*]] = spmd.reshard %[[ZEROS]] <@mesh, [{"x"}, {}], unreduced={"y"}>
  // CHECK: linalg.matmul {{.*}} outs(%[[U2]] :
  // CHECK: return {{.*}}, {{.*}}, %[[ZEROS]]
  %m1 = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%ones : tensor<8x4xf32>) -> tensor<8x4xf32>
  %m2 = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%zeros : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %m1, %m2, %zeros : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
}

// A zero splat constant made in another layout is made again, unreduced.
// CHECK-LABEL: func @contracting_zero_constant
func.func @contracting_zero_constant(
    %a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>},
    %b: tensor<16x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>})
    -> (tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %zeros = arith.constant {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>} dense<0.0> : tensor<8x4xf32>
  // CHECK: %[[Z:.*]] = arith.constant {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}], unreduced={"y"}>]>} dense<0.000000e+00>
  // CHECK-NOT: spmd.reshard
  // CHECK: linalg.matmul {{.*}} outs(%[[Z]] :
  %m = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%zeros : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %m : tensor<8x4xf32>
}

// The declared result is sharded along the axis the contraction reduces
// over: all-reduce, then a reshard (a reduce-scatter once lowered).
// CHECK-LABEL: func @contracting_then_scatter
func.func @contracting_then_scatter(
    %a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>},
    %b: tensor<16x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>},
    %c: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) {
  // CHECK: %[[M:.*]] = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>}
  // CHECK-NEXT: %[[R:.*]] = spmd.all_reduce {"y"} %[[M]] out_sharding=<@mesh, [{"x"}, {}]>
  // CHECK-NEXT: %[[S:.*]] = spmd.reshard %[[R]] <@mesh, [{"x"}, {"y"}]>
  // CHECK-NEXT: return %[[S]]
  %m = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>} ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %m : tensor<8x4xf32>
}

// Only the axes the declared result leaves unreduced stay unreduced; the
// others are all-reduced.
// CHECK-LABEL: func @partly_declared_unreduced
func.func @partly_declared_unreduced(
    %a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x", "y"}]>},
    %b: tensor<16x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>},
    %c: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}], unreduced={"x", "y"}>})
    -> (tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}], unreduced={"y"}>}) {
  // CHECK: %[[M:.*]] = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}], unreduced={"y"}>]>}
  // CHECK-NEXT: %[[R:.*]] = spmd.all_reduce {"x"} %[[M]] out_sharding=<@mesh, [{}, {}], unreduced={"y"}>
  // CHECK-NEXT: return %[[R]]
  %m = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}], unreduced={"y"}>]>} ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %m : tensor<8x4xf32>
}

// A result declared unreduced keeps the partial sums: no reshard after it.
// CHECK-LABEL: func @declared_unreduced
func.func @declared_unreduced(
    %a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>},
    %b: tensor<16x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>},
    %c: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}], unreduced={"y"}>})
    -> (tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}], unreduced={"y"}>}) {
  // CHECK: %[[M:.*]] = linalg.matmul {{.*}}unreduced={"y"}{{.*}} ins(%arg0, %arg1 {{.*}} outs(%arg2
  // CHECK-NEXT: return %[[M]]
  %m = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}], unreduced={"y"}>]>} ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %m : tensor<8x4xf32>
}

// A max reduction over a sharded dimension: a max all-reduce follows, and
// the destination stays replicated (max is idempotent).
// CHECK-LABEL: func @max_reduction
func.func @max_reduction(
    %a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>},
    %init: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>})
    -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) {
  // CHECK: %[[R:.*]] = linalg.reduce {{.*}} outs(%arg1 : tensor<8xf32>) {{.*}}spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}]>]>
  // CHECK: spmd.all_reduce max {"y"} %[[R]] out_sharding=<@mesh, [{"x"}]>
  // CHECK-NOT: spmd.reshard
  %r = linalg.reduce ins(%a : tensor<8x16xf32>) outs(%init : tensor<8xf32>) dimensions = [1]
    (%v: f32, %acc: f32) {
      %m = arith.maximumf %v, %acc : f32
      linalg.yield %m : f32
    }
  return %r : tensor<8xf32>
}

// A reduction whose combiner has no collective (a product) stays
// unsharded: its operand is gathered first.
// CHECK-LABEL: func @product_reduction
func.func @product_reduction(
    %a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>},
    %init: tensor<8xf32>) -> tensor<8xf32> {
  // CHECK: %[[G:.*]] = spmd.reshard %arg0 <@mesh, [{}, {}]>
  // CHECK: linalg.reduce ins(%[[G]]
  %r = linalg.reduce ins(%a : tensor<8x16xf32>) outs(%init : tensor<8xf32>) dimensions = [1]
    (%v: f32, %acc: f32) {
      %m = arith.mulf %v, %acc : f32
      linalg.yield %m : f32
    }
  return %r : tensor<8xf32>
}

// A sliced dimension (a permutation factor) must be whole.
// CHECK-LABEL: func @slice
func.func @slice(
    %a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>})
    -> tensor<8x8xf32> {
  // CHECK: %[[R:.*]] = spmd.reshard %arg0 <@mesh, [{"x"}, {}]>
  // CHECK: tensor.extract_slice %[[R]][0, 4] [8, 8] [1, 1]
  %s = tensor.extract_slice %a[0, 4] [8, 8] [1, 1] : tensor<8x16xf32> to tensor<8x8xf32>
  return %s : tensor<8x8xf32>
}

// Axes that do not divide a factor shard it with padding (each device's
// block padded at the end) where the op computes right on padded blocks:
// elementwise ops, and linalg ops (whose reductions spmd-partition cuts to
// the valid part).
// CHECK-LABEL: func @non_divisible
func.func @non_divisible(
    %a: tensor<6x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>})
    -> tensor<6x16xf32> {
  // CHECK-NOT: spmd.reshard %arg0
  // CHECK: %[[E:.*]] = math.exp %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"y"}, {}]>]>}
  // CHECK: spmd.reshard %[[E]] <@mesh, [{}, {}]>
  %0 = math.exp %a : tensor<6x16xf32>
  return %0 : tensor<6x16xf32>
}

// A contraction over a padded dimension stays sharded: partial over its
// axes, all-reduced after.
// CHECK-LABEL: func @non_divisible_matmul
func.func @non_divisible_matmul(
    %a: tensor<6x10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>},
    %b: tensor<10x7xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>})
    -> (tensor<6x7xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  // CHECK-NOT: spmd.reshard %arg
  // CHECK: %[[M:.*]] = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} ins(%arg0, %arg1
  // CHECK-NEXT: spmd.all_reduce {"y"} %[[M]] out_sharding=<@mesh, [{"x"}, {}]>
  %e = tensor.empty() : tensor<6x7xf32>
  %z = arith.constant 0.0 : f32
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<6x7xf32>) -> tensor<6x7xf32>
  %c = linalg.matmul ins(%a, %b : tensor<6x10xf32>, tensor<10x7xf32>) outs(%i : tensor<6x7xf32>) -> tensor<6x7xf32>
  return %c : tensor<6x7xf32>
}

// Integer division by a tensor that could hold zeros could trap on the
// padding: the largest part of "y" that divides the rows (as Shardy cuts an
// axis).
// CHECK-LABEL: func @non_divisible_division
func.func @non_divisible_division(
    %a: tensor<6x16xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>},
    %d: tensor<6x16xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>})
    -> tensor<6x16xi32> {
  // CHECK-DAG: %[[R:.*]] = spmd.reshard %arg0 <@mesh, [{"y":(1)2}, {}]>
  // CHECK-DAG: %[[D:.*]] = spmd.reshard %arg1 <@mesh, [{"y":(1)2}, {}]>
  // CHECK: arith.divsi %[[R]], %[[D]] {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"y":(1)2}, {}]>]>}
  %0 = arith.divsi %a, %d : tensor<6x16xi32>
  return %0 : tensor<6x16xi32>
}

// Division by a constant that is neither 0 nor -1 cannot trap (the op is
// speculatable): the padded layout stays.
// CHECK-LABEL: func @non_divisible_division_by_constant
func.func @non_divisible_division_by_constant(
    %a: tensor<6x16xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>})
    -> tensor<6x16xi32> {
  // CHECK-NOT: spmd.reshard %arg0
  // CHECK: arith.divsi %arg0, %{{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"y"}, {}]>]>}
  %c = arith.constant dense<3> : tensor<6x16xi32>
  %0 = arith.divsi %a, %c : tensor<6x16xi32>
  return %0 : tensor<6x16xi32>
}

// A dimension made of several factors has one padded layout, not one per
// factor: the factors of a reshape stay divisible (the rows take the part
// of "y" that divides them).
// CHECK-LABEL: func @non_divisible_reshape
func.func @non_divisible_reshape(
    %a: tensor<6x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>})
    -> tensor<96xf32> {
  // CHECK: %[[R:.*]] = spmd.reshard %arg0 <@mesh, [{"y":(1)2}, {}]>
  // CHECK: tensor.collapse_shape %[[R]] {{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"y":(1)2}]>]>}
  %0 = tensor.collapse_shape %a [[0, 1]] : tensor<6x16xf32> into tensor<96xf32>
  return %0 : tensor<96xf32>
}

// A reshape that only adds a unit dimension keeps the padded factor.
// CHECK-LABEL: func @non_divisible_expand
func.func @non_divisible_expand(
    %a: tensor<6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}]>})
    -> tensor<6x1xf32> {
  // CHECK-NOT: spmd.reshard %arg0
  // CHECK: tensor.expand_shape %arg0 {{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"y"}, {}]>]>}
  %0 = tensor.expand_shape %a [[0, 1]] output_shape [6, 1] : tensor<6xf32> into tensor<6x1xf32>
  return %0 : tensor<6x1xf32>
}

// Unit dimensions are never padded: a reshape of them gives each its own
// factor, which would drop the operand's.
// CHECK-LABEL: func @unit_dims
func.func @unit_dims(
    %a: tensor<1x1xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>})
    -> tensor<1x1x1xf32> {
  // CHECK: %[[R:.*]] = spmd.reshard %arg0 <@mesh, [{}, {}]>
  // CHECK: math.exp %[[R]]
  %0 = math.exp %a : tensor<1x1xf32>
  %1 = tensor.expand_shape %0 [[0, 1], [2]] output_shape [1, 1, 1] : tensor<1x1xf32> into tensor<1x1x1xf32>
  return %1 : tensor<1x1x1xf32>
}

// A sharding constraint becomes a reshard; a barrier and a group go.
// CHECK-LABEL: func @constraint
func.func @constraint(
    %a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>}) {
  // CHECK-NOT: spmd.sharding_constraint
  // CHECK-NOT: spmd.sharding_group
  // CHECK-NOT: spmd.propagation_barrier
  // CHECK: %[[R:.*]] = spmd.reshard %arg0 <@mesh, [{}, {"y"}]>
  // CHECK: return %[[R]]
  spmd.sharding_group %a group_id=0 : tensor<8x16xf32>
  %b = spmd.propagation_barrier %a allowed_direction=NONE : tensor<8x16xf32>
  %0 = spmd.sharding_constraint %b <@mesh, [{}, {"y"}]> : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// Ops without a sharding rule compute on replicated values.
// CHECK-LABEL: func @no_rule
func.func @no_rule(
    %a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
    -> f32 {
  %c = arith.constant 1 : index
  // CHECK: %[[R:.*]] = spmd.reshard %arg0 <@mesh, [{}, {}]>
  // CHECK: tensor.extract %[[R]]
  %0 = tensor.extract %a[%c, %c] : tensor<8x16xf32>
  return %0 : f32
}

// Loops: the init and the yielded value take the loop's sharding.
// CHECK-LABEL: func @loop
func.func @loop(
    %a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
    -> tensor<8x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // CHECK: %[[I:.*]] = spmd.reshard %arg0 <@mesh, [{}, {"y"}]>
  // CHECK: scf.for {{.*}} iter_args(%[[ARG:.*]] = %[[I]])
  // CHECK: %[[E:.*]] = math.exp %[[ARG]]
  // CHECK: scf.yield %[[E]]
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%t = %a) -> tensor<8x16xf32> {
    %e = math.exp %t {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"y"}]>]>} : tensor<8x16xf32>
    scf.yield %e : tensor<8x16xf32>
  } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"y"}]>]>}
  return %r : tensor<8x16xf32>
}

// Manual computations get their operands as in_shardings say.
// CHECK-LABEL: func @manual
func.func @manual(
    %a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>})
    -> tensor<8x16xf32> {
  // CHECK: %[[R:.*]] = spmd.reshard %arg0 <@mesh, [{"x"}, {}]>
  // CHECK: spmd.manual_computation(%[[R]])
  %0 = spmd.manual_computation(%a) in_shardings=[<@mesh, [{"x"}, {}]>]
      out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x", "y"}
      (%l: tensor<4x16xf32>) {
    %n = arith.negf %l : tensor<4x16xf32>
    spmd.return %n : tensor<4x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// A created tensor (a fill of an empty tensor) in the wrong layout is
// created again in the right one instead of being moved.
// CHECK-LABEL: func @recreate
func.func @recreate(
    %a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>})
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"y"}, {}]>]>} : tensor<8x16xf32>
  %f = linalg.fill {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"y"}, {}]>]>} ins(%z : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: %[[E:.*]] = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"y"}]>]>}
  // CHECK: %[[F:.*]] = linalg.fill {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"y"}]>]>} ins(%{{.*}} : f32) outs(%[[E]]
  // CHECK-NOT: spmd.reshard
  // CHECK: arith.addf %arg0, %[[F]]
  %0 = arith.addf %a, %f {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"y"}]>]>} : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// scf.while: the condition's forwarded values take the results' sharding,
// and so do the inits and the after block's yielded values (the before
// block's arguments share it).
// CHECK-LABEL: func @while_loop
// CHECK: scf.while (%[[T:.*]] = %arg0)
// CHECK: scf.condition(%{{.*}}) %[[T]]
// CHECK: arith.addf
// CHECK: %[[R:.*]] = spmd.reshard %{{.*}} <@mesh, [{}, {"y"}]>
// CHECK: %[[Y:.*]] = spmd.reshard %[[R]] <@mesh, [{"x"}, {}]>
// CHECK: scf.yield %[[Y]]
// CHECK: } attributes {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>}
func.func @while_loop(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
                      %b: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>}) -> tensor<8x16xf32> {
  %c = arith.constant true
  %0 = scf.while (%t = %a) : (tensor<8x16xf32>) -> tensor<8x16xf32> {
    scf.condition(%c) %t : tensor<8x16xf32>
  } do {
  ^bb0(%t: tensor<8x16xf32>):
    %s = arith.addf %t, %b {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"y"}]>]>} : tensor<8x16xf32>
    scf.yield %s : tensor<8x16xf32>
  } attributes {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>}
  return %0 : tensor<8x16xf32>
}

// A while whose before block carries another type than the results: its
// tensor arguments stay replicated.
// CHECK-LABEL: func @while_other_types
// CHECK: %[[I:.*]] = spmd.reshard %arg0 <@mesh, [{}, {}]>
// CHECK: scf.while (%{{.*}} = %[[I]])
func.func @while_other_types(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8xf32> {
  %c = arith.constant true
  %0 = scf.while (%t = %a) : (tensor<8x16xf32>) -> tensor<8xf32> {
    %s = tensor.extract_slice %t[0, 0] [8, 1] [1, 1] : tensor<8x16xf32> to tensor<8xf32>
    scf.condition(%c) %s : tensor<8xf32>
  } do {
  ^bb0(%v: tensor<8xf32>):
    %e = tensor.empty() : tensor<8x16xf32>
    %b = linalg.broadcast ins(%v : tensor<8xf32>) outs(%e : tensor<8x16xf32>) dimensions = [1]
    scf.yield %b : tensor<8x16xf32>
  }
  return %0 : tensor<8xf32>
}

// scf.index_switch: every case yields the result's sharding.
// CHECK-LABEL: func @switch
// CHECK: case 0 {
// CHECK-NEXT: scf.yield %arg1
// CHECK: default {
// CHECK-NEXT: %[[R:.*]] = spmd.reshard %arg2 <@mesh, [{"x"}, {}]>
// CHECK-NEXT: scf.yield %[[R]]
func.func @switch(%i: index, %a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
                  %b: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>}) -> tensor<8x16xf32> {
  %0 = scf.index_switch %i {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} -> tensor<8x16xf32>
  case 0 {
    scf.yield %a : tensor<8x16xf32>
  }
  default {
    scf.yield %b : tensor<8x16xf32>
  }
  return %0 : tensor<8x16xf32>
}

spmd.mesh @emesh = <["x"=2, "y"=4], axis_types=[explicit, explicit]>

// spmd.auto_axes is inlined: its body's ops keep the shardings
// propagation gave them, and each result is resharded to its
// out_shardings (then to the unannotated function result's replicated
// sharding).
// CHECK-LABEL: func @auto_axes
// CHECK-NOT: spmd.auto_axes
// CHECK: %[[N:.*]] = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@emesh, [{"x"}, {"y"}]>]>}
// CHECK: %[[R:.*]] = spmd.reshard %[[N]] <@emesh, [{"x"}, {}]>
// CHECK: spmd.reshard %[[R]] <@emesh, [{}, {}]>
func.func @auto_axes(%x: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@emesh, [{"x"}, {"y"}]>}) -> tensor<8x16xf32> {
  %r = spmd.auto_axes(%x) axes={"x"} out_shardings=[<@emesh, [{"x"}, {}]>] (%arg: tensor<8x16xf32>) {
    %0 = arith.negf %arg {spmd.sharding = #spmd.sharding_per_value<[<@emesh, [{"x"}, {"y"}]>]>} : tensor<8x16xf32>
    spmd.return %0 : tensor<8x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// spmd.explicit_axes is inlined: each operand is resharded to its
// in_shardings; the result leaves with the body's sharding.
// CHECK-LABEL: func @explicit_axes
// CHECK-NOT: spmd.explicit_axes
// CHECK: %[[I:.*]] = spmd.reshard %arg0 <@mesh, [{}, {"y"}]>
// CHECK: %[[N:.*]] = arith.negf %[[I]] {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"y"}]>]>}
// CHECK: return %[[N]]
func.func @explicit_axes(%x: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>}) {
  %r = spmd.explicit_axes(%x) axes={"x", "y"} in_shardings=[<@mesh, [{}, {"y"}]>] (%arg: tensor<8x16xf32>) {
    %0 = arith.negf %arg {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"y"}]>]>} : tensor<8x16xf32>
    spmd.return %0 : tensor<8x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// An operand on a mesh with the same axes in another device order is
// resharded to the op's mesh (the results').
spmd.mesh @reversed = <["x"=2, "y"=4], device_ids=[7, 6, 5, 4, 3, 2, 1, 0]>

// CHECK-LABEL: func @device_order
// CHECK: %[[R:.*]] = spmd.reshard %arg0 <@reversed, [{"x"}, {}]>
// CHECK: arith.negf %[[R]] {spmd.sharding = #spmd.sharding_per_value<[<@reversed, [{"x"}, {}]>]>}
func.func @device_order(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@reversed, [{"x"}, {}]>}) {
  %0 = arith.negf %a {spmd.sharding = #spmd.sharding_per_value<[<@reversed, [{"x"}, {}]>]>} : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// A replicated value returned as replicated on a mesh of the same number
// of devices (here with other axes): every device already holds it, no
// reshard. Sharded, it is resharded onto the result's mesh.
spmd.mesh @xt = <["x"=2, "t"=4]>

// CHECK-LABEL: func @replicated_other_mesh
func.func @replicated_other_mesh(
    %a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>},
    %b: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@xt, [{}, {}]>},
        tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@xt, [{"x"}, {}]>}) {
  // CHECK-NEXT: %[[B:.*]] = spmd.reshard %arg1 <@xt, [{"x"}, {}]>
  // CHECK-NEXT: return %arg0, %[[B]]
  return %a, %b : tensor<8x16xf32>, tensor<8x16xf32>
}

// Returns and calls with non-tensor values before the tensors: every tensor
// operand and result is still resharded to what is declared.
// CHECK-LABEL: func @mixed_return
func.func @mixed_return(
    %a: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
    %s: f32)
    -> (f32, tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) {
  // CHECK: %[[R:.*]] = spmd.reshard %arg0 <@mesh, [{}, {"x"}]>
  // CHECK: return %arg1, %[[R]]
  return %s, %a : f32, tensor<8x8xf32>
}

func.func private @mixed_callee(
    %s: f32,
    %a: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>})
    -> (f32, tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}) {
  return %s, %a : f32, tensor<8x8xf32>
}

// CHECK-LABEL: func @mixed_call
func.func @mixed_call(
    %a: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
    %s: f32)
    -> (f32, tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  // CHECK: %[[A:.*]] = spmd.reshard %arg0 <@mesh, [{}, {"y"}]>
  // CHECK: %[[C:.*]]:2 = call @mixed_callee(%arg1, %[[A]])
  // CHECK: %[[B:.*]] = spmd.reshard %[[C]]#1 <@mesh, [{"x"}, {}]>
  // CHECK: return %[[C]]#0, %[[B]]
  %0:2 = func.call @mixed_callee(%s, %a) {spmd.sharding = #spmd.sharding_per_value<[<@mesh, []>, <@mesh, [{"x"}, {}]>]>} : (f32, tensor<8x8xf32>) -> (f32, tensor<8x8xf32>)
  return %0#0, %0#1 : f32, tensor<8x8xf32>
}

// The combiner of a named op's body depends on its element types: a
// matmul of i1 adds with `or`, which no all-reduce finishes, so its
// contracting dimension is gathered instead. Each op's choice is reused
// for the later op of its types.
// CHECK-LABEL: func @named_kinds
func.func @named_kinds(
    %a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>},
    %b: tensor<16x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>},
    %c: tensor<8x16xi1> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>},
    %d: tensor<16x4xi1> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>},
    %e: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
    %f: tensor<8x4xi1> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
        tensor<8x4xi1> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
        tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
        tensor<8x4xi1> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  // CHECK: %[[M:.*]] = linalg.matmul {{.*}} -> tensor<8x4xf32>
  // CHECK-NEXT: %[[MR:.*]] = spmd.all_reduce {"y"} %[[M]]
  // CHECK-NEXT: %[[C:.*]] = spmd.reshard %arg2 <@mesh, [{"x"}, {}]> : tensor<8x16xi1>
  // CHECK-NEXT: %[[D:.*]] = spmd.reshard %arg3 <@mesh, [{}, {}]> : tensor<16x4xi1>
  // CHECK-NEXT: %[[N:.*]] = linalg.matmul {{.*}} ins(%[[C]], %[[D]] : {{.*}}) outs(%arg5 : tensor<8x4xi1>)
  // CHECK: %[[M2:.*]] = linalg.matmul {{.*}} -> tensor<8x4xf32>
  // CHECK-NEXT: %[[MR2:.*]] = spmd.all_reduce {"y"} %[[M2]]
  // CHECK-NEXT: %[[C2:.*]] = spmd.reshard %arg2 <@mesh, [{"x"}, {}]> : tensor<8x16xi1>
  // CHECK-NEXT: %[[D2:.*]] = spmd.reshard %arg3 <@mesh, [{}, {}]> : tensor<16x4xi1>
  // CHECK-NEXT: %[[N2:.*]] = linalg.matmul {{.*}} ins(%[[C2]], %[[D2]] : {{.*}}) outs(%arg5 : tensor<8x4xi1>)
  // CHECK-NEXT: return %[[MR]], %[[N]], %[[MR2]], %[[N2]]
  %m = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %n = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} ins(%c, %d : tensor<8x16xi1>, tensor<16x4xi1>) outs(%f : tensor<8x4xi1>) -> tensor<8x4xi1>
  %m2 = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %n2 = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} ins(%c, %d : tensor<8x16xi1>, tensor<16x4xi1>) outs(%f : tensor<8x4xi1>) -> tensor<8x4xi1>
  return %m, %n, %m2, %n2 : tensor<8x4xf32>, tensor<8x4xi1>, tensor<8x4xf32>, tensor<8x4xi1>
}

// scf.execute_region (a region op that forwards its yielded values to its
// results, through RegionBranchOpInterface): the yielded value takes the
// result's sharding.
// CHECK-LABEL: func @execute_region
// CHECK: scf.execute_region
// CHECK: %[[R:.*]] = spmd.reshard %arg0 <@mesh, [{}, {"y"}]>
// CHECK: scf.yield %[[R]]
// CHECK: } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"y"}]>]>}
func.func @execute_region(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x16xf32> {
  %0 = scf.execute_region -> tensor<8x16xf32> {
    scf.yield %a : tensor<8x16xf32>
  } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"y"}]>]>}
  return %0 : tensor<8x16xf32>
}
