//===- StrongDecision.cpp - exact integer decisions with Presburger -------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The strong decision mode. It runs only after JAX's procedure was
// inconclusive (or, for bounds, not tight), and builds a linear integer system
// from everything JAX's state knows plus exact definitions JAX lacks:
//
//  * every non-constant term becomes an integer variable (an "atom"); JAX's
//    per-term bounds and linear constraints (explicit constraints, implicit
//    facts, their one-step combinations) become rows over the atoms;
//  * `mod(E, k)` and `floordiv(E, k)` with a constant k are defined exactly
//    with a local quotient variable (k*q <= E <= k*q + k - 1);
//  * `max(E1, E2)` >= both operands and equals one of them (a case split over
//    at most kMaxCaseSplits such terms), `min` symmetrically;
//  * a product of factors that are all >= 1 is >= each factor;
//  * everything else (symbolic floordiv/mod, other products) stays opaque,
//    constrained only by the facts JAX derived.
//
// All facts are sound, so a proof here is a proof for all values of the
// dimension variables: `e >= 0` is proven when `facts && e <= -1` has no
// integer point in any case, disproven when `facts && e >= 0` has none. A
// system without any integer point means the explicit constraints are
// unsatisfiable, which is reported as an error.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include "mlir/Analysis/Presburger/Fraction.h"
#include "mlir/Analysis/Presburger/IntegerRelation.h"
#include "mlir/Analysis/Presburger/PresburgerSpace.h"
#include "mlir/Analysis/Presburger/Simplex.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir::tessera::symbolic;
using namespace mlir::tessera::symbolic::detail;
namespace presburger = mlir::presburger;
using llvm::DynamicAPInt;

/// The most max/min terms whose disjunctions are case-split (2^N systems).
static constexpr unsigned kMaxCaseSplits = 4;
/// The most atoms a system may have before the strong procedure gives up.
static constexpr unsigned kMaxAtoms = 128;
/// The most emptiness checks one bounds refinement may run.
static constexpr unsigned kMaxSearchSteps = 64;

namespace mlir::tessera::symbolic::detail {

/// A linear row `sum coeffs[i] * x_i + constant (>= 0 | == 0)`.
struct LinearRow {
  llvm::SmallVector<std::pair<unsigned, int64_t>, 4> coeffs;
  int64_t constant = 0;
  bool isEquality = false;
};

/// Builds and queries the linear integer system for one decision state.
class StrongDecision {
public:
  explicit StrongDecision(DecisionState &state)
      : state(state), ctx(state.getScope().getContext()) {}

  /// Adds all facts of JAX's state; false when the system is too large.
  bool addStateFacts();
  /// Linearizes `e` (registering its atoms); false when too large.
  bool linearize(const DimExpr &e, LinearRow &row);

  /// True if every case of `facts && extra` has no integer point.
  bool allEmpty(llvm::ArrayRef<LinearRow> extra);
  /// The rational minimum (`down`) or maximum of `row` over all cases, or
  /// std::nullopt if it is unbounded (or every case is empty).
  std::optional<DynamicAPInt> rationalOptimum(const LinearRow &row, bool down);

private:
  unsigned newVar() { return numVars++; }
  bool atom(const TermStorage *t, unsigned &id);
  bool linearizeTerms(llvm::ArrayRef<TermCoeff> terms, LinearRow &row);
  bool defineAtom(const TermStorage *t, unsigned id);
  bool addLinear(llvm::ArrayRef<TermCoeff> terms, int64_t scale,
                 LinearRow &row);
  void fillCase(unsigned mask, llvm::SmallVectorImpl<LinearRow> &rows);
  static llvm::SmallVector<DynamicAPInt, 8> toCoeffs(const LinearRow &row,
                                                     unsigned numVars);

  DecisionState &state;
  DimContext &ctx;
  llvm::MapVector<const TermStorage *, unsigned> atoms;
  unsigned numVars = 0;
  std::vector<LinearRow> rows;
  /// Each entry: at least one of the two rows holds.
  std::vector<std::pair<LinearRow, LinearRow>> disjunctions;
  bool tooLarge = false;
};

} // namespace mlir::tessera::symbolic::detail

bool StrongDecision::atom(const TermStorage *t, unsigned &id) {
  auto it = atoms.find(t);
  if (it != atoms.end()) {
    id = it->second;
    return true;
  }
  if (atoms.size() >= kMaxAtoms) {
    tooLarge = true;
    return false;
  }
  id = newVar();
  atoms[t] = id;
  return defineAtom(t, id);
}

bool StrongDecision::addLinear(llvm::ArrayRef<TermCoeff> terms, int64_t scale,
                               LinearRow &row) {
  for (const TermCoeff &tc : terms) {
    auto c = checkedMul(tc.coeff, scale);
    if (!c)
      return false;
    if (tc.term->factors.empty()) {
      auto sum = checkedAdd(row.constant, *c);
      if (!sum)
        return false;
      row.constant = *sum;
      continue;
    }
    unsigned id;
    if (!atom(tc.term, id))
      return false;
    bool merged = false;
    for (auto &[v, k] : row.coeffs) {
      if (v != id)
        continue;
      auto sum = checkedAdd(k, *c);
      if (!sum)
        return false;
      k = *sum;
      merged = true;
      break;
    }
    if (!merged)
      row.coeffs.push_back({id, *c});
  }
  return true;
}

bool StrongDecision::linearizeTerms(llvm::ArrayRef<TermCoeff> terms,
                                    LinearRow &row) {
  return addLinear(terms, 1, row);
}

bool StrongDecision::linearize(const DimExpr &e, LinearRow &row) {
  TermList terms = getTermList(e);
  return linearizeTerms(terms, row);
}

bool StrongDecision::defineAtom(const TermStorage *t, unsigned id) {
  // A product of factors that are all >= 1 is >= each of its factors.
  if (t->factors.size() != 1 || t->factors[0].exponent != 1) {
    const auto &termBounds = state.getTermBounds();
    bool allAtLeastOne = llvm::all_of(t->factors, [&](const FactorPower &fp) {
      auto it = termBounds.find(getFactorTerm(ctx, fp.factor, 1));
      return it != termBounds.end() && it->second.first >= 1;
    });
    if (!allAtLeastOne)
      return true;
    for (const FactorPower &fp : t->factors) {
      unsigned fid;
      if (!atom(getFactorTerm(ctx, fp.factor, 1), fid))
        return false;
      LinearRow row; // t - f >= 0
      row.coeffs = {{id, 1}, {fid, -1}};
      rows.push_back(row);
    }
    return true;
  }
  const FactorStorage *f = t->factors[0].factor;
  if (f->kind == FactorKind::Variable) {
    LinearRow row; // v - 1 >= 0
    row.coeffs = {{id, 1}};
    row.constant = -1;
    rows.push_back(row);
    return true;
  }
  TermList op1 = getTermList(f->operands[0]);
  TermList op2 = getTermList(f->operands[1]);
  std::optional<int64_t> divisor;
  if (op2.empty())
    divisor = 0;
  else if (op2.size() == 1 && op2[0].term->factors.empty())
    divisor = op2[0].coeff;

  switch (f->kind) {
  case FactorKind::Mod:
  case FactorKind::FloorDiv: {
    // Make the operand terms atoms either way (their facts may matter).
    LinearRow e1;
    if (!linearizeTerms(op1, e1))
      return false;
    if (!divisor) {
      LinearRow e2;
      return linearizeTerms(op2, e2);
    }
    int64_t k = *divisor;
    if (k == 0 || k == std::numeric_limits<int64_t>::min())
      return true;
    // q = floor(E / k); for k < 0, floor(E / k) = floor(-E / |k|).
    int64_t m = k < 0 ? -k : k;
    int64_t sign = k < 0 ? -1 : 1;
    unsigned q = id;
    if (f->kind == FactorKind::Mod)
      q = newVar();
    // sign*E - m*q >= 0
    LinearRow lower;
    if (!addLinear(op1, sign, lower))
      return false;
    lower.coeffs.push_back({q, -m});
    rows.push_back(lower);
    // m*q + m - 1 - sign*E >= 0
    LinearRow upper;
    if (!addLinear(op1, -sign, upper))
      return false;
    upper.coeffs.push_back({q, m});
    auto c = checkedAdd(upper.constant, m - 1);
    if (!c)
      return false;
    upper.constant = *c;
    rows.push_back(upper);
    if (f->kind == FactorKind::Mod) {
      // mod = E - k*q.
      LinearRow def;
      def.isEquality = true;
      if (!addLinear(op1, -1, def))
        return false;
      def.coeffs.push_back({id, 1});
      def.coeffs.push_back({q, k});
      rows.push_back(def);
    }
    return true;
  }
  case FactorKind::Max:
  case FactorKind::Min: {
    bool isMax = f->kind == FactorKind::Max;
    // For max: t - E1 >= 0, t - E2 >= 0, and (E1 - t >= 0 or E2 - t >= 0).
    int64_t s = isMax ? 1 : -1;
    LinearRow ge1, ge2, le1, le2;
    if (!addLinear(op1, -s, ge1) || !addLinear(op2, -s, ge2) ||
        !addLinear(op1, s, le1) || !addLinear(op2, s, le2))
      return false;
    ge1.coeffs.push_back({id, s});
    ge2.coeffs.push_back({id, s});
    le1.coeffs.push_back({id, -s});
    le2.coeffs.push_back({id, -s});
    rows.push_back(ge1);
    rows.push_back(ge2);
    disjunctions.push_back({le1, le2});
    return true;
  }
  case FactorKind::Variable:
    break;
  }
  return true;
}

bool StrongDecision::addStateFacts() {
  for (auto &[t, b] : state.getTermBounds()) {
    unsigned id;
    if (!atom(t, id))
      return false;
    if (b.first.isFinite()) {
      LinearRow row;
      row.coeffs = {{id, 1}};
      auto c = checkedNeg(b.first.getValue());
      if (!c)
        return false;
      row.constant = *c;
      rows.push_back(row);
    }
    if (b.second.isFinite()) {
      LinearRow row;
      row.coeffs = {{id, -1}};
      row.constant = b.second.getValue();
      rows.push_back(row);
    }
  }
  for (auto &entry : state.getExprConstraints()) {
    for (const ExprConstraint &ec : entry.second) {
      LinearRow row;
      row.isEquality = ec.cmp == Comparator::EQ;
      if (!linearize(ec.expr, row))
        return false;
      rows.push_back(row);
    }
  }
  return !tooLarge;
}

llvm::SmallVector<DynamicAPInt, 8>
StrongDecision::toCoeffs(const LinearRow &row, unsigned numVars) {
  llvm::SmallVector<DynamicAPInt, 8> coeffs(numVars + 1, DynamicAPInt(0));
  for (auto &[v, k] : row.coeffs)
    coeffs[v] += DynamicAPInt(k);
  coeffs[numVars] = DynamicAPInt(row.constant);
  return coeffs;
}

void StrongDecision::fillCase(unsigned mask,
                              llvm::SmallVectorImpl<LinearRow> &caseRows) {
  if (disjunctions.size() > kMaxCaseSplits)
    return;
  for (auto [i, d] : llvm::enumerate(disjunctions))
    caseRows.push_back((mask >> i) & 1 ? d.second : d.first);
}

bool StrongDecision::allEmpty(llvm::ArrayRef<LinearRow> extra) {
  unsigned numCases =
      disjunctions.size() > kMaxCaseSplits ? 1 : (1u << disjunctions.size());
  for (unsigned mask = 0; mask < numCases; ++mask) {
    llvm::SmallVector<LinearRow, 8> caseRows;
    fillCase(mask, caseRows);
    presburger::IntegerPolyhedron poly(
        presburger::PresburgerSpace::getSetSpace(numVars));
    auto addRow = [&](const LinearRow &row) {
      auto coeffs = toCoeffs(row, numVars);
      if (row.isEquality)
        poly.addEquality(coeffs);
      else
        poly.addInequality(coeffs);
    };
    for (const LinearRow &row : rows)
      addRow(row);
    for (const LinearRow &row : caseRows)
      addRow(row);
    for (const LinearRow &row : extra)
      addRow(row);
    if (!poly.isIntegerEmpty())
      return false;
  }
  return true;
}

std::optional<DynamicAPInt>
StrongDecision::rationalOptimum(const LinearRow &objective, bool down) {
  unsigned numCases =
      disjunctions.size() > kMaxCaseSplits ? 1 : (1u << disjunctions.size());
  std::optional<DynamicAPInt> best;
  for (unsigned mask = 0; mask < numCases; ++mask) {
    llvm::SmallVector<LinearRow, 8> caseRows;
    fillCase(mask, caseRows);
    presburger::Simplex simplex(numVars);
    auto addRow = [&](const LinearRow &row) {
      auto coeffs = toCoeffs(row, numVars);
      if (row.isEquality)
        simplex.addEquality(coeffs);
      else
        simplex.addInequality(coeffs);
    };
    for (const LinearRow &row : rows)
      addRow(row);
    for (const LinearRow &row : caseRows)
      addRow(row);
    if (simplex.isEmpty())
      continue;
    auto opt =
        simplex.computeOptimum(down ? presburger::Simplex::Direction::Down
                                    : presburger::Simplex::Direction::Up,
                               toCoeffs(objective, numVars));
    if (opt.isUnbounded())
      return std::nullopt;
    if (!opt.isBounded())
      continue;
    DynamicAPInt v = down ? presburger::ceil(opt.getBoundedOptimum())
                          : presburger::floor(opt.getBoundedOptimum());
    if (!best || (down ? v < *best : v > *best))
      best = v;
  }
  return best;
}

/// `row + k >= 0` as a row (for `e <= x` use `-e + x >= 0`).
static std::optional<LinearRow> shifted(const LinearRow &row, int64_t scale,
                                        int64_t k) {
  LinearRow r;
  for (auto &[v, c] : row.coeffs) {
    auto s = checkedMul(c, scale);
    if (!s)
      return std::nullopt;
    r.coeffs.push_back({v, *s});
  }
  auto c = checkedMul(row.constant, scale);
  if (!c)
    return std::nullopt;
  auto sum = checkedAdd(*c, k);
  if (!sum)
    return std::nullopt;
  r.constant = *sum;
  return r;
}

/// `e <= x` as a row.
static std::optional<LinearRow> atMost(const LinearRow &e, int64_t x) {
  return shifted(e, -1, x);
}
/// `e >= x` as a row.
static std::optional<LinearRow> atLeast(const LinearRow &e, int64_t x) {
  auto nx = checkedNeg(x);
  if (!nx)
    return std::nullopt;
  return shifted(e, 1, *nx);
}

/// The error for a system without integer points.
static DimError unsatisfiable(SymbolicScope &scope) {
  std::string list;
  for (const ExplicitConstraint &c : scope.getConstraints()) {
    if (!list.empty())
      list += ", ";
    list += c.text;
  }
  return DimError::value("Unsatisfiable constraints: " + list);
}

static std::optional<int64_t> toInt64(const DynamicAPInt &v) {
  if (v > DynamicAPInt(std::numeric_limits<int64_t>::max()) ||
      v < DynamicAPInt(std::numeric_limits<int64_t>::min()))
    return std::nullopt;
  return static_cast<int64_t>(v);
}

DimResult<DimBounds> detail::strongRefineBounds(DecisionState &state,
                                                const DimExpr &e,
                                                BoundsPrecision prec,
                                                DimBounds jax) {
  SymbolicScope &scope = state.getScope();
  auto key = std::make_pair(e.getImpl(), static_cast<unsigned>(prec));
  auto &cache = scope.getCaches().strongCache;
  if (auto it = cache.find(key); it != cache.end())
    return it->second;

  StrongDecision sd(state);
  LinearRow row;
  if (!sd.addStateFacts() || !sd.linearize(e, row))
    return jax;
  bool hasConstraints = !scope.getConstraints().empty();
  auto fail = [&]() -> DimResult<DimBounds> {
    if (hasConstraints)
      return unsatisfiable(scope);
    return jax;
  };

  DimBounds result = jax;
  if (prec != BoundsPrecision::Best) {
    auto below0 = atMost(row, -1);
    auto above0 = atLeast(row, 0);
    if (!below0 || !above0)
      return jax;
    if (sd.allEmpty(*below0)) {
      if (sd.allEmpty(*above0))
        return fail();
      if (result.lower < 0)
        result.lower = Bound::finite(0);
    } else {
      // e <= 0 (max/min simplification) or e <= -1 (comparisons).
      auto positive =
          atLeast(row, prec == BoundsPrecision::ForGeq0OrLeq0 ? 1 : 0);
      if (positive && sd.allEmpty(*positive)) {
        Bound ub =
            Bound::finite(prec == BoundsPrecision::ForGeq0OrLeq0 ? 0 : -1);
        if (ub < result.upper)
          result.upper = ub;
      }
    }
    cache[key] = result;
    return result;
  }

  // Best precision: the exact integer minimum and maximum, searched with
  // emptiness checks from a sound starting point.
  unsigned steps = 0;
  auto nonEmptyAtMost = [&](int64_t x) -> std::optional<bool> {
    if (++steps > kMaxSearchSteps)
      return std::nullopt;
    auto r = atMost(row, x);
    if (!r)
      return std::nullopt;
    return !sd.allEmpty(*r);
  };
  auto nonEmptyAtLeast = [&](int64_t x) -> std::optional<bool> {
    if (++steps > kMaxSearchSteps)
      return std::nullopt;
    auto r = atLeast(row, x);
    if (!r)
      return std::nullopt;
    return !sd.allEmpty(*r);
  };

  // The smallest x in [lo, hi] with pred(x) true, for a monotone predicate
  // (false ... false true ... true), given pred(hi) or hi unknown.
  auto searchUp = [&](int64_t lo, std::optional<int64_t> hi,
                      auto pred) -> std::optional<int64_t> {
    auto atLo = pred(lo);
    if (!atLo)
      return std::nullopt;
    if (*atLo)
      return lo;
    // pred(lo) is false; find some true point.
    int64_t good;
    int64_t bad = lo;
    if (hi) {
      good = *hi;
    } else {
      int64_t step = 1;
      while (true) {
        auto probe = checkedAdd(lo, step);
        if (!probe)
          return std::nullopt;
        auto v = pred(*probe);
        if (!v)
          return std::nullopt;
        if (*v) {
          good = *probe;
          break;
        }
        bad = *probe;
        if (step > (std::numeric_limits<int64_t>::max() >> 1))
          return std::nullopt;
        step <<= 1;
      }
    }
    while (good - bad > 1) {
      int64_t mid = bad + (good - bad) / 2;
      auto v = pred(mid);
      if (!v)
        return std::nullopt;
      if (*v)
        good = mid;
      else
        bad = mid;
    }
    return good;
  };

  // Lower bound.
  Bound lo = jax.lower;
  if (!lo.isFinite()) {
    if (auto r = sd.rationalOptimum(row, /*down=*/true))
      if (auto v = toInt64(*r))
        lo = Bound::finite(*v);
  }
  if (lo.isFinite()) {
    std::optional<int64_t> hi;
    if (jax.upper.isFinite() && !(jax.upper < lo))
      hi = jax.upper.getValue();
    if (hi) {
      auto top = nonEmptyAtMost(*hi);
      if (top && !*top)
        return fail();
    }
    if (auto m = searchUp(lo.getValue(), hi, nonEmptyAtMost))
      if (result.lower < Bound::finite(*m))
        result.lower = Bound::finite(*m);
  }

  // Upper bound: the largest x with `e >= x` non-empty; search on -x.
  Bound up = jax.upper;
  if (!up.isFinite()) {
    if (auto r = sd.rationalOptimum(row, /*down=*/false))
      if (auto v = toInt64(*r))
        up = Bound::finite(*v);
  }
  if (up.isFinite() && up.getValue() != std::numeric_limits<int64_t>::min()) {
    std::optional<int64_t> negLo;
    if (result.lower.isFinite() && !(up < result.lower) &&
        result.lower.getValue() != std::numeric_limits<int64_t>::min())
      negLo = -result.lower.getValue();
    auto pred = [&](int64_t negX) -> std::optional<bool> {
      return nonEmptyAtLeast(-negX);
    };
    if (auto m = searchUp(-up.getValue(), negLo, pred))
      if (Bound::finite(-*m) < result.upper)
        result.upper = Bound::finite(-*m);
  }
  cache[key] = result;
  return result;
}

DimStatus detail::strongCheckSatisfiable(SymbolicScope &scope) {
  ScopeCaches &caches = scope.getCaches();
  if (caches.strongSatisfiable)
    return *caches.strongSatisfiable ? DimStatus::success()
                                     : DimStatus(unsatisfiable(scope));
  if (scope.getConstraints().empty()) {
    caches.strongSatisfiable = true;
    return DimStatus::success();
  }
  DIM_TRY_ASSIGN(state, DecisionState::build(scope));
  StrongDecision sd(*state);
  if (!sd.addStateFacts()) {
    caches.strongSatisfiable = true;
    return DimStatus::success();
  }
  bool empty = sd.allEmpty({});
  caches.strongSatisfiable = !empty;
  if (empty)
    return unsatisfiable(scope);
  return DimStatus::success();
}
