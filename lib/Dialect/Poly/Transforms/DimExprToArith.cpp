//===- DimExprToArith.cpp - dimension expressions as arith ops ------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Poly/Transforms/DimExprToArith.h"

#include "tessera/SymbolicShape/Evaluate.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::poly;
using symbolic::DimExpr;
using symbolic::DimResult;

void DimExprToArith::bind(StringRef name, Value value) {
  assert(value.getType().isIndex() && "dimension values are index values");
  variables[name] = value;
}

Value DimExprToArith::getConstant(int64_t value) {
  Value &constant = constants[value];
  if (!constant)
    constant = arith::ConstantIndexOp::create(builder, loc, value);
  return constant;
}

Value DimExprToArith::emitScaled(Value value, int64_t coeff) {
  if (coeff == 1)
    return value;
  return arith::MulIOp::create(builder, loc, value, getConstant(coeff));
}

Value DimExprToArith::emitPower(Value base, int64_t exponent) {
  assert(exponent >= 1 && "factors have positive exponents");
  // Square and multiply, most significant bit first.
  Value result = base;
  for (int bit = 62 - llvm::countl_zero(static_cast<uint64_t>(exponent));
       bit >= 0; --bit) {
    result = arith::MulIOp::create(builder, loc, result, result);
    if (exponent & (int64_t(1) << bit))
      result = arith::MulIOp::create(builder, loc, result, base);
  }
  return result;
}

Value DimExprToArith::emitFloorDiv(Value lhs, Value rhs) {
  Value &quotient = floorDivs[{lhs, rhs}];
  if (quotient)
    return quotient;
  if (matchPattern(rhs, m_Constant())) {
    quotient = arith::FloorDivSIOp::create(builder, loc, lhs, rhs);
    return quotient;
  }
  // The divisor may be 0 at run time: divide by 1 instead and give XLA's
  // result for a division by zero, -1.
  Value isZero = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                       rhs, getConstant(0));
  Value divisor =
      arith::SelectOp::create(builder, loc, isZero, getConstant(1), rhs);
  Value divided = arith::FloorDivSIOp::create(builder, loc, lhs, divisor);
  quotient =
      arith::SelectOp::create(builder, loc, isZero, getConstant(-1), divided);
  return quotient;
}

DimResult<Value> DimExprToArith::emitFactor(const symbolic::DimFactor &factor) {
  if (Value cached = factors.lookup(factor.getImpl()))
    return cached;
  Value result;
  if (factor.isVariable()) {
    result = variables.lookup(factor.getVariableName());
    if (!result) {
      std::vector<std::string> known;
      for (const auto &entry : variables)
        known.push_back(entry.getKey().str());
      return symbolic::DimError(
          symbolic::DimErrorKind::UnexpectedDimVar,
          symbolic::formatUnexpectedDimVar(factor.getVariableName(), known));
    }
  } else {
    DimResult<Value> lhsResult = emit(factor.getOperand(0));
    if (!lhsResult)
      return lhsResult;
    DimResult<Value> rhsResult = emit(factor.getOperand(1));
    if (!rhsResult)
      return rhsResult;
    Value lhs = *lhsResult, rhs = *rhsResult;
    switch (factor.getKind()) {
    case symbolic::FactorKind::FloorDiv:
      result = emitFloorDiv(lhs, rhs);
      break;
    case symbolic::FactorKind::Mod: {
      // Python's modulo: E - D * floordiv(E, D), with the sign of D.
      Value quotient = emitFloorDiv(lhs, rhs);
      Value product = arith::MulIOp::create(builder, loc, quotient, rhs);
      result = arith::SubIOp::create(builder, loc, lhs, product);
      break;
    }
    case symbolic::FactorKind::Max:
      result = arith::MaxSIOp::create(builder, loc, lhs, rhs);
      break;
    case symbolic::FactorKind::Min:
      result = arith::MinSIOp::create(builder, loc, lhs, rhs);
      break;
    case symbolic::FactorKind::Variable:
      llvm_unreachable("handled above");
    }
  }
  factors[factor.getImpl()] = result;
  return result;
}

DimResult<Value> DimExprToArith::emitTerm(const symbolic::DimTerm &term) {
  if (Value cached = terms.lookup(term.getImpl()))
    return cached;
  // Factors are stored largest first; multiply the smallest first, which is
  // the order in which they print.
  Value result;
  for (unsigned i = term.getNumFactors(); i-- > 0;) {
    DimResult<Value> factor = emitFactor(term.getFactor(i));
    if (!factor)
      return factor;
    Value power = emitPower(*factor, term.getExponent(i));
    result =
        result ? arith::MulIOp::create(builder, loc, result, power) : power;
  }
  terms[term.getImpl()] = result;
  return result;
}

DimResult<Value> DimExprToArith::emit(const DimExpr &expr) {
  if (std::optional<int64_t> constant = expr.getConstant())
    return getConstant(*constant);
  if (Value cached = exprs.lookup(expr))
    return cached;
  // The terms with a positive coefficient first (largest first), then the
  // negative ones, so that `- b + a` is `a - b` without a negation; the
  // constant last.
  SmallVector<std::pair<symbolic::DimTerm, int64_t>> ordered;
  for (bool positive : {true, false})
    for (auto [term, coeff] : expr.getTerms())
      if (!term.isConstant() && (coeff > 0) == positive)
        ordered.push_back({term, coeff});
  for (auto [term, coeff] : expr.getTerms())
    if (term.isConstant())
      ordered.push_back({term, coeff});
  Value result;
  for (auto [term, coeff] : ordered) {
    if (term.isConstant()) {
      if (!result)
        result = getConstant(coeff);
      else if (coeff < 0 && coeff != INT64_MIN)
        result =
            arith::SubIOp::create(builder, loc, result, getConstant(-coeff));
      else
        result =
            arith::AddIOp::create(builder, loc, result, getConstant(coeff));
      continue;
    }
    DimResult<Value> value = emitTerm(term);
    if (!value)
      return value;
    // A negative coefficient is a subtraction (`- b + a`), except for the one
    // whose negation does not exist.
    bool subtract = coeff < 0 && coeff != INT64_MIN;
    Value scaled = emitScaled(*value, subtract ? -coeff : coeff);
    if (!result)
      result = subtract
                   ? arith::SubIOp::create(builder, loc, getConstant(0), scaled)
                         .getResult()
                   : scaled;
    else if (subtract)
      result = arith::SubIOp::create(builder, loc, result, scaled);
    else
      result = arith::AddIOp::create(builder, loc, result, scaled);
  }
  exprs[expr] = result;
  return result;
}
