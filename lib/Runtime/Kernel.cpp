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

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
#if defined(__linux__)
#include <sched.h>
#endif

using namespace tessera::rt::detail;

namespace {
/// The copy counters of one thread.
struct CopyCounts {
  int64_t issued = 0;
  int64_t skipped = 0;
};
thread_local CopyCounts copyCounts;

constexpr int64_t kArenaAlignment = 128;

/// How long engine threads and waiting cores poll before they sleep: about
/// as long as a block copy takes, since waking a sleeping thread costs
/// about as much.
constexpr std::chrono::microseconds kSpinTime(50);

void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

/// Polls `ready` for up to `time`; returns whether it held.
template <typename Ready>
bool spinUntil(Ready ready, std::chrono::nanoseconds time = kSpinTime) {
  auto deadline = std::chrono::steady_clock::now() + time;
  while (true) {
    for (int i = 0; i < 64; ++i) {
      if (ready())
        return true;
      cpuRelax();
    }
    if (std::chrono::steady_clock::now() >= deadline)
      return ready();
  }
}

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
struct Core;

/// A queued copy is performed in pieces of about this many bytes (whole
/// rows of its outermost dimension), so that the engine thread and a core
/// waiting for the copy can share it.
constexpr int64_t kDmaPieceBytes = int64_t(32) << 10;

/// One DMA: the descriptor's fields, and its pieces once queued.
struct Dma {
  int64_t direction = 2;
  char *dst = nullptr;
  const char *src = nullptr;
  int64_t elementBytes = 1;
  int32_t *semaphore = nullptr;
  int32_t amount = 0;
  std::vector<int64_t> sizes, dstStrides, srcStrides;
  /// The core that started it.
  Core *owner = nullptr;
  /// Rows of the outermost dimension per piece, the number of pieces, and
  /// how many were taken and finished (guarded by the call's mutex).
  int64_t rowsPerPiece = 1, pieces = 1, taken = 0, finished = 0;
  /// The bytes it reads and writes: [first, last) around the strided block
  /// (empty when the block is).
  const char *srcFirst = nullptr, *srcLast = nullptr;
  char *dstFirst = nullptr, *dstLast = nullptr;

  int64_t getBytes() const {
    int64_t n = elementBytes;
    for (int64_t size : sizes)
      n *= size;
    return n;
  }
  /// Whether it writes to HBM with non-temporal stores.
  bool streams() const {
    return direction == TESSERA_RT_DMA_TO_HBM &&
           getBytes() >= kKernelStreamingBytes;
  }
  /// Sets the ranges it touches and splits it into pieces of whole
  /// outermost rows.
  void prepare() {
    int64_t low = 0, high = elementBytes, srcLow = 0, srcHigh = elementBytes;
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (sizes[d] <= 0) {
        high = srcHigh = 0;
        break;
      }
      int64_t dstSpan = (sizes[d] - 1) * dstStrides[d] * elementBytes;
      int64_t srcSpan = (sizes[d] - 1) * srcStrides[d] * elementBytes;
      (dstSpan < 0 ? low : high) += dstSpan;
      (srcSpan < 0 ? srcLow : srcHigh) += srcSpan;
    }
    if (high > low) {
      dstFirst = dst + low;
      dstLast = dst + high;
    }
    if (srcHigh > srcLow) {
      srcFirst = src + srcLow;
      srcLast = src + srcHigh;
    }
    int64_t bytes = getBytes();
    if (sizes.empty() || sizes[0] <= 1 || bytes <= kDmaPieceBytes)
      return;
    int64_t rowBytes = std::max<int64_t>(1, bytes / sizes[0]);
    rowsPerPiece = std::max<int64_t>(1, kDmaPieceBytes / rowBytes);
    pieces = (sizes[0] + rowsPerPiece - 1) / rowsPerPiece;
  }
  /// Whether it must wait for `earlier` to finish: one writes bytes the
  /// other reads or writes.
  bool dependsOn(const Dma &earlier) const {
    auto overlap = [](const char *a, const char *aEnd, const char *b,
                      const char *bEnd) {
      auto at = [](const char *p) { return reinterpret_cast<uintptr_t>(p); };
      return at(a) < at(bEnd) && at(b) < at(aEnd);
    };
    return overlap(dstFirst, dstLast, earlier.dstFirst, earlier.dstLast) ||
           overlap(dstFirst, dstLast, earlier.srcFirst, earlier.srcLast) ||
           overlap(srcFirst, srcLast, earlier.dstFirst, earlier.dstLast);
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
  bool stream = dma.streams();
  copyBlock(dma, 0, dma.dst, dma.src, stream);
  if (stream)
    storeFence();
}

/// Performs piece `piece` of `dma` (see Dma::prepare), or all of it if
/// `piece` is negative.
void copyPiece(const Dma &dma, int64_t piece) {
  if (dma.pieces == 1 || piece < 0) {
    copyDma(dma);
    return;
  }
  bool stream = dma.streams();
  int64_t first = piece * dma.rowsPerPiece;
  int64_t last = std::min(dma.sizes[0], first + dma.rowsPerPiece);
  for (int64_t i = first; i < last; ++i)
    copyBlock(dma, 1, dma.dst + i * dma.dstStrides[0] * dma.elementBytes,
              dma.src + i * dma.srcStrides[0] * dma.elementBytes, stream);
  if (stream)
    storeFence();
}

/// A copy to perform under an escape frame.
struct GuardedCopy {
  const Dma *dma;
  int64_t piece;
};

void performGuardedCopy(void *context) {
  auto *copy = static_cast<GuardedCopy *>(context);
  copyPiece(*copy->dma, copy->piece);
}

/// Performs piece `piece` of `dma` (all of it if negative). On a device, a
/// fault while copying (a descriptor with a bad address) fails the mesh and
/// the copy counts as done, so that nobody waits for it forever.
void copyGuarded(const Dma &dma, int64_t piece) {
  GuardedCopy copy{&dma, piece};
  runWithEscape(performGuardedCopy, &copy, "in a DMA of a kernel call");
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
  // The DMA engine (pipelined mode): a worker thread and the copies started
  // and not finished, in the order they were started, guarded by the call's
  // mutex.
  std::thread worker;
  std::deque<std::unique_ptr<Dma>> queue;
  /// Counts copies queued and finished (the engine polls it without the
  /// mutex for work).
  std::atomic<int64_t> changes{0};
  std::atomic<bool> stop{false};
  int64_t inFlight = 0;
  std::condition_variable work;
  /// How long the engine polls for work before it sleeps (see runEngine).
  std::chrono::nanoseconds engineSpin = kSpinTime;
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
  /// DMAs completed so far (read by spinning waiters without the mutex).
  std::atomic<int64_t> completed{0};
  /// Copies in flight per semaphore address.
  std::map<int32_t *, int64_t> pending;
  std::atomic<int64_t> bytesIn{0}, bytesOut{0}, issued{0}, skipped{0};
  int64_t peak[2] = {0, 0};
  /// Set when a core stopped at once (a fault, a failed allocation or
  /// assertion): the device stops after the call.
  std::atomic<bool> left{false};
};

/// What a TensorCore runs under its escape frame.
struct CoreCall {
  TesseraRtKernelCoreFn fn;
  int64_t args;
  int32_t core;
};

void runCore(void *context) {
  auto *core = static_cast<CoreCall *>(context);
  core->fn(core->args, core->core);
}

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

/// Adds `dma`'s amount to its semaphore and wakes waiters (call mutex
/// held).
void signal(KernelCall &call, const Dma &dma) {
  if (dma.semaphore) {
    *dma.semaphore += dma.amount;
    auto it = call.pending.find(dma.semaphore);
    if (it != call.pending.end() && --it->second == 0)
      call.pending.erase(it);
  }
  call.completed.fetch_add(1, std::memory_order_release);
  call.done.notify_all();
}

/// Performs `dma` and signals its semaphore (call mutex not held).
void perform(KernelCall &call, const Dma &dma) {
  copyGuarded(dma, -1);
  std::lock_guard<std::mutex> lock(call.mutex);
  signal(call, dma);
}

/// Takes the next piece of `core`'s first copy with pieces left (call
/// mutex held); null when there is none, or when that copy touches bytes
/// an earlier unfinished copy writes or that it writes bytes an earlier one
/// reads. So copies take effect as if performed one after the other, in the
/// order they were started, while independent ones overlap.
Dma *takePiece(Core &core, int64_t &piece) {
  for (size_t i = 0; i < core.queue.size(); ++i) {
    Dma *dma = core.queue[i].get();
    if (dma->taken == dma->pieces)
      continue;
    for (size_t j = 0; j < i; ++j)
      if (dma->dependsOn(*core.queue[j]))
        return nullptr;
    piece = dma->taken++;
    return dma;
  }
  return nullptr;
}

/// Performs a taken piece (the call's mutex held through `lock`, released
/// while copying); the last piece of a copy to finish signals it.
void performPiece(KernelCall &call, std::unique_lock<std::mutex> &lock,
                  Dma *dma, int64_t piece) {
  lock.unlock();
  copyGuarded(*dma, piece);
  lock.lock();
  if (++dma->finished < dma->pieces)
    return;
  signal(call, *dma);
  Core &core = *dma->owner;
  --core.inFlight;
  auto it =
      std::find_if(core.queue.begin(), core.queue.end(),
                   [&](const auto &queued) { return queued.get() == dma; });
  core.queue.erase(it);
  core.changes.fetch_add(1, std::memory_order_release);
  core.work.notify_one();
}

/// The next polling time of an engine whose last idle period lasted
/// `idle`: twice that, when work came within the longest polling time
/// (kSpinTime), else none. A core that waits for one block after another
/// queues the next within microseconds, and polling saves the engine a
/// wake-up; a body that computes for longer between its copies (a
/// compute-bound kernel) would only keep a processor busy with polling.
std::chrono::nanoseconds nextEngineSpin(std::chrono::nanoseconds idle) {
  if (idle >= kSpinTime)
    return std::chrono::nanoseconds(0);
  return std::min<std::chrono::nanoseconds>(2 * idle, kSpinTime);
}

/// The engine thread of `core`: performs the pieces of its queued copies
/// in order. When it has none it polls for a while (core->engineSpin,
/// adapted to how long it recently waited, see nextEngineSpin), then
/// sleeps until the core queues a copy.
void runEngine(KernelCall *call, Core *core) {
  currentDevice = call->device;
  std::unique_lock<std::mutex> lock(call->mutex);
  while (true) {
    int64_t piece;
    if (Dma *dma = takePiece(*core, piece)) {
      performPiece(*call, lock, dma, piece);
      continue;
    }
    if (core->stop)
      return;
    int64_t seen = core->changes.load(std::memory_order_acquire);
    auto idleStart = std::chrono::steady_clock::now();
    auto changed = [&] {
      return core->changes.load(std::memory_order_acquire) != seen ||
             core->stop.load(std::memory_order_acquire);
    };
    bool polled = false;
    if (core->engineSpin.count() > 0) {
      lock.unlock();
      polled = spinUntil(changed, core->engineSpin);
      lock.lock();
    }
    if (!polled)
      core->work.wait(lock, changed);
    core->engineSpin =
        nextEngineSpin(std::chrono::steady_clock::now() - idleStart);
  }
}

/// Makes `core` wait until `ready` holds (called with the call's mutex held
/// through `lock`). Meanwhile it performs pieces of its queued copies, in
/// order: without engine threads they are only performed this way; with
/// them the core shares the copies it waits for with its engine. Without
/// engine threads it returns when nothing is queued (a wait that would
/// hang); with them, when `ready` holds, polling for completed copies
/// before it sleeps.
template <typename Ready>
void waitUntil(KernelCall &call, Core &core, std::unique_lock<std::mutex> &lock,
               Ready ready) {
  while (!ready()) {
    int64_t piece;
    if (Dma *dma = takePiece(core, piece)) {
      performPiece(call, lock, dma, piece);
      continue;
    }
    if (!call.threads)
      return;
    int64_t seen = call.completed.load(std::memory_order_acquire);
    lock.unlock();
    bool moved = spinUntil(
        [&] { return call.completed.load(std::memory_order_acquire) != seen; });
    lock.lock();
    if (!moved)
      call.done.wait(lock, [&] {
        return ready() ||
               call.completed.load(std::memory_order_acquire) != seen;
      });
  }
}

/// The number of processors this process may run on.
int64_t countProcessors() {
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    return CPU_COUNT(&set);
#endif
  return std::max(1u, std::thread::hardware_concurrency());
}

/// The engine policy: TESSERA_KERNEL_DMA until setKernelDmaEngines.
struct EnginePolicy {
  std::atomic<tessera::rt::KernelDmaEngines> engines{
      tessera::rt::KernelDmaEngines::Auto};
  /// The error every pipelined call reports while the variable holds
  /// something else than a policy (and no policy was set).
  std::atomic<const std::string *> error{nullptr};
};

EnginePolicy &getEnginePolicy() {
  using tessera::rt::KernelDmaEngines;
  static EnginePolicy *policy = [] {
    auto *result = new EnginePolicy();
    const char *value = std::getenv("TESSERA_KERNEL_DMA");
    std::string text = value ? value : "auto";
    if (text == "threads")
      result->engines = KernelDmaEngines::Threads;
    else if (text == "inline")
      result->engines = KernelDmaEngines::Inline;
    else if (text != "auto")
      result->error = new std::string("TESSERA_KERNEL_DMA='" + text +
                                      "' is not 'auto', 'threads' or "
                                      "'inline'");
    return result;
  }();
  return *policy;
}

/// A call that performs at least this many FLOPs per byte its block copies
/// move is compute-bound: its cores perform their own copies under Auto.
constexpr int64_t kComputeBoundFlopsPerByte = 32;

/// Whether a pipelined call with `numCores` TensorCores per device, `flops`
/// FLOPs and `copyBytes` bytes of block copies (0: unknown) runs an engine
/// thread per core (see KernelDmaEngines): with Auto, when the process has
/// a processor for the engine of every core of every device of the mesh
/// besides the cores themselves, and the call is not compute-bound. A
/// compute-bound call's copies take a small part of its time when its
/// cores perform them, while an engine thread costs more than that: the
/// body reads every copied block from the other processor's cache, each
/// copy wakes the engine, and a processor busy with something else delays
/// the pieces the engine took.
bool useEngineThreads(int64_t numCores, int64_t flops, int64_t copyBytes) {
  using tessera::rt::KernelDmaEngines;
  KernelDmaEngines policy =
      getEnginePolicy().engines.load(std::memory_order_relaxed);
  if (policy != KernelDmaEngines::Auto)
    return policy == KernelDmaEngines::Threads;
  if (copyBytes > 0 && flops / copyBytes >= kComputeBoundFlopsPerByte)
    return false;
  static const int64_t processors = countProcessors();
  int64_t devices = currentDevice.mesh ? currentDevice.mesh->numDevices : 1;
  return 2 * numCores * devices <= processors;
}
} // namespace

/// tessera_rt_kernel_call; returns whether the device must stop (a core
/// stopped at once), which the caller does once this frame is gone.
static bool runKernelCall(const char *name, const char *target,
                          const int64_t *info, int64_t args,
                          TesseraRtKernelCoreFn fn) {
  KernelCall call;
  call.name = name ? name : "";
  // Pipelined calls queue their copies, which engine threads may perform
  // concurrently.
  call.async = info[TESSERA_RT_KERNEL_INFO_MODE] == 1;
  if (const std::string *error = getEnginePolicy().error.load();
      error && call.async)
    reportError(*error);
  int64_t numCores = std::max<int64_t>(1, info[TESSERA_RT_KERNEL_INFO_CORES]);
  call.threads = call.async &&
                 useEngineThreads(numCores, info[TESSERA_RT_KERNEL_INFO_FLOPS],
                                  info[TESSERA_RT_KERNEL_INFO_COPY_BYTES]);
  call.capacity[TESSERA_RT_KERNEL_VMEM] =
      info[TESSERA_RT_KERNEL_INFO_VMEM_BYTES];
  call.capacity[TESSERA_RT_KERNEL_SMEM] =
      info[TESSERA_RT_KERNEL_INFO_SMEM_BYTES];
  call.device = currentDevice;
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
  // Each core runs under its own escape frame: a core that stops at once
  // comes back here, and the call still ends normally (joins its threads,
  // returns its arenas) before the device stops.
  for (int64_t c = 1; c < numCores; ++c)
    threads.emplace_back([&call, fn, args, c] {
      currentDevice = call.device;
      currentCore.core = call.cores[c].get();
      {
        std::unique_ptr<DeviceThreadScope> scope;
        if (call.device.mesh)
          scope = std::make_unique<DeviceThreadScope>();
        CoreCall core{fn, args, static_cast<int32_t>(c)};
        if (!runWithEscape(runCore, &core))
          call.left = true;
      }
      tessera_rt_kernel_dma_drain();
    });
  currentCore.core = call.cores[0].get();
  CoreCall core0{fn, args, 0};
  if (!runWithEscape(runCore, &core0))
    call.left = true;
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
  record.engineThreads = call.threads;
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
  return call.left.load();
}

extern "C" void tessera_rt_kernel_call(const char *name, const char *target,
                                       const int64_t *info, int64_t args,
                                       TesseraRtKernelCoreFn fn) {
  bool leave = false;
  try {
    leave = runKernelCall(name, target, info, args, fn);
  } catch (const std::exception &e) {
    // No exception crosses the C ABI (out of memory, no thread).
    try {
      reportError(std::string("kernel @") + (name ? name : "") + ": " +
                  e.what());
    } catch (...) {
    }
    leave = true;
  }
  if (leave)
    leaveDevice();
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
  auto dma = std::make_unique<Dma>();
  dma->direction = descriptor[TESSERA_RT_DMA_DIRECTION];
  dma->dst = reinterpret_cast<char *>(descriptor[TESSERA_RT_DMA_DST]);
  dma->src = reinterpret_cast<const char *>(descriptor[TESSERA_RT_DMA_SRC]);
  dma->elementBytes = descriptor[TESSERA_RT_DMA_ELEMENT_BYTES];
  dma->semaphore =
      reinterpret_cast<int32_t *>(descriptor[TESSERA_RT_DMA_SEMAPHORE]);
  dma->amount = static_cast<int32_t>(descriptor[TESSERA_RT_DMA_AMOUNT]);
  int64_t rank = descriptor[TESSERA_RT_DMA_RANK];
  if (rank < 0 || rank > 64) {
    // A corrupt descriptor: nothing to copy.
    reportError("tessera_rt_kernel_dma_start: invalid rank " +
                std::to_string(rank) + " in a DMA descriptor");
    return;
  }
  const int64_t *rest = descriptor + TESSERA_RT_DMA_SIZES;
  dma->sizes.assign(rest, rest + rank);
  dma->dstStrides.assign(rest + rank, rest + 2 * rank);
  dma->srcStrides.assign(rest + 2 * rank, rest + 3 * rank);
  ++copyCounts.issued;
  Core *core = currentCore.core;
  if (!core) {
    // Outside a call (a lowered module run by hand): at once.
    copyGuarded(*dma, -1);
    if (dma->semaphore)
      *dma->semaphore += dma->amount;
    return;
  }
  KernelCall &call = *core->call;
  ++call.issued;
  int64_t bytes = dma->getBytes();
  if (dma->direction == 0)
    call.bytesIn += bytes;
  else if (dma->direction == 1)
    call.bytesOut += bytes;
  if (!call.async) {
    perform(call, *dma);
    return;
  }
  dma->owner = core;
  dma->prepare();
  std::lock_guard<std::mutex> lock(call.mutex);
  if (dma->semaphore)
    ++call.pending[dma->semaphore];
  ++core->inFlight;
  core->queue.push_back(std::move(dma));
  core->changes.fetch_add(1, std::memory_order_release);
  if (call.threads)
    core->work.notify_one();
}

extern "C" int32_t tessera_rt_kernel_dma_wait(int64_t semaphore,
                                              int32_t amount) {
  auto *sem = reinterpret_cast<int32_t *>(semaphore);
  if (!sem) {
    // Checked here: a fault while the call's mutex is held would leave it
    // locked.
    reportError("tessera_rt_kernel_dma_wait: null semaphore");
    return 0;
  }
  Core *core = currentCore.core;
  if (!core) {
    if (*sem < amount)
      return *sem;
    *sem -= amount;
    return -1;
  }
  KernelCall &call = *core->call;
  std::unique_lock<std::mutex> lock(call.mutex);
  // A wait that no copy in flight can satisfy returns at once.
  waitUntil(call, *core, lock, [&] {
    return *sem >= amount || call.pending.find(sem) == call.pending.end();
  });
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
  waitUntil(call, *core, lock, [&] { return core->inFlight == 0; });
}

void tessera::rt::setKernelDmaEngines(KernelDmaEngines engines) {
  getEnginePolicy().engines.store(engines);
  getEnginePolicy().error.store(nullptr);
}

tessera::rt::KernelDmaEngines tessera::rt::getKernelDmaEngines() {
  return getEnginePolicy().engines.load();
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
