//===- Passes.h - kernel passes ---------------------------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_KERNEL_TRANSFORMS_PASSES_H
#define TESSERA_DIALECT_KERNEL_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace mlir::tessera::kernel {

#define GEN_PASS_DECL
#include "tessera/Dialect/Kernel/Transforms/Passes.h.inc"

/// Registers every kernel pass with the global pass registry.
#define GEN_PASS_REGISTRATION
#include "tessera/Dialect/Kernel/Transforms/Passes.h.inc"

} // namespace mlir::tessera::kernel

#endif // TESSERA_DIALECT_KERNEL_TRANSFORMS_PASSES_H
