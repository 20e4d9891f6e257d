//===- SpmdBytecode.h - spmd bytecode versions ------------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_IR_SPMDBYTECODE_H
#define TESSERA_DIALECT_SPMD_IR_SPMDBYTECODE_H

#include "tessera/Dialect/BytecodeVersion.h"

namespace mlir::tessera::spmd {
class SpmdDialect;

/// The versions of the spmd dialect's bytecode (BytecodeVersion.h). History:
///   1  the first versioned bytecode (Tessera 0.1).
inline constexpr DialectVersionRange kBytecodeVersions = {"spmd", 1, 1};

/// Registers the bytecode interface (SpmdDialect::initialize).
void registerBytecodeInterface(SpmdDialect &dialect);

} // namespace mlir::tessera::spmd

#endif // TESSERA_DIALECT_SPMD_IR_SPMDBYTECODE_H
