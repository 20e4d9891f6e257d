//===- SpmdOps.cpp - spmd operations --------------------------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdVerifiers.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

//===----------------------------------------------------------------------===//
// MeshOp
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/SpmdInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "tessera/Dialect/Spmd/IR/SpmdOps.cpp.inc"
