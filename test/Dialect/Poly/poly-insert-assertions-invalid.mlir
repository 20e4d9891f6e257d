// RUN: tessera-opt %s --split-input-file --poly-insert-assertions --verify-diagnostics

// Tests that a check that can never hold (every size is >= 0, but
// `- a - 1` is negative) is a compile-time error with JAX's message, the
// values printed as expressions over the argument sizes.
// expected-error @below {{'func.func' op Input shapes do not match the polymorphic shapes specification. Found inconsistency between dimension size args[0].shape[1] (= args[0].shape[1]) and the specification '- a - 1' (= - args[0].shape[0] - 1). Using the following polymorphic shapes specifications: args[0].shape = (a, - a - 1). Obtained dimension variables: 'a' = args[0].shape[0] from specification 'a' for dimension args[0].shape[0] (= args[0].shape[0]), . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details.}}
func.func @never_holds(%x: tensor<?x?xf32> {poly.shape = #poly.shape<"a, - a - 1">}) {
  return
}

// -----

// Tests JAX's error for a variable that cannot be solved.
// expected-error @below {{'func.func' op Cannot solve for values of dimension variables {'a'}. We can only solve linear uni-variate constraints. Using the following polymorphic shapes specifications: args[0].shape = (a^2,). Unprocessed specifications: 'a^2' for dimension size args[0].shape[0]. Please see https://docs.jax.dev/en/latest/export/shape_poly.html#dimension-variables-must-be-solvable-from-the-input-shapes for more details.}}
func.func @unsolvable(%x: tensor<?xf32> {poly.shape = #poly.shape<"a^2">}) {
  return
}

// -----

// Tests JAX's UnexpectedDimVar for a variable only a constraint mentions.
// expected-error @below {{Encountered dimension variable 'm1' that is not appearing in the shapes of the function arguments.}}
func.func @constraint_variable(%x: tensor<?xf32> {poly.shape = #poly.shape<"m">}) attributes {poly.constraints = ["m >= m1"]} {
  return
}

// -----

// Tests UnexpectedDimVar when no argument has a symbolic dimension.
// expected-error @below {{Encountered dimension variable 'a' that is not appearing in the shapes of the function arguments.}}
func.func @no_symbolic_argument(%x: tensor<4xf32> {poly.shape = #poly.shape<"4">}) attributes {poly.constraints = ["a >= 1"]} {
  return
}

// -----

// Tests that every dynamic argument of a polymorphic function needs a spec.
// expected-error @below {{'func.func' op arg 1 - has dynamic dimensions but no 'poly.shape' (every argument of a polymorphic function needs a spec)}}
func.func @missing_spec(%x: tensor<?xf32> {poly.shape = #poly.shape<"m">}, %y: tensor<?xf32>) {
  return
}

// -----

// Tests the verifier of the marker attribute.
// expected-error @below {{'arith.constant' op 'poly.assertions_inserted' is only allowed on functions}}
%0 = arith.constant {poly.assertions_inserted} 0 : index

// -----

// expected-error @below {{'func.func' op 'poly.assertions_inserted' must be a unit attribute}}
func.func @marker_not_unit() attributes {poly.assertions_inserted = 1 : i32} {
  return
}
