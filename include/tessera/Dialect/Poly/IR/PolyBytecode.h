//===- PolyBytecode.h - poly bytecode versions ------------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_POLY_IR_POLYBYTECODE_H
#define TESSERA_DIALECT_POLY_IR_POLYBYTECODE_H

#include "tessera/Dialect/BytecodeVersion.h"

namespace mlir::tessera::poly {
class PolyDialect;

/// The versions of the poly dialect's bytecode (BytecodeVersion.h). History:
///   1  the first versioned bytecode (Tessera 0.1).
inline constexpr DialectVersionRange kBytecodeVersions = {"poly", 1, 1};

/// Registers the bytecode interface (PolyDialect::initialize).
void registerBytecodeInterface(PolyDialect &dialect);

} // namespace mlir::tessera::poly

#endif // TESSERA_DIALECT_POLY_IR_POLYBYTECODE_H
