//===- Scope.h - symbolic scopes and explicit constraints --------*- C++
//-*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// A `SymbolicScope` is JAX's `SymbolicScope`: it holds the explicit
// constraints (`a >= b`, `4*d == a - m`, ...), the normalization rules derived
// from equality constraints, the decision mode, and the caches of the decision
// procedure. Every symbolic expression belongs to exactly one scope;
// expressions of different scopes never mix: combining or comparing them is
// an error, JAX's `Invalid mixing of symbolic scopes`.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_SYMBOLICSHAPE_SCOPE_H
#define TESSERA_SYMBOLICSHAPE_SCOPE_H

#include "tessera/SymbolicShape/DimExpr.h"

#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir::tessera::symbolic {

namespace detail {
struct ScopeCaches;
} // namespace detail

/// Which decision procedure answers `>=` questions and computes bounds.
enum class DecisionMode {
  /// Exactly JAX's elimination procedure, including its documented
  /// incompleteness.
  JaxExact,
  /// JAX's procedure first; when it is inconclusive, an exact integer
  /// decision over a linearization (MLIR's Presburger library). It can only
  /// turn "inconclusive" into an answer, never contradict JAX. The default.
  Strong,
};

/// The comparator of a constraint or check.
enum class Comparator {
  /// `lhs == rhs`.
  EQ,
  /// `lhs >= rhs`.
  GEQ,
};

/// Options of a scope.
struct ScopeOptions {
  /// The decision procedure.
  DecisionMode mode = DecisionMode::Strong;
  /// Where the scope was created, printed in scope descriptions
  /// (`<id> created at <location>`). JAX prints a Python source location or
  /// `unknown`.
  std::string location = "unknown";
};

/// An explicit constraint after processing (JAX's `_SymbolicConstraint`).
struct ExplicitConstraint {
  /// `==` or `>=` (`e1 <= e2` is stored as `e2 >= e1`).
  Comparator cmp;
  /// The constraint as the user wrote it, for messages.
  std::string text;
  /// The two sides, normalized with the rules of the earlier constraints.
  DimExpr lhs, rhs;
  /// `lhs - rhs`, computed before this constraint's own rule was added.
  DimExpr diff;
};

/// A normalization rule `coeff * term -> rhs`, from an equality constraint.
struct NormalizationRule {
  /// The replacement of `coeff * term`.
  DimExpr rhs;
  /// The coefficient of the left-hand side.
  int64_t coeff;
};

/// A symbolic scope. Not copyable or movable: expressions refer to it by
/// address. A scope is not thread-safe (its caches are mutated by queries).
class SymbolicScope {
public:
  /// Creates a scope and processes `constraints` in order, as JAX's
  /// `SymbolicScope` does (an equality constraint becomes a normalization
  /// rule for its left-hand side, an inequality a fact of the decision
  /// procedure). Errors:
  /// `Constraint parsing error: must contain one of '==' or '>=' or '<='`,
  /// syntax errors of either side, `Unsatisfiable explicit constraint: <c>`,
  /// `Invalid equality constraint: {e1} == {e2}. ...`, `Found multiple
  /// equality constraints with the same left-hand-side: <t>`.
  static DimResult<std::unique_ptr<SymbolicScope>>
  create(DimContext &context, llvm::ArrayRef<std::string> constraints = {},
         const ScopeOptions &options = {});
  ~SymbolicScope();
  SymbolicScope(const SymbolicScope &) = delete;
  SymbolicScope &operator=(const SymbolicScope &) = delete;

  /// The context that owns the storage of this scope's expressions.
  DimContext &getContext() const { return context; }
  /// The scope's identifier (unique within its context).
  unsigned getId() const { return id; }
  /// The decision procedure of this scope.
  DecisionMode getDecisionMode() const { return options.mode; }
  /// The explicit constraints in processing order. Constant constraints are
  /// dropped; `mod(E, k) == 0` is preceded by its derived
  /// `k*floordiv(E, k) == E`.
  llvm::ArrayRef<ExplicitConstraint> getConstraints() const {
    return constraints;
  }
  /// JAX's description: `<id> created at <location>`, followed by
  /// ` with constraints:` and one line `  <c>` per constraint if any.
  std::string str() const;

  /// The variable `name`, normalized with the scope's rules.
  DimResult<DimExpr> getVariable(llvm::StringRef name);

  /// Builds the decision procedure's initial state now instead of at the
  /// first comparison, reporting JAX's lazy `Unsatisfiable constraint: <c>` /
  /// `Unsatisfiable constraints: <c>` errors. In strong mode also checks the
  /// constraints for integer satisfiability.
  DimStatus verifyConstraints();

  /// Drops the cached bounds and decision states.
  void clearCaches();

  /// \name Implementation details shared by the library.
  /// @{
  /// The rule whose left-hand side is `term`, or null.
  const NormalizationRule *lookupRule(const detail::TermStorage *term) const {
    if (rules.empty())
      return nullptr;
    auto it = rules.find(term);
    return it == rules.end() ? nullptr : &it->second;
  }
  /// True if the scope has normalization rules.
  bool hasNormalizationRules() const { return !rules.empty(); }
  /// True once all constraints are processed.
  bool isInitialized() const { return initialized; }
  /// The decision caches.
  detail::ScopeCaches &getCaches() { return *caches; }
  /// @}

private:
  SymbolicScope(DimContext &context, const ScopeOptions &options);
  DimStatus parseAndProcessConstraint(llvm::StringRef text);
  DimStatus processConstraint(ExplicitConstraint constraint);

  DimContext &context;
  unsigned id;
  ScopeOptions options;
  std::vector<ExplicitConstraint> constraints;
  llvm::DenseMap<const detail::TermStorage *, NormalizationRule> rules;
  std::unique_ptr<detail::ScopeCaches> caches;
  bool initialized = false;
};

/// JAX's scope check: a `ValueError` "Invalid mixing of symbolic scopes
/// <when>.\nExpected <selfDescr>scope <scope>\nand found for '<other>'
/// (<otherDescr>) scope <other scope>\nSee ..." unless `other` is a constant
/// or belongs to `scope`.
DimStatus checkSameScope(const SymbolicScope &scope, const DimExpr &other,
                         llvm::StringRef when, llvm::StringRef selfDescr = " ",
                         llvm::StringRef otherDescr = "unknown");

} // namespace mlir::tessera::symbolic

#endif // TESSERA_SYMBOLICSHAPE_SCOPE_H
