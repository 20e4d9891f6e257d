//===- KernelTarget.cpp - facts about TPU generations ---------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Kernel/IR/KernelTarget.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tessera::kernel;

static constexpr int64_t kKiB = 1024;
static constexpr int64_t kMiB = 1024 * kKiB;
static constexpr int64_t kGiB = 1024 * kMiB;

// VMEM/SMEM per TensorCore and TensorCores per chip are JAX's tpu_info.py;
// HBM, bandwidth and peak rates per chip are Google Cloud's pages (v5p's
// bandwidth there is 2765 GB/s, tpu_info says 2.46e12). The default scoped
// VMEM limits are XLA's (`xla_tpu_scoped_vmem_limit_kib`): 16 MiB before
// v6e, 32 MiB on v6e and TPU7x.
static const TpuInfo kTpuInfos[] = {
    // gen, TCs, megacore, VMEM, scoped VMEM, SMEM, HBM, HBM B/s, bf16, int8,
    // MXUs, MXU side, x16 sublane tiling, fp8/int4
    {"v4", 2, true, 16 * kMiB, 16 * kMiB, 1 * kMiB, 32 * kGiB, 1200e9, 275e12,
     275e12, 4, 128, 8, false},
    {"v5e", 1, false, 128 * kMiB, 16 * kMiB, 1 * kMiB, 16000000000, 819e9,
     197e12, 394e12, 4, 128, 8, true},
    {"v5p", 2, true, 64 * kMiB, 16 * kMiB, 1 * kMiB, 95 * kGiB, 2765e9, 459e12,
     918e12, 4, 128, 8, true},
    {"v6e", 1, false, 128 * kMiB, 32 * kMiB, 1 * kMiB, 32000000000, 1640e9,
     918e12, 1836e12, 2, 256, 8, true},
    {"v7x", 2, false, 64 * kMiB, 32 * kMiB, 1 * kMiB, 192 * kGiB, 7.4e12,
     2307e12, 0, 2, 256, 16, true},
};

int64_t TpuInfo::getSublaneTiling(unsigned bitWidth) const {
  if (bitWidth >= 32 || bitWidth == 0)
    return kSublanes;
  if (bitWidth == 16)
    return x16SublaneTiling;
  return kSublanes * (32 / bitWidth);
}

const TpuInfo *mlir::tessera::kernel::lookupTpuInfo(StringRef generation) {
  for (const TpuInfo &info : kTpuInfos)
    if (info.generation == generation)
      return &info;
  return nullptr;
}

ArrayRef<TpuInfo> mlir::tessera::kernel::getTpuInfos() { return kTpuInfos; }

unsigned mlir::tessera::kernel::getStorageBitWidth(Type type) {
  if (auto intType = dyn_cast<IntegerType>(type))
    return intType.getWidth() == 1 ? 32 : intType.getWidth();
  if (auto floatType = dyn_cast<FloatType>(type))
    return floatType.getWidth();
  return 0;
}
