// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// Tests that every verifier rule of spmd.propagation_barrier is reported.

func.func @barrier_both(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.propagation_barrier' op cannot specify `BOTH` as the direction. Not blocking propagation direction makes the op redundant}}
  %0 = spmd.propagation_barrier %arg0 allowed_direction=BOTH : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----
func.func @barrier_unknown_direction(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{unknown propagation direction 'SIDEWAYS', expected NONE, FORWARD, BACKWARD or BOTH}}
  %0 = spmd.propagation_barrier %arg0 allowed_direction=SIDEWAYS : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----
func.func @barrier_unranked(%arg0: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'spmd.propagation_barrier' op operand #0 must be ranked tensor of any type values, but got 'tensor<*xf32>'}}
  %0 = spmd.propagation_barrier %arg0 allowed_direction=NONE : tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @barrier_with_invalid_sharding(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.propagation_barrier' op result - unknown axis name: "z"}}
  %0 = spmd.propagation_barrier %arg0 allowed_direction=FORWARD {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"z"}]>]>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}
