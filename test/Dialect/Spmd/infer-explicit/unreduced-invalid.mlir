// RUN: tessera-opt %s -split-input-file --spmd-infer-explicit --verify-diagnostics -o /dev/null

// Tests JAX's unreduced errors: out_sharding's unreduced axes must be the
// (identical) contracting specs, dot_general and most ops reject unreduced
// inputs, `add` needs both sides unreduced alike, `mul` is bilinear and
// needs the other side reduced over the same axes.

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>
func.func @dot_unreduced_mismatch(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}, %b: tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  // expected-error @+1 {{lhs and rhs contracting dims should be sharded identically when out_sharding provided to dot_general mentions unreduced_axes. Got lhs_contracting_spec=('x',), rhs_contracting_spec=('y',)}}
  %0 = linalg.matmul {spmd.out_sharding = #spmd.sharding<@mesh, [{}, {}], unreduced={"x"}>} ins(%a, %b : tensor<8x4xf32>, tensor<4x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>
func.func @dot_unreduced_wrong_axes(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}, %b: tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  // expected-error @+1 {{out_sharding's unreduced axes should be equal to the contracting specs. Got unreduced axes=frozenset({'y'}) and contracting spec=('x',)}}
  %0 = linalg.matmul {spmd.out_sharding = #spmd.sharding<@mesh, [{}, {}], unreduced={"y"}>} ins(%a, %b : tensor<8x4xf32>, tensor<4x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>
func.func @add_one_unreduced(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], unreduced={"x"}>}, %b: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{lhs is unreduced while rhs is not. `add` operation does not allow this because there will be implicit communication. Please reduce lhs via `reshard` before calling `add`.}}
  %0 = arith.addf %a, %b : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>
func.func @add_different(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], unreduced={"x"}>}, %b: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], unreduced={"y"}>}) -> tensor<8xf32> {
  // expected-error @+1 {{lhs and rhs to `add` must be unreduced along the same mesh axes. Got lhs=frozenset({'x'}), rhs=frozenset({'y'})}}
  %0 = arith.addf %a, %b : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>
func.func @mul_both(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], unreduced={"x"}>}, %b: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], unreduced={"x"}>}) -> tensor<8xf32> {
  // expected-error @+1 {{lhs and rhs to `mul` cannot be unreduced since mul is bilinear. Got lhs=frozenset({'x'}), rhs=frozenset({'x'})}}
  %0 = arith.mulf %a, %b : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>
func.func @mul_one(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], unreduced={"x"}>}, %b: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{RHS should be reduced along the same axes LHS is unreduced on. Got lhs=float32[8]{U:x} and rhs=float32[8]}}
  %0 = arith.mulf %a, %b : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>
func.func @exp_unreduced(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], unreduced={"x"}>}) -> tensor<8xf32> {
  // expected-error @+1 {{unreduced rule for math.exp is not implemented. Please file an issue at https://github.com/jax-ml/jax/issues}}
  %0 = math.exp %a : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>
func.func @dot_unreduced_input(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}], unreduced={"x"}>}, %b: tensor<4x8xf32>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  // expected-error @+1 {{lhs or rhs passed to dot_general cannot be unreduced. Got lhs=ShapedArray(float32[8,4]{U:x}) and rhs=ShapedArray(float32[4,8])}}
  %0 = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>
func.func @reduce_unreduced_bad(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<4xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%c : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{out_sharding's unreduced axes should be in operand's specs that were reduce_sum over. Got operand=ShapedArray(float32[8@x,4@y]), axes=frozenset({0}), unreduced_spec=frozenset({'y'})}}
  %0 = linalg.reduce ins(%a : tensor<8x4xf32>) outs(%f : tensor<4xf32>) dimensions = [0] {spmd.out_sharding = #spmd.sharding<@mesh, [{}], unreduced={"y"}>}
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>
func.func @dot_unreduced_max(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}, %b: tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  // expected-error @+1 {{`out_sharding` passed to `dot_general` can only contain unreduced of kind `sum`}}
  %0 = linalg.matmul {spmd.out_sharding = #spmd.sharding<@mesh, [{}, {}], unreduced=max{"x"}>} ins(%a, %b : tensor<8x4xf32>, tensor<4x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
