//===- KernelBytecode.cpp - the kernel dialect's bytecode versions --------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Kernel/IR/KernelBytecode.h"

#include "tessera/Dialect/Kernel/IR/KernelDialect.h"

using namespace mlir;
using namespace mlir::tessera;

void mlir::tessera::kernel::registerBytecodeInterface(KernelDialect &dialect) {
  // Version 1 is the only one so far: nothing to upgrade. The first change
  // of the bytecode adds version 2 to kBytecodeVersions and, here, the
  // function that rewrites version-1 IR into it.
  dialect.addInterface<VersionedBytecodeInterface>(kBytecodeVersions,
                                                   /*upgrade=*/nullptr);
}
