// RUN: tessera-opt %s -split-input-file --spmd-infer-explicit --verify-diagnostics -o /dev/null

// Tests JAX's errors for reduced axes: a mul of an unreduced value by one
// reduced over other axes, elementwise inputs reduced differently, an input
// replicated or sharded over the axes another one is reduced over, an op
// without a reduced rule, an out_sharding of a reduction that is reduced,
// and the attribute's own checks.

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>
func.func @mul_reduced_other_axes(%u: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], unreduced={"x"}>},
                                  %r: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], reduced={"y"}>}) -> tensor<8xf32> {
  // expected-error @+1 {{Inputs cannot be replicated on the same axes that another input is reduced on. Got input type: float32[8]{U:x} and reduced spec: frozenset({'y'})}}
  %0 = arith.mulf %u, %r : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>
func.func @mul_unreduced_by_reduced_elsewhere(%u: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], unreduced={"x", "y"}>},
                                              %r: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], reduced={"x"}>}) -> tensor<8xf32> {
  // expected-error @+1 {{RHS should be reduced along the same axes LHS is unreduced on. Got lhs=float32[8]{U:(x,y)} and rhs=float32[8]{R:x}}}
  %0 = arith.mulf %u, %r : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>
func.func @reduced_differently(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], reduced={"x"}>},
                               %b: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], reduced={"y"}>}) -> tensor<8xf32> {
  // expected-error @+1 {{All inputs should be reduced across the same mesh axes. Got specs: {frozenset({'x'}), frozenset({'y'})}}}
  %0 = arith.addf %a, %b : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// JAX's test_one_input_reduced_another_replicated.
spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>
func.func @other_replicated(%a: tensor<4x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}], reduced={"y"}>},
                            %b: tensor<4x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<4x2xf32> {
  // expected-error @+1 {{Inputs cannot be replicated on the same axes that another input is reduced on. Got input type: float32[4@x,2] and reduced spec: frozenset({'y'})}}
  %0 = arith.mulf %a, %b : tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

// JAX's test_mul_reduced_error.
spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>
func.func @other_sharded(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], reduced={"x"}>},
                         %b: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<8xf32> {
  // expected-error @+1 {{Inputs cannot be sharded/varying on the same axes that another input is reduced on. Reshard the input which is reduced to be sharded on the mesh axes it is reduced on via `jax.sharding.reshard(inp, jax.P(...))`. Got input type: float32[8@x] and reduced spec: frozenset({'x'})}}
  %0 = arith.mulf %b, %a : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>
func.func @no_reduced_rule(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], reduced={"x"}>}) -> tensor<4xf32> {
  // expected-error @+1 {{unreduced/reduced rule for tensor.extract_slice is not implemented. Please file an issue at https://github.com/jax-ml/jax/issues}}
  %0 = tensor.extract_slice %a[0] [4] [1] : tensor<8xf32> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>
func.func @reduce_out_sharding_reduced(%a: tensor<8x4xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{out_sharding passed to reduce_sum cannot be reduced. Got out_sharding=P(None, reduced={'x'})}}
  %0 = linalg.reduce ins(%a : tensor<8x4xf32>) outs(%init : tensor<8xf32>) dimensions = [1] {spmd.out_sharding = #spmd.sharding<@mesh, [{}], reduced={"x"}>}
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>
// expected-error @+1 {{duplicate axis ref: "x"}}
func.func @reduced_and_unreduced(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], unreduced={"x"}, reduced={"x"}>}) -> tensor<8xf32> {
  return %a : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>
// expected-error @+1 {{reduced axes are not ordered w.r.t. mesh}}
func.func @reduced_unsorted(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], reduced={"y", "x"}>}) -> tensor<8xf32> {
  return %a : tensor<8xf32>
}
