//===- FuncExtension.cpp - symbolic shape rules of func ops ---------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// `func.call` is JAX's call of an `Exported` from inside another export (a
// nested export): the callee's dimension variables are solved from the
// caller's symbolic argument shapes (`a = 2*c`), every shape check of the
// callee is discharged with the caller's decision procedure (a false or
// inconclusive check is an error carrying symbolic values), and the callee's
// result shapes are instantiated with the solution.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Poly/Extensions/SymbolicShapeExternalModels.h"

#include "ModelUtils.h"

#include "tessera/SymbolicShape/Evaluate.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::poly;
using namespace mlir::tessera::poly::models;
using symbolic::DimResult;

static LogicalResult inferCall(func::CallOp op,
                               ArrayRef<SymbolicValue> operands,
                               SmallVectorImpl<SymbolicValue> &results,
                               SymbolicShapeContext &context) {
  FailureOr<FunctionSignature> signature =
      context.getCalleeSignature(cast<CallOpInterface>(op.getOperation()));
  if (failed(signature))
    return failure();
  symbolic::SymbolicScope &scope = context.getScope();
  llvm::StringMap<DimExpr> solution;
  if (signature->solution) {
    SmallVector<symbolic::SymbolicShape> shapes;
    for (const SymbolicValue &operand : operands) {
      ArrayRef<DimExpr> shape = shapeOf(operand);
      shapes.emplace_back(shape.begin(), shape.end());
    }
    DimResult<std::vector<std::pair<std::string, DimExpr>>> values =
        signature->solution->checkSymbolicShapes(shapes, scope);
    if (!values) {
      InFlightDiagnostic diag = context.emitError(op, values.getError());
      diag.attachNote(op->getLoc())
          << "while solving the dimension variables of @" << op.getCallee()
          << " from the shapes of the call's operands";
      return failure();
    }
    for (auto &[name, value] : *values)
      solution[name] = value;
  }
  auto lookupVar = [&](StringRef name) -> std::optional<DimExpr> {
    auto it = solution.find(name);
    if (it == solution.end())
      return std::nullopt;
    return it->second;
  };
  auto instantiate = [&](const DimExpr &e) -> DimResult<DimExpr> {
    if (e.isConstant())
      return e;
    return symbolic::substitute(e, lookupVar, scope, /*keepUnbound=*/false);
  };
  for (auto [i, calleeResult] : llvm::enumerate(signature->results)) {
    Type type = op.getResult(i).getType();
    if (calleeResult.hasShape()) {
      Shape shape;
      for (const DimExpr &d : calleeResult.getShape()) {
        DimResult<DimExpr> value = instantiate(d);
        if (!value)
          return fail(op, context, value.getError());
        shape.push_back(*value);
      }
      results.push_back(SymbolicValue::getShaped(shape));
      continue;
    }
    if (calleeResult.hasScalar()) {
      DimResult<DimExpr> value = instantiate(calleeResult.getScalar());
      results.push_back(value ? SymbolicValue::getScalar(*value)
                              : SymbolicValue());
      continue;
    }
    auto shaped = dyn_cast<ShapedType>(type);
    if (shaped && shaped.hasRank() && !shaped.hasStaticShape())
      return op.emitOpError("the symbolic shape of result #")
             << i << " of @" << op.getCallee()
             << " is unknown (declare it with 'poly.shape')";
    results.push_back(SymbolicValue());
  }
  return success();
}

namespace {
/// `func.call`.
struct CallModel
    : public SymbolicShapeOpInterface::ExternalModel<CallModel, func::CallOp> {
  LogicalResult inferSymbolicShapes(Operation *op,
                                    ArrayRef<SymbolicValue> operands,
                                    SmallVectorImpl<SymbolicValue> &results,
                                    SymbolicShapeContext &context) const {
    return inferCall(cast<func::CallOp>(op), operands, results, context);
  }
  StringRef getJaxPrimitiveName(Operation *op) const { return "call_exported"; }
};

/// `func.return`: the driver reads its operands as the function's results.
struct ReturnModel
    : public SymbolicShapeOpInterface::ExternalModel<ReturnModel,
                                                     func::ReturnOp> {
  LogicalResult inferSymbolicShapes(Operation *op, ArrayRef<SymbolicValue>,
                                    SmallVectorImpl<SymbolicValue> &,
                                    SymbolicShapeContext &) const {
    return success();
  }
};
} // namespace

void poly::registerFuncSymbolicShapeModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, func::FuncDialect *) {
    func::CallOp::attachInterface<CallModel>(*context);
    func::ReturnOp::attachInterface<ReturnModel>(*context);
  });
}
