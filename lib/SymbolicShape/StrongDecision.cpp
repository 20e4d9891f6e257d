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
/// The most variables of a subsystem whose rational relaxation is
/// inconclusive that get an exact integer emptiness check (generalized basis
/// reduction, exponential in the number of variables).
static constexpr unsigned kMaxExactVars = 12;
/// The work budget of one strong query, in tableau cells (rows times
/// variables) of the systems it checks. Deterministic: once spent, the
/// remaining checks answer "not proven" and the query returns JAX's answer.
static constexpr uint64_t kWorkBudget = 4'000'000;
/// What one exact integer check costs against kWorkBudget (generalized basis
/// reduction is far dearer than a simplex run): at most 16 per question.
static constexpr uint64_t kExactCheckCost = 250'000;
/// The largest coefficient magnitude of a subsystem that gets an exact
/// integer check (basis reduction slows down with the coefficients' size).
static constexpr int64_t kMaxExactCoeff = int64_t(1) << 20;
/// The most rows of JAX's state one query takes as facts (the nearest
/// first).
static constexpr size_t kMaxFactRows = 512;

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

  /// Adds the facts of JAX's state that concern the atoms registered so far
  /// (the query's), then those of the atoms these facts bring in, breadth
  /// first, while the system has at most kMaxAtoms atoms; a fact that would
  /// need more is left out. With `all`, starts from every term of the state
  /// (the satisfiability check). Leaving facts out is sound: a system that is
  /// empty with fewer facts is empty with all of them.
  void addStateFacts(bool all = false);
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
  bool subsystemEmpty(llvm::ArrayRef<const LinearRow *> rows,
                      llvm::ArrayRef<unsigned> vars);

  DecisionState &state;
  DimContext &ctx;
  llvm::MapVector<const TermStorage *, unsigned> atoms;
  unsigned numVars = 0;
  std::vector<LinearRow> rows;
  /// Each entry: at least one of the two rows holds.
  std::vector<std::pair<LinearRow, LinearRow>> disjunctions;
  bool tooLarge = false;
  /// Atoms whose state facts are not added yet (addStateFacts' queue).
  std::vector<const TermStorage *> pending;
  /// What is left of kWorkBudget.
  uint64_t budget = kWorkBudget;
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
  pending.push_back(t);
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

void StrongDecision::addStateFacts(bool all) {
  const auto &termBounds = state.getTermBounds();
  const auto &exprConstraints = state.getExprConstraints();
  if (all) {
    for (auto &entry : termBounds)
      pending.push_back(entry.first);
    for (auto &entry : exprConstraints)
      for (const ExprConstraint &ec : entry.second)
        for (const TermCoeff &tc : ec.expr.getImpl()->terms)
          if (!tc.term->factors.empty())
            pending.push_back(tc.term);
  }
  llvm::DenseSet<const TermStorage *> visited;
  llvm::DenseSet<std::pair<unsigned, unsigned>> added;
  for (size_t next = 0; next < pending.size() && rows.size() < kMaxFactRows;
       ++next) {
    const TermStorage *t = pending[next];
    if (!visited.insert(t).second)
      continue;
    // The bounds JAX knows for t.
    if (auto it = termBounds.find(t); it != termBounds.end()) {
      unsigned id;
      if (atom(t, id)) {
        auto [lower, upper] = it->second;
        if (lower.isFinite())
          if (auto c = checkedNeg(lower.getValue())) {
            LinearRow row;
            row.coeffs = {{id, 1}};
            row.constant = *c;
            rows.push_back(row);
          }
        if (upper.isFinite()) {
          LinearRow row;
          row.coeffs = {{id, -1}};
          row.constant = upper.getValue();
          rows.push_back(row);
        }
      }
      tooLarge = false;
    }
    // The linear constraints that mention t.
    auto occ = state.termOccurrences.find(t);
    if (occ == state.termOccurrences.end())
      continue;
    for (auto [keyIndex, listIndex] : occ->second) {
      if (rows.size() >= kMaxFactRows)
        break;
      if (!added.insert({keyIndex, listIndex}).second)
        continue;
      const ExprConstraint &ec =
          (exprConstraints.begin() + keyIndex)->second[listIndex];
      LinearRow row;
      row.isEquality = ec.cmp == Comparator::EQ;
      if (linearize(ec.expr, row))
        rows.push_back(row);
      tooLarge = false;
    }
  }
}

void StrongDecision::fillCase(unsigned mask,
                              llvm::SmallVectorImpl<LinearRow> &caseRows) {
  if (disjunctions.size() > kMaxCaseSplits)
    return;
  for (auto [i, d] : llvm::enumerate(disjunctions))
    caseRows.push_back((mask >> i) & 1 ? d.second : d.first);
}

/// A union-find over variable ids, to split a system into independent parts.
namespace {
class VarClasses {
public:
  explicit VarClasses(unsigned n) : parent(n) {
    for (unsigned i = 0; i < n; ++i)
      parent[i] = i;
  }
  unsigned find(unsigned v) {
    while (parent[v] != v)
      v = parent[v] = parent[parent[v]];
    return v;
  }
  void join(unsigned a, unsigned b) { parent[find(a)] = find(b); }
  void joinRow(const LinearRow &row) {
    for (auto &[v, k] : row.coeffs)
      if (k != 0)
        join(row.coeffs.front().first, v);
  }

private:
  llvm::SmallVector<unsigned> parent;
};
} // namespace

/// Whether `row` mentions a variable.
static bool hasVars(const LinearRow &row) {
  return llvm::any_of(row.coeffs, [](auto &vk) { return vk.second != 0; });
}

/// Whether a row without variables (`c >= 0` or `c == 0`) is false.
static bool isFalseConstantRow(const LinearRow &row) {
  return row.isEquality ? row.constant != 0 : row.constant < 0;
}

/// A subsystem with its variables renumbered densely (0 .. n-1), as the
/// Presburger library wants them.
namespace {
class LocalSystem {
public:
  explicit LocalSystem(llvm::ArrayRef<unsigned> vars) {
    for (unsigned v : vars)
      local.try_emplace(v, local.size());
  }
  unsigned getNumVars() const { return local.size(); }
  /// The coefficients of `row` (then its constant) in the local numbering.
  llvm::SmallVector<DynamicAPInt, 8> coeffs(const LinearRow &row) const {
    unsigned n = getNumVars();
    llvm::SmallVector<DynamicAPInt, 8> result(n + 1, DynamicAPInt(0));
    for (auto &[v, k] : row.coeffs)
      if (k != 0)
        result[local.lookup(v)] += DynamicAPInt(k);
    result[n] = DynamicAPInt(row.constant);
    return result;
  }
  /// A simplex over the local variables with `rows` added.
  presburger::Simplex
  makeSimplex(llvm::ArrayRef<const LinearRow *> rows) const {
    presburger::Simplex simplex(getNumVars());
    for (const LinearRow *row : rows) {
      if (row->isEquality)
        simplex.addEquality(coeffs(*row));
      else
        simplex.addInequality(coeffs(*row));
    }
    return simplex;
  }

private:
  llvm::DenseMap<unsigned, unsigned> local;
};
} // namespace

bool StrongDecision::subsystemEmpty(llvm::ArrayRef<const LinearRow *> sysRows,
                                    llvm::ArrayRef<unsigned> vars) {
  if (vars.size() > kMaxAtoms)
    return false;
  uint64_t cost = static_cast<uint64_t>(sysRows.size() + 1) * (vars.size() + 1);
  if (cost > budget) {
    budget = 0;
    return false;
  }
  budget -= cost;
  LocalSystem system(vars);
  unsigned n = system.getNumVars();
  // The rational relaxation first: empty there means empty over the
  // integers; an integral optimum vertex means non-empty. Systems of
  // difference constraints (chains such as `v1 >= v0 + 1`) are decided here.
  presburger::Simplex simplex = system.makeSimplex(sysRows);
  if (simplex.isEmpty())
    return true;
  if (simplex.getSamplePointIfIntegral())
    return false;
  if (n > kMaxExactVars || budget < kExactCheckCost)
    return false;
  for (const LinearRow *row : sysRows) {
    if (row->constant > kMaxExactCoeff || row->constant < -kMaxExactCoeff)
      return false;
    for (auto &[v, k] : row->coeffs)
      if (k > kMaxExactCoeff || k < -kMaxExactCoeff)
        return false;
  }
  budget -= kExactCheckCost;
  presburger::IntegerPolyhedron poly(
      presburger::PresburgerSpace::getSetSpace(n));
  for (const LinearRow *row : sysRows) {
    if (row->isEquality)
      poly.addEquality(system.coeffs(*row));
    else
      poly.addInequality(system.coeffs(*row));
  }
  return poly.isIntegerEmpty();
}

bool StrongDecision::allEmpty(llvm::ArrayRef<LinearRow> extra) {
  unsigned numCases =
      disjunctions.size() > kMaxCaseSplits ? 1 : (1u << disjunctions.size());
  for (unsigned mask = 0; mask < numCases; ++mask) {
    if (budget == 0)
      return false;
    llvm::SmallVector<LinearRow, 8> caseRows;
    fillCase(mask, caseRows);
    llvm::SmallVector<const LinearRow *> all;
    for (const LinearRow &row : rows)
      all.push_back(&row);
    for (const LinearRow &row : caseRows)
      all.push_back(&row);
    for (const LinearRow &row : extra)
      all.push_back(&row);

    bool caseEmpty = false;
    VarClasses classes(numVars);
    for (const LinearRow *row : all) {
      if (!hasVars(*row)) {
        caseEmpty |= isFalseConstantRow(*row);
        continue;
      }
      classes.joinRow(*row);
    }
    if (caseEmpty)
      continue;
    // Only the parts of the system connected to the query's rows can make
    // it empty for a reason that concerns the query; the other parts are
    // the constraints alone (whose satisfiability is checked once per
    // scope). Without query rows, every part is checked.
    llvm::DenseSet<unsigned> wanted;
    for (const LinearRow &row : extra)
      for (auto &[v, k] : row.coeffs)
        if (k != 0)
          wanted.insert(classes.find(v));
    llvm::MapVector<unsigned, llvm::SmallVector<const LinearRow *>> parts;
    for (const LinearRow *row : all) {
      if (!hasVars(*row))
        continue;
      unsigned root = classes.find(row->coeffs.front().first);
      if (!extra.empty() && !wanted.contains(root))
        continue;
      parts[root].push_back(row);
    }
    for (auto &[root, partRows] : parts) {
      llvm::SmallVector<unsigned> vars;
      llvm::DenseSet<unsigned> seen;
      for (const LinearRow *row : partRows)
        for (auto &[v, k] : row->coeffs)
          if (k != 0 && seen.insert(v).second)
            vars.push_back(v);
      if (subsystemEmpty(partRows, vars)) {
        caseEmpty = true;
        break;
      }
    }
    if (!caseEmpty)
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
    llvm::SmallVector<const LinearRow *> all;
    for (const LinearRow &row : rows)
      all.push_back(&row);
    for (const LinearRow &row : caseRows)
      all.push_back(&row);
    // Only the part of the system connected to the objective bounds it.
    VarClasses classes(numVars);
    for (const LinearRow *row : all)
      if (hasVars(*row))
        classes.joinRow(*row);
    if (hasVars(objective))
      classes.joinRow(objective);
    llvm::SmallVector<const LinearRow *> part;
    llvm::SmallVector<unsigned> vars;
    llvm::DenseSet<unsigned> seen;
    auto addVars = [&](const LinearRow &row) {
      for (auto &[v, k] : row.coeffs)
        if (k != 0 && seen.insert(v).second)
          vars.push_back(v);
    };
    addVars(objective);
    if (!vars.empty()) {
      unsigned root = classes.find(vars.front());
      for (const LinearRow *row : all)
        if (hasVars(*row) && classes.find(row->coeffs.front().first) == root) {
          part.push_back(row);
          addVars(*row);
        }
    }
    uint64_t cost = static_cast<uint64_t>(part.size() + 1) * (vars.size() + 1);
    if (vars.size() > kMaxAtoms || cost > budget) {
      budget = 0;
      return std::nullopt;
    }
    budget -= cost;
    LocalSystem system(vars);
    presburger::Simplex simplex = system.makeSimplex(part);
    if (simplex.isEmpty())
      continue;
    auto opt =
        simplex.computeOptimum(down ? presburger::Simplex::Direction::Down
                                    : presburger::Simplex::Direction::Up,
                               system.coeffs(objective));
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
  if (!sd.linearize(e, row))
    return jax;
  sd.addStateFacts();
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
  sd.addStateFacts(/*all=*/true);
  bool empty = sd.allEmpty({});
  caches.strongSatisfiable = !empty;
  if (empty)
    return unsatisfiable(scope);
  return DimStatus::success();
}
