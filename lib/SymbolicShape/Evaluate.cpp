//===- Evaluate.cpp - evaluation and substitution -------------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include "tessera/SymbolicShape/Evaluate.h"
#include "tessera/SymbolicShape/Parser.h"

#include <algorithm>

using namespace mlir::tessera::symbolic;
using namespace mlir::tessera::symbolic::detail;

std::string mlir::tessera::symbolic::formatUnexpectedDimVar(
    llvm::StringRef var, llvm::ArrayRef<std::string> known) {
  std::vector<std::string> sorted(known.begin(), known.end());
  std::sort(sorted.begin(), sorted.end());
  std::string list = "[";
  for (auto [i, name] : llvm::enumerate(sorted)) {
    if (i)
      list += ", ";
    list += pythonRepr(name);
  }
  list += "]";
  return ("Encountered dimension variable '" + var +
          "' that is not appearing in the shapes of the function "
          "arguments.\nThe following dimension variables are appearing in the "
          "shapes of the function arguments: " +
          list +
          "\nPlease see https://docs.jax.dev/en/latest/export/"
          "shape_poly.html#dimension-variables-must-be-solvable-from-the-"
          "input-shapes for more details.")
      .str();
}

//===----------------------------------------------------------------------===//
// Concrete evaluation
//===----------------------------------------------------------------------===//

namespace {
class Evaluator {
public:
  Evaluator(const DimBindings &bindings, SymbolicScope *scope)
      : bindings(bindings), scope(scope) {}

  DimResult<int64_t> expr(const ExprStorage *e) {
    if (++depth > 512)
      return DimError::limit("expression nesting too deep to evaluate");
    int64_t acc = 0;
    for (const TermCoeff &tc : e->terms) {
      DIM_TRY_ASSIGN(v, term(tc.term));
      auto p = checkedMul(v, tc.coeff);
      auto s = p ? checkedAdd(acc, *p) : std::nullopt;
      if (!s)
        return overflowError("evaluating '" + exprFromStorage(e, scope).str() +
                             "'");
      acc = *s;
    }
    --depth;
    return acc;
  }

private:
  DimResult<int64_t> term(const TermStorage *t) {
    int64_t prod = 1;
    for (const FactorPower &fp : t->factors) {
      DIM_TRY_ASSIGN(v, factor(fp.factor));
      auto p = checkedPow(v, fp.exponent);
      auto r = p ? checkedMul(prod, *p) : std::nullopt;
      if (!r)
        return overflowError("evaluating a product");
      prod = *r;
    }
    return prod;
  }

  DimResult<int64_t> factor(const FactorStorage *f) {
    if (f->kind == FactorKind::Variable) {
      auto it = bindings.find(f->name);
      if (it != bindings.end())
        return it->second;
      // Perhaps a normalization rule gives the variable a value.
      if (scope) {
        DIM_TRY_ASSIGN(normalized, scope->getVariable(f->name));
        if (auto c = normalized.getConstant())
          return *c;
        if (normalized.getVariable() != f->name)
          return expr(normalized.getImpl());
      }
      std::vector<std::string> known;
      for (const auto &entry : bindings)
        known.push_back(entry.getKey().str());
      return DimError(DimErrorKind::UnexpectedDimVar,
                      formatUnexpectedDimVar(f->name, known));
    }
    DIM_TRY_ASSIGN(a, expr(f->operands[0]));
    DIM_TRY_ASSIGN(b, expr(f->operands[1]));
    switch (f->kind) {
    case FactorKind::FloorDiv:
    case FactorKind::Mod: {
      if (b == 0)
        return DimError::divisionByZero();
      if (f->kind == FactorKind::Mod)
        return floorModInt(a, b);
      auto q = floorDivInt(a, b);
      if (!q)
        return overflowError("evaluating a division");
      return *q;
    }
    case FactorKind::Max:
      return std::max(a, b);
    case FactorKind::Min:
      return std::min(a, b);
    case FactorKind::Variable:
      break;
    }
    llvm_unreachable("variables handled above");
  }

  const DimBindings &bindings;
  SymbolicScope *scope;
  unsigned depth = 0;
};
} // namespace

DimResult<int64_t>
mlir::tessera::symbolic::evaluate(const DimExpr &e,
                                  const DimBindings &bindings) {
  if (auto c = e.getConstant())
    return *c;
  return Evaluator(bindings, e.getScope()).expr(e.getImpl());
}

//===----------------------------------------------------------------------===//
// Symbolic substitution
//===----------------------------------------------------------------------===//

namespace {
/// JAX's `_evaluate` with symbolic values, building the result in `target`.
class Substituter {
public:
  Substituter(DimSubstitution lookup, SymbolicScope *source,
              SymbolicScope &target, bool keepUnbound)
      : lookup(lookup), source(source), target(target),
        keepUnbound(keepUnbound) {}

  DimResult<DimExpr> expr(const ExprStorage *e) {
    if (++depth > 512)
      return DimError::limit("expression nesting too deep to substitute");
    std::optional<DimExpr> acc;
    for (const TermCoeff &tc : e->terms) {
      DIM_TRY_ASSIGN(v, term(tc.term));
      DIM_TRY_ASSIGN(scaled, multiply(v, DimExpr(tc.coeff)));
      if (acc) {
        DIM_TRY_ASSIGN(sum, addValues(*acc, scaled));
        acc = sum;
      } else {
        acc = scaled;
      }
    }
    --depth;
    return acc ? *acc : DimExpr(0);
  }

  DimResult<DimExpr> term(const TermStorage *t) {
    std::optional<DimExpr> acc;
    for (const FactorPower &fp : t->factors) {
      DIM_TRY_ASSIGN(v, factor(fp.factor));
      DIM_TRY_ASSIGN(p, power(v, fp.exponent));
      if (acc) {
        DIM_TRY_ASSIGN(prod, multiply(*acc, p));
        acc = prod;
      } else {
        acc = p;
      }
    }
    return acc ? *acc : DimExpr(1);
  }

private:
  /// JAX's `_evaluate_multiply`.
  static DimResult<DimExpr> multiply(const DimExpr &a, const DimExpr &b) {
    if (a.getConstant() == 1)
      return b;
    if (b.getConstant() == 1)
      return a;
    return mul(a, b);
  }
  /// JAX's `_evaluate_add`.
  static DimResult<DimExpr> addValues(const DimExpr &a, const DimExpr &b) {
    if (a.getConstant() == 0)
      return b;
    if (b.getConstant() == 0)
      return a;
    return add(a, b);
  }
  /// JAX's `pow_opt`: repeated `_evaluate_multiply`.
  DimResult<DimExpr> power(const DimExpr &v, int64_t p) {
    if (p == 1)
      return v;
    if (v.isConstant() || !v.getScope()->hasNormalizationRules())
      return pow(v, p);
    if (p > kMaxRepeatedMultiplications)
      return DimError::limit("exponent " + llvm::Twine(p) +
                             " too large for a scope with equality "
                             "constraints");
    DimExpr acc = v;
    for (int64_t i = 1; i < p; ++i) {
      DIM_TRY_ASSIGN(next, multiply(acc, v));
      acc = next;
    }
    return acc;
  }

  DimResult<DimExpr> factor(const FactorStorage *f) {
    if (f->kind == FactorKind::Variable) {
      if (std::optional<DimExpr> v = lookup(f->name))
        return *v;
      if (source) {
        DIM_TRY_ASSIGN(normalized, source->getVariable(f->name));
        if (normalized.isConstant())
          return normalized;
        if (normalized.getVariable() != f->name)
          return expr(normalized.getImpl());
      }
      if (keepUnbound)
        return target.getVariable(f->name);
      return DimError(DimErrorKind::UnexpectedDimVar,
                      formatUnexpectedDimVar(f->name, {}));
    }
    DIM_TRY_ASSIGN(a, expr(f->operands[0]));
    DIM_TRY_ASSIGN(b, expr(f->operands[1]));
    switch (f->kind) {
    case FactorKind::FloorDiv:
      return floorDiv(a, b);
    case FactorKind::Mod:
      return mod(a, b);
    case FactorKind::Max:
      return maxDim(a, b);
    case FactorKind::Min:
      return minDim(a, b);
    case FactorKind::Variable:
      break;
    }
    llvm_unreachable("variables handled above");
  }

  DimSubstitution lookup;
  SymbolicScope *source;
  SymbolicScope &target;
  bool keepUnbound;
  unsigned depth = 0;
};
} // namespace

DimResult<DimExpr>
mlir::tessera::symbolic::substitute(const DimExpr &e,
                                    DimSubstitution substitution,
                                    SymbolicScope &target, bool keepUnbound) {
  if (e.isConstant())
    return e;
  return Substituter(substitution, e.getScope(), target, keepUnbound)
      .expr(e.getImpl());
}

DimResult<DimExpr> mlir::tessera::symbolic::translate(const DimExpr &e,
                                                      SymbolicScope &target) {
  return substitute(
      e, [](llvm::StringRef) -> std::optional<DimExpr> { return std::nullopt; },
      target, /*keepUnbound=*/true);
}
