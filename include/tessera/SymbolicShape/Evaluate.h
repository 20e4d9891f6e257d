//===- Evaluate.h - evaluation and substitution of expressions ---*- C++
//-*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Evaluation with concrete variable values (how shape-assertion values are
// computed; `floordiv`, `mod`, `max` and `min` with Python's semantics, as
// `_DimExpr._evaluate` in JAX's shape_poly.py) and substitution of variables
// by expressions (specialization, nested solving, moving expressions between
// scopes).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_SYMBOLICSHAPE_EVALUATE_H
#define TESSERA_SYMBOLICSHAPE_EVALUATE_H

#include "tessera/SymbolicShape/Scope.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::tessera::symbolic {

/// Concrete values of dimension variables.
using DimBindings = llvm::StringMap<int64_t>;

/// The message of JAX's `UnexpectedDimVar` for `var`, listing the variables
/// that do have values (`known`, printed sorted as a Python list).
std::string formatUnexpectedDimVar(llvm::StringRef var,
                                   llvm::ArrayRef<std::string> known);

/// Evaluates `e` with Python integer semantics (floor division, modulo with
/// the sign of the divisor). A variable without a value is first normalized
/// with the scope's rules (JAX does the same); if it still has no value the
/// result is JAX's `UnexpectedDimVar` error. Fails on division by zero and on
/// int64 overflow.
DimResult<int64_t> evaluate(const DimExpr &e, const DimBindings &bindings);

/// Returns the replacement of a variable, or std::nullopt if it has none.
using DimSubstitution =
    llvm::function_ref<std::optional<DimExpr>(llvm::StringRef)>;

/// Rebuilds `e` in `target` with every variable replaced by its substitution
/// (JAX's `_evaluate` with symbolic values): the arithmetic, divmod and
/// max/min simplifications of `target` apply. Replacements must be constants
/// or expressions of `target`. A variable without a replacement is kept as
/// the variable of the same name in `target` when `keepUnbound`, and is an
/// `UnexpectedDimVar` error otherwise.
DimResult<DimExpr> substitute(const DimExpr &e, DimSubstitution substitution,
                              SymbolicScope &target, bool keepUnbound = true);

/// Re-creates `e` (of any scope) in `target`, variable by variable.
DimResult<DimExpr> translate(const DimExpr &e, SymbolicScope &target);

} // namespace mlir::tessera::symbolic

#endif // TESSERA_SYMBOLICSHAPE_EVALUATE_H
