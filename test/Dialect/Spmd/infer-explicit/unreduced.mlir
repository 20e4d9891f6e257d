// RUN: tessera-opt %s -split-input-file --spmd-infer-explicit --spmd-print-types --verify-diagnostics -o /dev/null

// Tests unreduced results (JAX's `unreduced`, printed {U:x}): a contraction
// whose spmd.out_sharding names the contracted axes as unreduced holds
// partial sums, `add` of two equally unreduced values keeps them, reshapes
// pass them on, and spmd.reshard reduces them.

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>
func.func @dot_unreduced(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}, %b: tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x8xf32> {
  // expected-remark @+1 {{f32[8,8]}}
  %e = tensor.empty() : tensor<8x8xf32>
  // expected-remark @+1 {{f32[8,8]{U:x}}}
  %0 = linalg.matmul {spmd.out_sharding = #spmd.sharding<@mesh, [{}, {}], unreduced={"x"}>} ins(%a, %b : tensor<8x4xf32>, tensor<4x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-remark @+1 {{f32[8,8]{U:x}}}
  %1 = arith.addf %0, %0 : tensor<8x8xf32>
  // expected-remark @+1 {{f32[64]{U:x}}}
  %2 = tensor.collapse_shape %1 [[0, 1]] : tensor<8x8xf32> into tensor<64xf32>
  // expected-remark @+1 {{f32[8,8]}}
  %3 = spmd.reshard %1 <@mesh, [{}, {}]> : tensor<8x8xf32>
  return %3 : tensor<8x8xf32>
}

// -----

// A sum whose out_sharding keeps the reduced dim's axis unreduced.
spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>
func.func @reduce_unreduced_ok(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<4xf32> {
  // expected-remark @+1 {{f32[]}}
  %c = arith.constant 0.0 : f32
  // expected-remark @+1 {{f32[4]}}
  %e = tensor.empty() : tensor<4xf32>
  // expected-remark @+1 {{f32[4]}}
  %f = linalg.fill ins(%c : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  // expected-remark @+1 {{f32[4@y]{U:x}}}
  %0 = linalg.reduce ins(%a : tensor<8x4xf32>) outs(%f : tensor<4xf32>) dimensions = [0] {spmd.out_sharding = #spmd.sharding<@mesh, [{"y"}], unreduced={"x"}>}
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  return %0 : tensor<4xf32>
}

// -----

// A reduction keeps its operand's unreduced axes.
spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>
func.func @reduce_keeps_operand_unreduced(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}], unreduced={"x"}>}) -> tensor<4xf32> {
  // expected-remark @+1 {{f32[]}}
  %c = arith.constant 0.0 : f32
  // expected-remark @+1 {{f32[4]}}
  %e = tensor.empty() : tensor<4xf32>
  // expected-remark @+1 {{f32[4]}}
  %f = linalg.fill ins(%c : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  // expected-remark @+1 {{f32[4@y]{U:x}}}
  %0 = linalg.reduce ins(%a : tensor<8x4xf32>) outs(%f : tensor<4xf32>) dimensions = [0]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  return %0 : tensor<4xf32>
}
