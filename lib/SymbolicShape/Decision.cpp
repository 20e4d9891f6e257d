//===- Decision.cpp - JAX's elimination procedure for bounds --------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// A faithful implementation of JAX's `_DecisionByElimination`
// (shape_poly_decision.py): a knowledge base of per-term bounds and linear
// constraints indexed by their leading term, filled with the explicit
// constraints (in user order, each combined once with the existing ones) and
// with implicit facts about every term a query mentions; bounds of an
// expression are computed by eliminating its leading term against every
// stored fact about it, recursively.
//
// Deliberate deviations, all in cases where JAX is unsound, crashes, or
// depends on unbounded integers: bounds of even powers of factors that may be
// negative are computed soundly; `0 * inf` is 0; derived constraints that
// would not eliminate the leading term are skipped (JAX recurses forever);
// arithmetic that overflows int64 drops the fact (sound); a work limit stops
// pathological recursions with (-inf, inf).
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include "tessera/SymbolicShape/Decision.h"

using namespace mlir::tessera::symbolic;
using namespace mlir::tessera::symbolic::detail;

/// Limits of one bounds computation.
static constexpr unsigned kMaxBoundsWork = 200000;
static constexpr unsigned kMaxBoundsDepth = 256;

//===----------------------------------------------------------------------===//
// Bounds helpers
//===----------------------------------------------------------------------===//

std::string Bound::str() const {
  if (isNegInf())
    return "-inf";
  if (isPosInf())
    return "inf";
  return std::to_string(value);
}

std::string DimBounds::str() const {
  return "(" + lower.str() + ", " + upper.str() + ")";
}

static Bound maxB(Bound a, Bound b) { return a < b ? b : a; }
static Bound minB(Bound a, Bound b) { return a < b ? a : b; }

bool detail::boundsAreSufficient(BoundsPrecision prec, Bound lb, Bound ub) {
  switch (prec) {
  case BoundsPrecision::ForGeq0OrLeq0:
    return lb >= 0 || ub <= 0;
  case BoundsPrecision::ForGeq0OrLt0:
    return lb >= 0 || ub < 0;
  case BoundsPrecision::Best:
    return false;
  }
  llvm_unreachable("unknown precision");
}

/// The sign of a bound (infinities included); 0 only for a finite 0.
static int signOf(Bound b) {
  if (b.isPosInf())
    return 1;
  if (b.isNegInf())
    return -1;
  return b.getValue() > 0 ? 1 : (b.getValue() < 0 ? -1 : 0);
}

/// `a * b` with infinities (0 * inf = 0) and overflow to infinity.
static Bound mulBounds(Bound a, Bound b) {
  int sa = signOf(a), sb = signOf(b);
  if (sa == 0 || sb == 0)
    return Bound::finite(0);
  if (a.isFinite() && b.isFinite())
    if (auto r = checkedMul(a.getValue(), b.getValue()))
      return Bound::finite(*r);
  return sa * sb > 0 ? Bound::posInf() : Bound::negInf();
}

/// `b ** e` (e >= 1) with infinities and overflow to infinity.
static Bound powBound(Bound b, int64_t e) {
  bool odd = e % 2 == 1;
  if (b.isPosInf())
    return Bound::posInf();
  if (b.isNegInf())
    return odd ? Bound::negInf() : Bound::posInf();
  if (auto r = checkedPow(b.getValue(), e))
    return Bound::finite(*r);
  return (b.getValue() < 0 && odd) ? Bound::negInf() : Bound::posInf();
}

/// The interval of `x ** e` for `x` in [lo, hi].
static std::pair<Bound, Bound> powInterval(Bound lo, Bound hi, int64_t e) {
  if (e == 1)
    return {lo, hi};
  bool even = e % 2 == 0;
  if (even && lo < 0 && hi > 0)
    return {Bound::finite(0), maxB(powBound(lo, e), powBound(hi, e))};
  if (even && hi <= 0)
    return {powBound(hi, e), powBound(lo, e)};
  return {powBound(lo, e), powBound(hi, e)};
}

/// JAX's `math_floor_with_inf(a, b)`: floor(a / b) aware of infinities.
static Bound floorWithInf(Bound a, Bound b) {
  bool aNonNeg = !(a < 0), bNonNeg = !(b < 0);
  if (b.isFinite()) {
    if (a.isFinite()) {
      if (auto q = floorDivInt(a.getValue(), b.getValue()))
        return Bound::finite(*q);
      return Bound::posInf();
    }
    return aNonNeg != bNonNeg ? Bound::negInf() : Bound::posInf();
  }
  if (a.isFinite())
    return Bound::finite(aNonNeg != bNonNeg ? -1 : 0);
  return aNonNeg != bNonNeg ? Bound::negInf() : Bound::posInf();
}

/// A description of a derived constraint for messages (JAX would print
/// `None` here).
static std::string describeConstraint(const std::optional<std::string> &debug,
                                      Comparator cmp, const DimExpr &e) {
  if (debug && !debug->empty())
    return *debug;
  return e.str() + (cmp == Comparator::EQ ? " == 0" : " >= 0");
}

//===----------------------------------------------------------------------===//
// ScopeCaches
//===----------------------------------------------------------------------===//

ScopeCaches::ScopeCaches() = default;
ScopeCaches::~ScopeCaches() = default;

void ScopeCaches::clear() {
  boundsCache.clear();
  initialState.reset();
  strongCache.clear();
  strongSatisfiable.reset();
}

//===----------------------------------------------------------------------===//
// DecisionState
//===----------------------------------------------------------------------===//

DimResult<std::unique_ptr<DecisionState>>
DecisionState::build(SymbolicScope &scope) {
  if (!scope.isInitialized() || scope.getConstraints().empty()) {
    auto state = std::make_unique<DecisionState>(scope);
    DIM_TRY_STATUS(state->initialize());
    return state;
  }
  ScopeCaches &caches = scope.getCaches();
  if (!caches.initialState) {
    auto state = std::make_unique<DecisionState>(scope);
    DIM_TRY_STATUS(state->initialize());
    caches.initialState = std::move(state);
  }
  return std::make_unique<DecisionState>(*caches.initialState);
}

DimStatus DecisionState::initialize() {
  // The heuristics depend on the order; JAX processes constraints in the
  // order the user wrote them.
  for (const ExplicitConstraint &c : scope->getConstraints()) {
    if (!c.diff.isConstant())
      DIM_TRY_STATUS(addImplicitConstraintsExpr(c.diff));
    DIM_TRY_STATUS(combineAndAddConstraint(c.cmp, c.diff, DimExpr(0), c.text));
    scope->getCaches().boundsCache.clear();
    scope->getCaches().strongCache.clear();
  }
  return DimStatus::success();
}

DimStatus
DecisionState::combineAndAddConstraint(Comparator cmp, const DimExpr &e1,
                                       const DimExpr &e2,
                                       std::optional<std::string> debug) {
  auto diff = sub(e1, e2);
  if (diff.failed()) {
    if (diff.getError().getKind() == DimErrorKind::Overflow)
      return DimStatus::success(); // Dropping a fact is sound.
    return diff.getError();
  }
  const DimExpr &e = *diff;
  if (auto k = e.getConstant()) {
    if (*k < 0)
      return DimError::value("Unsatisfiable constraint: " +
                             (debug ? *debug : e1.str() + " >= " + e2.str()));
    return DimStatus::success();
  }
  DIM_TRY_STATUS(addToState(cmp, e, debug));
  llvm::SmallVector<std::pair<Comparator, DimExpr>, 4> combinations;
  DIM_TRY_STATUS(combineConstraintWithExisting(cmp, e, debug, combinations));
  for (auto &[c, a] : combinations)
    DIM_TRY_STATUS(addToState(c, a, std::nullopt));
  return DimStatus::success();
}

DimStatus DecisionState::combineAndAddConstraint(Comparator cmp,
                                                 const DimExpr &e1, Bound b2) {
  if (!b2.isFinite())
    return DimStatus::success();
  return combineAndAddConstraint(cmp, e1, DimExpr(b2.getValue()), std::nullopt);
}

DimStatus DecisionState::combineAndAddConstraint(Comparator cmp, Bound b1,
                                                 const DimExpr &e2) {
  if (!b1.isFinite())
    return DimStatus::success();
  return combineAndAddConstraint(cmp, DimExpr(b1.getValue()), e2, std::nullopt);
}

DimStatus DecisionState::addToState(Comparator cmp, const DimExpr &e,
                                    const std::optional<std::string> &debug) {
  assert(!e.isConstant() && "constant constraints are handled by callers");
  // Is it `n + k*t` for a single non-constant term t?
  int64_t n = 0, tk = 0;
  const TermStorage *t = nullptr;
  bool single = true;
  for (const TermCoeff &tc : e.getImpl()->terms) {
    if (tc.term->factors.empty()) {
      n = tc.coeff;
      continue;
    }
    if (t) {
      single = false;
      break;
    }
    t = tc.term;
    tk = tc.coeff;
  }
  if (single) {
    auto [lb, ub] = termBounds.lookup_or(t, {Bound::negInf(), Bound::posInf()});
    if (cmp == Comparator::EQ) {
      if (floorModInt(n, tk) != 0)
        return DimError::value("Unsatisfiable constraint: " +
                               describeConstraint(debug, cmp, e));
      auto q = floorDivInt(n, tk);
      auto tVal = q ? checkedNeg(*q) : std::nullopt;
      if (!tVal)
        return DimStatus::success();
      lb = maxB(lb, Bound::finite(*tVal));
      ub = minB(ub, Bound::finite(*tVal));
    } else {
      auto negN = checkedNeg(n);
      if (!negN)
        return DimStatus::success();
      if (tk > 0) {
        if (auto c = ceilDivInt(*negN, tk))
          lb = maxB(lb, Bound::finite(*c));
      } else {
        if (auto f = floorDivInt(*negN, tk))
          ub = minB(ub, Bound::finite(*f));
      }
    }
    if (lb > ub)
      return DimError::value("Unsatisfiable constraint: " +
                             describeConstraint(debug, cmp, e));
    termBounds[t] = {lb, ub};
    return DimStatus::success();
  }
  const TermCoeff &lead = e.getImpl()->terms.front();
  // Expressions are uniqued in the scope: identical means the same storage.
  if (!constraintKeys
           .insert({static_cast<unsigned>(cmp), lead.coeff, e.getImpl()})
           .second)
    return DimStatus::success();
  auto &list = exprConstraints[lead.term];
  unsigned keyIndex = static_cast<unsigned>(exprConstraints.find(lead.term) -
                                            exprConstraints.begin());
  unsigned listIndex = list.size();
  list.push_back(ExprConstraint{cmp, lead.coeff, e});
  for (const TermCoeff &tc : e.getImpl()->terms)
    if (!tc.term->factors.empty())
      termOccurrences[tc.term].push_back({keyIndex, listIndex});
  return DimStatus::success();
}

llvm::SmallVector<DecisionState::Combination, 4>
DecisionState::combineTermWithExisting(const TermStorage *t, int64_t tk,
                                       bool onlySmallerThanT) {
  llvm::SmallVector<Combination, 4> acc;
  if (tk == std::numeric_limits<int64_t>::min())
    return acc;
  int64_t absK = tk < 0 ? -tk : tk;
  int64_t sgn = tk >= 0 ? 1 : -1;
  auto [lb, ub] = termBounds.lookup_or(t, {Bound::negInf(), Bound::posInf()});
  TermCoeff plusT{t, 1}, minusT{t, -1};
  DimExpr tExpr = makeRawExpr(plusT, *scope);
  if (lb == ub && lb.isFinite()) {
    if (auto c = sub(tExpr, lb.getValue()))
      acc.push_back({Comparator::EQ, *c, absK, -sgn});
  } else {
    if (lb.isFinite())
      if (auto c = sub(tExpr, lb.getValue()))
        acc.push_back({Comparator::GEQ, *c, absK, -sgn});
    if (ub.isFinite())
      if (auto c = add(makeRawExpr(minusT, *scope), ub.getValue()))
        acc.push_back({Comparator::GEQ, *c, absK, sgn});
  }
  auto visit = [&](llvm::ArrayRef<ExprConstraint> list) {
    for (const ExprConstraint &ec : list) {
      if (ec.expr.isConstant())
        continue;
      for (const TermCoeff &tc : ec.expr.getImpl()->terms) {
        if (tc.term != t)
          continue;
        if (auto scale = checkedMul(-tc.coeff, sgn);
            scale && tc.coeff != std::numeric_limits<int64_t>::min())
          acc.push_back({ec.cmp, ec.expr, absK, *scale});
        break;
      }
    }
  };
  if (onlySmallerThanT) {
    auto it = exprConstraints.find(t);
    if (it != exprConstraints.end())
      visit(it->second);
  } else {
    // The constraints that mention t, in the order of `exprConstraints`.
    auto it = termOccurrences.find(t);
    if (it != termOccurrences.end()) {
      llvm::SmallVector<std::pair<unsigned, unsigned>, 8> where(
          it->second.begin(), it->second.end());
      llvm::sort(where);
      for (auto [keyIndex, listIndex] : where)
        visit((exprConstraints.begin() + keyIndex)->second[listIndex]);
    }
  }
  return acc;
}

DimStatus DecisionState::combineConstraintWithExisting(
    Comparator cmp, const DimExpr &e, const std::optional<std::string> &debug,
    llvm::SmallVectorImpl<std::pair<Comparator, DimExpr>> &result) {
  // The combinations found so far (expressions are uniqued in the scope).
  llvm::DenseSet<std::pair<unsigned, const ExprStorage *>> seen;
  for (const auto &[c, expr] : result)
    seen.insert({static_cast<unsigned>(c), expr.getImpl()});
  for (const TermCoeff &tc : e.getImpl()->terms) {
    if (tc.term->factors.empty())
      continue;
    for (const Combination &comb : combineTermWithExisting(
             tc.term, tc.coeff, /*onlySmallerThanT=*/false)) {
      if (!(comb.tScale > 0 || cmp == Comparator::EQ))
        continue;
      Comparator newCmp = (cmp == Comparator::EQ && comb.cmp == Comparator::EQ)
                              ? Comparator::EQ
                              : Comparator::GEQ;
      auto combined = linearCombination(e, comb.tScale, comb.c, comb.cScale);
      if (combined.failed()) {
        if (combined.getError().getKind() == DimErrorKind::Overflow)
          continue;
        return combined.getError();
      }
      if (auto k = combined->getConstant()) {
        if ((newCmp == Comparator::GEQ && *k < 0) ||
            (newCmp == Comparator::EQ && *k != 0))
          return DimError::value(
              "Unsatisfiable constraints: " +
              ((debug && !debug->empty()) ? *debug : e.str() + " >= 0"));
        continue;
      }
      if (seen.insert({static_cast<unsigned>(newCmp), combined->getImpl()})
              .second)
        result.push_back({newCmp, *combined});
    }
  }
  return DimStatus::success();
}

DimResult<DimBounds> DecisionState::bounds(const DimExpr &e,
                                           BoundsPrecision prec,
                                           bool addImplicitConstraints) {
  if (auto k = e.getConstant())
    return DimBounds{Bound::finite(*k), Bound::finite(*k)};
  auto &cache = scope->getCaches().boundsCache;
  auto it = cache.find(e.getImpl());
  if (it != cache.end()) {
    const CachedBounds &c = it->second;
    if (boundsAreSufficient(prec, c.lower, c.upper) || c.precision >= prec)
      return DimBounds{c.lower, c.upper};
  }
  if (addImplicitConstraints)
    DIM_TRY_STATUS(addImplicitConstraintsExpr(e));
  work = 0;
  auto [lb, ub] = boundsForSortedTerms(e.getImpl()->terms, 0, prec, 0);
  scope->getCaches().boundsCache[e.getImpl()] = CachedBounds{lb, ub, prec};
  return DimBounds{lb, ub};
}

std::pair<Bound, Bound>
DecisionState::boundsForSortedTerms(llvm::ArrayRef<TermCoeff> e, unsigned i,
                                    BoundsPrecision prec, unsigned depth) {
  if (++work > kMaxBoundsWork || depth > kMaxBoundsDepth)
    return {Bound::negInf(), Bound::posInf()};
  if (i >= e.size())
    return {Bound::finite(0), Bound::finite(0)};
  const TermStorage *t = e[i].term;
  int64_t tk = e[i].coeff;
  if (t->factors.empty())
    return {Bound::finite(tk), Bound::finite(tk)};

  Bound lb = Bound::negInf(), ub = Bound::posInf();
  for (const Combination &comb :
       combineTermWithExisting(t, tk, /*onlySmallerThanT=*/true)) {
    // rest = e[i:]*tScale + c*cScale contains only terms smaller than t.
    TermList cTerms = getTermList(comb.c);
    auto rest = combineSortedTerms(e, i, comb.tScale, cTerms, 0, comb.cScale);
    if (!rest)
      continue;
    if (!rest->empty() && compareTerms(rest->front().term, t) >= 0)
      continue;
    auto [restLb, restUb] =
        boundsForSortedTerms(*rest, 0, BoundsPrecision::Best, depth + 1);
    if (restUb.isFinite()) {
      // e[i:]*tScale = rest - c*cScale <= restUb.
      if (comb.tScale > 0) {
        if (auto f = floorDivInt(restUb.getValue(), comb.tScale))
          ub = minB(ub, Bound::finite(*f));
      } else {
        if (auto c = ceilDivInt(restUb.getValue(), comb.tScale))
          lb = maxB(lb, Bound::finite(*c));
      }
    }
    if (restLb.isFinite() && comb.cmp == Comparator::EQ) {
      // e[i:]*tScale = rest >= restLb.
      if (comb.tScale > 0) {
        if (auto c = ceilDivInt(restLb.getValue(), comb.tScale))
          lb = maxB(lb, Bound::finite(*c));
      } else {
        if (auto f = floorDivInt(restLb.getValue(), comb.tScale))
          ub = minB(ub, Bound::finite(*f));
      }
    }
    if (boundsAreSufficient(prec, lb, ub))
      return {lb, ub};
  }

  // k*max(op1, op2) + rest >= max(k*op1 + rest, k*op2 + rest) for k > 0, and
  // the symmetric rules.
  if (t->factors.size() == 1 && t->factors[0].exponent == 1) {
    const FactorStorage *f = t->factors[0].factor;
    if (f->kind == FactorKind::Max || f->kind == FactorKind::Min) {
      TermList op1 = getTermList(f->operands[0]);
      TermList op2 = getTermList(f->operands[1]);
      auto rest1 = combineSortedTerms(e, i + 1, 1, op1, 0, tk);
      auto rest2 = combineSortedTerms(e, i + 1, 1, op2, 0, tk);
      if (rest1 && rest2) {
        auto [l1, u1] =
            boundsForSortedTerms(*rest1, 0, BoundsPrecision::Best, depth + 1);
        auto [l2, u2] =
            boundsForSortedTerms(*rest2, 0, BoundsPrecision::Best, depth + 1);
        bool likeMax = f->kind == FactorKind::Max ? tk > 0 : tk < 0;
        if (likeMax) {
          lb = maxB(lb, maxB(l1, l2));
          ub = minB(ub, maxB(u1, u2));
        } else {
          lb = maxB(lb, minB(l1, l2));
          ub = minB(ub, minB(u1, u2));
        }
        if (boundsAreSufficient(prec, lb, ub))
          return {lb, ub};
      }
    }
  }
  return {lb, ub};
}

DimStatus DecisionState::addImplicitConstraintsExpr(const DimExpr &e) {
  if (e.isConstant())
    return DimStatus::success();
  for (const TermCoeff &tc : e.getImpl()->terms) {
    if (tc.term->factors.empty())
      continue;
    DIM_TRY_STATUS(addImplicitConstraintsTerm(tc.term));
  }
  return DimStatus::success();
}

DimStatus DecisionState::addImplicitConstraintsTerm(const TermStorage *t) {
  if (!processed.insert(t).second)
    return DimStatus::success();
  DimContext &ctx = scope->getContext();
  DIM_TRY_ASSIGN(tExpr, exprFromTerm(t, 1, *scope));

  if (t->factors.size() != 1 || t->factors[0].exponent != 1) {
    // A product: bounds from the bounds of the factors.
    llvm::SmallVector<std::pair<Bound, Bound>, 4> factorBounds;
    for (const FactorPower &fp : t->factors) {
      const TermStorage *ft = getFactorTerm(ctx, fp.factor, 1);
      DIM_TRY_ASSIGN(fe, exprFromTerm(ft, 1, *scope));
      DIM_TRY_STATUS(addImplicitConstraintsTerm(ft));
      DIM_TRY_ASSIGN(b, bounds(fe, BoundsPrecision::Best, false));
      factorBounds.push_back(powInterval(b.lower, b.upper, fp.exponent));
    }
    // min and max over all products of endpoints.
    llvm::SmallVector<Bound, 16> candidates{Bound::finite(1)};
    for (auto [lo, hi] : factorBounds) {
      llvm::SmallVector<Bound, 16> next;
      for (Bound c : candidates) {
        next.push_back(mulBounds(c, lo));
        next.push_back(mulBounds(c, hi));
      }
      // Only the extremes matter for the final min and max.
      Bound mn = next.front(), mx = next.front();
      for (Bound b : next) {
        mn = minB(mn, b);
        mx = maxB(mx, b);
      }
      candidates = {mn, mx};
    }
    Bound mL = minB(candidates.front(), candidates.back());
    Bound mU = maxB(candidates.front(), candidates.back());
    DIM_TRY_STATUS(combineAndAddConstraint(Comparator::GEQ, tExpr, mL));
    DIM_TRY_STATUS(combineAndAddConstraint(Comparator::GEQ, mU, tExpr));
    return DimStatus::success();
  }

  const FactorStorage *f = t->factors[0].factor;
  if (f->kind == FactorKind::Variable)
    return combineAndAddConstraint(Comparator::GEQ, tExpr, DimExpr(1),
                                   std::nullopt);

  DimExpr op1 = exprFromStorage(f->operands[0], scope);
  DimExpr op2 = exprFromStorage(f->operands[1], scope);
  DIM_TRY_STATUS(addImplicitConstraintsExpr(op1));
  DIM_TRY_STATUS(addImplicitConstraintsExpr(op2));

  switch (f->kind) {
  case FactorKind::Mod: {
    DIM_TRY_ASSIGN(b2, bounds(op2, BoundsPrecision::ForGeq0OrLt0, false));
    if (b2.lower > 0) {
      DIM_TRY_STATUS(combineAndAddConstraint(Comparator::GEQ, tExpr, DimExpr(0),
                                             std::nullopt));
      DIM_TRY_ASSIGN(op2m1, sub(op2, 1));
      DIM_TRY_STATUS(
          combineAndAddConstraint(Comparator::GEQ, op2m1, tExpr, std::nullopt));
      if (b2.upper.isFinite())
        if (auto u = checkedAdd(b2.upper.getValue(), -1))
          DIM_TRY_STATUS(combineAndAddConstraint(Comparator::GEQ,
                                                 Bound::finite(*u), tExpr));
    } else if (b2.upper < 0) {
      DIM_TRY_ASSIGN(op2p1, add(op2, 1));
      DIM_TRY_STATUS(
          combineAndAddConstraint(Comparator::GEQ, tExpr, op2p1, std::nullopt));
      if (b2.lower.isFinite())
        if (auto l = checkedAdd(b2.lower.getValue(), 1))
          DIM_TRY_STATUS(combineAndAddConstraint(Comparator::GEQ, tExpr,
                                                 Bound::finite(*l)));
      DIM_TRY_STATUS(combineAndAddConstraint(Comparator::GEQ, DimExpr(0), tExpr,
                                             std::nullopt));
    }
    return DimStatus::success();
  }
  case FactorKind::FloorDiv: {
    DIM_TRY_ASSIGN(b1, bounds(op1, BoundsPrecision::Best, false));
    DIM_TRY_ASSIGN(b2, bounds(op2, BoundsPrecision::Best, false));
    if (b2.lower <= 0 && b2.upper >= 0)
      return DimError::inconclusive("Possible division by 0 in division by " +
                                    op2.str());
    Bound cands[4] = {
        floorWithInf(b1.lower, b2.lower), floorWithInf(b1.lower, b2.upper),
        floorWithInf(b1.upper, b2.lower), floorWithInf(b1.upper, b2.upper)};
    Bound mL = cands[0], mU = cands[0];
    for (Bound c : cands) {
      mL = minB(mL, c);
      mU = maxB(mU, c);
    }
    DIM_TRY_STATUS(combineAndAddConstraint(Comparator::GEQ, tExpr, mL));
    DIM_TRY_STATUS(combineAndAddConstraint(Comparator::GEQ, mU, tExpr));
    if (b2.lower >= 0) {
      if (b1.lower >= 0)
        DIM_TRY_STATUS(combineAndAddConstraint(Comparator::GEQ, tExpr,
                                               DimExpr(0), std::nullopt));
      DIM_TRY_ASSIGN(modE, makeOperation(FactorKind::Mod, op1, op2, scope));
      DIM_TRY_STATUS(addImplicitConstraintsExpr(modE));
      auto combined = add(mul(op2, tExpr), modE);
      if (combined.failed()) {
        if (combined.getError().getKind() == DimErrorKind::Overflow)
          return DimStatus::success();
        return combined.getError();
      }
      DIM_TRY_STATUS(combineAndAddConstraint(Comparator::EQ, op1, *combined,
                                             std::nullopt));
    }
    return DimStatus::success();
  }
  case FactorKind::Max:
  case FactorKind::Min: {
    bool isMax = f->kind == FactorKind::Max;
    DIM_TRY_ASSIGN(b1, bounds(op1, BoundsPrecision::Best, false));
    DIM_TRY_ASSIGN(b2, bounds(op2, BoundsPrecision::Best, false));
    Bound lo = isMax ? maxB(b1.lower, b2.lower) : minB(b1.lower, b2.lower);
    Bound hi = isMax ? maxB(b1.upper, b2.upper) : minB(b1.upper, b2.upper);
    DIM_TRY_STATUS(combineAndAddConstraint(Comparator::GEQ, tExpr, lo));
    DIM_TRY_STATUS(combineAndAddConstraint(Comparator::GEQ, hi, tExpr));
    if (isMax) {
      DIM_TRY_STATUS(
          combineAndAddConstraint(Comparator::GEQ, tExpr, op1, std::nullopt));
      DIM_TRY_STATUS(
          combineAndAddConstraint(Comparator::GEQ, tExpr, op2, std::nullopt));
    } else {
      DIM_TRY_STATUS(
          combineAndAddConstraint(Comparator::GEQ, op1, tExpr, std::nullopt));
      DIM_TRY_STATUS(
          combineAndAddConstraint(Comparator::GEQ, op2, tExpr, std::nullopt));
    }
    return DimStatus::success();
  }
  case FactorKind::Variable:
    break;
  }
  llvm_unreachable("handled above");
}

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

DimResult<DimBounds> detail::boundsDecision(const DimExpr &e,
                                            BoundsPrecision prec) {
  if (auto k = e.getConstant())
    return DimBounds{Bound::finite(*k), Bound::finite(*k)};
  SymbolicScope &scope = *e.getScope();
  DIM_TRY_ASSIGN(state, DecisionState::build(scope));
  DIM_TRY_ASSIGN(jax, state->bounds(e, prec, /*addImplicitConstraints=*/true));
  if (scope.getDecisionMode() != DecisionMode::Strong)
    return jax;
  if (boundsAreSufficient(prec, jax.lower, jax.upper) || jax.lower == jax.upper)
    return jax;
  return strongRefineBounds(*state, e, prec, jax);
}

DimResult<DimBounds> mlir::tessera::symbolic::getBounds(DimOperand e,
                                                        BoundsPrecision prec) {
  DIM_TRY_ASSIGN(expr, e.get());
  return boundsDecision(expr, prec);
}

llvm::StringRef mlir::tessera::symbolic::getCompareOpSpelling(CompareOp op) {
  switch (op) {
  case CompareOp::GE:
    return ">=";
  case CompareOp::LE:
    return "<=";
  case CompareOp::GT:
    return ">";
  case CompareOp::LT:
    return "<";
  case CompareOp::EQ:
    return "==";
  case CompareOp::NE:
    return "!=";
  }
  llvm_unreachable("unknown comparison");
}

/// JAX's `_geq_decision(e1, e2, cmp_str)`.
static DimResult<bool> geqDecision(const DimExpr &e1, const DimExpr &e2,
                                   const std::string &cmpStr) {
  SymbolicScope *scope = nullptr;
  if (!e1.isConstant()) {
    scope = e1.getScope();
    if (!e2.isConstant())
      DIM_TRY_STATUS(checkSameScope(*scope, e2, "when comparing " + cmpStr));
  } else if (!e2.isConstant()) {
    scope = e2.getScope();
  } else {
    return *e1.getConstant() >= *e2.getConstant();
  }
  DIM_TRY_ASSIGN(diff, sub(e1, e2));
  DIM_TRY_ASSIGN(b, boundsDecision(diff, BoundsPrecision::ForGeq0OrLt0));
  if (b.lower >= 0)
    return true;
  if (b.upper < 0)
    return false;
  std::string describeScope;
  if (!scope->getConstraints().empty())
    describeScope = "\nUsing symbolic scope " + scope->str();
  return DimError::inconclusive("Symbolic dimension comparison " + cmpStr +
                                " is inconclusive." + describeScope);
}

DimResult<bool> mlir::tessera::symbolic::compare(DimOperand lhsOp, CompareOp op,
                                                 DimOperand rhsOp) {
  DIM_TRY_ASSIGN(lhs, lhsOp.get());
  DIM_TRY_ASSIGN(rhs, rhsOp.get());
  std::string cmpStr = "'" + lhs.str() + "' " + getCompareOpSpelling(op).str() +
                       " '" + rhs.str() + "'";
  switch (op) {
  case CompareOp::GE:
    return geqDecision(lhs, rhs, cmpStr);
  case CompareOp::LE:
    return geqDecision(rhs, lhs, cmpStr);
  case CompareOp::GT: {
    DIM_TRY_ASSIGN(r, geqDecision(rhs, lhs, cmpStr));
    return !r;
  }
  case CompareOp::LT: {
    DIM_TRY_ASSIGN(r, geqDecision(lhs, rhs, cmpStr));
    return !r;
  }
  case CompareOp::EQ:
    return lhs == rhs;
  case CompareOp::NE:
    return lhs != rhs;
  }
  llvm_unreachable("unknown comparison");
}

bool mlir::tessera::symbolic::definitelyEqual(DimOperand lhs, DimOperand rhs) {
  if (lhs.get().failed() || rhs.get().failed())
    return false;
  return *lhs.get() == *rhs.get();
}
