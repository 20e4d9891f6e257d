//===- Pipelines.h - Tessera's pass pipelines -------------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_PIPELINES_PIPELINES_H
#define TESSERA_PIPELINES_PIPELINES_H

#include "tessera/Conversion/KernelToRuntime/KernelToRuntime.h"
#include "tessera/Pipelines/Passes.h"

#include "mlir/Pass/PassOptions.h"

#include <cstdint>

namespace mlir {
class OpPassManager;

namespace tessera {

/// Options of the `tessera-cpu` pipeline. The target options are those of
/// `tessera-cpu-codegen`: each property of the target is the host's when 0.
struct TesseraCpuPipelineOptions
    : public PassPipelineOptions<TesseraCpuPipelineOptions> {
  Option<unsigned> vectorBits{
      *this, "vector-bits",
      llvm::cl::desc("Vector register width in bits (0: the host's)"),
      llvm::cl::init(0)};
  Option<unsigned> vectorRegisters{
      *this, "vector-registers",
      llvm::cl::desc("Number of vector registers (0: the host's)"),
      llvm::cl::init(0)};
  Option<int64_t> l1CacheBytes{
      *this, "l1-cache-bytes",
      llvm::cl::desc("Level-1 data cache size (0: the host's)"),
      llvm::cl::init(0)};
  Option<int64_t> l2CacheBytes{
      *this, "l2-cache-bytes",
      llvm::cl::desc("Level-2 cache size (0: the host's)"), llvm::cl::init(0)};
  Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("Tile and vectorize linalg ops (false: scalar loops)"),
      llvm::cl::init(true)};
  Option<bool> runtimeChecks{
      *this, "runtime-checks",
      llvm::cl::desc("Guard indexing and integer division with run-time "
                     "checks (tessera-insert-runtime-checks)"),
      llvm::cl::init(false)};

  /// The options of the pipeline's `tessera-cpu-codegen`.
  TesseraCpuCodegenPassOptions getCodegenOptions() const {
    TesseraCpuCodegenPassOptions options;
    options.vectorBits = vectorBits;
    options.vectorRegisters = vectorRegisters;
    options.l1CacheBytes = l1CacheBytes;
    options.l2CacheBytes = l2CacheBytes;
    return options;
  }
};

/// Per-device program on tensors (func/arith/math/tensor/linalg/scf and
/// comm ops) to the LLVM dialect: comm ops to runtime calls, elementwise ops
/// to linalg, tiling and vectorization (or scalar loops), one-shot
/// bufferization with deallocation, and everything to LLVM. Allocations call
/// the generic `_mlir_memref_to_llvm_alloc` / `_free` functions, which
/// `tessera-run` binds to the runtime's accounting allocator.
void buildTesseraCpuPipeline(OpPassManager &pm,
                             const TesseraCpuPipelineOptions &options);

/// Registers the `tessera-cpu` pipeline (its passes `tessera-cpu-codegen`
/// and `tessera-cpu-lower-vectors` are registered by
/// registerTesseraCpuPasses()).
void registerTesseraCpuPipeline();

/// The lowering of a module's `kernel.call`s in `mode` (the
/// `kernel-lower-pipelined` and `kernel-lower-interpret` pipelines): the
/// vector layouts of the kernel bodies inferred and applied, then
/// `convert-kernel-to-runtime` with that mode.
void buildKernelLoweringPipeline(OpPassManager &pm,
                                 kernel::KernelLoweringMode mode);

/// Registers the `kernel-lower-pipelined` and `kernel-lower-interpret`
/// pipelines.
void registerKernelLoweringPipelines();

} // namespace tessera
} // namespace mlir

#endif // TESSERA_PIPELINES_PIPELINES_H
