//===- PolyDialect.cpp - poly dialect registration ------------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Poly/IR/PolyDialect.h"
#include "tessera/Dialect/Poly/IR/PolyAttrs.h"
#include "tessera/Dialect/Poly/IR/PolyBytecode.h"
#include "tessera/Dialect/Poly/IR/PolyOps.h"

#include "VerifierCache.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace mlir::tessera::poly;

#include "tessera/Dialect/Poly/IR/PolyDialect.cpp.inc"

void PolyDialect::initialize() {
  registerBytecodeInterface(*this);
  verifierCache = std::make_unique<poly::detail::VerifierCache>();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "tessera/Dialect/Poly/IR/PolyOps.cpp.inc"
      >();
}
