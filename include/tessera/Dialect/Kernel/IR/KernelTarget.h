//===- KernelTarget.h - facts about TPU generations -------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The hardware numbers of the TPU generations `#kernel.target` names: the
// one table every kernel pass and the runtime's cost model read. Sources:
// JAX's `tpu_info.py` (per-TensorCore numbers) and Google Cloud's TPU pages
// (per-chip numbers); see docs/Dialects/Kernel.md.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_KERNEL_IR_KERNELTARGET_H
#define TESSERA_DIALECT_KERNEL_IR_KERNELTARGET_H

#include "mlir/IR/Types.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace mlir::tessera::kernel {

/// What a TPU generation provides. Memory sizes are per TensorCore unless
/// the name says chip; rates are per chip.
struct TpuInfo {
  /// The generation as written in `#kernel.target<"...">`.
  llvm::StringLiteral generation;
  /// TensorCores per chip.
  int64_t tensorCoresPerChip;
  /// True if the TensorCores of a chip form one device (megacore): parallel
  /// grid axes are split across them.
  bool megacore;
  /// VMEM per TensorCore, in bytes.
  int64_t vmemBytes;
  /// The scoped VMEM limit a kernel gets unless it sets `vmem_limit_bytes`.
  int64_t defaultScopedVmemBytes;
  /// SMEM per TensorCore, in bytes.
  int64_t smemBytes;
  /// HBM per chip, in bytes.
  int64_t hbmBytesPerChip;
  /// HBM bandwidth per chip, in bytes per second.
  double hbmBytesPerSecond;
  /// Peak bf16 matmul rate per chip, in FLOP per second.
  double peakBf16FlopsPerSecond;
  /// Peak int8 matmul rate per chip, in operations per second (0 if the
  /// generation has no native int8 matmul).
  double peakInt8OpsPerSecond;
  /// MXUs per TensorCore and the side of each (128 for 128x128).
  int64_t mxuCount;
  int64_t mxuSize;
  /// The second-minor tile of 16-bit types in memory (8 before TPU7x, 16 on
  /// TPU7x).
  int64_t x16SublaneTiling;
  /// True if fp8 and int4 arrays are supported.
  bool supportsFp8AndInt4;

  /// Sublanes and lanes of a vector register (8 x 128 x 32 bits).
  static constexpr int64_t kSublanes = 8;
  static constexpr int64_t kLanes = 128;

  /// The second-minor tile in memory of elements of `bitWidth` bits
  /// (32-bit: 8; packed types 8 * 32/bitWidth, with 16-bit types following
  /// `x16SublaneTiling`).
  int64_t getSublaneTiling(unsigned bitWidth) const;
};

/// The facts of `generation`, or null if it is not a known generation.
const TpuInfo *lookupTpuInfo(llvm::StringRef generation);

/// Every known generation, oldest first.
llvm::ArrayRef<TpuInfo> getTpuInfos();

/// The number of bits an element of `type` occupies in TPU memory (`i1` is
/// stored as 32 bits); 0 for types that are not integers or floats.
unsigned getStorageBitWidth(Type type);

} // namespace mlir::tessera::kernel

#endif // TESSERA_DIALECT_KERNEL_IR_KERNELTARGET_H
