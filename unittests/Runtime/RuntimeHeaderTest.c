/*===- RuntimeHeaderTest.c - Runtime.h is a C header ----------------------===*\
|*                                                                            *|
|* Part of the Tessera project, under the Apache License v2.0.                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * Compiled as C: takes the address of every entry point with its declared
 * type (MeshTest.HeaderCompilesAsC calls this).
 */

#include "tessera/Runtime/KernelABI.h"
#include "tessera/Runtime/Runtime.h"

#include <stddef.h>

int tesseraRuntimeHeaderCompilesAsC(void) {
  void (*allReduce)(const void *, void *, int64_t, int32_t, int32_t,
                    const int64_t *, int32_t, const char *) =
      tessera_rt_all_reduce;
  void (*allGather)(const void *, void *, const int64_t *, int32_t, int32_t,
                    int64_t, const int64_t *, int32_t, const char *) =
      tessera_rt_all_gather;
  void (*reduceScatter)(const void *, void *, const int64_t *, int32_t, int32_t,
                        int32_t, int64_t, const int64_t *, int32_t,
                        const char *) = tessera_rt_reduce_scatter;
  void (*allToAll)(const void *, void *, const int64_t *, int32_t, int32_t,
                   int64_t, int64_t, const int64_t *, int32_t, const char *) =
      tessera_rt_all_to_all;
  void (*permute)(const void *, void *, int64_t, const int64_t *,
                  const int64_t *, int32_t, const int64_t *, int32_t,
                  const char *) = tessera_rt_permute;
  void (*barrier)(const int64_t *, int32_t, const char *) = tessera_rt_barrier;
  int64_t (*axisIndex)(const int64_t *, int32_t) = tessera_rt_axis_index;
  int64_t (*deviceId)(void) = tessera_rt_device_id;
  void (*setOrder)(const int64_t *, int64_t) = tessera_rt_set_device_order;
  void *(*alloc)(int64_t) = tessera_rt_alloc;
  void *(*alignedAlloc)(int64_t, int64_t) = tessera_rt_aligned_alloc;
  void (*release)(void *) = tessera_rt_free;
  void (*assertFailed)(const char *, int64_t) = tessera_rt_assert_failed;
  const TesseraRtSymbol *(*symbols)(void) = tessera_rt_symbols;
  TesseraRtDtype dtype = TESSERA_RT_BF16;
  TesseraRtReduction kind = TESSERA_RT_MIN;
  int count = 0;
  count += allReduce != NULL;
  count += allGather != NULL;
  count += reduceScatter != NULL;
  count += allToAll != NULL;
  count += permute != NULL;
  count += barrier != NULL;
  count += axisIndex != NULL;
  count += deviceId != NULL;
  count += alloc != NULL;
  count += alignedAlloc != NULL;
  count += release != NULL;
  count += assertFailed != NULL;
  count += setOrder != NULL;
  count += symbols != NULL;
  return dtype == 3 && kind == 3 ? count : -1;
}
