//===- Decision.h - bounds and comparisons of dimension expressions -*- C++
//-*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The `>=` decision procedure (JAX's shape_poly_decision.py). Everything
// reduces to bounds: `e1 >= e2` is true if lb(e1 - e2) >= 0, false if
// ub(e1 - e2) < 0, and inconclusive otherwise. Bounds come from JAX's
// elimination procedure over the implicit facts (v >= 1, facts about
// mod/floordiv/max/min/product terms) and the scope's explicit constraints. In
// `DecisionMode::Strong` an inconclusive answer is re-examined with an exact
// integer decision (Presburger arithmetic over a linearization; see
// docs/SymbolicShapes.md).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_SYMBOLICSHAPE_DECISION_H
#define TESSERA_SYMBOLICSHAPE_DECISION_H

#include "tessera/SymbolicShape/Scope.h"

namespace mlir::tessera::symbolic {

/// An integer bound or an infinity.
class Bound {
public:
  /// The finite bound 0.
  Bound() = default;
  /// The finite bound `value`.
  static Bound finite(int64_t value) { return Bound(value, 0); }
  /// Negative infinity.
  static Bound negInf() { return Bound(0, -1); }
  /// Positive infinity.
  static Bound posInf() { return Bound(0, 1); }

  /// True for a finite bound.
  bool isFinite() const { return inf == 0; }
  /// True for negative infinity.
  bool isNegInf() const { return inf < 0; }
  /// True for positive infinity.
  bool isPosInf() const { return inf > 0; }
  /// The value of a finite bound.
  int64_t getValue() const {
    assert(isFinite() && "infinite bound has no value");
    return value;
  }
  /// `-inf`, `inf` or the integer.
  std::string str() const;

  /// Total order with -inf < every integer < inf.
  friend bool operator<(const Bound &a, const Bound &b) {
    if (a.inf != b.inf)
      return a.inf < b.inf;
    return a.inf == 0 && a.value < b.value;
  }
  friend bool operator==(const Bound &a, const Bound &b) {
    return a.inf == b.inf && (a.inf != 0 || a.value == b.value);
  }
  friend bool operator!=(const Bound &a, const Bound &b) { return !(a == b); }
  friend bool operator<=(const Bound &a, const Bound &b) { return !(b < a); }
  friend bool operator>(const Bound &a, const Bound &b) { return b < a; }
  friend bool operator>=(const Bound &a, const Bound &b) { return !(a < b); }
  /// Comparison with an integer.
  friend bool operator<(const Bound &a, int64_t b) {
    return a < Bound::finite(b);
  }
  friend bool operator>=(const Bound &a, int64_t b) { return !(a < b); }
  friend bool operator<=(const Bound &a, int64_t b) {
    return a <= Bound::finite(b);
  }
  friend bool operator>(const Bound &a, int64_t b) { return !(a <= b); }

private:
  Bound(int64_t value, int inf) : value(value), inf(inf) {}
  int64_t value = 0;
  int inf = 0;
};

/// Lower and upper bound of an expression.
struct DimBounds {
  Bound lower;
  Bound upper;
  /// `(lo, hi)` with `-inf`/`inf`, as the tool prints it.
  std::string str() const;
};

/// How precise the bounds must be: the computation may stop as soon as the
/// bounds suffice (JAX's `BoundsPrecision`).
enum class BoundsPrecision {
  /// Enough to decide `e >= 0` or `e <= 0` (for max/min simplification).
  ForGeq0OrLeq0,
  /// Enough to decide `e >= 0` or `e < 0` (for comparisons).
  ForGeq0OrLt0,
  /// As tight as the procedure can compute.
  Best,
};

/// The bounds of `e` in its scope. Fails with `Possible division by 0 in
/// division by <D>` (inconclusive) for a floordiv whose divisor may be 0, or
/// with JAX's lazy `Unsatisfiable constraint(s): ...` errors.
DimResult<DimBounds>
getBounds(DimOperand e, BoundsPrecision precision = BoundsPrecision::Best);

/// The comparison operators of `compare`.
enum class CompareOp { GE, LE, GT, LT, EQ, NE };

/// `>=`, `<=`, `>`, `<`, `==`, `!=`.
llvm::StringRef getCompareOpSpelling(CompareOp op);

/// `lhs <op> rhs` with JAX's semantics: `>=`, `<=`, `>`, `<` are decided by
/// bounds and fail with JAX's inconclusive message
/// (`Symbolic dimension comparison '<lhs>' >= '<rhs>' is inconclusive.`,
/// plus the scope's constraints when it has some, plus the help text); `==`
/// and `!=` follow JAX's equality (`_DimExpr.__eq__`: equal exactly when the
/// normalized difference is the constant 0) and never fail except for scope
/// mixing.
DimResult<bool> compare(DimOperand lhs, CompareOp op, DimOperand rhs);

/// `lhs >= rhs` (see `compare`).
inline DimResult<bool> geq(DimOperand lhs, DimOperand rhs) {
  return compare(lhs, CompareOp::GE, rhs);
}

/// JAX's `core.definitely_equal`: `lhs == rhs` with every error turned into
/// false.
bool definitelyEqual(DimOperand lhs, DimOperand rhs);

} // namespace mlir::tessera::symbolic

#endif // TESSERA_SYMBOLICSHAPE_DECISION_H
