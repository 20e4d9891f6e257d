// RUN: tessera-opt %s -split-input-file -allow-unregistered-dialect --spmd-infer-explicit --spmd-print-types --verify-diagnostics -o /dev/null

// Tests that creation ops are replicated unless they carry spmd.out_sharding,
// and JAX's checks of out_sharding (no Auto or Manual axes, divisibility),
// and that an op without a rule is JAX's "not implemented" error.

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @constants() -> (tensor<8x2xf32>, tensor<8xf32>) {
  // expected-remark @+1 {{f32[8,2]}}
  %0 = arith.constant dense<1.0> : tensor<8x2xf32>
  // expected-remark @+1 {{f32[8]}}
  %1 = tensor.empty() : tensor<8xf32>
  return %0, %1 : tensor<8x2xf32>, tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @creation_out_sharding() -> (tensor<8x2xi32>, tensor<8xf32>) {
  // expected-remark @+1 {{i32[8@x,2@y]}}
  %0 = arith.constant {spmd.out_sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>} dense<3> : tensor<8x2xi32>
  // expected-remark @+1 {{f32[8@x]}}
  %1 = tensor.empty() {spmd.out_sharding = #spmd.sharding<@mesh, [{"x"}]>} : tensor<8xf32>
  return %0, %1 : tensor<8x2xi32>, tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @fill(%v: f32, %init: tensor<8x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x2xf32> {
  // expected-remark @+1 {{f32[8,2]}}
  %0 = linalg.fill ins(%v : f32) outs(%init : tensor<8x2xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, auto]>

func.func @out_sharding_auto_axis() -> tensor<8x2xf32> {
  // expected-error @+1 {{PartitionSpec passed to tensor.empty cannot contain axis names that are of type Auto or Manual. Got PartitionSpec: P('y', None) with axis name: y of type: Auto}}
  %0 = tensor.empty() {spmd.out_sharding = #spmd.sharding<@mesh, [{"y"}, {}]>} : tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @out_sharding_not_divisible() -> tensor<5x2xf32> {
  // expected-error @+1 {{Sharding spec ('x',) implies that array axis 0 is partitioned 2 times, but does not evenly divide the dimension size 5. Got shape: (5, 2) and sharding P('x', None)}}
  %0 = tensor.empty() {spmd.out_sharding = #spmd.sharding<@mesh, [{"x"}, {}]>} : tensor<5x2xf32>
  return %0 : tensor<5x2xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @out_sharding_multi_axis_not_divisible() -> tensor<6xf32> {
  // expected-error @+1 {{Sharding spec ('x', 'y') implies that array axis 0 is partitioned 4 times, but does not evenly divide the dimension size 6. Got shape: (6,) and sharding P(('x', 'y'),)}}
  %0 = tensor.empty() {spmd.out_sharding = #spmd.sharding<@mesh, [{"x", "y"}]>} : tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @no_rule(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<8xf32> {
  // expected-error @+1 {{sharding rule for test.unknown is not implemented. You can work around this error by dropping that operation into full auto sharding mode via: `spmd.auto_axes`}}
  %0 = "test.unknown"(%a) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Even a replicated operand on a mesh with Explicit axes needs a rule.
spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @no_rule_replicated(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) -> tensor<8xf32> {
  // expected-error @+1 {{sharding rule for test.unknown is not implemented}}
  %0 = "test.unknown"(%a) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// On a mesh with only Auto axes no rule is needed.
spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @no_rule_auto(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<8xf32> {
  // expected-remark @+1 {{f32[8]}}
  %0 = "test.unknown"(%a) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
