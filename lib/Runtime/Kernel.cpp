//===- Kernel.cpp - run-time checks of lowered kernel calls ---------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Runtime/Kernel.h"

#include "RuntimeImpl.h"

#include <cstdio>
#include <string>

using namespace tessera::rt::detail;

namespace {
/// The copy counters of one thread.
struct CopyCounts {
  int64_t issued = 0;
  int64_t skipped = 0;
};
thread_local CopyCounts copyCounts;
} // namespace

extern "C" void tessera_rt_kernel_error(const char *format,
                                        const int64_t *values,
                                        int32_t numValues) {
  std::string message;
  int32_t next = 0;
  for (const char *c = format ? format : ""; *c; ++c) {
    if (c[0] == '{' && c[1] == '}' && next < numValues) {
      message += std::to_string(values[next++]);
      ++c;
      continue;
    }
    message.push_back(*c);
  }
  if (currentDevice.mesh) {
    currentDevice.mesh->fail(message);
    return;
  }
  std::fprintf(stderr, "error: %s\n", message.c_str());
}

extern "C" void tessera_rt_kernel_count_copy(int32_t issued) {
  if (issued)
    ++copyCounts.issued;
  else
    ++copyCounts.skipped;
}

extern "C" void tessera_rt_kernel_copy_counts(int64_t *issued,
                                              int64_t *skipped) {
  if (issued)
    *issued = copyCounts.issued;
  if (skipped)
    *skipped = copyCounts.skipped;
}

extern "C" void tessera_rt_kernel_reset_copy_counts(void) {
  copyCounts = CopyCounts();
}

extern "C" const TesseraRtSymbol *tessera_rt_kernel_symbols(void) {
  static const TesseraRtSymbol symbols[] = {
      {"tessera_rt_kernel_error",
       reinterpret_cast<void *>(&tessera_rt_kernel_error)},
      {"tessera_rt_kernel_count_copy",
       reinterpret_cast<void *>(&tessera_rt_kernel_count_copy)},
      {"tessera_rt_kernel_copy_counts",
       reinterpret_cast<void *>(&tessera_rt_kernel_copy_counts)},
      {"tessera_rt_kernel_reset_copy_counts",
       reinterpret_cast<void *>(&tessera_rt_kernel_reset_copy_counts)},
      {nullptr, nullptr},
  };
  return symbols;
}
