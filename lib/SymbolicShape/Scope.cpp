//===- Scope.cpp - symbolic scopes and explicit constraints ---------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include "tessera/SymbolicShape/Parser.h"
#include "tessera/SymbolicShape/Scope.h"

using namespace mlir::tessera::symbolic;
using namespace mlir::tessera::symbolic::detail;

SymbolicScope::SymbolicScope(DimContext &context, const ScopeOptions &options)
    : context(context), id(context.getNextScopeId()), options(options),
      caches(std::make_unique<ScopeCaches>()) {}

SymbolicScope::~SymbolicScope() = default;

DimResult<std::unique_ptr<SymbolicScope>>
SymbolicScope::create(DimContext &context,
                      llvm::ArrayRef<std::string> constraints,
                      const ScopeOptions &options) {
  std::unique_ptr<SymbolicScope> scope(new SymbolicScope(context, options));
  for (const std::string &c : constraints) {
    DIM_TRY_STATUS(scope->parseAndProcessConstraint(c));
    scope->caches->boundsCache.clear();
    scope->caches->strongCache.clear();
  }
  scope->initialized = true;
  return scope;
}

std::string SymbolicScope::str() const {
  std::string s = (llvm::Twine(id) + " created at " + options.location).str();
  if (!constraints.empty()) {
    s += " with constraints:";
    for (const ExplicitConstraint &c : constraints)
      s += "\n  " + c.text;
  }
  return s;
}

DimResult<DimExpr> SymbolicScope::getVariable(llvm::StringRef name) {
  const FactorStorage *f = context.getVariableFactor(name);
  return exprFromTerm(getFactorTerm(context, f, 1), 1, *this);
}

DimStatus SymbolicScope::parseAndProcessConstraint(llvm::StringRef text) {
  // JAX looks for "==" first, then ">=", then "<=".
  Comparator cmp = Comparator::EQ;
  bool isGeq = true;
  size_t pos = text.find("==");
  if (pos == llvm::StringRef::npos) {
    cmp = Comparator::GEQ;
    pos = text.find(">=");
    if (pos == llvm::StringRef::npos) {
      pos = text.find("<=");
      isGeq = false;
    }
    if (pos == llvm::StringRef::npos)
      return DimError::value("Constraint parsing error: must contain one of "
                             "'==' or '>=' or '<='");
  }
  DIM_TRY_ASSIGN(e1, parseDimExpr(text.take_front(pos), *this));
  DIM_TRY_ASSIGN(e2, parseDimExpr(text.drop_front(pos + 2), *this));
  if (cmp == Comparator::GEQ && !isGeq)
    std::swap(e1, e2);
  // The difference is computed before this constraint's rule exists.
  DIM_TRY_ASSIGN(diff, sub(e1, e2));
  return processConstraint(ExplicitConstraint{cmp, text.str(), e1, e2, diff});
}

DimStatus SymbolicScope::processConstraint(ExplicitConstraint c) {
  if (auto k = c.diff.getConstant()) {
    if ((c.cmp == Comparator::EQ && *k != 0) ||
        (c.cmp == Comparator::GEQ && *k < 0))
      return DimError::value("Unsatisfiable explicit constraint: " + c.text);
    return DimStatus::success();
  }

  if (c.cmp == Comparator::EQ) {
    // JAX's message really contains the literal "{e1} == {e2}".
    if (c.lhs.isConstant() || c.lhs.getNumTerms() != 1)
      return DimError::value("Invalid equality constraint: {e1} == {e2}. The "
                             "left-hand-side must be of the form `term * "
                             "coefficient`.");
    auto [before, beforeK] = c.lhs.getLeadingTerm();
    if (rules.count(before.getImpl()))
      return DimError::notImplemented(
          "Found multiple equality constraints with the same "
          "left-hand-side: " +
          before.str());
    rules[before.getImpl()] = NormalizationRule{c.rhs, beforeK};

    // `mod(E, k) == 0` also gives the rule `k*floordiv(E, k) == E`.
    std::optional<DimFactor> modFactor;
    if (beforeK == 1 && c.rhs.getConstant() == 0 &&
        before.getNumFactors() == 1 && before.getExponent(0) == 1 &&
        before.getFactor(0).getKind() == FactorKind::Mod)
      modFactor = before.getFactor(0);
    if (modFactor) {
      DimExpr operand = modFactor->getOperand(0);
      DimExpr divisor = modFactor->getOperand(1);
      if (auto k = divisor.getConstant()) {
        // JAX builds the floordiv term directly and scales it by k.
        const detail::FactorStorage *f = context.getOperationFactor(
            FactorKind::FloorDiv, modFactor->getImpl()->operands[0],
            modFactor->getImpl()->operands[1]);
        DIM_TRY_ASSIGN(kTimesFloorDiv,
                       exprFromTerm(getFactorTerm(context, f, 1), *k, *this));
        DIM_TRY_ASSIGN(derivedDiff, sub(kTimesFloorDiv, operand));
        DIM_TRY_STATUS(processConstraint(ExplicitConstraint{
            Comparator::EQ, kTimesFloorDiv.str() + " == " + operand.str(),
            kTimesFloorDiv, operand, derivedDiff}));
      }
    }
  }
  constraints.push_back(std::move(c));
  return DimStatus::success();
}

DimStatus SymbolicScope::verifyConstraints() {
  DIM_TRY_STATUS(DecisionState::build(*this));
  if (options.mode == DecisionMode::Strong)
    DIM_TRY_STATUS(strongCheckSatisfiable(*this));
  return DimStatus::success();
}

void SymbolicScope::clearCaches() { caches->clear(); }

DimStatus mlir::tessera::symbolic::checkSameScope(const SymbolicScope &scope,
                                                  const DimExpr &other,
                                                  llvm::StringRef when,
                                                  llvm::StringRef selfDescr,
                                                  llvm::StringRef otherDescr) {
  if (other.isConstant() || other.getScope() == &scope)
    return DimStatus::success();
  return DimError::value(
      "Invalid mixing of symbolic scopes " + when + ".\nExpected " + selfDescr +
      "scope " + scope.str() + "\nand found for '" + other.str() + "' (" +
      otherDescr + ") scope " + other.getScope()->str() +
      "\nSee https://docs.jax.dev/en/latest/export/"
      "shape_poly.html#user-specified-symbolic-constraints.");
}
