//===- CommBytecode.h - comm bytecode versions ------------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_COMM_IR_COMMBYTECODE_H
#define TESSERA_DIALECT_COMM_IR_COMMBYTECODE_H

#include "tessera/Dialect/BytecodeVersion.h"

namespace mlir::tessera::comm {
class CommDialect;

/// The versions of the comm dialect's bytecode (BytecodeVersion.h). History:
///   1  the first versioned bytecode (Tessera 0.1).
///   2  `comm.all_gather` may carry `valid_size` (a version-1 reader would
///      drop it); version-1 IR is version-2 IR, nothing to upgrade.
inline constexpr DialectVersionRange kBytecodeVersions = {"comm", 2, 1};

/// Registers the bytecode interface (CommDialect::initialize).
void registerBytecodeInterface(CommDialect &dialect);

} // namespace mlir::tessera::comm

#endif // TESSERA_DIALECT_COMM_IR_COMMBYTECODE_H
