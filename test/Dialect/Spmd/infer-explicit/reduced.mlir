// RUN: tessera-opt %s -split-input-file --spmd-infer-explicit --spmd-print-types --verify-diagnostics | FileCheck %s

// Tests JAX's reduced axes (`reduced={...}`, `{R:x}`): the counterpart of
// unreduced. A product of a value unreduced over "x" and one reduced over
// "x" is unreduced over "x" (and no longer reduced); elementwise ops of
// values reduced alike stay reduced; unary ops, reshapes and reductions keep
// the operand's reduced axes; dot_general drops them; creation ops take
// them from out_sharding.

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

// CHECK-LABEL: func.func @mul_unreduced_by_reduced
// CHECK: arith.mulf %arg0, %arg1 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}], unreduced={"x"}>]>}
// CHECK: arith.mulf %arg1, %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}], unreduced={"x"}>]>}
func.func @mul_unreduced_by_reduced(%u: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], unreduced={"x"}>},
                                    %r: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], reduced={"x"}>}) -> (tensor<8xf32>, tensor<8xf32>) {
  // expected-remark @+1 {{f32[8]{U:x}}}
  %0 = arith.mulf %u, %r : tensor<8xf32>
  // expected-remark @+1 {{f32[8]{U:x}}}
  %1 = arith.mulf %r, %u : tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

// A sharded dim and a reduced axis in one type; ops on it keep "x".
// CHECK-LABEL: func.func @reduced_kept
// CHECK: math.sin %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"y"}, {}], reduced={"x"}>]>}
// CHECK: arith.addf %{{.*}}, %arg1 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"y"}, {}], reduced={"x"}>]>}
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"y"}], reduced={"x"}>]>}
func.func @reduced_kept(%a: tensor<4x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}], reduced={"x"}>},
                        %b: tensor<4x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}], reduced={"x"}>}) -> tensor<8xf32> {
  // expected-remark @+1 {{f32[4@y,2]{R:x}}}
  %0 = math.sin %a : tensor<4x2xf32>
  // expected-remark @+1 {{f32[4@y,2]{R:x}}}
  %1 = arith.addf %0, %b : tensor<4x2xf32>
  // expected-remark @+1 {{f32[8@y]{R:x}}}
  %2 = tensor.collapse_shape %1 [[0, 1]] : tensor<4x2xf32> into tensor<8xf32>
  return %2 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

// A reduction keeps the operand's reduced axes; dot_general drops them
// (JAX's test_reduced_sin_fwd_mul_bwd: a reduced lhs times a sharded rhs).
// CHECK-LABEL: func.func @reduce_and_dot
// CHECK: linalg.reduce {{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}], reduced={"x"}>]>}
// CHECK: linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"x"}]>]>}
func.func @reduce_and_dot(%a: tensor<4x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}], reduced={"x"}>},
                          %b: tensor<2x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> (tensor<4xf32>, tensor<4x8xf32>) {
  // expected-remark @+1 {{f32[]}}
  %z = arith.constant 0.0 : f32
  // expected-remark @+1 {{f32[4]}}
  %e = tensor.empty() : tensor<4xf32>
  // expected-remark @+1 {{f32[4]}}
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  // expected-remark @+1 {{f32[4]{R:x}}}
  %0 = linalg.reduce ins(%a : tensor<4x2xf32>) outs(%f : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  // expected-remark @+1 {{f32[4,8]}}
  %e2 = tensor.empty() : tensor<4x8xf32>
  // expected-remark @+1 {{f32[4,8@x]}}
  %1 = linalg.matmul ins(%a, %b : tensor<4x2xf32>, tensor<2x8xf32>) outs(%e2 : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0, %1 : tensor<4xf32>, tensor<4x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

// JAX's jnp.ones(..., out_sharding=P(reduced={'x'})): a reduced creation.
// CHECK-LABEL: func.func @creation_reduced
// CHECK: tensor.empty() {spmd.out_sharding = #spmd.sharding<@mesh, [{"y"}, {}], reduced={"x"}>, spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"y"}, {}], reduced={"x"}>]>}
func.func @creation_reduced() -> tensor<8x4xf32> {
  // expected-remark @+1 {{f32[8@y,4]{R:x}}}
  %0 = tensor.empty() {spmd.out_sharding = #spmd.sharding<@mesh, [{"y"}, {}], reduced={"x"}>} : tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
