// RUN: tessera-opt %s -split-input-file --spmd-infer-explicit --spmd-print-types --verify-diagnostics -o /dev/null

// Tests that loops and conditionals keep their values' types (sharding
// included), that calls take their callee's declared result types and
// returns must match them, and the spmd ops: reshard sets a type,
// sharding_constraint asserts one.

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @for_keeps_type(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}, %lb: index, %ub: index, %s: index) -> tensor<8xf32> {
  // expected-remark @+1 {{f32[8@x]}}
  %0 = scf.for %i = %lb to %ub step %s iter_args(%acc = %a) -> tensor<8xf32> {
    // expected-remark @+1 {{f32[8@x]}}
    %1 = math.exp %acc : tensor<8xf32>
    scf.yield %1 : tensor<8xf32>
  }
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @for_changes_type(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}, %lb: index, %ub: index, %s: index) -> tensor<8xf32> {
  // expected-error @+1 {{scf.for body function carry input and carry output must have equal types, but they differ:}}
  %0 = scf.for %i = %lb to %ub step %s iter_args(%acc = %a) -> tensor<8xf32> {
    %1 = spmd.reshard %acc <@mesh, [{"y"}]> : tensor<8xf32>
    scf.yield %1 : tensor<8xf32>
  }
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @if_equal(%c: i1, %a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<8xf32> {
  // expected-remark @+1 {{f32[8@x]}}
  %0 = scf.if %c -> tensor<8xf32> {
    // expected-remark @+1 {{f32[8@x]}}
    %1 = arith.negf %a : tensor<8xf32>
    scf.yield %1 : tensor<8xf32>
  } else {
    scf.yield %a : tensor<8xf32>
  }
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @if_differ(%c: i1, %a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}, %b: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{scf.if branches must have equal output types but they differ.}}
  %0 = scf.if %c -> tensor<8xf32> {
    scf.yield %a : tensor<8xf32>
  } else {
    scf.yield %b : tensor<8xf32>
  }
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @while_keeps_type(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}, %c: i1) -> tensor<8xf32> {
  // expected-remark @+1 {{f32[8@x]}}
  %0 = scf.while (%arg = %a) : (tensor<8xf32>) -> tensor<8xf32> {
    scf.condition(%c) %arg : tensor<8xf32>
  } do {
  ^bb0(%arg: tensor<8xf32>):
    // expected-remark @+1 {{f32[8@x]}}
    %1 = math.sin %arg : tensor<8xf32>
    scf.yield %1 : tensor<8xf32>
  }
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @reshard(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x4xf32> {
  // expected-remark @+1 {{f32[8,4@y]}}
  %0 = spmd.reshard %a <@mesh, [{}, {"y"}]> : tensor<8x4xf32>
  // expected-remark @+1 {{f32[8,4@y]}}
  %1 = math.exp %0 : tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @constraint_holds(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<8xf32> {
  // expected-remark @+1 {{f32[8@x]}}
  %0 = spmd.sharding_constraint %a <@mesh, [{"x"}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @constraint_fails(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{`spmd.sharding_constraint` acts as an assert when all axes of mesh are of type `Explicit`. The array sharding: P(None,) did not match the sharding provided: P('x',). Please use `spmd.reshard` to shard your input to the sharding you want.}}
  %0 = spmd.sharding_constraint %a <@mesh, [{"x"}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func private @callee(%a: tensor<8xf32>) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}]>})

func.func @call(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<8xf32> {
  // expected-remark @+1 {{f32[8@y]}}
  %0 = func.call @callee(%a) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @return_mismatch(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}]>}) {
  %0 = math.exp %a : tensor<8xf32>
  // expected-error @+1 {{'func.return' op result 0 has type f32[8@x] but the function declares its result 0 as f32[8@y]; use `spmd.reshard` to change its sharding}}
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// The body of spmd.explicit_axes sees its operands resharded to
// in_shardings (jax.sharding.explicit_axes(f, in_sharding=...)); outside,
// the listed axes are Auto again and leave the type.
func.func @explicit_axes_in_shardings(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-remark @+1 {{f32[8,4]}}
  %r = spmd.explicit_axes(%x) axes={"x", "y"} in_shardings=[<@mesh, [{"x"}, {"y"}]>] (%arg: tensor<8x4xf32>) {
    // expected-remark @+1 {{f32[8@x,4@y]}}
    %0 = arith.negf %arg : tensor<8x4xf32>
    spmd.return %0 : tensor<8x4xf32>
  } : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

// The body of spmd.auto_axes sees its operands with the listed axes Auto:
// only "y" is left in the type inside; the result takes out_shardings.
func.func @auto_axes_body(%x: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<8x4xf32> {
  // expected-remark @+1 {{f32[8@x,4@y]}}
  %r = spmd.auto_axes(%x) axes={"x"} out_shardings=[<@mesh, [{"x"}, {"y"}]>] (%arg: tensor<8x4xf32>) {
    // expected-remark @+1 {{f32[8,4@y]}}
    %0 = arith.negf %arg : tensor<8x4xf32>
    spmd.return %0 : tensor<8x4xf32>
  } : (tensor<8x4xf32>) -> tensor<8x4xf32>
  // expected-remark @+1 {{f32[8@x,4@y]}}
  %1 = arith.negf %r : tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

// scf.index_switch keeps the type all its regions yield.
func.func @index_switch_equal(%i: index, %a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<8xf32> {
  // expected-remark @+1 {{f32[8@x]}}
  %r = scf.index_switch %i -> tensor<8xf32>
  case 0 {
    // expected-remark @+1 {{f32[8@x]}}
    %0 = arith.negf %a : tensor<8xf32>
    scf.yield %0 : tensor<8xf32>
  }
  default {
    scf.yield %a : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @index_switch_differ(%i: index, %a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}, %b: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}]>}) -> tensor<8xf32> {
  // expected-error @+1 {{scf.index_switch branches must have equal output types but they differ.}}
  %r = scf.index_switch %i -> tensor<8xf32>
  case 0 {
    scf.yield %b : tensor<8xf32>
  }
  default {
    scf.yield %a : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
