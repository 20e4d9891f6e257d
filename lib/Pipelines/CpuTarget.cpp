//===- CpuTarget.cpp - the host CPU's vector registers and caches ---------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "CpuTarget.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

namespace mlir::tessera {

CpuTarget CpuTarget::getHost() {
  CpuTarget target;
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  auto has = [&](llvm::StringRef feature) { return features.lookup(feature); };
  llvm::Triple triple(llvm::sys::getProcessTriple());
  if (triple.isX86()) {
    // 16 registers in 64-bit mode (8 in 32-bit mode), 32 with AVX-512.
    bool is64Bit = triple.isArch64Bit();
    target.vectorRegisters = is64Bit ? 16 : 8;
    if (has("avx512f")) {
      target.vectorBits = 512;
      target.vectorRegisters = is64Bit ? 32 : 8;
    } else if (has("avx")) {
      target.vectorBits = 256;
    } else {
      target.vectorBits = 128;
    }
  } else if (triple.isAArch64()) {
    // NEON (SVE's scalable registers are at least as wide).
    target.vectorBits = 128;
    target.vectorRegisters = 32;
  }
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
  // 0 or -1 where the C library does not know.
  if (long bytes = sysconf(_SC_LEVEL1_DCACHE_SIZE); bytes > 0)
    target.l1CacheBytes = bytes;
  if (long bytes = sysconf(_SC_LEVEL2_CACHE_SIZE); bytes > 0)
    target.l2CacheBytes = bytes;
#endif
  return target;
}

CpuTarget CpuTarget::getHost(unsigned vectorBits, unsigned vectorRegisters,
                             int64_t l1CacheBytes, int64_t l2CacheBytes) {
  CpuTarget target = getHost();
  if (vectorBits)
    target.vectorBits = vectorBits;
  if (vectorRegisters)
    target.vectorRegisters = vectorRegisters;
  if (l1CacheBytes)
    target.l1CacheBytes = l1CacheBytes;
  if (l2CacheBytes)
    target.l2CacheBytes = l2CacheBytes;
  return target;
}

} // namespace mlir::tessera
