//===- Arithmetic.cpp - +, -, *, pow, divmod, max, min --------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The operations follow JAX's `_DimExpr` operators step by step, including
// their shortcuts (`e + 0` and `e * 1` return `e` itself without another
// normalization step), because the one-rewrite-per-step normalization makes
// the results depend on them.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include "tessera/SymbolicShape/Decision.h"
#include "tessera/SymbolicShape/DimExpr.h"
#include "tessera/SymbolicShape/Scope.h"

using namespace mlir::tessera::symbolic;
using namespace mlir::tessera::symbolic::detail;

/// The largest number of terms a product may create before it is rejected.
static constexpr size_t kMaxProductTerms = 1u << 20;
/// The largest number of exact-division steps before `divMod` gives up and
/// returns the opaque factors.
static constexpr unsigned kMaxDivisionSteps = 4096;

/// JAX's `_linear_combination(e1, k1, e2, k2, scope)`.
static DimResult<DimExpr> linearCombinationImpl(const DimExpr &e1, int64_t k1,
                                                const DimExpr &e2, int64_t k2) {
  if (e1.isConstant() && e2.isConstant()) {
    auto a = checkedMul(*e1.getConstant(), k1);
    auto b = checkedMul(*e2.getConstant(), k2);
    if (!a || !b)
      return overflowError("a linear combination");
    auto sum = checkedAdd(*a, *b);
    if (!sum)
      return overflowError("a linear combination");
    return DimExpr(*sum);
  }
  if (!e1.isConstant() && !e2.isConstant())
    DIM_TRY_STATUS(
        checkSameScope(*e1.getScope(), e2, "for linear combination"));
  SymbolicScope &scope = e1.isConstant() ? *e2.getScope() : *e1.getScope();
  TermList t1 = getTermList(e1), t2 = getTermList(e2);
  auto terms = combineSortedTerms(t1, 0, k1, t2, 0, k2);
  if (!terms)
    return overflowError("a linear combination");
  return normalizeTerms(std::move(*terms), scope);
}

DimResult<DimExpr> mlir::tessera::symbolic::linearCombination(DimOperand lhs,
                                                              int64_t lk,
                                                              DimOperand rhs,
                                                              int64_t rk) {
  DIM_TRY_ASSIGN(a, lhs.get());
  DIM_TRY_ASSIGN(b, rhs.get());
  return linearCombinationImpl(a, lk, b, rk);
}

DimResult<DimExpr> mlir::tessera::symbolic::add(DimOperand lhs,
                                                DimOperand rhs) {
  DIM_TRY_ASSIGN(a, lhs.get());
  DIM_TRY_ASSIGN(b, rhs.get());
  if (!a.isConstant()) {
    if (b.getConstant() == 0)
      return a;
    return linearCombinationImpl(a, 1, b, 1);
  }
  if (!b.isConstant()) {
    if (a.getConstant() == 0)
      return b;
    return linearCombinationImpl(b, 1, a, 1);
  }
  return linearCombinationImpl(a, 1, b, 1);
}

DimResult<DimExpr> mlir::tessera::symbolic::sub(DimOperand lhs,
                                                DimOperand rhs) {
  DIM_TRY_ASSIGN(a, lhs.get());
  DIM_TRY_ASSIGN(b, rhs.get());
  if (!a.isConstant()) {
    if (b.getConstant() == 0)
      return a;
    return linearCombinationImpl(a, 1, b, -1);
  }
  if (!b.isConstant())
    return linearCombinationImpl(b, -1, a, 1);
  return linearCombinationImpl(a, 1, b, -1);
}

DimResult<DimExpr> mlir::tessera::symbolic::neg(DimOperand e) {
  DIM_TRY_ASSIGN(a, e.get());
  return linearCombinationImpl(a, -1, DimExpr(0), 0);
}

/// `a * k` for a symbolic `a` and an integer `k` (JAX's `__mul__` with int).
static DimResult<DimExpr> mulByInt(const DimExpr &a, int64_t k) {
  if (k == 1)
    return a;
  if (k == 0)
    return DimExpr(0);
  return linearCombinationImpl(a, k, DimExpr(0), 0);
}

DimResult<DimExpr> mlir::tessera::symbolic::mul(DimOperand lhs,
                                                DimOperand rhs) {
  DIM_TRY_ASSIGN(a, lhs.get());
  DIM_TRY_ASSIGN(b, rhs.get());
  if (a.isConstant() && b.isConstant()) {
    auto r = checkedMul(*a.getConstant(), *b.getConstant());
    if (!r)
      return overflowError("a multiplication");
    return DimExpr(*r);
  }
  if (b.isConstant())
    return mulByInt(a, *b.getConstant());
  if (a.isConstant())
    return mulByInt(b, *a.getConstant());
  DIM_TRY_STATUS(checkSameScope(*a.getScope(), b, "for operation mul"));
  SymbolicScope &scope = *a.getScope();
  DimContext &ctx = scope.getContext();
  const ExprStorage *s1 = a.getImpl(), *s2 = b.getImpl();
  if (s1->terms.size() * s2->terms.size() > kMaxProductTerms)
    return DimError::limit("symbolic dimension product too large: " +
                           llvm::Twine(s1->terms.size()) + " * " +
                           llvm::Twine(s2->terms.size()) + " terms");
  llvm::DenseMap<const TermStorage *, int64_t> coeffs;
  llvm::SmallVector<const TermStorage *, 16> order;
  for (const TermCoeff &x : s1->terms) {
    for (const TermCoeff &y : s2->terms) {
      DIM_TRY_ASSIGN(term, multiplyTerms(ctx, x.term, y.term));
      auto c = checkedMul(x.coeff, y.coeff);
      if (!c)
        return overflowError("a multiplication");
      auto [it, inserted] = coeffs.try_emplace(term, 0);
      if (inserted)
        order.push_back(term);
      auto sum = checkedAdd(it->second, *c);
      if (!sum)
        return overflowError("a multiplication");
      it->second = *sum;
    }
  }
  TermList terms;
  for (const TermStorage *t : order)
    terms.push_back({t, coeffs[t]});
  sortTerms(terms);
  return normalizeTerms(std::move(terms), scope);
}

DimResult<DimExpr> mlir::tessera::symbolic::pow(DimOperand base,
                                                int64_t exponent) {
  DIM_TRY_ASSIGN(b, base.get());
  if (exponent < 0)
    return DimError::value("Symbolic dimension cannot be raised to negative "
                           "powers: '" +
                           b.str() + "' ** '" + llvm::Twine(exponent) + "'");
  if (auto c = b.getConstant()) {
    auto r = checkedPow(*c, exponent);
    if (!r)
      return overflowError("a power");
    return DimExpr(*r);
  }
  if (exponent == 0)
    return DimExpr(1);
  if (b.getScope()->hasNormalizationRules()) {
    // JAX multiplies repeatedly, normalizing after every step.
    if (exponent > kMaxRepeatedMultiplications)
      return DimError::limit("exponent " + llvm::Twine(exponent) +
                             " too large for a scope with equality "
                             "constraints");
    DimExpr acc = b;
    for (int64_t i = 1; i < exponent; ++i) {
      DIM_TRY_ASSIGN(next, mul(acc, b));
      acc = next;
    }
    return acc;
  }
  // Without rules normal forms are canonical, so squaring gives the same
  // result as repeated multiplication.
  DimExpr result(1), square = b;
  int64_t e = exponent;
  while (true) {
    if (e & 1) {
      DIM_TRY_ASSIGN(r, mul(result, square));
      result = r;
    }
    e >>= 1;
    if (!e)
      break;
    DIM_TRY_ASSIGN(s, mul(square, square));
    square = s;
  }
  return result;
}

DimResult<DimExpr>
mlir::tessera::symbolic::makeOperation(FactorKind kind, DimOperand lhs,
                                       DimOperand rhs, SymbolicScope *scope) {
  assert(kind != FactorKind::Variable && "not an operation");
  DIM_TRY_ASSIGN(a, lhs.get());
  DIM_TRY_ASSIGN(b, rhs.get());
  SymbolicScope *s = scope;
  if (!s)
    s = a.isConstant() ? b.getScope() : a.getScope();
  if (!s)
    return DimError::value("cannot build '" + getFactorKindName(kind) +
                           "' of two constants without a scope");
  std::string when = ("for operation " + getFactorKindName(kind)).str();
  DIM_TRY_STATUS(checkSameScope(*s, a, when));
  DIM_TRY_STATUS(checkSameScope(*s, b, when));
  DimContext &ctx = s->getContext();
  const FactorStorage *f = ctx.getOperationFactor(
      kind, getOperandStorage(ctx, a), getOperandStorage(ctx, b));
  return exprFromTerm(getFactorTerm(ctx, f, 1), 1, *s);
}

DimResult<std::pair<DimExpr, DimExpr>>
mlir::tessera::symbolic::divMod(DimOperand dividendOp, DimOperand divisorOp) {
  DIM_TRY_ASSIGN(dividendIn, dividendOp.get());
  DIM_TRY_ASSIGN(divisor, divisorOp.get());
  using Pair = std::pair<DimExpr, DimExpr>;
  if (dividendIn.isConstant() && divisor.isConstant()) {
    int64_t d = *divisor.getConstant();
    if (d == 0)
      return DimError::divisionByZero();
    auto q = floorDivInt(*dividendIn.getConstant(), d);
    if (!q)
      return overflowError("a division");
    return Pair(DimExpr(*q),
                DimExpr(floorModInt(*dividendIn.getConstant(), d)));
  }
  if (!dividendIn.isConstant() && !divisor.isConstant())
    DIM_TRY_STATUS(checkSameScope(*dividendIn.getScope(), divisor,
                                  "for linear combination"));
  if (divisor.getConstant() == 0)
    return DimError::divisionByZero();
  SymbolicScope *scope =
      dividendIn.isConstant() ? divisor.getScope() : dividendIn.getScope();
  auto opaque = [&]() -> DimResult<Pair> {
    DIM_TRY_ASSIGN(
        q, makeOperation(FactorKind::FloorDiv, dividendIn, divisor, scope));
    DIM_TRY_ASSIGN(r,
                   makeOperation(FactorKind::Mod, dividendIn, divisor, scope));
    return Pair(q, r);
  };

  // Invariant: input = dividend + divisor * quotient. Every step removes the
  // leading term of the dividend.
  DimExpr dividend = dividendIn, quotient(0);
  DimContext &ctx = scope->getContext();
  unsigned steps = 0;
  while (!dividend.isConstant()) {
    if (++steps > kMaxDivisionSteps)
      return opaque();
    auto [mon, count] = dividend.getLeadingTerm();
    const TermStorage *qterm;
    int64_t dcount;
    if (!divisor.isConstant()) {
      auto [dterm, dc] = divisor.getLeadingTerm();
      qterm = divideTerms(ctx, mon.getImpl(), dterm.getImpl());
      if (!qterm)
        return opaque();
      dcount = dc;
    } else {
      qterm = mon.getImpl();
      dcount = *divisor.getConstant();
    }
    auto qcount = floorDivInt(count, dcount);
    if (!qcount)
      return overflowError("a division");
    if (floorModInt(count, dcount) != 0)
      return opaque();
    DIM_TRY_ASSIGN(q, exprFromTerm(qterm, *qcount, *scope));
    DIM_TRY_ASSIGN(newQuotient, add(quotient, q));
    quotient = newQuotient;
    DIM_TRY_ASSIGN(newDividend, sub(dividend, mul(q, divisor)));
    dividend = newDividend;
  }
  int64_t rest = *dividend.getConstant();
  if (!divisor.isConstant()) {
    if (rest != 0)
      return opaque();
    return Pair(quotient, DimExpr(0));
  }
  int64_t d = *divisor.getConstant();
  auto q = floorDivInt(rest, d);
  if (!q)
    return overflowError("a division");
  DIM_TRY_ASSIGN(finalQuotient, add(quotient, *q));
  return Pair(finalQuotient, DimExpr(floorModInt(rest, d)));
}

DimResult<DimExpr> mlir::tessera::symbolic::floorDiv(DimOperand dividend,
                                                     DimOperand divisor) {
  DIM_TRY_ASSIGN(r, divMod(dividend, divisor));
  return r.first;
}

DimResult<DimExpr> mlir::tessera::symbolic::mod(DimOperand dividend,
                                                DimOperand divisor) {
  DIM_TRY_ASSIGN(r, divMod(dividend, divisor));
  return r.second;
}

/// JAX's `max_dim`/`min_dim` (and `_DimExpr.max/rmax/min/rmin`).
static DimResult<DimExpr> maxOrMin(DimOperand lhsOp, DimOperand rhsOp,
                                   bool isMax) {
  DIM_TRY_ASSIGN(lhs, lhsOp.get());
  DIM_TRY_ASSIGN(rhs, rhsOp.get());
  if (lhs.isConstant() && rhs.isConstant()) {
    int64_t a = *lhs.getConstant(), b = *rhs.getConstant();
    return DimExpr(isMax ? std::max(a, b) : std::min(a, b));
  }
  FactorKind kind = isMax ? FactorKind::Max : FactorKind::Min;
  // `self` is the symbolic operand on which JAX invokes the method.
  bool reflected = lhs.isConstant();
  const DimExpr &self = reflected ? rhs : lhs;
  const DimExpr &other = reflected ? lhs : rhs;
  DIM_TRY_ASSIGN(diff, sub(self, other));
  DIM_TRY_ASSIGN(b, boundsDecision(diff, BoundsPrecision::ForGeq0OrLeq0));
  if (b.lower >= 0)
    return isMax ? self : other;
  if (b.upper <= 0)
    return isMax ? other : self;
  return makeOperation(kind, lhs, rhs, self.getScope());
}

DimResult<DimExpr> mlir::tessera::symbolic::maxDim(DimOperand lhs,
                                                   DimOperand rhs) {
  return maxOrMin(lhs, rhs, /*isMax=*/true);
}

DimResult<DimExpr> mlir::tessera::symbolic::minDim(DimOperand lhs,
                                                   DimOperand rhs) {
  return maxOrMin(lhs, rhs, /*isMax=*/false);
}

DimResult<DimExpr> mlir::tessera::symbolic::operator+(DimOperand lhs,
                                                      DimOperand rhs) {
  return add(lhs, rhs);
}
DimResult<DimExpr> mlir::tessera::symbolic::operator-(DimOperand lhs,
                                                      DimOperand rhs) {
  return sub(lhs, rhs);
}
DimResult<DimExpr> mlir::tessera::symbolic::operator*(DimOperand lhs,
                                                      DimOperand rhs) {
  return mul(lhs, rhs);
}
DimResult<DimExpr> mlir::tessera::symbolic::operator-(DimOperand e) {
  return neg(e);
}
