//===- CommBytecode.cpp - the comm dialect's bytecode versions ------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Comm/IR/CommBytecode.h"

#include "tessera/Dialect/Comm/IR/CommDialect.h"

using namespace mlir;
using namespace mlir::tessera;

void mlir::tessera::comm::registerBytecodeInterface(CommDialect &dialect) {
  // Version-1 IR is version-2 IR (version 2 only added an optional
  // attribute): nothing to upgrade. A change that needs a rewrite of older
  // IR adds, here, the function that performs it.
  dialect.addInterface<VersionedBytecodeInterface>(kBytecodeVersions,
                                                   /*upgrade=*/nullptr);
}
