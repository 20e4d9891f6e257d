//===- CommBytecode.h - bytecode versions of the comm dialect ---*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The versions of the comm dialect's MLIR bytecode (tessera/Dialect/
// BytecodeVersion.h) and the registration of its bytecode interface.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_COMM_IR_COMMBYTECODE_H
#define TESSERA_DIALECT_COMM_IR_COMMBYTECODE_H

#include "tessera/Dialect/BytecodeVersion.h"

namespace mlir::tessera::comm {
class CommDialect;

/// The comm dialect's bytecode versions: written, and the oldest read.
/// History (a new version says what changed and lib/Dialect/Comm/IR/
/// CommBytecode.cpp upgrades the IR of the older ones):
///   1  the first versioned bytecode (Tessera 0.1).
inline constexpr DialectVersionRange kBytecodeVersions = {"comm", 1, 1};

/// Registers the comm dialect's bytecode interface (called by
/// CommDialect::initialize).
void registerBytecodeInterface(CommDialect &dialect);

} // namespace mlir::tessera::comm

#endif // TESSERA_DIALECT_COMM_IR_COMMBYTECODE_H
