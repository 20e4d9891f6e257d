//===- Passes.td - poly passes -----------------------------*- tablegen -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_POLY_TRANSFORMS_PASSES_TD
#define TESSERA_DIALECT_POLY_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def PolyInferPass : Pass<"poly-infer", "::mlir::ModuleOp"> {
  let summary = "Symbolic shape inference and checking with JAX's errors";
  let description = [{
    JAX's shape polymorphism at compile time. For every function whose
    arguments carry `poly.shape` or which carries `poly.constraints` (and
    every function that calls or is called by one):

    1. builds the function's symbolic scope from `poly.constraints` and
       parses the argument specs against the argument types;
    2. solves the dimension variables from the argument shapes (JAX's
       `solve_dim_vars`): `Cannot solve for values of dimension variables
       ...` and `UnexpectedDimVar` (a variable only in a constraint or a
       declared result) are compile-time errors;
    3. computes the symbolic value of every SSA value in order through
       `poly::SymbolicShapeOpInterface`, checking every shape rule with
       JAX's messages (broadcasting, `dot_general`, reshape, slicing, pad,
       concatenate, loop carries, cond branches, nested calls). An op that
       touches a symbolic value and has no model is an error;
    4. writes `poly.shape` on every op result and function result with a
       dynamic dimension, `poly.value` on every index/integer result with a
       non-constant symbolic value, and the normalized spec back on every
       argument. A `tensor.reshape` whose shape holds the constant `-1` gets
       the inferred size in its place.

    Callees are analyzed before their callers; a call solves the callee's
    dimension variables from the caller's symbolic shapes (JAX's nested
    export, e.g. `a = 2*c`) and instantiates the callee's result shapes.

    ```mlir
    func.func @f(%x: tensor<?x4xf32> {poly.shape = #poly.shape<"b, 4">})
        -> tensor<?x4xf32> {
      %0 = tensor.concat dim(0) %x, %x : (tensor<?x4xf32>, tensor<?x4xf32>)
          -> tensor<?x4xf32>
      return %0 : tensor<?x4xf32>
    }
    // After --poly-infer, the concat and the result of @f carry
    // {poly.shape = #poly.shape<"2*b, 4">}.
    ```

    Results are deterministic. The default decision procedure answers some
    comparisons JAX finds inconclusive (e.g. `b >= mod(b, 3)`); `jax-exact`
    uses JAX's own.
  }];
  let options = [
    Option<"jaxExact", "jax-exact", "bool", /*default=*/"false",
           "Decide comparisons with JAX's own procedure instead of the "
           "stronger default, reproducing JAX's inconclusive errors">
  ];
}

#endif // TESSERA_DIALECT_POLY_TRANSFORMS_PASSES_TD
