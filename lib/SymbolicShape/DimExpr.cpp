//===- DimExpr.cpp - storage, order, printing and normal form -------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include "tessera/SymbolicShape/DimExpr.h"
#include "tessera/SymbolicShape/Scope.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>
#include <set>
#include <tuple>

using namespace mlir::tessera::symbolic;
using namespace mlir::tessera::symbolic::detail;

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

DimError DimError::inconclusive(const llvm::Twine &message) {
  // JAX appends this help text to every InconclusiveDimensionOperation.
  return DimError(
      DimErrorKind::Inconclusive,
      (message +
       "\nThis error arises for comparison operations with shapes that\n"
       "are non-constant, and the result of the operation cannot be "
       "represented as\n"
       "a boolean value for all values of the symbolic dimensions involved.\n"
       "\n"
       "Please see "
       "https://docs.jax.dev/en/latest/export/"
       "shape_poly.html#comparison-of-symbolic-dimensions-is-partially-"
       "supported\n"
       "for more details.\n")
          .str());
}

DimError DimError::overflow(const llvm::Twine &what) {
  return DimError(
      DimErrorKind::Overflow,
      ("integer overflow in " + what + ": the result does not fit in 64 bits")
          .str());
}

llvm::StringRef DimError::getKindName() const {
  switch (kind) {
  case DimErrorKind::ValueError:
    return "ValueError";
  case DimErrorKind::Inconclusive:
    return "InconclusiveDimensionOperation";
  case DimErrorKind::NotImplemented:
    return "NotImplementedError";
  case DimErrorKind::UnexpectedDimVar:
    return "UnexpectedDimVar";
  case DimErrorKind::DivisionByZero:
    return "ZeroDivisionError";
  case DimErrorKind::Overflow:
    return "OverflowError";
  case DimErrorKind::LimitExceeded:
    return "LimitExceeded";
  }
  llvm_unreachable("unknown error kind");
}

DimError detail::overflowError(llvm::StringRef what) {
  return DimError::overflow(what);
}

//===----------------------------------------------------------------------===//
// Checked integer arithmetic
//===----------------------------------------------------------------------===//

std::optional<int64_t> detail::checkedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    return std::nullopt;
  return r;
}

std::optional<int64_t> detail::checkedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    return std::nullopt;
  return r;
}

std::optional<int64_t> detail::checkedNeg(int64_t a) {
  if (a == std::numeric_limits<int64_t>::min())
    return std::nullopt;
  return -a;
}

std::optional<int64_t> detail::floorDivInt(int64_t a, int64_t b) {
  assert(b != 0 && "division by zero");
  if (a == std::numeric_limits<int64_t>::min() && b == -1)
    return std::nullopt;
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}

int64_t detail::floorModInt(int64_t a, int64_t b) {
  assert(b != 0 && "division by zero");
  if (b == -1)
    return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}

std::optional<int64_t> detail::ceilDivInt(int64_t a, int64_t b) {
  assert(b != 0 && "division by zero");
  if (a == std::numeric_limits<int64_t>::min() && b == -1)
    return std::nullopt;
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) == (b < 0)))
    ++q;
  return q;
}

std::optional<int64_t> detail::checkedPow(int64_t a, int64_t e) {
  assert(e >= 0 && "negative exponent");
  int64_t result = 1;
  if (a == 0)
    return e == 0 ? 1 : 0;
  if (a == 1)
    return 1;
  if (a == -1)
    return (e % 2 == 0) ? 1 : -1;
  int64_t base = a;
  while (e > 0) {
    if (e & 1) {
      auto r = checkedMul(result, base);
      if (!r)
        return std::nullopt;
      result = *r;
    }
    e >>= 1;
    if (e > 0) {
      auto b = checkedMul(base, base);
      if (!b)
        return std::nullopt;
      base = *b;
    }
  }
  return result;
}

//===----------------------------------------------------------------------===//
// DimContext
//===----------------------------------------------------------------------===//

namespace mlir::tessera::symbolic::detail {
static bool operator==(const FactorPower &a, const FactorPower &b) {
  return a.factor == b.factor && a.exponent == b.exponent;
}
static bool operator==(const TermCoeff &a, const TermCoeff &b) {
  return a.term == b.term && a.coeff == b.coeff;
}
} // namespace mlir::tessera::symbolic::detail

namespace {
/// Content-based hashing of uniqued arrays.
template <typename T> struct ArrayKeyInfo {
  static llvm::ArrayRef<T> getEmptyKey() {
    return llvm::ArrayRef<T>(reinterpret_cast<const T *>(uintptr_t(-1) << 4),
                             size_t(0));
  }
  static llvm::ArrayRef<T> getTombstoneKey() {
    return llvm::ArrayRef<T>(reinterpret_cast<const T *>(uintptr_t(-2) << 4),
                             size_t(0));
  }
  static unsigned getHashValue(llvm::ArrayRef<T> key) {
    llvm::hash_code h = llvm::hash_value(key.size());
    for (const T &x : key)
      h = llvm::hash_combine(h, hashOf(x));
    return static_cast<unsigned>(h);
  }
  static bool isEqual(llvm::ArrayRef<T> a, llvm::ArrayRef<T> b) {
    if (a.data() == getEmptyKey().data() || b.data() == getEmptyKey().data() ||
        a.data() == getTombstoneKey().data() ||
        b.data() == getTombstoneKey().data())
      return a.data() == b.data();
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
  }
  static llvm::hash_code hashOf(const FactorPower &p) {
    return llvm::hash_combine(p.factor, p.exponent);
  }
  static llvm::hash_code hashOf(const TermCoeff &p) {
    return llvm::hash_combine(p.term, p.coeff);
  }
};
} // namespace

struct DimContext::Impl {
  std::mutex mutex;
  llvm::BumpPtrAllocator allocator;
  llvm::StringMap<FactorStorage *> variables;
  llvm::DenseMap<std::tuple<unsigned, const ExprStorage *, const ExprStorage *>,
                 FactorStorage *>
      operations;
  llvm::DenseMap<llvm::ArrayRef<FactorPower>, TermStorage *,
                 ArrayKeyInfo<FactorPower>>
      terms;
  llvm::DenseMap<llvm::ArrayRef<TermCoeff>, ExprStorage *,
                 ArrayKeyInfo<TermCoeff>>
      exprs;
  unsigned nextScopeId = 1;
};

const TermStorage *detail::getOneTermStorage() {
  static const TermStorage oneTerm{{}, 0};
  return &oneTerm;
}

DimContext::DimContext() : impl(std::make_unique<Impl>()) {
  oneTerm = getOneTermStorage();
}

DimContext::~DimContext() = default;

unsigned DimContext::getNextScopeId() {
  std::lock_guard<std::mutex> lock(impl->mutex);
  return impl->nextScopeId++;
}

static uint64_t satAdd(uint64_t a, uint64_t b) {
  return llvm::SaturatingAdd(a, b);
}
static uint64_t satMul(uint64_t a, uint64_t b) {
  return llvm::SaturatingMultiply(a, b);
}
static uint64_t absValue(int64_t v) {
  return v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v);
}

const FactorStorage *DimContext::getVariableFactor(llvm::StringRef name) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  auto [it, inserted] = impl->variables.try_emplace(name, nullptr);
  if (inserted) {
    auto *f = new (impl->allocator.Allocate<FactorStorage>()) FactorStorage();
    f->kind = FactorKind::Variable;
    f->size = 1;
    f->name = it->getKey();
    f->operands[0] = f->operands[1] = nullptr;
    it->second = f;
  }
  return it->second;
}

const FactorStorage *DimContext::getOperationFactor(FactorKind kind,
                                                    const ExprStorage *lhs,
                                                    const ExprStorage *rhs) {
  assert(kind != FactorKind::Variable && "not an operation");
  std::lock_guard<std::mutex> lock(impl->mutex);
  auto key = std::make_tuple(static_cast<unsigned>(kind), lhs, rhs);
  auto [it, inserted] = impl->operations.try_emplace(key, nullptr);
  if (inserted) {
    auto *f = new (impl->allocator.Allocate<FactorStorage>()) FactorStorage();
    f->kind = kind;
    f->size = satAdd(1, satAdd(lhs->size, rhs->size));
    f->operands[0] = lhs;
    f->operands[1] = rhs;
    it->second = f;
  }
  return it->second;
}

const TermStorage *DimContext::getTerm(llvm::ArrayRef<FactorPower> factors) {
  if (factors.empty())
    return oneTerm;
  std::lock_guard<std::mutex> lock(impl->mutex);
  auto it = impl->terms.find(factors);
  if (it != impl->terms.end())
    return it->second;
  FactorPower *copy = impl->allocator.Allocate<FactorPower>(factors.size());
  std::uninitialized_copy(factors.begin(), factors.end(), copy);
  auto *t = new (impl->allocator.Allocate<TermStorage>()) TermStorage();
  t->factors = llvm::ArrayRef<FactorPower>(copy, factors.size());
  uint64_t size = 0;
  for (const FactorPower &fp : factors)
    size =
        satAdd(size, satAdd(1, satMul(absValue(fp.exponent), fp.factor->size)));
  t->size = size;
  impl->terms.try_emplace(t->factors, t);
  return t;
}

const ExprStorage *DimContext::getExpr(llvm::ArrayRef<TermCoeff> terms) {
  assert(!terms.empty() && "use getConstantExpr for constants");
  std::lock_guard<std::mutex> lock(impl->mutex);
  auto it = impl->exprs.find(terms);
  if (it != impl->exprs.end())
    return it->second;
  TermCoeff *copy = impl->allocator.Allocate<TermCoeff>(terms.size());
  std::uninitialized_copy(terms.begin(), terms.end(), copy);
  auto *e = new (impl->allocator.Allocate<ExprStorage>()) ExprStorage();
  e->terms = llvm::ArrayRef<TermCoeff>(copy, terms.size());
  uint64_t size = 0;
  for (const TermCoeff &tc : terms)
    size = satAdd(size, satAdd(1, satMul(absValue(tc.coeff), tc.term->size)));
  e->size = size;
  impl->exprs.try_emplace(e->terms, e);
  return e;
}

const ExprStorage *DimContext::getConstantExpr(int64_t value) {
  TermCoeff tc{oneTerm, value};
  return getExpr(llvm::ArrayRef<TermCoeff>(tc));
}

//===----------------------------------------------------------------------===//
// Syntactic order
//===----------------------------------------------------------------------===//

static int cmpInt(uint64_t a, uint64_t b) { return a < b ? -1 : (a > b); }
static int cmpSigned(int64_t a, int64_t b) { return a < b ? -1 : (a > b); }

llvm::StringRef mlir::tessera::symbolic::getFactorKindName(FactorKind kind) {
  switch (kind) {
  case FactorKind::Variable:
    return "";
  case FactorKind::FloorDiv:
    return "floordiv";
  case FactorKind::Mod:
    return "mod";
  case FactorKind::Max:
    return "max";
  case FactorKind::Min:
    return "min";
  }
  llvm_unreachable("unknown factor kind");
}

int detail::compareFactors(const FactorStorage *a, const FactorStorage *b) {
  if (a == b)
    return 0;
  if (int c = cmpInt(a->size, b->size))
    return c;
  bool aVar = a->kind == FactorKind::Variable;
  bool bVar = b->kind == FactorKind::Variable;
  if (aVar || bVar) {
    // Sizes only tie between two variables (an operation has size >= 3).
    if (aVar != bVar)
      return aVar ? -1 : 1;
    int c = a->name.compare(b->name);
    return c < 0 ? -1 : (c > 0);
  }
  int c = getFactorKindName(a->kind).compare(getFactorKindName(b->kind));
  if (c)
    return c < 0 ? -1 : 1;
  if (int c0 = compareExprs(a->operands[0], b->operands[0]))
    return c0;
  return compareExprs(a->operands[1], b->operands[1]);
}

int detail::compareTerms(const TermStorage *a, const TermStorage *b) {
  if (a == b)
    return 0;
  if (int c = cmpInt(a->size, b->size))
    return c;
  size_t n = std::min(a->factors.size(), b->factors.size());
  for (size_t i = 0; i < n; ++i) {
    if (int c = compareFactors(a->factors[i].factor, b->factors[i].factor))
      return c;
    if (int c = cmpSigned(a->factors[i].exponent, b->factors[i].exponent))
      return c;
  }
  return cmpInt(a->factors.size(), b->factors.size());
}

/// The (term, coeff) sequence JAX compares for an expression; a constant
/// storage is the single pair (1, c).
int detail::compareExprs(const ExprStorage *a, const ExprStorage *b) {
  if (a == b)
    return 0;
  if (int c = cmpInt(a->size, b->size))
    return c;
  size_t n = std::min(a->terms.size(), b->terms.size());
  for (size_t i = 0; i < n; ++i) {
    if (int c = compareTerms(a->terms[i].term, b->terms[i].term))
      return c;
    if (int c = cmpSigned(a->terms[i].coeff, b->terms[i].coeff))
      return c;
  }
  return cmpInt(a->terms.size(), b->terms.size());
}

//===----------------------------------------------------------------------===//
// Term lists
//===----------------------------------------------------------------------===//

TermList detail::getTermList(const ExprStorage *storage) {
  TermList result;
  for (const TermCoeff &tc : storage->terms)
    if (tc.coeff != 0)
      result.push_back(tc);
  return result;
}

TermList detail::getTermList(const DimExpr &e) {
  if (const ExprStorage *s = e.getImpl())
    return getTermList(s);
  TermList result;
  if (e.getConstant().value_or(0) != 0)
    result.push_back(TermCoeff{getOneTermStorage(), *e.getConstant()});
  return result;
}

void detail::sortTerms(TermList &terms) {
  llvm::erase_if(terms, [](const TermCoeff &tc) { return tc.coeff == 0; });
  llvm::sort(terms, [](const TermCoeff &a, const TermCoeff &b) {
    return compareTerms(a.term, b.term) > 0;
  });
}

std::optional<TermList> detail::combineSortedTerms(llvm::ArrayRef<TermCoeff> a,
                                                   unsigned i, int64_t fa,
                                                   llvm::ArrayRef<TermCoeff> b,
                                                   unsigned j, int64_t fb) {
  TermList acc;
  acc.reserve((a.size() - std::min<size_t>(i, a.size())) +
              (b.size() - std::min<size_t>(j, b.size())));
  auto scaled = [&](const TermCoeff &tc,
                    int64_t f) -> std::optional<TermCoeff> {
    auto c = checkedMul(tc.coeff, f);
    if (!c)
      return std::nullopt;
    return TermCoeff{tc.term, *c};
  };
  while (i < a.size() && j < b.size()) {
    int c = compareTerms(a[i].term, b[j].term);
    if (c < 0) {
      auto s = scaled(b[j], fb);
      if (!s)
        return std::nullopt;
      if (s->coeff != 0)
        acc.push_back(*s);
      ++j;
    } else if (c > 0) {
      auto s = scaled(a[i], fa);
      if (!s)
        return std::nullopt;
      if (s->coeff != 0)
        acc.push_back(*s);
      ++i;
    } else {
      auto x = checkedMul(a[i].coeff, fa);
      auto y = checkedMul(b[j].coeff, fb);
      if (!x || !y)
        return std::nullopt;
      auto sum = checkedAdd(*x, *y);
      if (!sum)
        return std::nullopt;
      if (*sum != 0)
        acc.push_back(TermCoeff{a[i].term, *sum});
      ++i;
      ++j;
    }
  }
  for (; i < a.size(); ++i) {
    auto s = scaled(a[i], fa);
    if (!s)
      return std::nullopt;
    if (s->coeff != 0)
      acc.push_back(*s);
  }
  for (; j < b.size(); ++j) {
    auto s = scaled(b[j], fb);
    if (!s)
      return std::nullopt;
    if (s->coeff != 0)
      acc.push_back(*s);
  }
  return acc;
}

/// Merges two factor lists sorted largest first, adding exponents scaled by
/// `fb` (1 for multiplication, -1 for division); drops zero exponents.
static std::optional<llvm::SmallVector<FactorPower, 4>>
combineFactors(llvm::ArrayRef<FactorPower> a, llvm::ArrayRef<FactorPower> b,
               int64_t fb) {
  llvm::SmallVector<FactorPower, 4> acc;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    int c = compareFactors(a[i].factor, b[j].factor);
    if (c < 0) {
      acc.push_back({b[j].factor, b[j].exponent * fb});
      ++j;
    } else if (c > 0) {
      acc.push_back(a[i]);
      ++i;
    } else {
      auto e = checkedAdd(a[i].exponent, b[j].exponent * fb);
      if (!e)
        return std::nullopt;
      if (*e != 0)
        acc.push_back({a[i].factor, *e});
      ++i;
      ++j;
    }
  }
  for (; i < a.size(); ++i)
    acc.push_back(a[i]);
  for (; j < b.size(); ++j)
    acc.push_back({b[j].factor, b[j].exponent * fb});
  return acc;
}

DimResult<const TermStorage *> detail::multiplyTerms(DimContext &ctx,
                                                     const TermStorage *a,
                                                     const TermStorage *b) {
  if (a->factors.empty())
    return b;
  if (b->factors.empty())
    return a;
  auto factors = combineFactors(a->factors, b->factors, 1);
  if (!factors)
    return overflowError("the exponent of a product");
  return ctx.getTerm(*factors);
}

const TermStorage *detail::divideTerms(DimContext &ctx, const TermStorage *a,
                                       const TermStorage *b) {
  auto factors = combineFactors(a->factors, b->factors, -1);
  if (!factors)
    return nullptr;
  for (const FactorPower &fp : *factors)
    if (fp.exponent <= 0)
      return nullptr;
  return ctx.getTerm(*factors);
}

const TermStorage *detail::getFactorTerm(DimContext &ctx,
                                         const FactorStorage *f,
                                         int64_t exponent) {
  FactorPower fp{f, exponent};
  return ctx.getTerm(llvm::ArrayRef<FactorPower>(fp));
}

const ExprStorage *detail::getOperandStorage(DimContext &ctx,
                                             const DimExpr &e) {
  if (const ExprStorage *s = e.getImpl())
    return s;
  return ctx.getConstantExpr(*e.getConstant());
}

DimExpr detail::exprFromStorage(const ExprStorage *storage,
                                SymbolicScope *scope) {
  if (storage->terms.size() == 1 && storage->terms[0].term->factors.empty())
    return DimExpr(storage->terms[0].coeff);
  return DimExpr(storage, scope);
}

//===----------------------------------------------------------------------===//
// Normal form
//===----------------------------------------------------------------------===//

DimExpr detail::makeRawExpr(llvm::ArrayRef<TermCoeff> terms,
                            SymbolicScope &scope) {
  if (terms.empty())
    return DimExpr(0);
  if (terms.front().term->factors.empty())
    return DimExpr(terms.front().coeff);
  return DimExpr(scope.getContext().getExpr(terms), &scope);
}

/// JAX's `_normalize_term`: the updates to apply for (t, k), or empty.
static DimResult<TermList> normalizeTerm(const TermStorage *t, int64_t k,
                                         SymbolicScope &scope) {
  TermList updates;
  if (!scope.hasNormalizationRules())
    return updates;
  DimContext &ctx = scope.getContext();
  if (const NormalizationRule *rule = scope.lookupRule(t)) {
    if (k % rule->coeff == 0) {
      auto scale = floorDivInt(k, rule->coeff);
      auto negK = checkedNeg(k);
      if (!scale || !negK)
        return overflowError("applying a normalization rule");
      updates.push_back({t, *negK});
      for (const TermCoeff &tc : getTermList(rule->rhs)) {
        const TermStorage *term = tc.term;
        auto c = checkedMul(tc.coeff, *scale);
        if (!c)
          return overflowError("applying a normalization rule");
        updates.push_back({term, *c});
      }
      return updates;
    }
  }
  if (t->factors.size() <= 1)
    return updates;
  for (const FactorPower &fp : t->factors) {
    const TermStorage *single = getFactorTerm(ctx, fp.factor, fp.exponent);
    const NormalizationRule *rule = scope.lookupRule(single);
    if (!rule || k % rule->coeff != 0)
      continue;
    auto scale = floorDivInt(k, rule->coeff);
    auto negK = checkedNeg(k);
    if (!scale || !negK)
      return overflowError("applying a normalization rule");
    updates.push_back({t, *negK});
    const TermStorage *without = divideTerms(ctx, t, single);
    assert(without && "a term is divisible by its own factor");
    for (const TermCoeff &tc : getTermList(rule->rhs)) {
      DIM_TRY_ASSIGN(product, multiplyTerms(ctx, tc.term, without));
      auto c = checkedMul(tc.coeff, *scale);
      if (!c)
        return overflowError("applying a normalization rule");
      updates.push_back({product, *c});
    }
    return updates;
  }
  return updates;
}

DimResult<DimExpr> detail::normalizeTerms(TermList terms,
                                          SymbolicScope &scope) {
  if (scope.hasNormalizationRules()) {
    for (const TermCoeff &tc : terms) {
      DIM_TRY_ASSIGN(updates, normalizeTerm(tc.term, tc.coeff, scope));
      if (updates.empty())
        continue;
      // Apply the updates to a coefficient map, then sort again.
      llvm::MapVector<const TermStorage *, int64_t> coeffs;
      for (const TermCoeff &x : terms)
        coeffs[x.term] = x.coeff;
      for (const TermCoeff &u : updates) {
        if (u.coeff == 0)
          continue;
        auto sum = checkedAdd(coeffs.lookup(u.term), u.coeff);
        if (!sum)
          return overflowError("applying a normalization rule");
        coeffs[u.term] = *sum;
      }
      TermList result;
      for (auto &[term, coeff] : coeffs)
        result.push_back({term, coeff});
      sortTerms(result);
      terms = std::move(result);
      break;
    }
  }
  return makeRawExpr(terms, scope);
}

DimResult<DimExpr> detail::exprFromTerm(const TermStorage *term, int64_t coeff,
                                        SymbolicScope &scope) {
  TermList terms;
  if (coeff != 0)
    terms.push_back({term, coeff});
  return normalizeTerms(std::move(terms), scope);
}

//===----------------------------------------------------------------------===//
// DimExpr, DimTerm, DimFactor
//===----------------------------------------------------------------------===//

DimResult<int64_t> DimExpr::requireConstant() const {
  if (auto c = getConstant())
    return *c;
  return DimError::inconclusive("Symbolic dimension '" + str() +
                                "' used in a context that requires a "
                                "constant");
}

unsigned DimExpr::getNumTerms() const {
  if (impl)
    return impl->terms.size();
  return constant != 0 ? 1 : 0;
}

DimTerm DimExpr::getTerm(unsigned i) const {
  assert(impl && "constant expressions have no term storage");
  return DimTerm(impl->terms[i].term, scope);
}

int64_t DimExpr::getCoefficient(unsigned i) const {
  if (!impl)
    return constant;
  return impl->terms[i].coeff;
}

llvm::SmallVector<std::pair<DimTerm, int64_t>> DimExpr::getTerms() const {
  llvm::SmallVector<std::pair<DimTerm, int64_t>> result;
  if (!impl)
    return result;
  for (const TermCoeff &tc : impl->terms)
    result.push_back({DimTerm(tc.term, scope), tc.coeff});
  return result;
}

int64_t DimExpr::getConstantTerm() const {
  if (!impl)
    return constant;
  const TermCoeff &last = impl->terms.back();
  return last.term->factors.empty() ? last.coeff : 0;
}

std::pair<DimTerm, int64_t> DimExpr::getLeadingTerm() const {
  assert(impl && "constant expressions have no leading term");
  return {DimTerm(impl->terms[0].term, scope), impl->terms[0].coeff};
}

std::optional<DimFactor> DimExpr::getSingleFactor() const {
  if (!impl || impl->terms.size() != 1 || impl->terms[0].coeff != 1)
    return std::nullopt;
  const TermStorage *t = impl->terms[0].term;
  if (t->factors.size() != 1 || t->factors[0].exponent != 1)
    return std::nullopt;
  return DimFactor(t->factors[0].factor, scope);
}

std::optional<DimTerm> DimExpr::getSingleTerm() const {
  if (!impl || impl->terms.size() != 1 || impl->terms[0].coeff != 1)
    return std::nullopt;
  return DimTerm(impl->terms[0].term, scope);
}

std::optional<llvm::StringRef> DimExpr::getVariable() const {
  auto f = getSingleFactor();
  if (!f || !f->isVariable())
    return std::nullopt;
  return f->getVariableName();
}

static void collectVariables(const ExprStorage *e,
                             std::set<std::string> &vars) {
  for (const TermCoeff &tc : e->terms)
    for (const FactorPower &fp : tc.term->factors) {
      if (fp.factor->kind == FactorKind::Variable) {
        vars.insert(fp.factor->name.str());
        continue;
      }
      collectVariables(fp.factor->operands[0], vars);
      collectVariables(fp.factor->operands[1], vars);
    }
}

llvm::SmallVector<std::string> DimExpr::getVariables() const {
  std::set<std::string> vars;
  if (impl)
    collectVariables(impl, vars);
  return llvm::SmallVector<std::string>(vars.begin(), vars.end());
}

uint64_t DimExpr::getSize() const { return impl ? impl->size : 1; }

int DimExpr::compareSyntactic(const DimExpr &other) const {
  if (!impl && !other.impl)
    return cmpSigned(constant, other.constant);
  // A constant is JAX's `((1, c),)` of size 1; a symbolic expression has a
  // non-constant term of size >= 2, hence size >= 3.
  if (!impl || !other.impl)
    return impl ? 1 : -1;
  return compareExprs(impl, other.impl);
}

bool DimExpr::operator==(const DimExpr &other) const {
  if (!impl && !other.impl)
    return constant == other.constant;
  if (impl && other.impl && scope != other.scope)
    return false;
  if (isIdenticalTo(other))
    return true;
  SymbolicScope *s = impl ? scope : other.scope;
  // Two different normal forms differ by a non-constant expression unless a
  // normalization rule rewrites their difference.
  if (!s->hasNormalizationRules())
    return false;
  auto diff = sub(*this, other);
  return diff.succeeded() && diff->getConstant() == 0;
}

static void printExprStorage(llvm::raw_ostream &os, const ExprStorage *e);

static void printTermStorage(llvm::raw_ostream &os, const TermStorage *t) {
  bool first = true;
  for (const FactorPower &fp : llvm::reverse(t->factors)) {
    if (!first)
      os << "*";
    first = false;
    const FactorStorage *f = fp.factor;
    if (f->kind == FactorKind::Variable) {
      os << f->name;
    } else {
      os << getFactorKindName(f->kind) << "(";
      printExprStorage(os, f->operands[0]);
      os << ", ";
      printExprStorage(os, f->operands[1]);
      os << ")";
    }
    if (fp.exponent != 1)
      os << "^" << fp.exponent;
  }
}

static void printExprStorage(llvm::raw_ostream &os, const ExprStorage *e) {
  std::string buffer;
  llvm::raw_string_ostream s(buffer);
  bool first = true;
  for (const TermCoeff &tc : e->terms) {
    if (!first)
      s << " ";
    first = false;
    uint64_t abs = absValue(tc.coeff);
    const char *sign = tc.coeff > 0 ? "+" : "-";
    if (tc.term->factors.empty()) {
      if (abs == 0)
        s << "0";
      else
        s << sign << " " << abs;
      continue;
    }
    s << sign << " ";
    if (abs != 1)
      s << abs << "*";
    printTermStorage(s, tc.term);
  }
  llvm::StringRef text(buffer);
  if (text.starts_with("+ "))
    text = text.drop_front(2);
  os << text;
}

void DimExpr::print(llvm::raw_ostream &os) const {
  if (!impl) {
    os << constant;
    return;
  }
  printExprStorage(os, impl);
}

std::string DimExpr::str() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  print(os);
  return s;
}

DimFactor DimTerm::getFactor(unsigned i) const {
  return DimFactor(impl->factors[i].factor, scope);
}

llvm::SmallVector<std::pair<DimFactor, int64_t>> DimTerm::getFactors() const {
  llvm::SmallVector<std::pair<DimFactor, int64_t>> result;
  for (const FactorPower &fp : impl->factors)
    result.push_back({DimFactor(fp.factor, scope), fp.exponent});
  return result;
}

DimResult<DimExpr> DimTerm::toExpr() const {
  if (impl->factors.empty())
    return DimExpr(1);
  assert(scope && "a symbolic term needs a scope");
  return exprFromTerm(impl, 1, *scope);
}

void DimTerm::print(llvm::raw_ostream &os) const {
  if (impl->factors.empty()) {
    os << "1";
    return;
  }
  printTermStorage(os, impl);
}

std::string DimTerm::str() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  print(os);
  return s;
}

DimExpr DimFactor::getOperand(unsigned i) const {
  assert(!isVariable() && i < 2 && "operations have two operands");
  return exprFromStorage(impl->operands[i], scope);
}

void DimFactor::print(llvm::raw_ostream &os) const {
  FactorPower fp{impl, 1};
  TermStorage t{llvm::ArrayRef<FactorPower>(fp), 0};
  printTermStorage(os, &t);
}

std::string DimFactor::str() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  print(os);
  return s;
}

std::string
mlir::tessera::symbolic::formatShape(llvm::ArrayRef<DimExpr> shape) {
  std::string s = "(";
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (i)
      s += ", ";
    s += d.str();
  }
  if (shape.size() == 1)
    s += ",";
  s += ")";
  return s;
}
