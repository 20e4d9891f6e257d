//===- MathExtension.cpp - symbolic shape rules of math ops ---------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Every math op is elementwise: JAX's broadcasting rule, with the JAX
// primitive's name in messages (`exp`, `pow`, `abs`, ...).
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Poly/Extensions/SymbolicShapeExternalModels.h"

#include "ModelUtils.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::poly;
using namespace mlir::tessera::poly::models;

/// The JAX primitive with the semantics of a math op, or the op name.
static StringRef getMathJaxName(Operation *op) {
  StringRef name = op->getName().getStringRef();
  return llvm::StringSwitch<StringRef>(name)
      .Cases({"math.absf", "math.absi"}, "abs")
      .Case("math.acos", "acos")
      .Case("math.acosh", "acosh")
      .Case("math.asin", "asin")
      .Case("math.asinh", "asinh")
      .Case("math.atan", "atan")
      .Case("math.atan2", "atan2")
      .Case("math.atanh", "atanh")
      .Case("math.cbrt", "cbrt")
      .Case("math.ceil", "ceil")
      .Case("math.cos", "cos")
      .Case("math.cosh", "cosh")
      .Case("math.ctlz", "clz")
      .Case("math.ctpop", "population_count")
      .Case("math.erf", "erf")
      .Case("math.erfc", "erfc")
      .Case("math.exp", "exp")
      .Case("math.exp2", "exp2")
      .Case("math.expm1", "expm1")
      .Case("math.floor", "floor")
      .Case("math.isfinite", "is_finite")
      .Case("math.log", "log")
      .Case("math.log1p", "log1p")
      .Case("math.powf", "pow")
      .Cases({"math.round", "math.roundeven"}, "round")
      .Case("math.rsqrt", "rsqrt")
      .Case("math.sin", "sin")
      .Case("math.sinh", "sinh")
      .Case("math.sqrt", "sqrt")
      .Case("math.tan", "tan")
      .Case("math.tanh", "tanh")
      .Default(name);
}

namespace {
/// The model of every math op.
template <typename OpTy>
struct MathModel
    : public SymbolicShapeOpInterface::ExternalModel<MathModel<OpTy>, OpTy> {
  LogicalResult inferSymbolicShapes(Operation *op,
                                    ArrayRef<SymbolicValue> operands,
                                    SmallVectorImpl<SymbolicValue> &results,
                                    SymbolicShapeContext &context) const {
    return inferElementwise(op, operands, results, context);
  }
  StringRef getJaxPrimitiveName(Operation *op) const {
    return getMathJaxName(op);
  }
};
} // namespace

template <typename... OpTys>
static void attachMathModels(MLIRContext *context) {
  (OpTys::template attachInterface<MathModel<OpTys>>(*context), ...);
}

void poly::registerMathSymbolicShapeModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, math::MathDialect *) {
    attachMathModels<
#define GET_OP_LIST
#include "mlir/Dialect/Math/IR/MathOps.cpp.inc"
        >(context);
  });
}
