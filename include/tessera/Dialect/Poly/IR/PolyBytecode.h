//===- PolyBytecode.h - bytecode versions of the poly dialect ---*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The versions of the poly dialect's MLIR bytecode (tessera/Dialect/
// BytecodeVersion.h) and the registration of its bytecode interface.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_POLY_IR_POLYBYTECODE_H
#define TESSERA_DIALECT_POLY_IR_POLYBYTECODE_H

#include "tessera/Dialect/BytecodeVersion.h"

namespace mlir::tessera::poly {
class PolyDialect;

/// The poly dialect's bytecode versions: written, and the oldest read.
/// History (a new version says what changed and lib/Dialect/Poly/IR/
/// PolyBytecode.cpp upgrades the IR of the older ones):
///   1  the first versioned bytecode (Tessera 0.1).
inline constexpr DialectVersionRange kBytecodeVersions = {"poly", 1, 1};

/// Registers the poly dialect's bytecode interface (called by
/// PolyDialect::initialize).
void registerBytecodeInterface(PolyDialect &dialect);

} // namespace mlir::tessera::poly

#endif // TESSERA_DIALECT_POLY_IR_POLYBYTECODE_H
