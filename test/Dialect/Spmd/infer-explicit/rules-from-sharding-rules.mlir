// RUN: tessera-opt %s -split-input-file --spmd-infer-explicit --spmd-print-types --verify-diagnostics -o /dev/null

// Tests that explicit inference reads an op's sharding rule: ops with no
// rule of their own in JAX's sense (a linalg.generic with several results,
// a contraction of three inputs) get their types from the factors of
// #spmd.op_sharding_rule, with JAX's consensus semantics.

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

// Tests an argmax written as a value+index reduction: both results drop
// the reduced dimension (as JAX's argmax types it), keeping the others.
func.func @argmax(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> (tensor<8xf32>, tensor<8xi32>) {
  // expected-remark @+1 {{f32[8]}}
  %v0 = tensor.empty() : tensor<8xf32>
  // expected-remark @+1 {{i32[8]}}
  %i0 = tensor.empty() : tensor<8xi32>
  // expected-remark @+1 {{f32[8@x], i32[8@x]}}
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<8x16xf32>) outs(%v0, %i0 : tensor<8xf32>, tensor<8xi32>) {
  ^bb0(%in: f32, %v: f32, %i: i32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %gt = arith.cmpf ogt, %in, %v : f32
    %nv = arith.select %gt, %in, %v : f32
    %ni = arith.select %gt, %ji, %i : i32
    linalg.yield %nv, %ni : f32, i32
  } -> (tensor<8xf32>, tensor<8xi32>)
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xi32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

// Tests a Welford-style mean and sum of squares over the sharded columns:
// the reduced axes are dropped from both results, the kept ones stay.
func.func @moments(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> (tensor<8xf32>, tensor<8xf32>) {
  // expected-remark @+1 {{f32[8]}}
  %e = tensor.empty() : tensor<8xf32>
  // expected-remark @+1 {{f32[8@y], f32[8@y]}}
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<8x16xf32>) outs(%e, %e : tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%in: f32, %s: f32, %q: f32):
    %ns = arith.addf %in, %s : f32
    %sq = arith.mulf %in, %in : f32
    %nq = arith.addf %sq, %q : f32
    linalg.yield %ns, %nq : f32, f32
  } -> (tensor<8xf32>, tensor<8xf32>)
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

// Tests a contraction of three inputs: the contracting factor sharded in
// one input only is dropped (gathered), as dot_general drops it.
func.func @three_inputs(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
    %b: tensor<16x4xf32>, %c: tensor<16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}]>}) -> tensor<8x4xf32> {
  // expected-remark @+1 {{f32[8,4]}}
  %e = tensor.empty() : tensor<8x4xf32>
  // expected-remark @+1 {{f32[8@x,4]}}
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (k)>, affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b, %c : tensor<8x16xf32>, tensor<16x4xf32>, tensor<16xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %n = arith.mulf %m, %z : f32
    %s = arith.addf %n, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

// Tests that the same contraction with the contracting factor sharded in
// two inputs is dot_general's ambiguity.
func.func @three_inputs_ambiguous(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>},
    %b: tensor<16x4xf32>, %c: tensor<16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}]>}) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<8x4xf32>
  // expected-error @+1 {{Contracting dimensions are sharded and it is ambiguous how the output should be sharded. Please specify the output sharding via the `out_sharding` parameter. Got lhs_contracting_spec=('x',) and rhs_contracting_spec=('y',)}}
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (k)>, affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b, %c : tensor<8x16xf32>, tensor<16x4xf32>, tensor<16xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %n = arith.mulf %m, %z : f32
    %s = arith.addf %n, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

// Tests that a sharded dimension whose factor moves elements across
// devices (a shift by one, a permutation factor) is not implemented
// (windowed ops, convolutions and poolings, have JAX's rules instead:
// windowed.mlir).
func.func @shift_sharded(%in: tensor<16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<15xf32> {
  %e = tensor.empty() : tensor<15xf32>
  // expected-error @+1 {{sharding rule for linalg.generic is not implemented for a sharded dimension it moves elements across. You can work around this error by dropping that operation into full auto sharding mode via: `spmd.auto_axes`}}
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i + 1)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%in : tensor<16xf32>) outs(%e : tensor<15xf32>) {
    ^bb0(%x: f32, %o: f32):
      linalg.yield %x : f32
  } -> tensor<15xf32>
  return %r : tensor<15xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

// Tests that an unsigned max reduction is JAX's reduce_max in messages
// (the reduction's combiner is classified in one place: the linalg model's
// getReductionCombiner).
func.func @unsigned_max_out(%a: tensor<8x4xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %init: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{out_sharding's unreduced axes should be in operand's specs that were reduce_max over. Got operand=ShapedArray(int32[8@x,4]), axes=frozenset({0}), unreduced_spec=frozenset({'y'})}}
  %0 = linalg.reduce ins(%a : tensor<8x4xi32>) outs(%init : tensor<4xi32>) dimensions = [0] {spmd.out_sharding = #spmd.sharding<@mesh, [{}], unreduced={"y"}>}
    (%x: i32, %y: i32) {
      %m = arith.maxui %x, %y : i32
      linalg.yield %m : i32
    }
  return %0 : tensor<4xi32>
}
