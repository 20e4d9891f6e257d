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
  // Version 2 added `reduced={...}` to `#spmd.sharding`. Attributes are
  // stored as their text, and version-1 text (which never has reduced axes)
  // parses into the same attributes today: upgrading it rewrites nothing.
  // A later change that does alter what version-1 or -2 text means adds
  // the function that rewrites that IR here.
  dialect.addInterface<VersionedBytecodeInterface>(
      kBytecodeVersions, [](Operation *, uint64_t from) {
        return success(from >= kBytecodeVersions.oldest);
      });
}
