//===- Pipelines.h - Tessera's pass pipelines -------------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_PIPELINES_PIPELINES_H
#define TESSERA_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

#include <cstdint>
#include <memory>

namespace mlir {
class OpPassManager;
class Pass;

namespace tessera {

/// What the CPU code generator derives vector shapes and tile sizes from.
struct CpuTarget {
  /// The width of a vector register in bits (128: SSE or NEON, 256: AVX2,
  /// 512: AVX-512).
  unsigned vectorBits = 128;
  /// The number of vector registers.
  unsigned vectorRegisters = 16;
  /// The sizes of the level-1 data cache and of the level-2 cache in bytes.
  int64_t l1CacheBytes = 32 * 1024;
  int64_t l2CacheBytes = 512 * 1024;

  /// The host CPU: its vector registers from its features
  /// (`llvm::sys::getHostCPUFeatures`), its caches from `sysconf` where the
  /// C library reports them (the defaults above otherwise).
  static CpuTarget getHost();

  /// The host CPU with the properties given (non-zero) replaced.
  static CpuTarget getHost(unsigned vectorBits, unsigned vectorRegisters,
                           int64_t l1CacheBytes, int64_t l2CacheBytes);
};

/// The target options shared by `tessera-cpu-codegen` and `tessera-cpu`:
/// each property of the target is the host's when 0.
template <typename Derived>
struct CpuTargetOptions : public PassPipelineOptions<Derived> {
  using Base = PassPipelineOptions<Derived>;
  typename Base::template Option<unsigned> vectorBits{
      *this, "vector-bits",
      llvm::cl::desc("Vector register width in bits (0: the host's)"),
      llvm::cl::init(0)};
  typename Base::template Option<unsigned> vectorRegisters{
      *this, "vector-registers",
      llvm::cl::desc("Number of vector registers (0: the host's)"),
      llvm::cl::init(0)};
  typename Base::template Option<int64_t> l1CacheBytes{
      *this, "l1-cache-bytes",
      llvm::cl::desc("Level-1 data cache size (0: the host's)"),
      llvm::cl::init(0)};
  typename Base::template Option<int64_t> l2CacheBytes{
      *this, "l2-cache-bytes",
      llvm::cl::desc("Level-2 cache size (0: the host's)"), llvm::cl::init(0)};

  /// The host target with the properties these options set replaced.
  CpuTarget getTarget() const {
    return CpuTarget::getHost(vectorBits, vectorRegisters, l1CacheBytes,
                              l2CacheBytes);
  }
};

/// Options of the `tessera-cpu-codegen` pass.
struct TesseraCpuCodegenOptions
    : public CpuTargetOptions<TesseraCpuCodegenOptions> {};

/// Options of the `tessera-cpu` pipeline.
struct TesseraCpuPipelineOptions
    : public CpuTargetOptions<TesseraCpuPipelineOptions> {
  Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("Tile and vectorize linalg ops (false: scalar loops)"),
      llvm::cl::init(true)};
};

/// Tiles and vectorizes the linalg ops of a function on tensors for `target`:
/// contractions become a packed, cache- and register-tiled kernel of
/// `vector.contract`s with accumulators in registers; every other linalg op
/// (elementwise, reductions, convolutions, ...) is tiled to one vector along
/// the loop of its innermost data and vectorized. Ops that cannot be
/// vectorized stay (tiled) linalg ops, scalar loops after bufferization.
std::unique_ptr<Pass> createTesseraCpuCodegenPass(const CpuTarget &target);

/// Lowers the vector ops of `tessera-cpu-codegen` on buffers to the ops the
/// LLVM conversion takes: contractions to `vector.fma`, reductions to 1-D
/// reductions, permuted and masked transfers to plain ones, exp/log/tanh/erf
/// on vectors to polynomials.
std::unique_ptr<Pass> createTesseraCpuLowerVectorsPass();

/// Per-device program on tensors (func/arith/math/tensor/linalg/scf and
/// comm ops) to the LLVM dialect: comm ops to runtime calls, elementwise ops
/// to linalg, tiling and vectorization (or scalar loops), one-shot
/// bufferization with deallocation, and everything to LLVM. Allocations call
/// the generic `_mlir_memref_to_llvm_alloc` / `_free` functions, which
/// `tessera-run` binds to the runtime's accounting allocator.
void buildTesseraCpuPipeline(OpPassManager &pm,
                             const TesseraCpuPipelineOptions &options);

/// Registers `tessera-cpu` and its stages `tessera-cpu-codegen` and
/// `tessera-cpu-lower-vectors`.
void registerTesseraCpuPipeline();

} // namespace tessera
} // namespace mlir

#endif // TESSERA_PIPELINES_PIPELINES_H
