//===- Kernel.h - host API of the runtime's kernel calls --------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// What a host program asks the runtime about the kernel.calls that lowered
// code made (tessera_rt_kernel_call, whose C ABI is
// tessera/Runtime/KernelABI.h, included here): the records behind
// `tessera-run --stats` and who performs the copies of the DMA engines.
// Part of the runtime library (TesseraRuntime); no MLIR headers.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_RUNTIME_KERNEL_H
#define TESSERA_RUNTIME_KERNEL_H

#include "tessera/Runtime/KernelABI.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::rt {

/// What one kernel.call did on one emulated device.
struct KernelCallRecord {
  std::string name;
  std::string target;
  /// "interpret" or "pipelined".
  std::string mode;
  /// Whether engine threads performed the copies (pipelined mode).
  bool engineThreads = false;
  /// The device that ran it (-1 outside a mesh).
  int64_t device = -1;
  int64_t cores = 1;
  int64_t steps = 0;
  /// Bytes copied HBM -> VMEM/SMEM and VMEM/SMEM -> HBM.
  int64_t bytesIn = 0;
  int64_t bytesOut = 0;
  /// Block copies issued and skipped (block unchanged).
  int64_t dmasIssued = 0;
  int64_t dmasSkipped = 0;
  int64_t flops = 0;
  /// The most VMEM / SMEM bytes one TensorCore's arena held, and its size.
  int64_t vmemPeak = 0;
  int64_t vmemBytes = 0;
  int64_t smemPeak = 0;
  int64_t smemBytes = 0;
  double hbmBytesPerSecond = 0;
  double peakFlopsPerSecond = 0;
  /// Wall-clock seconds of the call on the CPU.
  double seconds = 0;
};

/// Who performs the copies of the DMA engines of pipelined calls.
enum class KernelDmaEngines {
  /// Threads when the process has a processor for the engine of every
  /// TensorCore of every device of the mesh besides the cores themselves
  /// and the call is not compute-bound (fewer than 32 FLOPs per byte of
  /// its block copies, TESSERA_RT_KERNEL_INFO_COPY_BYTES), else inline (the
  /// default; TESSERA_KERNEL_DMA=auto).
  Auto,
  /// A thread per TensorCore, which performs the core's copies while the
  /// core runs (TESSERA_KERNEL_DMA=threads).
  Threads,
  /// The core, when it waits for a copy (the queued copies in order up to
  /// that one) or at the end of the call; a body that reads a window before
  /// waiting for its copy sees the same stale data on every run
  /// (TESSERA_KERNEL_DMA=inline).
  Inline,
};

/// Sets the policy for the calls that start after it; the environment
/// variable TESSERA_KERNEL_DMA sets the initial one.
void setKernelDmaEngines(KernelDmaEngines engines);
KernelDmaEngines getKernelDmaEngines();

/// The calls recorded since the last clearKernelCallRecords, in the order
/// they finished.
std::vector<KernelCallRecord> getKernelCallRecords();
void clearKernelCallRecords();

} // namespace tessera::rt

#endif // TESSERA_RUNTIME_KERNEL_H
