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
