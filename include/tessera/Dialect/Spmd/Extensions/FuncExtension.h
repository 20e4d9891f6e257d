//===- FuncExtension.h - spmd hooks on func.func ----------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// A `SymbolUserOpInterface` model for `func.func` that verifies the
// `spmd.sharding` attributes of its arguments and results against their
// meshes. Verifying them there, with the `SymbolTableCollection` that the
// module's verifier shares between all symbol users, resolves each mesh with
// a hash lookup; the dialect's argument-attribute hook would have to scan the
// module for every function.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_EXTENSIONS_FUNCEXTENSION_H
#define TESSERA_DIALECT_SPMD_EXTENSIONS_FUNCEXTENSION_H

namespace mlir {
class DialectRegistry;

namespace tessera::spmd {

/// Attaches the model to `func.func` when both the func and spmd dialects
/// are loaded. Without it, function shardings are still fully verified, by
/// a mesh lookup per attribute.
void registerFunctionShardingVerifierModels(DialectRegistry &registry);

} // namespace tessera::spmd
} // namespace mlir

#endif // TESSERA_DIALECT_SPMD_EXTENSIONS_FUNCEXTENSION_H
