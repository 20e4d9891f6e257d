//===- ModelUtils.h - helpers of the symbolic shape models ------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_DIALECT_POLY_EXTENSIONS_MODELUTILS_H
#define TESSERA_LIB_DIALECT_POLY_EXTENSIONS_MODELUTILS_H

#include "tessera/Dialect/Poly/IR/PolyInterfaces.h"
#include "tessera/Dialect/Poly/IR/PolyShapeRules.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"

namespace mlir::tessera::poly::models {

/// Reports `error` (JAX's text) at `op` and fails.
inline LogicalResult fail(Operation *op, SymbolicShapeContext &context,
                          const symbolic::DimError &error) {
  (void)context.emitError(op, error);
  return failure();
}

/// The symbolic value of `value`, an operand of `op` (the entry of
/// `operands` for its first use), or the driver's value for it.
SymbolicValue getOperandValue(Operation *op, ArrayRef<SymbolicValue> operands,
                              Value value, SymbolicShapeContext &context);

/// The symbolic size given by `ofr` (a static integer or an index operand of
/// `op`). Reports JAX's data-dependent-shape error at `op` for a value
/// without a symbolic value; `what` names the size in that message (e.g.
/// "size of dimension 0").
FailureOr<DimExpr> getSize(Operation *op, ArrayRef<SymbolicValue> operands,
                           OpFoldResult ofr, SymbolicShapeContext &context,
                           const Twine &what);

/// `getSize` over a list.
FailureOr<Shape> getSizes(Operation *op, ArrayRef<SymbolicValue> operands,
                          ArrayRef<OpFoldResult> ofrs,
                          SymbolicShapeContext &context, StringRef what);

/// The shape of `type` with each dynamic size taken, in order, from
/// `dynamicSizes` (index operands of `op`).
FailureOr<Shape> getShapeWithDynamicSizes(Operation *op,
                                          ArrayRef<SymbolicValue> operands,
                                          ShapedType type,
                                          ValueRange dynamicSizes,
                                          SymbolicShapeContext &context);

/// The shape of a shaped operand (the driver guarantees one for every ranked
/// shaped value).
inline ArrayRef<DimExpr> shapeOf(const SymbolicValue &value) {
  return value.getShapeOrScalarShape();
}

/// Attaches to `diag` one note per shaped operand of `op` that has a
/// symbolic dimension, at the value's definition: where the shape comes
/// from (`operand #1 has the symbolic shape (w,)`).
void attachShapeOrigins(InFlightDiagnostic &diag, Operation *op,
                        ArrayRef<SymbolicValue> operands);

/// Reports `error` at `op` with the origins of its operands' shapes.
LogicalResult failWithOrigins(Operation *op, ArrayRef<SymbolicValue> operands,
                              SymbolicShapeContext &context,
                              const symbolic::DimError &error);

/// The static shape of `type` as expressions.
Shape getStaticShape(ShapedType type);

/// True for index and integer types wider than `i1` (what a dimension value
/// may have).
bool isDimValueType(Type type);

/// The JAX primitive name for `op` through its SymbolicShapeOpInterface.
StringRef getJaxName(Operation *op);

/// The elementwise rule: JAX's broadcasting rule over the shaped operands
/// (named after the op's JAX primitive); every shaped result gets the
/// broadcast shape and every other result is unknown.
LogicalResult inferElementwise(Operation *op, ArrayRef<SymbolicValue> operands,
                               SmallVectorImpl<SymbolicValue> &results,
                               SymbolicShapeContext &context);

} // namespace mlir::tessera::poly::models

#endif // TESSERA_LIB_DIALECT_POLY_EXTENSIONS_MODELUTILS_H
