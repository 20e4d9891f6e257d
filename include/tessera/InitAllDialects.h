//===- InitAllDialects.h - register every dialect Tessera uses -*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The one registration point for dialects and external models, used by every
// Tessera tool and by compilers that embed Tessera.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_INITALLDIALECTS_H
#define TESSERA_INITALLDIALECTS_H

namespace mlir {
class DialectRegistry;
class MLIRContext;

namespace tessera {

/// Adds Tessera's dialects, the upstream dialects Tessera programs are
/// written in, and Tessera's external interface models to `registry`.
void registerAllDialects(DialectRegistry &registry);

/// Appends all of the above to the context's registry.
void registerAllDialects(MLIRContext &context);

} // namespace tessera
} // namespace mlir

#endif // TESSERA_INITALLDIALECTS_H
