//===- KernelBytecode.h - kernel bytecode versions --------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_KERNEL_IR_KERNELBYTECODE_H
#define TESSERA_DIALECT_KERNEL_IR_KERNELBYTECODE_H

#include "tessera/Dialect/BytecodeVersion.h"

namespace mlir::tessera::kernel {
class KernelDialect;

/// The versions of the kernel dialect's bytecode (BytecodeVersion.h). History:
///   1  the first versioned bytecode (Tessera 0.1).
inline constexpr DialectVersionRange kBytecodeVersions = {"kernel", 1, 1};

/// Registers the bytecode interface (KernelDialect::initialize).
void registerBytecodeInterface(KernelDialect &dialect);

} // namespace mlir::tessera::kernel

#endif // TESSERA_DIALECT_KERNEL_IR_KERNELBYTECODE_H
