//===- ArithExtension.cpp - symbolic shape rules of arith ops -------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// On tensors every arith op is elementwise (JAX's broadcasting rule, with the
// JAX primitive's name in messages). On index/integer scalars the ops are
// dimension arithmetic: `+ - *`, Python's floor division and modulo, max and
// min, casts, and `cmpi` + `select` written as max/min. Integer division and
// remainder round toward zero in MLIR; they get a symbolic value only when
// their operands are provably non-negative, where both roundings agree.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Poly/Extensions/SymbolicShapeExternalModels.h"

#include "ModelUtils.h"

#include "tessera/SymbolicShape/Decision.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::poly;
using namespace mlir::tessera::poly::models;
using symbolic::DimResult;

/// The JAX comparison primitive of an integer predicate.
static StringRef getCmpIName(arith::CmpIPredicate predicate) {
  switch (predicate) {
  case arith::CmpIPredicate::eq:
    return "eq";
  case arith::CmpIPredicate::ne:
    return "ne";
  case arith::CmpIPredicate::slt:
  case arith::CmpIPredicate::ult:
    return "lt";
  case arith::CmpIPredicate::sle:
  case arith::CmpIPredicate::ule:
    return "le";
  case arith::CmpIPredicate::sgt:
  case arith::CmpIPredicate::ugt:
    return "gt";
  case arith::CmpIPredicate::sge:
  case arith::CmpIPredicate::uge:
    return "ge";
  }
  return "";
}

/// The JAX comparison primitive of a float predicate, or empty.
static StringRef getCmpFName(arith::CmpFPredicate predicate) {
  switch (predicate) {
  case arith::CmpFPredicate::OEQ:
  case arith::CmpFPredicate::UEQ:
    return "eq";
  case arith::CmpFPredicate::ONE:
  case arith::CmpFPredicate::UNE:
    return "ne";
  case arith::CmpFPredicate::OLT:
  case arith::CmpFPredicate::ULT:
    return "lt";
  case arith::CmpFPredicate::OLE:
  case arith::CmpFPredicate::ULE:
    return "le";
  case arith::CmpFPredicate::OGT:
  case arith::CmpFPredicate::UGT:
    return "gt";
  case arith::CmpFPredicate::OGE:
  case arith::CmpFPredicate::UGE:
    return "ge";
  default:
    return "";
  }
}

/// The JAX primitive with the semantics of an arith op, or the op name.
static StringRef getArithJaxName(Operation *op) {
  if (auto cmp = dyn_cast<arith::CmpIOp>(op))
    return getCmpIName(cmp.getPredicate());
  if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
    StringRef name = getCmpFName(cmp.getPredicate());
    return name.empty() ? op->getName().getStringRef() : name;
  }
  StringRef name = op->getName().getStringRef();
  return llvm::StringSwitch<StringRef>(name)
      .Cases({"arith.addf", "arith.addi"}, "add")
      .Cases({"arith.subf", "arith.subi"}, "sub")
      .Cases({"arith.mulf", "arith.muli"}, "mul")
      .Cases({"arith.divf", "arith.divsi", "arith.divui"}, "div")
      .Cases({"arith.remf", "arith.remsi", "arith.remui"}, "rem")
      .Cases({"arith.maximumf", "arith.maxnumf", "arith.maxsi", "arith.maxui"},
             "max")
      .Cases({"arith.minimumf", "arith.minnumf", "arith.minsi", "arith.minui"},
             "min")
      .Case("arith.negf", "neg")
      .Case("arith.andi", "and")
      .Case("arith.ori", "or")
      .Case("arith.xori", "xor")
      .Case("arith.shli", "shift_left")
      .Case("arith.shrsi", "shift_right_arithmetic")
      .Case("arith.shrui", "shift_right_logical")
      .Case("arith.select", "select_n")
      .Case("arith.bitcast", "bitcast_convert_type")
      .Cases({"arith.extf", "arith.truncf", "arith.sitofp", "arith.uitofp"},
             "convert_element_type")
      .Cases({"arith.fptosi", "arith.fptoui", "arith.extsi", "arith.extui"},
             "convert_element_type")
      .Cases({"arith.trunci", "arith.index_cast", "arith.index_castui"},
             "convert_element_type")
      .Default(name);
}

/// True if `e >= bound` is provable.
static bool isAtLeast(const DimExpr &e, int64_t bound) {
  DimResult<bool> result = symbolic::geq(e, DimExpr(bound));
  return result && *result;
}

/// Turns a library result into a scalar value (unknown on any error: an
/// index computation the library cannot represent has no symbolic value).
static SymbolicValue toScalar(const DimResult<DimExpr> &value) {
  return value ? SymbolicValue::getScalar(*value) : SymbolicValue();
}

/// The symbolic value of a constant attribute.
static SymbolicValue getConstantValue(Attribute value, Type type) {
  if (auto integer = dyn_cast<IntegerAttr>(value)) {
    if (!isDimValueType(type) || integer.getValue().getBitWidth() > 64)
      return {};
    return SymbolicValue::getScalar(DimExpr(integer.getValue().getSExtValue()));
  }
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return {};
  auto dense = dyn_cast<DenseIntElementsAttr>(value);
  Type elementType = shaped.getElementType();
  if (dense && shaped.getRank() == 1 && shaped.getNumElements() <= 64 &&
      isDimValueType(elementType) &&
      (elementType.isIndex() || elementType.getIntOrFloatBitWidth() <= 64)) {
    SmallVector<DimExpr> elements;
    for (const APInt &element : dense.getValues<APInt>())
      elements.push_back(DimExpr(element.getSExtValue()));
    return SymbolicValue::getTensorOfElements(elements);
  }
  return SymbolicValue::getShaped(getStaticShape(shaped));
}

/// `select(cond, a, b)` on scalars: the branch `cond` decides, or max/min
/// when `cond` compares `a` and `b`.
static SymbolicValue inferScalarSelect(arith::SelectOp op,
                                       ArrayRef<SymbolicValue> operands) {
  const SymbolicValue &a = operands[1];
  const SymbolicValue &b = operands[2];
  APInt constant;
  if (matchPattern(op.getCondition(), m_ConstantInt(&constant)))
    return constant.isZero() ? b : a;
  auto cmp = op.getCondition().getDefiningOp<arith::CmpIOp>();
  if (!cmp || !a.hasScalar() || !b.hasScalar())
    return {};
  // The comparison may be decidable on the symbolic values of its operands,
  // which need not be the select's.
  arith::CmpIPredicate predicate = cmp.getPredicate();
  bool swapped;
  if (cmp.getLhs() == op.getTrueValue() && cmp.getRhs() == op.getFalseValue())
    swapped = false;
  else if (cmp.getLhs() == op.getFalseValue() &&
           cmp.getRhs() == op.getTrueValue())
    swapped = true;
  else
    return {};
  bool isUnsigned = predicate == arith::CmpIPredicate::ugt ||
                    predicate == arith::CmpIPredicate::uge ||
                    predicate == arith::CmpIPredicate::ult ||
                    predicate == arith::CmpIPredicate::ule;
  if (isUnsigned &&
      (!isAtLeast(a.getScalar(), 0) || !isAtLeast(b.getScalar(), 0)))
    return {};
  bool greater = false;
  switch (predicate) {
  case arith::CmpIPredicate::sgt:
  case arith::CmpIPredicate::sge:
  case arith::CmpIPredicate::ugt:
  case arith::CmpIPredicate::uge:
    greater = true;
    break;
  case arith::CmpIPredicate::slt:
  case arith::CmpIPredicate::sle:
  case arith::CmpIPredicate::ult:
  case arith::CmpIPredicate::ule:
    greater = false;
    break;
  default:
    return {};
  }
  // select(a > b, a, b) is max(a, b); with the operands swapped, min.
  if (greater != swapped)
    return toScalar(symbolic::maxDim(a.getScalar(), b.getScalar()));
  return toScalar(symbolic::minDim(a.getScalar(), b.getScalar()));
}

/// The symbolic value of a scalar arith op.
static SymbolicValue inferScalar(Operation *op,
                                 ArrayRef<SymbolicValue> operands) {
  if (op->getNumResults() != 1 || !isDimValueType(op->getResult(0).getType()))
    return {};
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return getConstantValue(constant.getValue(), constant.getType());
  if (auto select = dyn_cast<arith::SelectOp>(op))
    return inferScalarSelect(select, operands);
  for (const SymbolicValue &operand : operands)
    if (!operand.hasScalar())
      return {};
  auto arg = [&](unsigned i) -> const DimExpr & {
    return operands[i].getScalar();
  };
  auto nonNegative = [&](unsigned i) { return isAtLeast(arg(i), 0); };
  auto positive = [&](unsigned i) { return isAtLeast(arg(i), 1); };
  return llvm::TypeSwitch<Operation *, SymbolicValue>(op)
      .Case([&](arith::AddIOp) {
        return toScalar(symbolic::add(arg(0), arg(1)));
      })
      .Case([&](arith::SubIOp) {
        return toScalar(symbolic::sub(arg(0), arg(1)));
      })
      .Case([&](arith::MulIOp) {
        return toScalar(symbolic::mul(arg(0), arg(1)));
      })
      .Case<arith::DivSIOp, arith::DivUIOp>([&](Operation *) {
        if (!nonNegative(0) || !positive(1))
          return SymbolicValue();
        return toScalar(symbolic::floorDiv(arg(0), arg(1)));
      })
      .Case<arith::RemSIOp, arith::RemUIOp>([&](Operation *) {
        if (!nonNegative(0) || !positive(1))
          return SymbolicValue();
        return toScalar(symbolic::mod(arg(0), arg(1)));
      })
      .Case([&](arith::FloorDivSIOp) {
        return toScalar(symbolic::floorDiv(arg(0), arg(1)));
      })
      .Case([&](arith::CeilDivSIOp) {
        return toScalar(
            symbolic::neg(symbolic::floorDiv(symbolic::neg(arg(0)), arg(1))));
      })
      .Case([&](arith::CeilDivUIOp) {
        if (!nonNegative(0) || !positive(1))
          return SymbolicValue();
        return toScalar(
            symbolic::neg(symbolic::floorDiv(symbolic::neg(arg(0)), arg(1))));
      })
      .Case([&](arith::MaxSIOp) {
        return toScalar(symbolic::maxDim(arg(0), arg(1)));
      })
      .Case([&](arith::MinSIOp) {
        return toScalar(symbolic::minDim(arg(0), arg(1)));
      })
      .Case([&](arith::MaxUIOp) {
        if (!nonNegative(0) || !nonNegative(1))
          return SymbolicValue();
        return toScalar(symbolic::maxDim(arg(0), arg(1)));
      })
      .Case([&](arith::MinUIOp) {
        if (!nonNegative(0) || !nonNegative(1))
          return SymbolicValue();
        return toScalar(symbolic::minDim(arg(0), arg(1)));
      })
      .Case<arith::IndexCastOp, arith::ExtSIOp>(
          [&](Operation *) { return operands[0]; })
      .Case<arith::IndexCastUIOp, arith::ExtUIOp>([&](Operation *) {
        return nonNegative(0) ? operands[0] : SymbolicValue();
      })
      .Default([](Operation *) { return SymbolicValue(); });
}

/// The rule of every arith op.
static LogicalResult inferArith(Operation *op, ArrayRef<SymbolicValue> operands,
                                SmallVectorImpl<SymbolicValue> &results,
                                SymbolicShapeContext &context) {
  bool shaped = llvm::any_of(op->getOperandTypes(), llvm::IsaPred<ShapedType>);
  if (shaped)
    return inferElementwise(op, operands, results, context);
  if (op->getNumResults() == 1 && isa<ShapedType>(op->getResult(0).getType())) {
    // A constant tensor.
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      results.push_back(
          getConstantValue(constant.getValue(), constant.getType()));
      return success();
    }
    return inferElementwise(op, operands, results, context);
  }
  results.push_back(inferScalar(op, operands));
  for (unsigned i = 1, e = op->getNumResults(); i < e; ++i)
    results.push_back(SymbolicValue());
  return success();
}

namespace {
/// The model of every arith op.
template <typename OpTy>
struct ArithModel
    : public SymbolicShapeOpInterface::ExternalModel<ArithModel<OpTy>, OpTy> {
  LogicalResult inferSymbolicShapes(Operation *op,
                                    ArrayRef<SymbolicValue> operands,
                                    SmallVectorImpl<SymbolicValue> &results,
                                    SymbolicShapeContext &context) const {
    return inferArith(op, operands, results, context);
  }
  StringRef getJaxPrimitiveName(Operation *op) const {
    return getArithJaxName(op);
  }
};
} // namespace

template <typename... OpTys>
static void attachArithModels(MLIRContext *context) {
  (OpTys::template attachInterface<ArithModel<OpTys>>(*context), ...);
}

void poly::registerArithSymbolicShapeModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, arith::ArithDialect *) {
    attachArithModels<
#define GET_OP_LIST
#include "mlir/Dialect/Arith/IR/ArithOps.cpp.inc"
        >(context);
  });
}
