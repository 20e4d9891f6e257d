//===- KernelBytecode.h - bytecode versions of the kernel dialect ---*- C++
//-*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The versions of the kernel dialect's MLIR bytecode (tessera/Dialect/
// BytecodeVersion.h) and the registration of its bytecode interface.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_KERNEL_IR_KERNELBYTECODE_H
#define TESSERA_DIALECT_KERNEL_IR_KERNELBYTECODE_H

#include "tessera/Dialect/BytecodeVersion.h"

namespace mlir::tessera::kernel {
class KernelDialect;

/// The kernel dialect's bytecode versions: written, and the oldest read.
/// History (a new version says what changed and lib/Dialect/Kernel/IR/
/// KernelBytecode.cpp upgrades the IR of the older ones):
///   1  the first versioned bytecode (Tessera 0.1).
inline constexpr DialectVersionRange kBytecodeVersions = {"kernel", 1, 1};

/// Registers the kernel dialect's bytecode interface (called by
/// KernelDialect::initialize).
void registerBytecodeInterface(KernelDialect &dialect);

} // namespace mlir::tessera::kernel

#endif // TESSERA_DIALECT_KERNEL_IR_KERNELBYTECODE_H
