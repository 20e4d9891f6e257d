//===- PolyDialect.h - poly dialect -----------------------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The `poly` dialect: JAX's shape polymorphism (symbolic dimensions) for
// MLIR programs. See docs/Dialects/Poly.md.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_POLY_IR_POLYDIALECT_H
#define TESSERA_DIALECT_POLY_IR_POLYDIALECT_H

#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpImplementation.h"

#include <memory>

namespace mlir::tessera::poly::detail {
/// The caches of the attribute verifiers (defined in PolyVerifiers.cpp).
class VerifierCache;
} // namespace mlir::tessera::poly::detail

#include "tessera/Dialect/Poly/IR/PolyDialect.h.inc"

#endif // TESSERA_DIALECT_POLY_IR_POLYDIALECT_H
