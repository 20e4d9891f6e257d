//===- SpmdBytecode.h - bytecode versions of the spmd dialect ---*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The versions of the spmd dialect's MLIR bytecode (tessera/Dialect/
// BytecodeVersion.h) and the registration of its bytecode interface.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_IR_SPMDBYTECODE_H
#define TESSERA_DIALECT_SPMD_IR_SPMDBYTECODE_H

#include "tessera/Dialect/BytecodeVersion.h"

namespace mlir::tessera::spmd {
class SpmdDialect;

/// The spmd dialect's bytecode versions: written, and the oldest read.
/// History (a new version says what changed and lib/Dialect/Spmd/IR/
/// SpmdBytecode.cpp upgrades the IR of the older ones):
///   1  the first versioned bytecode (Tessera 0.1).
inline constexpr DialectVersionRange kBytecodeVersions = {"spmd", 1, 1};

/// Registers the spmd dialect's bytecode interface (called by
/// SpmdDialect::initialize).
void registerBytecodeInterface(SpmdDialect &dialect);

} // namespace mlir::tessera::spmd

#endif // TESSERA_DIALECT_SPMD_IR_SPMDBYTECODE_H
