//===- Passes.h - poly passes -----------------------------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_POLY_TRANSFORMS_PASSES_H
#define TESSERA_DIALECT_POLY_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace mlir::tessera::poly {

#define GEN_PASS_DECL
#include "tessera/Dialect/Poly/Transforms/Passes.h.inc"

/// Registers every poly pass with the global pass registry.
#define GEN_PASS_REGISTRATION
#include "tessera/Dialect/Poly/Transforms/Passes.h.inc"

} // namespace mlir::tessera::poly

#endif // TESSERA_DIALECT_POLY_TRANSFORMS_PASSES_H
