//===- FunctionShapes.h - argument specs and their solution -----*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The argument specs of a polymorphic function, as `poly-infer` hands them to
// `symbolic::solveDimVars` (argument `i` is `args[i]`, every argument has an
// entry), and their solution. Shared by the passes that need the solution of
// a function's dimension variables (runtime assertions, specialization).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_POLY_TRANSFORMS_FUNCTIONSHAPES_H
#define TESSERA_DIALECT_POLY_TRANSFORMS_FUNCTIONSHAPES_H

#include "tessera/Dialect/Poly/IR/PolyUtils.h"
#include "tessera/SymbolicShape/Solve.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

#include <optional>

namespace mlir::tessera::poly {

/// The argument specs of a function and the solution of its dimension
/// variables.
struct FunctionShapes {
  /// The function's scope (its `poly.constraints`).
  symbolic::SymbolicScope *scope = nullptr;
  /// One entry per argument, named `args[i]`: the parsed `poly.shape`, the
  /// static shape of a shaped argument without one, or the empty shape of a
  /// non-shaped argument.
  SmallVector<symbolic::ArgShapeSpec> args;
  /// The solution (JAX's `solve_dim_vars`); std::nullopt when no argument
  /// has a symbolic dimension.
  std::optional<symbolic::DimVarSolution> solution;

  /// True if argument `i` carries `poly.shape`.
  SmallVector<bool> hasSpec;
};

/// True if some argument of `func` carries `poly.shape`.
bool hasArgumentSpecs(FunctionOpInterface func);

/// Parses the argument specs of `func` in its scope (from `scopes`) and
/// solves its dimension variables exactly as `poly-infer` does. Reports
/// `poly-infer`'s errors at `func` (constraint errors, `arg i - ...` spec
/// errors, a dynamic argument without a spec, `Cannot solve for values of
/// dimension variables ...`) and fails.
FailureOr<FunctionShapes> solveFunctionShapes(FunctionOpInterface func,
                                              ScopeCache &scopes);

} // namespace mlir::tessera::poly

#endif // TESSERA_DIALECT_POLY_TRANSFORMS_FUNCTIONSHAPES_H
