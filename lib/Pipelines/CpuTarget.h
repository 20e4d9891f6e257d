//===- CpuTarget.h - what the CPU code generator targets --------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_PIPELINES_CPUTARGET_H
#define TESSERA_LIB_PIPELINES_CPUTARGET_H

#include <cstdint>

namespace mlir::tessera {

/// What `tessera-cpu-codegen` derives vector shapes and tile sizes from.
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

} // namespace mlir::tessera

#endif // TESSERA_LIB_PIPELINES_CPUTARGET_H
