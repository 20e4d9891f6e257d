//===- Extensions.cpp - register every symbolic shape model ---------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Poly/Extensions/SymbolicShapeExternalModels.h"

using namespace mlir;

void tessera::poly::registerSymbolicShapeExternalModels(
    DialectRegistry &registry) {
  registerArithSymbolicShapeModels(registry);
  registerFuncSymbolicShapeModels(registry);
  registerLinalgSymbolicShapeModels(registry);
  registerMathSymbolicShapeModels(registry);
  registerScfSymbolicShapeModels(registry);
  registerSpmdTypesExtension(registry);
  registerTensorSymbolicShapeModels(registry);
}
