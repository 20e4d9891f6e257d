//===- Memory.cpp - the allocator of lowered programs -----------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// tessera_rt_alloc and friends: malloc with a small header before each block
// that records the block's size and the bucket (device or host) it is
// accounted to, so that a block can be freed from any thread.
//
//===----------------------------------------------------------------------===//

#include "tessera/Runtime/Runtime.h"

#include "RuntimeImpl.h"

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

using namespace tessera::rt;
using namespace tessera::rt::detail;

namespace {
/// Placed just before every block.
struct BlockHeader {
  void *base;
  int64_t size;
  MemoryBucket *bucket;
  uint64_t magic;
};
} // namespace

static_assert(sizeof(BlockHeader) == 32, "the header keeps 16-byte alignment");

/// Marks live blocks.
static constexpr uint64_t kMagic = 0x74657373657261ULL;
/// Alignments above this are refused.
static constexpr int64_t kMaxAlignment = int64_t(1) << 24;

void MemoryBucket::add(int64_t bytes) {
  int64_t now = current.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  int64_t old = peak.load(std::memory_order_relaxed);
  while (now > old &&
         !peak.compare_exchange_weak(old, now, std::memory_order_relaxed))
    ;
}

void MemoryBucket::release() {
  if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1)
    delete this;
}

MemoryBucket &tessera::rt::detail::getHostBucket() {
  // Never deleted: blocks may outlive static destruction.
  static MemoryBucket *host = new MemoryBucket();
  return *host;
}

DeviceStats tessera::rt::getHostMemoryStats() {
  DeviceStats stats;
  stats.peakBytes = getHostBucket().getPeak();
  stats.currentBytes = getHostBucket().getCurrent();
  return stats;
}

/// Fails the current device's mesh, or reports on stderr outside one.
static void reportError(const std::string &message) {
  CurrentDevice current = currentDevice;
  if (current.mesh)
    current.mesh->fail("device " + std::to_string(current.device) + ": " +
                       message);
  else
    std::fprintf(stderr, "tessera runtime: %s\n", message.c_str());
}

static void *allocate(int64_t alignment, int64_t size, const char *function) {
  if (size < 0) {
    reportError(std::string(function) + ": negative size " +
                std::to_string(size));
    return nullptr;
  }
  if (alignment > kMaxAlignment) {
    reportError(std::string(function) + ": alignment " +
                std::to_string(alignment) + " is too large");
    return nullptr;
  }
  int64_t align = 16;
  while (align < alignment)
    align *= 2;
  int64_t extra = align + static_cast<int64_t>(sizeof(BlockHeader));
  if (size > std::numeric_limits<int64_t>::max() - extra) {
    reportError(std::string(function) + ": size " + std::to_string(size) +
                " is too large");
    return nullptr;
  }
  void *base = std::malloc(static_cast<size_t>(size + extra));
  if (!base) {
    reportError(std::string(function) + ": out of memory allocating " +
                std::to_string(size) + " bytes");
    return nullptr;
  }
  uintptr_t user =
      (reinterpret_cast<uintptr_t>(base) + sizeof(BlockHeader) + align - 1) &
      ~static_cast<uintptr_t>(align - 1);
  auto *header = reinterpret_cast<BlockHeader *>(user - sizeof(BlockHeader));
  CurrentDevice current = currentDevice;
  MemoryBucket *bucket = current.mesh
                             ? current.mesh->devices[current.device].memory
                             : &getHostBucket();
  bucket->retain();
  bucket->add(size);
  *header = BlockHeader{base, size, bucket, kMagic};
  return reinterpret_cast<void *>(user);
}

// Only the error reports can throw (out of memory); exceptions never cross
// the C ABI.

extern "C" void *tessera_rt_alloc(int64_t size) {
  try {
    return allocate(64, size, "tessera_rt_alloc");
  } catch (...) {
    return nullptr;
  }
}

extern "C" void *tessera_rt_aligned_alloc(int64_t alignment, int64_t size) {
  try {
    return allocate(alignment, size, "tessera_rt_aligned_alloc");
  } catch (...) {
    return nullptr;
  }
}

static void freeBlock(void *ptr) {
  auto *header = reinterpret_cast<BlockHeader *>(
      reinterpret_cast<uintptr_t>(ptr) - sizeof(BlockHeader));
  if (header->magic != kMagic) {
    char text[64];
    std::snprintf(text, sizeof(text), "%p", ptr);
    reportError(std::string("tessera_rt_free: ") + text +
                " was not allocated by tessera_rt_alloc (or was freed "
                "already)");
    return;
  }
  header->magic = 0;
  header->bucket->sub(header->size);
  header->bucket->release();
  std::free(header->base);
}

extern "C" void tessera_rt_free(void *ptr) {
  if (!ptr)
    return;
  try {
    freeBlock(ptr);
  } catch (...) {
  }
}
