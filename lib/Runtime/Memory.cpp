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
// Large blocks are cached when they are freed and handed out again for a
// request of the same size class, like the caching allocators of XLA's
// runtimes: a program run repeatedly (or a loop that allocates the same
// buffers in every iteration) then reuses memory whose pages are mapped
// already instead of paying a page fault per page of every new buffer.
// The cache holds at most a bounded number of bytes (TESSERA_RT_CACHE_BYTES,
// 0 turns it off) and is emptied when malloc fails. Under AddressSanitizer
// cached blocks are poisoned, so uses after free are still reported (where
// ASan's manual poisoning is allowed).
//
//===----------------------------------------------------------------------===//

#include "tessera/Runtime/Runtime.h"

#include "tessera/Runtime/HostArray.h"

#include "RuntimeImpl.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <mutex>
#include <string>

#include <unistd.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TESSERA_RT_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define TESSERA_RT_ASAN 1
#endif
#ifdef TESSERA_RT_ASAN
#include <sanitizer/asan_interface.h>
#define TESSERA_RT_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define TESSERA_RT_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define TESSERA_RT_POISON(p, n) ((void)(p), (void)(n))
#define TESSERA_RT_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

using namespace tessera::rt;
using namespace tessera::rt::detail;

namespace {
/// Placed just before every block.
struct BlockHeader {
  void *base;
  /// The bytes malloc'ed at `base` (a size class for cached sizes).
  int64_t capacity;
  int64_t size;
  MemoryBucket *bucket;
  uint64_t magic;
  uint64_t unused;
};

/// Freed blocks of at least kMinCachedBytes, by capacity.
class BlockCache {
public:
  /// Blocks of fewer bytes are not cached (glibc's heap reuses them).
  static constexpr int64_t kMinCachedBytes = int64_t(1) << 17;

  /// The capacity to malloc for `bytes`: for cached sizes, rounded up to
  /// one of eight steps per power of two (at most 12.5% more).
  static int64_t getCapacity(int64_t bytes) {
    if (bytes < kMinCachedBytes)
      return bytes;
    int64_t power = int64_t(1) << (63 - __builtin_clzll(bytes));
    int64_t step = power / 8;
    int64_t rounded = (bytes + step - 1) / step * step;
    return rounded < bytes ? bytes : rounded;
  }

  /// A cached block of exactly `capacity` bytes, or nullptr.
  void *take(int64_t capacity) {
    if (capacity < kMinCachedBytes)
      return nullptr;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = blocks.find(capacity);
    if (it == blocks.end())
      return nullptr;
    void *base = it->second;
    blocks.erase(it);
    cachedBytes -= capacity;
    TESSERA_RT_UNPOISON(base, capacity);
    return base;
  }

  /// Keeps `base` for reuse if it is large enough and fits under the limit;
  /// otherwise frees it.
  void give(void *base, int64_t capacity) {
    if (capacity >= kMinCachedBytes) {
      std::lock_guard<std::mutex> lock(mutex);
      if (cachedBytes + capacity <= getLimit()) {
        TESSERA_RT_POISON(base, capacity);
        blocks.emplace(capacity, base);
        cachedBytes += capacity;
        return;
      }
    }
    std::free(base);
  }

  /// Frees every cached block.
  void clear() {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto &[capacity, base] : blocks) {
      TESSERA_RT_UNPOISON(base, capacity);
      std::free(base);
    }
    blocks.clear();
    cachedBytes = 0;
  }

  int64_t getCachedBytes() {
    std::lock_guard<std::mutex> lock(mutex);
    return cachedBytes;
  }

  /// TESSERA_RT_CACHE_BYTES, or a quarter of the physical memory (at most
  /// 8 GiB). Read once, with the mutex held.
  int64_t getLimit() {
    if (limit >= 0)
      return limit;
    if (const char *text = std::getenv("TESSERA_RT_CACHE_BYTES")) {
      char *end = nullptr;
      long long value = std::strtoll(text, &end, 10);
      bool valid = end != text && *end == 0 && value >= 0;
      if (!valid)
        std::fprintf(stderr,
                     "tessera runtime: TESSERA_RT_CACHE_BYTES='%s' is not a "
                     "byte count; no blocks are cached\n",
                     text);
      limit = valid ? value : 0;
      return limit;
    }
    long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
    int64_t physical =
        pages > 0 && pageSize > 0 ? int64_t(pages) * pageSize : 0;
    limit = std::min<int64_t>(physical / 4, int64_t(8) << 30);
    return limit;
  }

private:
  std::mutex mutex;
  std::multimap<int64_t, void *> blocks;
  int64_t cachedBytes = 0;
  /// -1 until read.
  int64_t limit = -1;
};

BlockCache &getBlockCache() {
  // Never deleted: blocks may be freed during static destruction.
  static BlockCache *cache = new BlockCache();
  return *cache;
}
} // namespace

static_assert(sizeof(BlockHeader) % 16 == 0,
              "the header keeps 16-byte alignment");

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
static void reportMemoryError(const std::string &message) {
  CurrentDevice current = currentDevice;
  if (current.mesh)
    current.mesh->fail("device " + std::to_string(current.device) + ": " +
                       message);
  else
    std::fprintf(stderr, "tessera runtime: %s\n", message.c_str());
}

static void *allocate(int64_t alignment, int64_t size, const char *function) {
  if (size < 0) {
    reportMemoryError(std::string(function) + ": negative size " +
                      std::to_string(size));
    return nullptr;
  }
  if (alignment > kMaxAlignment) {
    reportMemoryError(std::string(function) + ": alignment " +
                      std::to_string(alignment) + " is too large");
    return nullptr;
  }
  int64_t align = 16;
  while (align < alignment)
    align *= 2;
  int64_t extra = align + static_cast<int64_t>(sizeof(BlockHeader));
  if (size > std::numeric_limits<int64_t>::max() - extra) {
    reportMemoryError(std::string(function) + ": size " + std::to_string(size) +
                      " (" + formatByteSize(size) + ") is too large");
    return nullptr;
  }
  // More than the host has cannot succeed (or would end in the OOM killer).
  int64_t physical = getPhysicalMemoryBytes();
  if (physical > 0 && size > physical) {
    reportMemoryError(std::string(function) + ": out of memory allocating " +
                      std::to_string(size) + " bytes (" + formatByteSize(size) +
                      ", more than the " + formatByteSize(physical) +
                      " of memory of this host)");
    return nullptr;
  }
  int64_t capacity = BlockCache::getCapacity(size + extra);
  BlockCache &cache = getBlockCache();
  void *base = cache.take(capacity);
  if (!base)
    base = std::malloc(static_cast<size_t>(capacity));
  if (!base) {
    // Cached blocks of other sizes may be what is missing.
    cache.clear();
    base = std::malloc(static_cast<size_t>(capacity));
  }
  if (!base) {
    reportMemoryError(std::string(function) + ": out of memory allocating " +
                      std::to_string(size) + " bytes (" + formatByteSize(size) +
                      ")");
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
  *header = BlockHeader{base, capacity, size, bucket, kMagic, 0};
  return reinterpret_cast<void *>(user);
}

// Only the error reports can throw (out of memory); exceptions never cross
// the C ABI. A failed allocation on a device thread ends the device at once
// (leaveDevice): compiled code would write through the null pointer. Only
// trivially destructible locals are alive when it leaves.

/// Ends the device after a failed allocation (the error is normally
/// recorded already; if reporting it failed, a shorter one is).
static void leaveAfterFailedAllocation() {
  MeshImpl *mesh = currentDevice.mesh;
  if (!mesh)
    return;
  if (!mesh->hasFailed()) {
    try {
      mesh->fail("device " + std::to_string(currentDevice.device) +
                 ": out of memory");
    } catch (...) {
    }
  }
  leaveDevice();
}

extern "C" void *tessera_rt_alloc(int64_t size) {
  void *block = nullptr;
  try {
    block = allocate(64, size, "tessera_rt_alloc");
  } catch (...) {
    block = nullptr;
  }
  if (!block)
    leaveAfterFailedAllocation();
  return block;
}

extern "C" void *tessera_rt_aligned_alloc(int64_t alignment, int64_t size) {
  void *block = nullptr;
  try {
    block = allocate(alignment, size, "tessera_rt_aligned_alloc");
  } catch (...) {
    block = nullptr;
  }
  if (!block)
    leaveAfterFailedAllocation();
  return block;
}

static void freeBlock(void *ptr) {
  auto *header = reinterpret_cast<BlockHeader *>(
      reinterpret_cast<uintptr_t>(ptr) - sizeof(BlockHeader));
  if (header->magic != kMagic) {
    char text[64];
    std::snprintf(text, sizeof(text), "%p", ptr);
    reportMemoryError(std::string("tessera_rt_free: ") + text +
                      " was not allocated by tessera_rt_alloc (or was freed "
                      "already)");
    return;
  }
  header->magic = 0;
  header->bucket->sub(header->size);
  header->bucket->release();
  getBlockCache().give(header->base, header->capacity);
}

int64_t tessera::rt::getCachedMemoryBytes() {
  return getBlockCache().getCachedBytes();
}

void tessera::rt::releaseCachedMemory() { getBlockCache().clear(); }

extern "C" void tessera_rt_free(void *ptr) {
  if (!ptr)
    return;
  try {
    freeBlock(ptr);
  } catch (...) {
  }
}
