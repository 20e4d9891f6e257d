//===- Passes.h - CPU code generation passes --------------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// `tessera-cpu-codegen` and `tessera-cpu-lower-vectors`, declared in
// Passes.td: create them with createTesseraCpuCodegenPass(options) and
// createTesseraCpuLowerVectorsPass(); registerTesseraCpuPasses() registers
// both with the global pass registry.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_PIPELINES_PASSES_H
#define TESSERA_PIPELINES_PASSES_H

#include "mlir/Pass/Pass.h"

#include <cstdint>
#include <memory>

namespace mlir::tessera {

#define GEN_PASS_DECL
#include "tessera/Pipelines/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tessera/Pipelines/Passes.h.inc"

} // namespace mlir::tessera

#endif // TESSERA_PIPELINES_PASSES_H
