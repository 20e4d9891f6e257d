//===- PolyOps.cpp - poly operations --------------------------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Poly/IR/PolyOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::tessera::poly;

#define GET_OP_CLASSES
#include "tessera/Dialect/Poly/IR/PolyOps.cpp.inc"

//===----------------------------------------------------------------------===//
// ShapeAssertionOp: SymbolicShapeOpInterface
//===----------------------------------------------------------------------===//

/// An assertion has no results: its rule only lets `poly-infer` analyze
/// functions that already hold runtime shape assertions.
LogicalResult
ShapeAssertionOp::inferSymbolicShapes(ArrayRef<SymbolicValue> operands,
                                      SmallVectorImpl<SymbolicValue> &results,
                                      SymbolicShapeContext &context) {
  return success();
}

/// JAX's `shape_assertion` custom call.
StringRef ShapeAssertionOp::getJaxPrimitiveName() { return "shape_assertion"; }
