/*===- KernelABI.h - C ABI of lowered kernel calls ---------------*- C -*-===*\
|*                                                                            *|
|* Part of the Tessera project, under the Apache License v2.0.                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * The functions that code lowered from `kernel.call`s (kernel-lower-interpret,
 * kernel-lower-pipelined) calls: the call itself (TensorCores as threads,
 * their VMEM/SMEM arenas and DMA engines), the report of a failed run-time
 * check, and the counters behind `tessera-run --stats`. Pure C, like
 * Runtime.h: the compiler's kernel lowerings include it for the codes they
 * emit; the host's C++ API of kernel calls is tessera/Runtime/Kernel.h.
 */

#ifndef TESSERA_RUNTIME_KERNELABI_H
#define TESSERA_RUNTIME_KERNELABI_H

#include "tessera/Runtime/Runtime.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Reports a failed kernel check. `format` is the message with one `{}` per
/// value of `values` (`numValues` of them, printed in decimal). On a device
/// thread the mesh fails with the message (the host's Mesh::run reports the
/// first error); elsewhere the message is printed to stderr. Never aborts:
/// the lowered code skips the access that failed its check and goes on.
TESSERA_RT_EXPORT void tessera_rt_kernel_error(const char *format,
                                               const int64_t *values,
                                               int32_t numValues);

/// The function a lowered kernel.call runs on each TensorCore: `args` is
/// the address of the call's argument block, `core` the TensorCore index.
typedef void (*TesseraRtKernelCoreFn)(int64_t args, int32_t core);

/// The layout of the `info` array of tessera_rt_kernel_call.
enum {
  /// 0: kernel-lower-interpret, 1: kernel-lower-pipelined.
  TESSERA_RT_KERNEL_INFO_MODE,
  /// TensorCores the grid is split across (megacore), >= 1.
  TESSERA_RT_KERNEL_INFO_CORES,
  /// Bytes of the VMEM and SMEM arenas of each TensorCore.
  TESSERA_RT_KERNEL_INFO_VMEM_BYTES,
  TESSERA_RT_KERNEL_INFO_SMEM_BYTES,
  /// The call's FLOPs (its cost estimate, or the lowering's count).
  TESSERA_RT_KERNEL_INFO_FLOPS,
  /// Grid steps of the whole call.
  TESSERA_RT_KERNEL_INFO_STEPS,
  /// The target's HBM bandwidth (bytes/s) and peak rate (FLOP/s) per chip.
  TESSERA_RT_KERNEL_INFO_HBM_BYTES_PER_SECOND,
  TESSERA_RT_KERNEL_INFO_PEAK_FLOPS_PER_SECOND,
  /// The bytes the pipelined call's block copies move, as the lowering
  /// estimates them (every block copied each time its index changes along
  /// the grid's order; 0 if unknown): with the FLOPs, how compute-bound
  /// the call is (the `auto` DMA engine policy).
  TESSERA_RT_KERNEL_INFO_COPY_BYTES,
  TESSERA_RT_KERNEL_INFO_SIZE
};

/// Runs one kernel.call: `fn(args, core)` on each of `info[CORES]`
/// TensorCores concurrently (core 0 on the calling thread, the others on
/// threads of the same emulated device), each with its own VMEM and SMEM
/// arena of the sizes in `info` and (pipelined mode) its own DMA engine:
/// the copies the core starts with tessera_rt_kernel_dma_start are queued
/// and complete later, either performed by an engine thread per core while
/// the core runs (the core helps with the copy it waits for), or by the core
/// itself when it waits for one of them or at the end of the call
/// (tessera::rt::KernelDmaEngines in tessera/Runtime/Kernel.h). Copies take
/// effect as if performed one after the other in the order they were
/// started. Returns after every core finished and every DMA completed, and
/// records the call's counters (tessera::rt::getKernelCallRecords).
TESSERA_RT_EXPORT void tessera_rt_kernel_call(const char *name,
                                              const char *target,
                                              const int64_t *info, int64_t args,
                                              TesseraRtKernelCoreFn fn);

/// Memory spaces of tessera_rt_kernel_arena.
enum { TESSERA_RT_KERNEL_VMEM = 0, TESSERA_RT_KERNEL_SMEM = 1 };

/// Allocates `bytes` (128-byte aligned) in the `space` arena of the calling
/// TensorCore for the rest of the call and returns the address. A request
/// the arena cannot hold reports an error naming the kernel, the core, the
/// request and the arena's size (the run fails) and returns a separate heap
/// block, so nothing is overwritten.
TESSERA_RT_EXPORT int64_t tessera_rt_kernel_arena(int32_t space, int64_t bytes);

/// The bytes of the calling TensorCore's `space` arena in use: a mark to
/// release a scope's buffers to (kernel.run_scoped). 0 outside a call.
TESSERA_RT_EXPORT int64_t tessera_rt_kernel_arena_mark(int32_t space);

/// Frees the buffers of the calling TensorCore's `space` arena allocated
/// since `mark` (scopes nest: the last allocated are freed first). The
/// arena's high-water mark keeps its peak.
TESSERA_RT_EXPORT void tessera_rt_kernel_arena_release(int32_t space,
                                                       int64_t mark);

/// The layout of a DMA descriptor (an int64_t array): a copy of a strided
/// `rank`-dimensional block of `elementBytes`-byte elements from `src` to
/// `dst` (strides in elements), after which `amount` is added to the i32
/// semaphore at `semaphore` (0: none).
enum {
  /// 0: HBM to VMEM/SMEM, 1: VMEM/SMEM to HBM, 2: within a memory.
  TESSERA_RT_DMA_DIRECTION,
  TESSERA_RT_DMA_DST,
  TESSERA_RT_DMA_SRC,
  TESSERA_RT_DMA_ELEMENT_BYTES,
  TESSERA_RT_DMA_SEMAPHORE,
  TESSERA_RT_DMA_AMOUNT,
  TESSERA_RT_DMA_RANK,
  /// Then `rank` sizes, `rank` destination strides, `rank` source strides.
  TESSERA_RT_DMA_SIZES
};

/// Values of TESSERA_RT_DMA_DIRECTION.
enum {
  TESSERA_RT_DMA_TO_LOCAL = 0,
  TESSERA_RT_DMA_TO_HBM = 1,
  TESSERA_RT_DMA_WITHIN = 2
};

/// Starts the copy `descriptor` describes on the calling TensorCore's DMA
/// engine (interpret mode: performs it at once).
TESSERA_RT_EXPORT void tessera_rt_kernel_dma_start(const int64_t *descriptor);

/// Waits until the i32 semaphore at `semaphore` reaches `amount`, then
/// subtracts it and returns -1. If it is below `amount` and no started copy
/// will signal it, returns its value without waiting (the wait would hang).
TESSERA_RT_EXPORT int32_t tessera_rt_kernel_dma_wait(int64_t semaphore,
                                                     int32_t amount);

/// Waits for every copy the calling TensorCore started.
TESSERA_RT_EXPORT void tessera_rt_kernel_dma_drain(void);

/// Counts a block copy the pipelined lowering skipped because the block did
/// not change (copies issued are counted by tessera_rt_kernel_dma_start).
TESSERA_RT_EXPORT void tessera_rt_kernel_count_copy(int32_t issued);

/// The copies counted on the calling thread since the last reset: issued
/// and skipped.
TESSERA_RT_EXPORT void tessera_rt_kernel_copy_counts(int64_t *issued,
                                                     int64_t *skipped);

/// Resets the calling thread's copy counters.
TESSERA_RT_EXPORT void tessera_rt_kernel_reset_copy_counts(void);

/// The entry points above, ended by {NULL, NULL}, for a JIT's symbol map.
TESSERA_RT_EXPORT const TesseraRtSymbol *tessera_rt_kernel_symbols(void);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_RUNTIME_KERNELABI_H */
