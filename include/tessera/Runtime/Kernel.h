/*===- Kernel.h - C ABI of the lowered kernels' run-time checks ---*- C -*-===*\
|*                                                                            *|
|* Part of the Tessera project, under the Apache License v2.0.                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * The functions that code lowered from `kernel.call`s (kernel-lower-interpret,
 * kernel-lower-pipelined) calls: the report of a failed run-time check and
 * the DMA counters of the pipelined lowering.
 */

#ifndef TESSERA_RUNTIME_KERNEL_H
#define TESSERA_RUNTIME_KERNEL_H

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

/// Counts one block copy of the pipelined lowering: `issued` is 1 for a copy
/// that ran, 0 for one skipped because the block did not change.
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

#endif /* TESSERA_RUNTIME_KERNEL_H */
