//===- Pipelines.h - Tessera's pass pipelines -------------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_PIPELINES_PIPELINES_H
#define TESSERA_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;

namespace tessera {

/// Options of the `tessera-cpu` pipeline.
struct TesseraCpuPipelineOptions
    : public PassPipelineOptions<TesseraCpuPipelineOptions> {
  PassOptions::Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("Tile and vectorize linalg ops (false: scalar loops)"),
      llvm::cl::init(true)};
};

/// Per-device program on tensors (func/arith/math/tensor/linalg/scf and
/// comm ops) to the LLVM dialect: comm ops to runtime calls, elementwise ops
/// to linalg, one-shot bufferization with deallocation, linalg to loops, and
/// everything to LLVM. Allocations call the generic
/// `_mlir_memref_to_llvm_alloc` / `_free` functions, which `tessera-run`
/// binds to the runtime's accounting allocator.
void buildTesseraCpuPipeline(OpPassManager &pm,
                             const TesseraCpuPipelineOptions &options);

/// Registers `tessera-cpu`.
void registerTesseraCpuPipeline();

} // namespace tessera
} // namespace mlir

#endif // TESSERA_PIPELINES_PIPELINES_H
