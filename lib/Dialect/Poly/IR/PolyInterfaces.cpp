//===- PolyInterfaces.cpp - the symbolic shape op interface ---------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Poly/IR/PolyInterfaces.h"

using namespace mlir;
using namespace mlir::tessera::poly;

#include "tessera/Dialect/Poly/IR/PolyInterfaces.cpp.inc"

SymbolicShapeContext::~SymbolicShapeContext() = default;

InFlightDiagnostic
SymbolicShapeContext::emitError(Operation *op,
                                const symbolic::DimError &error) {
  return op->emitOpError() << error.getMessage();
}
