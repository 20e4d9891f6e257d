/*===- Runtime.h - C ABI of the mesh-emulating runtime ------------*- C -*-===*\
|*                                                                            *|
|* Part of the Tessera project, under the Apache License v2.0.                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * The functions lowered programs call. A program runs once per emulated
 * device, each on its own thread (see tessera/Runtime/Mesh.h); every function
 * here acts for the calling thread's current device.
 *
 * Groups. A collective acts on the group of devices described by `parts`,
 * which points to `3 * numParts` integers: (axis, pre, size) triples. A triple
 * selects the part `(coord[axis] / pre) % size` of a mesh axis (a whole axis
 * is pre = 1, size = axis size; Shardy's sub-axis "x":(2)4 is pre = 2,
 * size = 4). Two devices are in the same group when their coordinates agree
 * outside the listed parts; a device's index in its group (its rank) is the
 * linearization of its part components, first part most major. No parts
 * means a group of one device.
 *
 * Buffers are contiguous and row-major. Errors (bad arguments, devices that
 * diverge, deadlocks, the watchdog) never abort the process: the mesh enters
 * a failed state in which every collective returns at once with its output
 * filled with zeros and ends the calling device (the call does not return
 * into the lowered code), and the host's Mesh::run reports the first error.
 * A failed allocation or assertion and a fault in device code (SIGSEGV,
 * SIGBUS, SIGFPE, SIGILL, SIGABRT) end the device the same way.
 */

#ifndef TESSERA_RUNTIME_RUNTIME_H
#define TESSERA_RUNTIME_RUNTIME_H

#include <stdint.h>

#if defined(__GNUC__)
#define TESSERA_RT_EXPORT __attribute__((visibility("default")))
#else
#define TESSERA_RT_EXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// Element types of collective operands.
typedef enum TesseraRtDtype {
  TESSERA_RT_F32 = 0,
  TESSERA_RT_F64 = 1,
  TESSERA_RT_F16 = 2,
  TESSERA_RT_BF16 = 3,
  /// A bool stored in one byte (0 or 1); reduces with max = or, min = and.
  TESSERA_RT_I1 = 4,
  TESSERA_RT_I8 = 5,
  TESSERA_RT_I16 = 6,
  TESSERA_RT_I32 = 7,
  TESSERA_RT_I64 = 8,
  TESSERA_RT_U8 = 9,
  TESSERA_RT_U16 = 10,
  TESSERA_RT_U32 = 11,
  TESSERA_RT_U64 = 12
} TesseraRtDtype;

/// Reduction kinds of all_reduce and reduce_scatter.
typedef enum TesseraRtReduction {
  TESSERA_RT_SUM = 0,
  TESSERA_RT_PROD = 1,
  TESSERA_RT_MAX = 2,
  TESSERA_RT_MIN = 3
} TesseraRtReduction;

/// Every member gets the element-wise reduction of the members' `in`
/// (`numElements` elements each), combined in rank order. f16 and bf16
/// accumulate in f32; integers wrap. `in` may equal `out`.
TESSERA_RT_EXPORT void tessera_rt_all_reduce(const void *in, void *out,
                                             int64_t numElements, int32_t dtype,
                                             int32_t kind, const int64_t *parts,
                                             int32_t numParts,
                                             const char *site);

/// `out` is the concatenation of the members' `in` (shape `shape`, `rank`
/// dims) along `gatherDim`, in rank order.
TESSERA_RT_EXPORT void
tessera_rt_all_gather(const void *in, void *out, const int64_t *shape,
                      int32_t rank, int32_t dtype, int64_t gatherDim,
                      const int64_t *parts, int32_t numParts, const char *site);

/// tessera_rt_all_gather of the valid part of padded blocks: `out` is the
/// first `validSize` (>= 1, at most the members' total) elements of the
/// concatenation along `gatherDim`; member i contributes min(b, max(0,
/// validSize - i * b)) of its b rows (comm.all_gather ... valid N).
TESSERA_RT_EXPORT void
tessera_rt_all_gather_valid(const void *in, void *out, const int64_t *shape,
                            int32_t rank, int32_t dtype, int64_t gatherDim,
                            int64_t validSize, const int64_t *parts,
                            int32_t numParts, const char *site);

/// Reduces the members' `in` (shape `shape`) element-wise, then member i gets
/// block i of the result along `scatterDim` (whose size the group size must
/// divide).
TESSERA_RT_EXPORT void
tessera_rt_reduce_scatter(const void *in, void *out, const int64_t *shape,
                          int32_t rank, int32_t dtype, int32_t kind,
                          int64_t scatterDim, const int64_t *parts,
                          int32_t numParts, const char *site);

/// Each member splits `in` (shape `shape`) along `splitDim` into one block per
/// member and sends block j to member j; `out` is the received blocks
/// concatenated along `concatDim` in sender order.
TESSERA_RT_EXPORT void
tessera_rt_all_to_all(const void *in, void *out, const int64_t *shape,
                      int32_t rank, int32_t dtype, int64_t splitDim,
                      int64_t concatDim, const int64_t *parts, int32_t numParts,
                      const char *site);

/// For each pair i, the member of rank `targets[i]` receives the `numBytes`
/// bytes of the member of rank `sources[i]`; a member that is no target gets
/// zeros.
TESSERA_RT_EXPORT void
tessera_rt_permute(const void *in, void *out, int64_t numBytes,
                   const int64_t *sources, const int64_t *targets,
                   int32_t numPairs, const int64_t *parts, int32_t numParts,
                   const char *site);

/// Returns once every member of the group has called it.
TESSERA_RT_EXPORT void tessera_rt_barrier(const int64_t *parts,
                                          int32_t numParts, const char *site);

/// The calling device's rank in the group (no synchronization). Returns 0 on
/// invalid parts (after failing the mesh) and outside a device thread.
TESSERA_RT_EXPORT int64_t tessera_rt_axis_index(const int64_t *parts,
                                                int32_t numParts);

/// Makes the collectives and axis_index calls that follow on the calling
/// device thread number the mesh positions with another device order:
/// `deviceIds[p]` is the device at position p (row-major over the mesh's
/// axes), `numDevices` entries, a permutation of the mesh's devices. Null
/// restores the mesh's own order. Programs whose meshes order the same
/// devices differently call it before each collective. Fails the mesh on an
/// invalid order.
TESSERA_RT_EXPORT void tessera_rt_set_device_order(const int64_t *deviceIds,
                                                   int64_t numDevices);

/// The calling thread's device id, or -1 outside a device thread.
TESSERA_RT_EXPORT int64_t tessera_rt_device_id(void);

/// Allocates `size` bytes (64-byte aligned) and accounts them to the current
/// device (outside a device thread, to the host). Free with tessera_rt_free.
TESSERA_RT_EXPORT void *tessera_rt_alloc(int64_t size);

/// Like tessera_rt_alloc with an alignment (a power of two, at most 2^24; a
/// value that is not a power of two is rounded up to one).
TESSERA_RT_EXPORT void *tessera_rt_aligned_alloc(int64_t alignment,
                                                 int64_t size);

/// Frees a block from tessera_rt_alloc or tessera_rt_aligned_alloc, from any
/// thread; the bytes are released from the device that allocated them.
/// Freeing NULL does nothing.
TESSERA_RT_EXPORT void tessera_rt_free(void *ptr);

/// Reports a failed assertion of lowered code: `message` (`length` bytes,
/// not necessarily NUL-terminated; a negative length means NUL-terminated).
/// On a device thread the mesh fails with `device N: assertion failed:
/// <message>` and the device stops at once: the call does not return into
/// the lowered code. Elsewhere it prints the message to stderr and aborts.
TESSERA_RT_EXPORT void tessera_rt_assert_failed(const char *message,
                                                int64_t length);

/// A C ABI entry point: its name and address.
typedef struct TesseraRtSymbol {
  const char *name;
  void *address;
} TesseraRtSymbol;

/// Every entry point above, ended by {NULL, NULL}: what a JIT registers as
/// external symbols. Referencing it also keeps every entry point linked in
/// from the static library.
TESSERA_RT_EXPORT const TesseraRtSymbol *tessera_rt_symbols(void);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_RUNTIME_RUNTIME_H */
