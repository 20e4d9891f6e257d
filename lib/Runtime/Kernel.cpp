//===- Kernel.cpp - run-time checks of lowered kernel calls ---------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Runtime/Kernel.h"

#include "RuntimeImpl.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace tessera::rt::detail;

namespace {
/// The copy counters of one thread.
struct CopyCounts {
  int64_t issued = 0;
  int64_t skipped = 0;
};
thread_local CopyCounts copyCounts;

constexpr int64_t kArenaAlignment = 128;

/// Write-backs to HBM of at least this many bytes use non-temporal stores
/// (smaller blocks come from kernels whose outputs may well stay in the
/// caches for the next op).
constexpr int64_t kKernelStreamingBytes = int64_t(64) << 10;

/// Arena blocks of finished calls, reused by later ones.
class ArenaPool {
public:
  char *take(int64_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = free.lower_bound(bytes);
      if (it != free.end()) {
        char *block = it->second;
        free.erase(it);
        return block;
      }
    }
    // Pages are touched only where buffers are placed.
    size_t size =
        static_cast<size_t>((std::max<int64_t>(bytes, 1) + 4095) / 4096 * 4096);
    return static_cast<char *>(std::aligned_alloc(4096, size));
  }
  void give(char *block, int64_t bytes) {
    if (!block)
      return;
    std::lock_guard<std::mutex> lock(mutex);
    // Keep a few blocks (enough for the cores of a few concurrent calls).
    if (free.size() >= 32) {
      std::free(block);
      return;
    }
    free.emplace(bytes, block);
  }

private:
  std::mutex mutex;
  std::multimap<int64_t, char *> free;
};

ArenaPool &getArenaPool() {
  static ArenaPool *pool = new ArenaPool();
  return *pool;
}

struct KernelCall;

/// One DMA: the descriptor's fields.
struct Dma {
  int64_t direction = 2;
  char *dst = nullptr;
  const char *src = nullptr;
  int64_t elementBytes = 1;
  int32_t *semaphore = nullptr;
  int32_t amount = 0;
  std::vector<int64_t> sizes, dstStrides, srcStrides;

  int64_t getBytes() const {
    int64_t n = elementBytes;
    for (int64_t size : sizes)
      n *= size;
    return n;
  }
};

/// Copies the strided block of `dma` (innermost contiguous rows with
/// copyBytes).
void copyBlock(const Dma &dma, size_t dim, char *dst, const char *src,
               bool stream) {
  if (dim == dma.sizes.size()) {
    std::memcpy(dst, src, dma.elementBytes);
    return;
  }
  int64_t size = dma.sizes[dim];
  if (size <= 0)
    return;
  if (dim + 1 == dma.sizes.size() && dma.dstStrides[dim] == 1 &&
      dma.srcStrides[dim] == 1) {
    copyBytes(dst, src, size * dma.elementBytes, stream);
    return;
  }
  for (int64_t i = 0; i < size; ++i)
    copyBlock(dma, dim + 1, dst + i * dma.dstStrides[dim] * dma.elementBytes,
              src + i * dma.srcStrides[dim] * dma.elementBytes, stream);
}

/// Performs the copy of `dma`. A block written back to HBM is written with
/// non-temporal stores when it is large: HBM writes of a TPU's DMA engine do
/// not go through the core's caches either, and on the host they then skip
/// reading each destination line before overwriting it.
void copyDma(const Dma &dma) {
  bool stream = dma.direction == TESSERA_RT_DMA_TO_HBM &&
                dma.getBytes() >= kKernelStreamingBytes;
  copyBlock(dma, 0, dma.dst, dma.src, stream);
  if (stream)
    storeFence();
}

/// One TensorCore of a call: its arenas and DMA engine.
struct Core {
  KernelCall *call = nullptr;
  int32_t index = 0;
  char *arenas[2] = {nullptr, nullptr};
  int64_t used[2] = {0, 0};
  /// The most bytes in use at once (scopes release theirs).
  int64_t peak[2] = {0, 0};
  /// Heap blocks handed out after an arena overflowed.
  std::vector<void *> overflow;
  // The DMA engine (pipelined mode): a worker thread and its queue, guarded
  // by the call's mutex.
  std::thread worker;
  std::deque<Dma> queue;
  bool stop = false;
  int64_t inFlight = 0;
  std::condition_variable work;
};

struct KernelCall {
  const char *name = "";
  /// Copies complete after they are started (queued per core), not at once.
  bool async = false;
  /// A thread per core performs the queued copies; otherwise the core
  /// performs them itself, in order, when it waits for one (or drains).
  bool threads = false;
  int64_t capacity[2] = {0, 0};
  std::vector<std::unique_ptr<Core>> cores;
  CurrentDevice device;
  std::mutex mutex;
  /// Signalled when a DMA completes.
  std::condition_variable done;
  /// Copies in flight per semaphore address.
  std::map<int32_t *, int64_t> pending;
  std::atomic<int64_t> bytesIn{0}, bytesOut{0}, issued{0}, skipped{0};
  int64_t peak[2] = {0, 0};
};

/// The call and core of the calling thread.
struct CurrentCore {
  Core *core = nullptr;
};
thread_local CurrentCore currentCore;

std::mutex recordsMutex;
std::vector<tessera::rt::KernelCallRecord> &getRecords() {
  static auto *records = new std::vector<tessera::rt::KernelCallRecord>();
  return *records;
}

void reportError(const std::string &message) {
  if (currentDevice.mesh) {
    currentDevice.mesh->fail(message);
    return;
  }
  std::fprintf(stderr, "error: %s\n", message.c_str());
}

/// Performs `dma` and signals its semaphore (call mutex not held).
void perform(KernelCall &call, const Dma &dma) {
  copyDma(dma);
  std::lock_guard<std::mutex> lock(call.mutex);
  if (dma.semaphore) {
    *dma.semaphore += dma.amount;
    auto it = call.pending.find(dma.semaphore);
    if (it != call.pending.end() && --it->second == 0)
      call.pending.erase(it);
  }
  call.done.notify_all();
}

void runEngine(KernelCall *call, Core *core) {
  currentDevice = call->device;
  std::unique_lock<std::mutex> lock(call->mutex);
  while (true) {
    core->work.wait(lock, [&] { return core->stop || !core->queue.empty(); });
    if (core->queue.empty())
      return;
    Dma dma = std::move(core->queue.front());
    core->queue.pop_front();
    lock.unlock();
    perform(*call, dma);
    lock.lock();
    --core->inFlight;
    call->done.notify_all();
  }
}
} // namespace

extern "C" void tessera_rt_kernel_call(const char *name, const char *target,
                                       const int64_t *info, int64_t args,
                                       TesseraRtKernelCoreFn fn) {
  KernelCall call;
  call.name = name ? name : "";
  // Pipelined calls queue their copies (TESSERA_KERNEL_DMA=threads: and a
  // thread per core performs them concurrently).
  static const bool engineThreads = [] {
    const char *value = std::getenv("TESSERA_KERNEL_DMA");
    return value && std::string(value) == "threads";
  }();
  call.async = info[TESSERA_RT_KERNEL_INFO_MODE] == 1;
  call.threads = call.async && engineThreads;
  call.capacity[TESSERA_RT_KERNEL_VMEM] =
      info[TESSERA_RT_KERNEL_INFO_VMEM_BYTES];
  call.capacity[TESSERA_RT_KERNEL_SMEM] =
      info[TESSERA_RT_KERNEL_INFO_SMEM_BYTES];
  call.device = currentDevice;
  int64_t numCores = std::max<int64_t>(1, info[TESSERA_RT_KERNEL_INFO_CORES]);
  for (int64_t c = 0; c < numCores; ++c) {
    auto core = std::make_unique<Core>();
    core->call = &call;
    core->index = static_cast<int32_t>(c);
    for (int space = 0; space < 2; ++space)
      core->arenas[space] = getArenaPool().take(call.capacity[space]);
    if (call.threads)
      core->worker = std::thread(runEngine, &call, core.get());
    call.cores.push_back(std::move(core));
  }

  auto start = std::chrono::steady_clock::now();
  CurrentCore saved = currentCore;
  std::vector<std::thread> threads;
  for (int64_t c = 1; c < numCores; ++c)
    threads.emplace_back([&call, fn, args, c] {
      currentDevice = call.device;
      currentCore.core = call.cores[c].get();
      fn(args, static_cast<int32_t>(c));
      tessera_rt_kernel_dma_drain();
    });
  currentCore.core = call.cores[0].get();
  fn(args, 0);
  tessera_rt_kernel_dma_drain();
  for (std::thread &thread : threads)
    thread.join();
  currentCore = saved;
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();

  tessera::rt::KernelCallRecord record;
  record.name = call.name;
  record.target = target ? target : "";
  record.mode = call.async ? "pipelined" : "interpret";
  record.device = call.device.mesh ? call.device.device : -1;
  record.cores = numCores;
  record.steps = info[TESSERA_RT_KERNEL_INFO_STEPS];
  record.bytesIn = call.bytesIn;
  record.bytesOut = call.bytesOut;
  record.dmasIssued = call.issued;
  record.dmasSkipped = call.skipped;
  record.flops = info[TESSERA_RT_KERNEL_INFO_FLOPS];
  record.vmemBytes = call.capacity[TESSERA_RT_KERNEL_VMEM];
  record.smemBytes = call.capacity[TESSERA_RT_KERNEL_SMEM];
  record.hbmBytesPerSecond =
      static_cast<double>(info[TESSERA_RT_KERNEL_INFO_HBM_BYTES_PER_SECOND]);
  record.peakFlopsPerSecond =
      static_cast<double>(info[TESSERA_RT_KERNEL_INFO_PEAK_FLOPS_PER_SECOND]);
  record.seconds = seconds;
  for (auto &core : call.cores) {
    {
      std::lock_guard<std::mutex> lock(call.mutex);
      core->stop = true;
      core->work.notify_all();
    }
    if (core->worker.joinable())
      core->worker.join();
    record.vmemPeak = std::max(record.vmemPeak, core->peak[0]);
    record.smemPeak = std::max(record.smemPeak, core->peak[1]);
    for (int space = 0; space < 2; ++space)
      getArenaPool().give(core->arenas[space], call.capacity[space]);
    for (void *block : core->overflow)
      std::free(block);
  }
  std::lock_guard<std::mutex> lock(recordsMutex);
  getRecords().push_back(std::move(record));
}

extern "C" int64_t tessera_rt_kernel_arena(int32_t space, int64_t bytes) {
  Core *core = currentCore.core;
  bytes = std::max<int64_t>(bytes, 0);
  int64_t rounded =
      (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
  if (!core || space < 0 || space > 1) {
    reportError("tessera_rt_kernel_arena called outside a kernel call");
    return reinterpret_cast<int64_t>(std::calloc(1, rounded + 1));
  }
  KernelCall &call = *core->call;
  int64_t capacity = call.capacity[space];
  if (core->used[space] + rounded > capacity || !core->arenas[space]) {
    const char *spaceName = space == TESSERA_RT_KERNEL_VMEM ? "VMEM" : "SMEM";
    reportError("kernel @" + std::string(call.name) + ": " + spaceName +
                " of TensorCore " + std::to_string(core->index) +
                " exhausted: allocating " + std::to_string(bytes) +
                " bytes with " + std::to_string(core->used[space]) + " of " +
                std::to_string(capacity) + " bytes in use");
    void *block = std::calloc(1, rounded + 1);
    core->overflow.push_back(block);
    return reinterpret_cast<int64_t>(block);
  }
  char *address = core->arenas[space] + core->used[space];
  core->used[space] += rounded;
  core->peak[space] = std::max(core->peak[space], core->used[space]);
  return reinterpret_cast<int64_t>(address);
}

extern "C" int64_t tessera_rt_kernel_arena_mark(int32_t space) {
  Core *core = currentCore.core;
  if (!core || space < 0 || space > 1)
    return 0;
  return core->used[space];
}

extern "C" void tessera_rt_kernel_arena_release(int32_t space, int64_t mark) {
  Core *core = currentCore.core;
  if (!core || space < 0 || space > 1)
    return;
  if (mark < 0 || mark > core->used[space]) {
    reportError("kernel @" + std::string(core->call->name) +
                ": arena release to " + std::to_string(mark) + " bytes with " +
                std::to_string(core->used[space]) +
                " in use (scopes released out of order)");
    return;
  }
  core->used[space] = mark;
}

extern "C" void tessera_rt_kernel_dma_start(const int64_t *descriptor) {
  Dma dma;
  dma.direction = descriptor[TESSERA_RT_DMA_DIRECTION];
  dma.dst = reinterpret_cast<char *>(descriptor[TESSERA_RT_DMA_DST]);
  dma.src = reinterpret_cast<const char *>(descriptor[TESSERA_RT_DMA_SRC]);
  dma.elementBytes = descriptor[TESSERA_RT_DMA_ELEMENT_BYTES];
  dma.semaphore =
      reinterpret_cast<int32_t *>(descriptor[TESSERA_RT_DMA_SEMAPHORE]);
  dma.amount = static_cast<int32_t>(descriptor[TESSERA_RT_DMA_AMOUNT]);
  int64_t rank = descriptor[TESSERA_RT_DMA_RANK];
  const int64_t *rest = descriptor + TESSERA_RT_DMA_SIZES;
  dma.sizes.assign(rest, rest + rank);
  dma.dstStrides.assign(rest + rank, rest + 2 * rank);
  dma.srcStrides.assign(rest + 2 * rank, rest + 3 * rank);
  ++copyCounts.issued;
  Core *core = currentCore.core;
  if (!core) {
    // Outside a call (a lowered module run by hand): at once.
    copyDma(dma);
    if (dma.semaphore)
      *dma.semaphore += dma.amount;
    return;
  }
  KernelCall &call = *core->call;
  ++call.issued;
  int64_t bytes = dma.getBytes();
  if (dma.direction == 0)
    call.bytesIn += bytes;
  else if (dma.direction == 1)
    call.bytesOut += bytes;
  if (!call.async) {
    perform(call, dma);
    return;
  }
  std::lock_guard<std::mutex> lock(call.mutex);
  if (dma.semaphore)
    ++call.pending[dma.semaphore];
  ++core->inFlight;
  core->queue.push_back(std::move(dma));
  if (call.threads)
    core->work.notify_one();
}

namespace {
/// Without engine threads: performs the calling core's queued copies in
/// order until `done` holds or none is left. Called with the call's mutex
/// held (through `lock`).
template <typename Done>
void performQueued(KernelCall &call, Core &core,
                   std::unique_lock<std::mutex> &lock, Done done) {
  while (!done() && !core.queue.empty()) {
    Dma dma = std::move(core.queue.front());
    core.queue.pop_front();
    lock.unlock();
    perform(call, dma);
    lock.lock();
    --core.inFlight;
  }
}
} // namespace

extern "C" int32_t tessera_rt_kernel_dma_wait(int64_t semaphore,
                                              int32_t amount) {
  auto *sem = reinterpret_cast<int32_t *>(semaphore);
  Core *core = currentCore.core;
  if (!core) {
    if (*sem < amount)
      return *sem;
    *sem -= amount;
    return -1;
  }
  KernelCall &call = *core->call;
  std::unique_lock<std::mutex> lock(call.mutex);
  auto ready = [&] {
    return *sem >= amount || call.pending.find(sem) == call.pending.end();
  };
  if (call.threads)
    call.done.wait(lock, ready);
  else
    performQueued(call, *core, lock, [&] { return *sem >= amount; });
  if (*sem < amount)
    return *sem;
  *sem -= amount;
  return -1;
}

extern "C" void tessera_rt_kernel_dma_drain(void) {
  Core *core = currentCore.core;
  if (!core)
    return;
  KernelCall &call = *core->call;
  std::unique_lock<std::mutex> lock(call.mutex);
  if (call.threads)
    call.done.wait(lock, [&] { return core->inFlight == 0; });
  else
    performQueued(call, *core, lock, [] { return false; });
}

std::vector<tessera::rt::KernelCallRecord> tessera::rt::getKernelCallRecords() {
  std::lock_guard<std::mutex> lock(recordsMutex);
  return getRecords();
}

void tessera::rt::clearKernelCallRecords() {
  std::lock_guard<std::mutex> lock(recordsMutex);
  getRecords().clear();
}

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
  if (Core *core = currentCore.core)
    ++(issued ? core->call->issued : core->call->skipped);
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
      {"tessera_rt_kernel_call",
       reinterpret_cast<void *>(&tessera_rt_kernel_call)},
      {"tessera_rt_kernel_arena",
       reinterpret_cast<void *>(&tessera_rt_kernel_arena)},
      {"tessera_rt_kernel_arena_mark",
       reinterpret_cast<void *>(&tessera_rt_kernel_arena_mark)},
      {"tessera_rt_kernel_arena_release",
       reinterpret_cast<void *>(&tessera_rt_kernel_arena_release)},
      {"tessera_rt_kernel_dma_start",
       reinterpret_cast<void *>(&tessera_rt_kernel_dma_start)},
      {"tessera_rt_kernel_dma_wait",
       reinterpret_cast<void *>(&tessera_rt_kernel_dma_wait)},
      {"tessera_rt_kernel_dma_drain",
       reinterpret_cast<void *>(&tessera_rt_kernel_dma_drain)},
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
