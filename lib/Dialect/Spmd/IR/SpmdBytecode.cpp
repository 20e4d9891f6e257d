//===- SpmdBytecode.cpp - the spmd dialect's bytecode versions ------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/SpmdBytecode.h"

#include "tessera/Dialect/Spmd/IR/SpmdDialect.h"

using namespace mlir;
using namespace mlir::tessera;

void mlir::tessera::spmd::registerBytecodeInterface(SpmdDialect &dialect) {
  // Version 1 is the only one so far: nothing to upgrade. The first change
  // of the bytecode adds version 2 to kBytecodeVersions and, here, the
  // function that rewrites version-1 IR into it.
  dialect.addInterface<VersionedBytecodeInterface>(kBytecodeVersions,
                                                   /*upgrade=*/nullptr);
}
