// Every error of poly-specialize; the options differ, so the cases are split
// into files, one RUN line per set of options.
// RUN: split-file %s %t
// RUN: tessera-opt %t/bindings.mlir --split-input-file --poly-specialize=bindings=b=3 --verify-diagnostics
// RUN: tessera-opt %t/bindings-unknown.mlir --split-input-file --poly-specialize=bindings=b=3,c=1 --verify-diagnostics
// RUN: tessera-opt %t/bindings-value.mlir --split-input-file --poly-specialize=bindings=b=0 --verify-diagnostics
// RUN: tessera-opt %t/arg-shapes.mlir --split-input-file --poly-specialize=arg-shapes=3 --verify-diagnostics
// RUN: tessera-opt %t/arg-shapes-mismatch.mlir --split-input-file --poly-specialize=arg-shapes=3x5 --verify-diagnostics
// RUN: tessera-opt %t/no-options.mlir --poly-specialize --verify-diagnostics
// RUN: tessera-opt %t/both.mlir '--poly-specialize=bindings=b=3 arg-shapes=3' --verify-diagnostics
// RUN: tessera-opt %t/bindings-syntax.mlir --poly-specialize=bindings=b3 --verify-diagnostics
// RUN: tessera-opt %t/bindings-twice.mlir --poly-specialize=bindings=b=3,b=4 --verify-diagnostics
// RUN: tessera-opt %t/arg-shapes-syntax.mlir '--poly-specialize=arg-shapes=3x?' --verify-diagnostics
// RUN: tessera-opt %t/bindings-overflow.mlir --poly-specialize=bindings=b=4611686018427387904 --verify-diagnostics
// RUN: tessera-opt %t/bindings-huge.mlir --poly-specialize=bindings=b=9223372036854775808 --verify-diagnostics

//--- bindings.mlir

// Tests that bindings must give every dimension variable a value.
// expected-error @below {{'func.func' op bindings give no value for the dimension variable 'd' (the dimension variables are ['b', 'd'])}}
func.func @missing_variable(%x: tensor<?x?xf32> {poly.shape = #poly.shape<"b, d">}) {
  return
}

// -----

// Tests JAX's message for a violated explicit constraint (double space).
// expected-error @below {{'func.func' op Input shapes do not match the symbolic shape constraint b >= 4. Expected 'b - 4' to be greater or equal to 0, but found -1.  Using the following polymorphic shapes specifications: args[0].shape = (b,). Obtained dimension variables: 'b' = 3 from specification 'b' for dimension args[0].shape[0] (= 3), . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details.}}
func.func @constraint(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) attributes {poly.constraints = ["b >= 4"]} {
  return
}

// -----

// Tests an argument size that the bindings make negative.
// expected-error @below {{'func.func' op with the bindings b=3, dimension 0 of args[0] ('b - 5') has the negative size -2}}
func.func @negative_argument(%x: tensor<?xf32> {poly.shape = #poly.shape<"b - 5">}) {
  return
}

// -----

// Tests an op result size that the bindings make negative.
func.func @negative_result(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  %b = tensor.dim %x, %c0 : tensor<?xf32>
  %n = arith.subi %b, %c5 : index
  // expected-error @below {{'tensor.empty' op with the bindings b=3, dimension 0 of result #0 ('b - 5') has the negative size -2}}
  %e = tensor.empty(%n) : tensor<?xf32>
  return %e : tensor<?xf32>
}

// -----

// Tests a symbolic integer value that does not fit its type.
func.func @value_too_wide(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) -> i8 {
  %c0 = arith.constant 0 : index
  %c100 = arith.constant 100 : index
  %b = tensor.dim %x, %c0 : tensor<?xf32>
  %m = arith.muli %b, %c100 : index
  // expected-error @below {{'arith.index_cast' op the value 300 of result #0 does not fit in 'i8'}}
  %i = arith.index_cast %m : index to i8
  return %i : i8
}

// -----

// Tests that a shape assertion that fails with the bindings is a compile-time
// error with its message filled in (Exported.call discharges statically).
func.func @false_assertion(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) {
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  %b = tensor.dim %x, %c0 : tensor<?xf32>
  %ok = arith.cmpi sge, %b, %c5 : index
  // expected-error @below {{'poly.shape_assertion' op b = 3 but needs at least 5 ({literal})}}
  poly.shape_assertion %ok, %b, %c5 {error_message = "b = {0} but needs at least {1} ({{literal})"} : index, index
  return
}

// -----

// Tests a call of a polymorphic declaration, which has no body to
// specialize.
func.func private @declaration(%x: tensor<?xf32> {poly.shape = #poly.shape<"a">}) -> (tensor<?xf32> {poly.shape = #poly.shape<"a">})
func.func @calls_declaration(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) -> tensor<?xf32> {
  // expected-error @below {{'func.call' op not supported by poly-specialize: @declaration is a declaration, so its dynamic signature cannot be specialized}}
  %0 = func.call @declaration(%x) : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Tests that only tensors are specialized.
// expected-error @below {{'func.func' op not supported by poly-specialize: arg 0 has the type 'memref<?xf32>' (only ranked tensors are specialized)}}
func.func @memref(%x: memref<?xf32> {poly.shape = #poly.shape<"b">}) {
  return
}

//--- bindings-unknown.mlir

// Tests JAX's UnexpectedDimVar for a binding that is not a dimension
// variable.
// expected-error @below {{'func.func' op bindings - Encountered dimension variable 'c' that is not appearing in the shapes of the function arguments.}}
func.func @unknown_variable(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) {
  return
}

// -----

// Tests bindings for a module without polymorphic entry points.
// expected-error @below {{'builtin.module' op bindings - Encountered dimension variable 'b' that is not appearing in the shapes of the function arguments.}}
module {
  func.func @static(%x: tensor<4xf32>) {
    return
  }
}

//--- bindings-value.mlir

// Tests JAX's message for a dimension variable < 1.
// expected-error @below {{'func.func' op Input shapes do not match the polymorphic shapes specification. Expected value >= 1 for dimension variable 'b'. Using the following polymorphic shapes specifications: args[0].shape = (b, 4). Obtained dimension variables: 'b' = 0 from specification 'b' for dimension args[0].shape[0] (= 0), . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details.}}
func.func @zero(%x: tensor<?x4xf32> {poly.shape = #poly.shape<"b, 4">}) {
  return
}

//--- arg-shapes.mlir

// Tests JAX's rank check of a concrete argument.
// expected-error @below {{'func.func' op Rank mismatch for args[0]: expected (b, 4) and called with (3,)}}
func.func @rank(%x: tensor<?x4xf32> {poly.shape = #poly.shape<"b, 4">}) {
  return
}

// -----

// Tests JAX's divisibility check of a concrete argument.
// expected-error @below {{'func.func' op Input shapes do not match the polymorphic shapes specification. Division had remainder 1 when computing the value of 'd'. Using the following polymorphic shapes specifications: args[0].shape = (2*d,). Obtained dimension variables: . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details.}}
func.func @remainder(%x: tensor<?xf32> {poly.shape = #poly.shape<"2*d">}) {
  return
}

// -----

// Tests that arg-shapes has one shape per argument with a spec.
// expected-error @below {{'func.func' op arg-shapes gives 1 shapes, but the function has 2 arguments with 'poly.shape'}}
func.func @count(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}, %y: tensor<?xf32> {poly.shape = #poly.shape<"b">}) {
  return
}

// -----

// Tests that arg-shapes needs exactly one polymorphic entry point.
// expected-error @below {{poly-specialize: 'arg-shapes' needs exactly one polymorphic entry point, found 2}}
module {
  // expected-note @below {{polymorphic entry point}}
  func.func @first(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) {
    return
  }
  // expected-note @below {{polymorphic entry point}}
  func.func @second(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) {
    return
  }
}

// -----

// expected-error @below {{poly-specialize: 'arg-shapes' needs exactly one polymorphic entry point, found 0}}
module {
  func.func @static(%x: tensor<3xf32>) {
    return
  }
}

//--- arg-shapes-mismatch.mlir

// Tests JAX's check of the constant dimensions of a concrete argument.
// expected-error @below {{'func.func' op Shape mismatch for args[0].shape[1] (expected same constant): expected (b, 4) and called with (3, 5)}}
func.func @constant(%x: tensor<?x4xf32> {poly.shape = #poly.shape<"b, 4">}) {
  return
}

// -----

// Tests JAX's consistency check of a concrete argument.
// expected-error @below {{'func.func' op Input shapes do not match the polymorphic shapes specification. Found inconsistency between dimension size args[0].shape[1] (= 5) and the specification 'b' (= 3). Using the following polymorphic shapes specifications: args[0].shape = (b, b). Obtained dimension variables: 'b' = 3 from specification 'b' for dimension args[0].shape[0] (= 3), . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details.}}
func.func @inconsistent(%x: tensor<?x?xf32> {poly.shape = #poly.shape<"b, b">}) {
  return
}

//--- no-options.mlir

// Tests that a polymorphic entry point needs the values of its variables.
// expected-error @below {{'func.func' op poly-specialize needs the values of the dimension variables: give 'bindings' or 'arg-shapes'}}
func.func @f(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) {
  return
}

//--- both.mlir

// expected-error @below {{poly-specialize takes either 'bindings' or 'arg-shapes', not both}}
module {
  func.func @f(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) {
    return
  }
}

//--- bindings-syntax.mlir

// expected-error @below {{poly-specialize: invalid bindings 'b3': expected 'name=value' items separated by commas, such as 'b=3,d=2', got 'b3'}}
module {
  func.func @f(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) {
    return
  }
}

//--- bindings-twice.mlir

// expected-error @below {{poly-specialize: invalid bindings 'b=3,b=4': two values for 'b'}}
module {
  func.func @f(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) {
    return
  }
}

//--- arg-shapes-syntax.mlir

// expected-error @below {{poly-specialize: invalid arg-shapes '3x?': expected one shape per argument with 'poly.shape', non-negative sizes separated by 'x' and shapes by ',', such as '3x3x5,4x2', got '3x?'}}
module {
  func.func @f(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) {
    return
  }
}

//--- bindings-overflow.mlir

// Tests that a size that overflows int64 for the bindings is an error.
// expected-error @below {{'func.func' op integer overflow in evaluating '2*b': the result does not fit in 64 bits}}
func.func @overflow(%x: tensor<?xf32> {poly.shape = #poly.shape<"2*b">}) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}

//--- bindings-huge.mlir

// Tests that a binding that does not fit in int64 is rejected.
// expected-error @below {{poly-specialize: invalid bindings 'b=9223372036854775808': expected 'name=value' items separated by commas, such as 'b=3,d=2', got 'b=9223372036854775808'}}
module {
  func.func @huge(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) -> tensor<?xf32> {
    return %x : tensor<?xf32>
  }
}
