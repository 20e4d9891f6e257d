//===- Internal.h - shared internals of the symbolic-shape library -*- C++
//-*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Not installed; used only by lib/SymbolicShape/*.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_SYMBOLICSHAPE_INTERNAL_H
#define TESSERA_LIB_SYMBOLICSHAPE_INTERNAL_H

#include "tessera/SymbolicShape/Decision.h"
#include "tessera/SymbolicShape/DimExpr.h"
#include "tessera/SymbolicShape/Scope.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <tuple>

/// Evaluates `expr` (a DimResult or DimStatus); on failure returns its error
/// from the enclosing function.
#define DIM_TRY_STATUS(expr)                                                   \
  do {                                                                         \
    auto dimTryStatus = (expr);                                                \
    if (dimTryStatus.failed())                                                 \
      return dimTryStatus.getError();                                          \
  } while (false)

/// Declares `var` initialized with the value of the DimResult `expr`; on
/// failure returns the error from the enclosing function.
#define DIM_TRY_ASSIGN(var, expr)                                              \
  auto var##OrErr = (expr);                                                    \
  if (var##OrErr.failed())                                                     \
    return var##OrErr.getError();                                              \
  auto var = std::move(*var##OrErr)

namespace mlir::tessera::symbolic {
namespace detail {

/// The largest exponent `pow` (and the evaluator) expands by repeated
/// multiplication when the scope has normalization rules.
inline constexpr int64_t kMaxRepeatedMultiplications = 4096;

//===----------------------------------------------------------------------===//
// Checked integer arithmetic
//===----------------------------------------------------------------------===//

/// `a + b`, or std::nullopt on overflow.
std::optional<int64_t> checkedAdd(int64_t a, int64_t b);
/// `a * b`, or std::nullopt on overflow.
std::optional<int64_t> checkedMul(int64_t a, int64_t b);
/// `-a`, or std::nullopt on overflow.
std::optional<int64_t> checkedNeg(int64_t a);
/// Python's `a // b` (b != 0), or std::nullopt on overflow.
std::optional<int64_t> floorDivInt(int64_t a, int64_t b);
/// Python's `a % b` (b != 0); never overflows.
int64_t floorModInt(int64_t a, int64_t b);
/// `ceil(a / b)` (b != 0), or std::nullopt on overflow.
std::optional<int64_t> ceilDivInt(int64_t a, int64_t b);
/// `a ** e` (e >= 0), or std::nullopt on overflow.
std::optional<int64_t> checkedPow(int64_t a, int64_t e);

//===----------------------------------------------------------------------===//
// Syntactic order
//===----------------------------------------------------------------------===//

/// JAX's `_syntactic_cmp` on factors, terms and expressions.
int compareFactors(const FactorStorage *a, const FactorStorage *b);
int compareTerms(const TermStorage *a, const TermStorage *b);
int compareExprs(const ExprStorage *a, const ExprStorage *b);

/// The constant term 1 (shared by all contexts; it has no factors).
const TermStorage *getOneTermStorage();

/// A list of (term, coefficient) pairs sorted largest term first.
using TermList = llvm::SmallVector<TermCoeff, 8>;

/// The terms of `e` (empty for 0, one constant term for other constants).
TermList getTermList(const DimExpr &e);
/// The terms of an expression storage, without zero coefficients.
TermList getTermList(const ExprStorage *storage);

/// JAX's `_linear_combination_sorted_pairs`: `a[i:] * fa + b[j:] * fb`,
/// sorted, without zero coefficients (no normalization). std::nullopt on
/// overflow.
std::optional<TermList> combineSortedTerms(llvm::ArrayRef<TermCoeff> a,
                                           unsigned i, int64_t fa,
                                           llvm::ArrayRef<TermCoeff> b,
                                           unsigned j, int64_t fb);

/// Sorts `terms` largest first and drops zero coefficients.
void sortTerms(TermList &terms);

/// The product of two terms (exponents add). Fails on exponent overflow.
DimResult<const TermStorage *>
multiplyTerms(DimContext &ctx, const TermStorage *a, const TermStorage *b);
/// `a / b` when every factor exponent stays >= 0, else null.
const TermStorage *divideTerms(DimContext &ctx, const TermStorage *a,
                               const TermStorage *b);
/// The term with the single factor `f` raised to `exponent`.
const TermStorage *getFactorTerm(DimContext &ctx, const FactorStorage *f,
                                 int64_t exponent);

/// The storage of `e` for use as a factor operand (constants get a constant
/// storage).
const ExprStorage *getOperandStorage(DimContext &ctx, const DimExpr &e);
/// An expression from operand storage: a constant storage becomes a
/// constant DimExpr.
DimExpr exprFromStorage(const ExprStorage *storage, SymbolicScope *scope);

/// JAX's `_normalize_sorted_terms`: applies the first applicable
/// normalization rule of `scope` and returns the expression (a constant if
/// only a constant remains).
DimResult<DimExpr> normalizeTerms(TermList terms, SymbolicScope &scope);
/// An expression from sorted terms without applying rules (JAX's direct
/// `_DimExpr(...)` constructor); constants still become constants.
DimExpr makeRawExpr(llvm::ArrayRef<TermCoeff> terms, SymbolicScope &scope);
/// JAX's `_DimExpr._from_term(t, k, scope)` (normalized).
DimResult<DimExpr> exprFromTerm(const TermStorage *term, int64_t coeff,
                                SymbolicScope &scope);

/// The error of an int64 overflow in `what`.
DimError overflowError(llvm::StringRef what);

//===----------------------------------------------------------------------===//
// Decision procedure
//===----------------------------------------------------------------------===//

class DecisionState;

/// Cached bounds of an expression with the precision they were computed for.
struct CachedBounds {
  Bound lower, upper;
  BoundsPrecision precision;
};

/// The caches a scope keeps for the decision procedure.
struct ScopeCaches {
  ScopeCaches();
  ~ScopeCaches();
  /// JAX's `_bounds_cache`.
  llvm::DenseMap<const ExprStorage *, CachedBounds> boundsCache;
  /// JAX's `_decision_initial_state`.
  std::unique_ptr<DecisionState> initialState;
  /// Results of the strong procedure, keyed by expression and precision.
  llvm::DenseMap<std::pair<const ExprStorage *, unsigned>, DimBounds>
      strongCache;
  /// Whether the explicit constraints were found integer-satisfiable by the
  /// strong procedure.
  std::optional<bool> strongSatisfiable;
  void clear();
};

/// JAX's `_bounds_decision(e, prec)` plus, in strong mode, the Presburger
/// refinement.
DimResult<DimBounds> boundsDecision(const DimExpr &e, BoundsPrecision prec);

/// True if (lb, ub) suffice for `prec`.
bool boundsAreSufficient(BoundsPrecision prec, Bound lb, Bound ub);

/// A constraint `e >= 0` or `e == 0` stored under its leading term.
struct ExprConstraint {
  Comparator cmp;
  int64_t leadingCoeff;
  DimExpr expr;
};

/// The state of JAX's `_DecisionByElimination`.
class DecisionState {
public:
  explicit DecisionState(SymbolicScope &scope) : scope(&scope) {}

  /// Builds the state for `scope`, copying the cached initial state when
  /// the scope is initialized (JAX's `build`).
  static DimResult<std::unique_ptr<DecisionState>> build(SymbolicScope &scope);
  /// Processes the explicit constraints (JAX's `initialize`).
  DimStatus initialize();

  /// JAX's `bounds`.
  DimResult<DimBounds> bounds(const DimExpr &e, BoundsPrecision prec,
                              bool addImplicitConstraints);
  /// JAX's `add_implicit_constraints_expr`.
  DimStatus addImplicitConstraintsExpr(const DimExpr &e);

  /// The per-term bounds (lb, ub).
  const llvm::DenseMap<const TermStorage *, std::pair<Bound, Bound>> &
  getTermBounds() const {
    return termBounds;
  }
  /// The constraints indexed by leading term.
  const llvm::MapVector<const TermStorage *,
                        llvm::SmallVector<ExprConstraint, 2>> &
  getExprConstraints() const {
    return exprConstraints;
  }
  /// The scope.
  SymbolicScope &getScope() const { return *scope; }

private:
  struct Combination {
    Comparator cmp;
    DimExpr c;
    int64_t cScale;
    int64_t tScale;
  };

  DimStatus addImplicitConstraintsTerm(const TermStorage *t);
  DimStatus combineAndAddConstraint(Comparator cmp, const DimExpr &e1,
                                    const DimExpr &e2,
                                    std::optional<std::string> debug);
  DimStatus combineAndAddConstraint(Comparator cmp, const DimExpr &e1,
                                    Bound b2);
  DimStatus combineAndAddConstraint(Comparator cmp, Bound b1,
                                    const DimExpr &e2);
  DimStatus addToState(Comparator cmp, const DimExpr &e,
                       const std::optional<std::string> &debug);
  llvm::SmallVector<Combination, 4>
  combineTermWithExisting(const TermStorage *t, int64_t tk,
                          bool onlySmallerThanT);
  DimStatus combineConstraintWithExisting(
      Comparator cmp, const DimExpr &e, const std::optional<std::string> &debug,
      llvm::SmallVectorImpl<std::pair<Comparator, DimExpr>> &result);
  std::pair<Bound, Bound> boundsForSortedTerms(llvm::ArrayRef<TermCoeff> e,
                                               unsigned i, BoundsPrecision prec,
                                               unsigned depth);

  SymbolicScope *scope;
  llvm::DenseSet<const TermStorage *> processed;
  llvm::DenseMap<const TermStorage *, std::pair<Bound, Bound>> termBounds;
  llvm::MapVector<const TermStorage *, llvm::SmallVector<ExprConstraint, 2>>
      exprConstraints;
  /// For every term, where it occurs in `exprConstraints`: (index of the
  /// leading-term entry, index in its list), in insertion order. Lets a new
  /// constraint be combined with the existing ones that share a term without
  /// scanning all of them (quadratic for long chains of constraints).
  llvm::DenseMap<const TermStorage *,
                 llvm::SmallVector<std::pair<unsigned, unsigned>, 2>>
      termOccurrences;
  /// (comparator, leading coefficient, expression) of every constraint in
  /// `exprConstraints`, to drop duplicates in constant time.
  llvm::DenseSet<std::tuple<unsigned, int64_t, const ExprStorage *>>
      constraintKeys;
  /// Work counter of one bounds computation (a safety limit).
  unsigned work = 0;

  friend class StrongDecision;
};

/// In strong mode, refines the JAX bounds `jax` of `e` computed with `state`
/// (after `state.bounds(e, ...)`), for precision `prec`. Only ever tightens.
DimResult<DimBounds> strongRefineBounds(DecisionState &state, const DimExpr &e,
                                        BoundsPrecision prec, DimBounds jax);

/// In strong mode, checks that the explicit constraints of `scope` are
/// integer-satisfiable (with the implicit facts of their terms).
DimStatus strongCheckSatisfiable(SymbolicScope &scope);

} // namespace detail
} // namespace mlir::tessera::symbolic

#endif // TESSERA_LIB_SYMBOLICSHAPE_INTERNAL_H
