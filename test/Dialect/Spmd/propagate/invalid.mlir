// RUN: tessera-opt %s -split-input-file --spmd-propagate="warn-unknown-ops=true" -verify-diagnostics

spmd.mesh @mesh = <["a"=2]>

// Tests that a user-written rule that does not fit its op is an error.
func.func @bad_rule_override(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}) -> tensor<8xf32> {
  // expected-error @+1 {{'arith.negf' op number of operands and mappings must match: 1 != 2}}
  %0 = arith.negf %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([i], [i])->([i]) {i=8}>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["a"=2]>

// Tests that an op without a rule is left alone, with a warning when asked.
// Creation ops (no tensor operands) are not reported.
func.func @unknown_op_warns(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>}) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  // expected-warning @+1 {{no sharding rule for 'linalg.softmax'; shardings do not propagate through it}}
  %0 = linalg.softmax dimension(0) ins(%arg0 : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

