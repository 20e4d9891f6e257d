//===- Solve.h - solving dimension variables; shape assertions ---*- C++
//-*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// JAX's export-time solve (`solve_dim_vars` in JAX's shape_poly.py, whose
// checks `jax.export` asserts in an exported `main`): every symbolic
// dimension `j` of argument `i` gets a synthetic variable `args[i].shape[j]`
// and the equation `expr_ij == args[i].shape[j]`; linear uni-variate
// equations are solved by repeated sweeps. The result expresses every dimension
// variable over the synthetic variables, plus an ordered list of checks with
// JAX's messages.
//
// The checks serve three users:
//  (a) concrete shapes: `checkConcreteShapes` returns the first failing
//      check's exact message with the values filled in;
//  (b) a compiler pass emitting runtime checks: each `ShapeCheck` has
//      predicate expressions (`lhs == rhs` / `lhs >= rhs`, or `getPredicate`
//      for the `== 0` / `>= 0` form) and an `AssertionTemplate` (message with
//      `{0}`, `{1}`, ... and the expressions whose runtime values fill them,
//      exactly like JAX's `shape_assertion` custom call);
//  (c) symbolic caller shapes (a nested export): `checkSymbolicShapes`
//      discharges every check with the caller scope's decision procedure; a
//      false or inconclusive check fails with the same message carrying
//      symbolic values.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_SYMBOLICSHAPE_SOLVE_H
#define TESSERA_SYMBOLICSHAPE_SOLVE_H

#include "tessera/SymbolicShape/Evaluate.h"

#include <vector>

namespace mlir::tessera::symbolic {

/// One function argument: its name as JAX prints it (`args[0]`,
/// `kwargs['x']`, `args[0][1]['y']`) and its symbolic shape.
struct ArgShapeSpec {
  std::string name;
  llvm::SmallVector<DimExpr> shape;
};

/// A synthetic variable `args[i].shape[j]`: the actual size of dimension
/// `dimIndex` of argument `argIndex`.
struct SyntheticDim {
  std::string name;
  unsigned argIndex;
  unsigned dimIndex;
};

/// What a check verifies.
enum class ShapeCheckKind {
  /// `mod(rhs, k) == 0` when solving `k*v == rhs` (`Division had remainder`).
  DivisionRemainder,
  /// `v >= 1` for a solved variable (`Expected value >= 1 ...`).
  VariableAtLeastOne,
  /// A dimension whose variables were all solved elsewhere
  /// (`Found inconsistency between dimension size ...`).
  Consistency,
  /// An explicit constraint of the scope (`... symbolic shape constraint ...`).
  ExplicitConstraint,
};

/// A piece of a check's message: static text, or an expression whose value is
/// printed.
struct MessagePiece {
  /// The static text (when `expr` is empty).
  std::string text;
  /// The expression (over the synthetic variables) whose value is printed.
  std::optional<DimExpr> expr;
};

/// A runtime assertion message: `message` contains `{0}`, `{1}`, ... that
/// refer to `operands` (at most `maxOperands`; further expressions print
/// `N/A`, as JAX's `shape_assertion` does).
struct AssertionTemplate {
  std::string message;
  llvm::SmallVector<DimExpr> operands;
};

/// One shape check. All expressions are over the synthetic variables, in the
/// scope of the solved specification.
struct ShapeCheck {
  /// What is checked.
  ShapeCheckKind kind;
  /// The check holds when `lhs == rhs` (EQ) or `lhs >= rhs` (GEQ).
  Comparator cmp;
  DimExpr lhs;
  DimExpr rhs;
  /// The message pieces, concatenated in order.
  llvm::SmallVector<MessagePiece> pieces;
  /// The variable (DivisionRemainder, VariableAtLeastOne), the dimension
  /// name (Consistency) or the constraint text (ExplicitConstraint).
  std::string subject;

  /// `lhs - rhs`: the check holds when it is `== 0` (EQ) or `>= 0` (GEQ).
  DimResult<DimExpr> getPredicate() const;
  /// The message template and its operands (JAX's
  /// `error_message_and_inputs`: identical expressions share a placeholder).
  AssertionTemplate getAssertionTemplate(unsigned maxOperands = 32) const;
  /// The message with every expression replaced by `printValue(expr)`, as the
  /// template with `maxOperands` would print.
  DimResult<std::string> formatMessage(
      llvm::function_ref<DimResult<std::string>(const DimExpr &)> printValue,
      unsigned maxOperands = 32) const;
};

/// A concrete shape of one argument.
using ConcreteShape = llvm::SmallVector<int64_t, 4>;
/// A symbolic shape of one argument (in the caller's scope).
using SymbolicShape = llvm::SmallVector<DimExpr, 4>;

/// The solution of the dimension variables of a function's arguments.
class DimVarSolution {
public:
  /// The scope of the specification; null when no argument has a symbolic
  /// dimension.
  SymbolicScope *getScope() const { return scope; }
  /// The arguments, as given to `solveDimVars`.
  llvm::ArrayRef<ArgShapeSpec> getArgs() const { return args; }
  /// `args[i].shape = (...)` for every argument with a symbolic dimension.
  llvm::ArrayRef<std::string> getSpecTexts() const { return specTexts; }
  /// The synthetic variables, in argument and dimension order.
  llvm::ArrayRef<SyntheticDim> getSyntheticDims() const {
    return syntheticDims;
  }
  /// Every dimension variable with its value over the synthetic variables, in
  /// the order in which they were solved.
  llvm::ArrayRef<std::pair<std::string, DimExpr>> getSolvedVariables() const {
    return solved;
  }
  /// The value of `var`, or std::nullopt.
  std::optional<DimExpr> lookup(llvm::StringRef var) const;
  /// The dimension variables of the argument shapes, sorted (JAX's
  /// `all_dim_vars`).
  llvm::SmallVector<std::string> getDimVars() const;
  /// The checks, in the order in which they must run.
  llvm::ArrayRef<ShapeCheck> getChecks() const { return checks; }

  /// Checks concrete argument shapes (user (a)): the rank and constant
  /// dimensions first (`Rank mismatch for args[0]: ...`, `Shape mismatch for
  /// args[0].shape[2] (expected same constant): ...`), then every check in
  /// order; the first failure's message is returned as a ValueError. On
  /// success, returns the value of every dimension variable, sorted by name.
  DimResult<std::vector<std::pair<std::string, int64_t>>>
  checkConcreteShapes(llvm::ArrayRef<ConcreteShape> shapes) const;

  /// Checks symbolic caller shapes of `callerScope` (user (c)): the checks
  /// are discharged with the caller's decision procedure; a false or
  /// inconclusive check fails with its message carrying symbolic values. On
  /// success, returns every dimension variable's value in the caller scope,
  /// sorted by name.
  DimResult<std::vector<std::pair<std::string, DimExpr>>>
  checkSymbolicShapes(llvm::ArrayRef<SymbolicShape> shapes,
                      SymbolicScope &callerScope) const;

private:
  friend DimResult<DimVarSolution>
  solveDimVars(llvm::ArrayRef<ArgShapeSpec> args, llvm::StringRef functionName);

  SymbolicScope *scope = nullptr;
  std::vector<ArgShapeSpec> args;
  std::vector<std::string> specTexts;
  std::vector<SyntheticDim> syntheticDims;
  std::vector<std::pair<std::string, DimExpr>> solved;
  std::vector<ShapeCheck> checks;
};

/// Solves the dimension variables of `args` (JAX's `solve_dim_vars`). All
/// symbolic dimensions must share one scope (else `Invalid mixing of
/// symbolic scopes when exporting <functionName>...`). Fails with JAX's `Cannot
/// solve for values of dimension variables {'a'}. ...` when some variable is
/// not solvable by linear uni-variate sweeps, and with `UnexpectedDimVar` when
/// an explicit constraint mentions a variable that no argument shape
/// determines.
DimResult<DimVarSolution> solveDimVars(llvm::ArrayRef<ArgShapeSpec> args,
                                       llvm::StringRef functionName = "fun");

} // namespace mlir::tessera::symbolic

#endif // TESSERA_SYMBOLICSHAPE_SOLVE_H
