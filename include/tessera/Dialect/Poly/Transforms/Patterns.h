//===- Patterns.h - rewrite patterns of the poly passes ---------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_POLY_TRANSFORMS_PATTERNS_H
#define TESSERA_DIALECT_POLY_TRANSFORMS_PATTERNS_H

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace mlir::tessera::poly {

/// Adds the patterns `poly-specialize` uses besides the upstream
/// canonicalization patterns: they give static types to ops whose sizes are
/// constant operands where upstream has no such folding (`tensor.splat`).
void populateStaticSizePatterns(RewritePatternSet &patterns);

} // namespace mlir::tessera::poly

#endif // TESSERA_DIALECT_POLY_TRANSFORMS_PATTERNS_H
