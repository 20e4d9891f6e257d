//===- ModelUtils.cpp - helpers of the symbolic shape models --------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "ModelUtils.h"

#include "mlir/IR/Matchers.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::poly;
using namespace mlir::tessera::poly::models;

SymbolicValue models::getOperandValue(Operation *op,
                                      ArrayRef<SymbolicValue> operands,
                                      Value value,
                                      SymbolicShapeContext &context) {
  for (OpOperand &operand : op->getOpOperands())
    if (operand.get() == value && operand.getOperandNumber() < operands.size())
      return operands[operand.getOperandNumber()];
  return context.lookup(value);
}

FailureOr<DimExpr> models::getSize(Operation *op,
                                   ArrayRef<SymbolicValue> operands,
                                   OpFoldResult ofr,
                                   SymbolicShapeContext &context,
                                   const Twine &what) {
  if (auto attr = dyn_cast<Attribute>(ofr))
    return DimExpr(cast<IntegerAttr>(attr).getValue().getSExtValue());
  Value value = cast<Value>(ofr);
  SymbolicValue sv = getOperandValue(op, operands, value, context);
  if (sv.hasScalar())
    return sv.getScalar();
  return op->emitOpError("the ")
         << what
         << " is not known symbolically: it must be computed from the "
            "dimension sizes (shapes that depend on data are not supported)";
}

FailureOr<Shape> models::getSizes(Operation *op,
                                  ArrayRef<SymbolicValue> operands,
                                  ArrayRef<OpFoldResult> ofrs,
                                  SymbolicShapeContext &context,
                                  StringRef what) {
  Shape result;
  for (auto [i, ofr] : llvm::enumerate(ofrs)) {
    FailureOr<DimExpr> size =
        getSize(op, operands, ofr, context, what + " " + Twine(i));
    if (failed(size))
      return failure();
    result.push_back(*size);
  }
  return result;
}

FailureOr<Shape> models::getShapeWithDynamicSizes(
    Operation *op, ArrayRef<SymbolicValue> operands, ShapedType type,
    ValueRange dynamicSizes, SymbolicShapeContext &context) {
  Shape result;
  unsigned next = 0;
  for (auto [i, size] : llvm::enumerate(type.getShape())) {
    if (!ShapedType::isDynamic(size)) {
      result.push_back(DimExpr(size));
      continue;
    }
    assert(next < dynamicSizes.size() && "verified: one size per '?'");
    FailureOr<DimExpr> dim = getSize(op, operands, dynamicSizes[next++],
                                     context, "size of dimension " + Twine(i));
    if (failed(dim))
      return failure();
    result.push_back(*dim);
  }
  return result;
}

void models::attachShapeOrigins(InFlightDiagnostic &diag, Operation *op,
                                ArrayRef<SymbolicValue> operands) {
  for (auto [i, operand] : llvm::enumerate(operands)) {
    if (!operand.hasShape() ||
        llvm::all_of(operand.getShape(),
                     [](const DimExpr &d) { return d.isConstant(); }))
      continue;
    diag.attachNote(op->getOperand(i).getLoc())
        << "operand #" << i << " has the symbolic shape "
        << symbolic::formatShape(operand.getShape());
  }
}

LogicalResult models::failWithOrigins(Operation *op,
                                      ArrayRef<SymbolicValue> operands,
                                      SymbolicShapeContext &context,
                                      const symbolic::DimError &error) {
  InFlightDiagnostic diag = context.emitError(op, error);
  attachShapeOrigins(diag, op, operands);
  return failure();
}

Shape models::getStaticShape(ShapedType type) {
  Shape result;
  for (int64_t size : type.getShape())
    result.push_back(DimExpr(size));
  return result;
}

bool models::isDimValueType(Type type) {
  if (type.isIndex())
    return true;
  // Booleans are not dimension values.
  auto integer = dyn_cast<IntegerType>(type);
  return integer && integer.getWidth() > 1;
}

StringRef models::getJaxName(Operation *op) {
  if (auto iface = dyn_cast<SymbolicShapeOpInterface>(op))
    return iface.getJaxPrimitiveName();
  return op->getName().getStringRef();
}

LogicalResult models::inferElementwise(Operation *op,
                                       ArrayRef<SymbolicValue> operands,
                                       SmallVectorImpl<SymbolicValue> &results,
                                       SymbolicShapeContext &context) {
  SmallVector<ArrayRef<DimExpr>> shapes;
  for (const SymbolicValue &operand : operands)
    if (operand.hasShape())
      shapes.push_back(operand.getShape());
  symbolic::DimResult<Shape> shape = broadcastShapes(getJaxName(op), shapes);
  if (!shape)
    return failWithOrigins(op, operands, context, shape.getError());
  for (Value result : op->getResults()) {
    if (isa<ShapedType>(result.getType()))
      results.push_back(SymbolicValue::getShaped(*shape));
    else
      results.push_back(SymbolicValue());
  }
  return success();
}
