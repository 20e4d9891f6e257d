//===- KernelTest.cpp - kernel calls: cores, arenas, DMA engines ----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Tests the runtime side of lowered kernel.calls (tessera/Runtime/Kernel.h):
// every TensorCore runs the core function on its own thread of the device,
// arenas hand out aligned, disjoint buffers and refuse what does not fit
// without overwriting anything, the pipelined DMA engine performs strided
// copies in order and signals their semaphores (large write-backs, which use
// non-temporal stores, exactly), a wait nothing will satisfy
// returns instead of hanging, and the call's counters are recorded.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"

#include "tessera/Runtime/Kernel.h"

#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

using namespace tessera::rt;
using namespace tessera::rt::test;

namespace {
std::vector<int64_t> makeInfo(int64_t mode, int64_t cores, int64_t vmem,
                              int64_t smem) {
  std::vector<int64_t> info(TESSERA_RT_KERNEL_INFO_SIZE, 0);
  info[TESSERA_RT_KERNEL_INFO_MODE] = mode;
  info[TESSERA_RT_KERNEL_INFO_CORES] = cores;
  info[TESSERA_RT_KERNEL_INFO_VMEM_BYTES] = vmem;
  info[TESSERA_RT_KERNEL_INFO_SMEM_BYTES] = smem;
  info[TESSERA_RT_KERNEL_INFO_FLOPS] = 1000;
  info[TESSERA_RT_KERNEL_INFO_STEPS] = 4;
  info[TESSERA_RT_KERNEL_INFO_HBM_BYTES_PER_SECOND] = 1000000000;
  info[TESSERA_RT_KERNEL_INFO_PEAK_FLOPS_PER_SECOND] = 1000000000000;
  return info;
}

/// A 2-D copy descriptor: `rows` x `cols` floats.
std::vector<int64_t> describe(int64_t direction, void *dst, const void *src,
                              int64_t rows, int64_t cols, int64_t dstStride,
                              int64_t srcStride, int32_t *semaphore,
                              int64_t amount) {
  return {direction,
          reinterpret_cast<int64_t>(dst),
          reinterpret_cast<int64_t>(src),
          4,
          reinterpret_cast<int64_t>(semaphore),
          amount,
          2,
          rows,
          cols,
          dstStride,
          1,
          srcStride,
          1};
}

// The state a test's core function reads (the `args` of a call).
struct CoreTest {
  std::mutex mutex;
  std::set<std::thread::id> threads;
  std::vector<int64_t> deviceOfCore;
  std::array<int64_t, 4> addresses{};
  std::atomic<int> calls{0};
};
} // namespace

TEST(KernelTest, CoresRunConcurrentlyOnTheirOwnThreads) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {2});
  clearKernelCallRecords();
  std::vector<CoreTest> states(2);
  runOk(*mesh, [&](int64_t d) {
    std::vector<int64_t> info = makeInfo(1, 2, 1 << 20, 1 << 12);
    // Both cores must be inside the function at once: each waits for the
    // other (a sequential runtime would hang here, caught by the timeout).
    tessera_rt_kernel_call(
        "body", "v5p", info.data(), reinterpret_cast<int64_t>(&states[d]),
        [](int64_t args, int32_t core) {
          auto &state = *reinterpret_cast<CoreTest *>(args);
          {
            std::lock_guard<std::mutex> lock(state.mutex);
            state.threads.insert(std::this_thread::get_id());
          }
          state.calls.fetch_add(1);
          auto deadline =
              std::chrono::steady_clock::now() + std::chrono::seconds(10);
          while (state.calls.load() < 2 &&
                 std::chrono::steady_clock::now() < deadline)
            std::this_thread::yield();
          state.addresses[core] =
              tessera_rt_kernel_arena(TESSERA_RT_KERNEL_VMEM, 1000);
          state.addresses[2 + core] =
              tessera_rt_kernel_arena(TESSERA_RT_KERNEL_VMEM, 24);
        });
  });
  for (CoreTest &state : states) {
    EXPECT_EQ(state.calls.load(), 2);
    EXPECT_EQ(state.threads.size(), 2u);
    for (int64_t address : state.addresses) {
      EXPECT_NE(address, 0);
      EXPECT_EQ(address % 128, 0);
    }
    // Within a core, the second buffer follows the first (1000 -> 1024).
    EXPECT_EQ(state.addresses[2] - state.addresses[0], 1024);
    EXPECT_EQ(state.addresses[3] - state.addresses[1], 1024);
    // The cores have different arenas.
    EXPECT_NE(state.addresses[0], state.addresses[1]);
  }
  std::vector<KernelCallRecord> records = getKernelCallRecords();
  ASSERT_EQ(records.size(), 2u);
  std::set<int64_t> devices;
  for (const KernelCallRecord &record : records) {
    devices.insert(record.device);
    EXPECT_EQ(record.name, "body");
    EXPECT_EQ(record.target, "v5p");
    EXPECT_EQ(record.mode, "pipelined");
    EXPECT_EQ(record.cores, 2);
    EXPECT_EQ(record.steps, 4);
    EXPECT_EQ(record.flops, 1000);
    EXPECT_EQ(record.vmemPeak, 1024 + 128);
    EXPECT_EQ(record.vmemBytes, 1 << 20);
    EXPECT_EQ(record.smemPeak, 0);
  }
  EXPECT_EQ(devices, (std::set<int64_t>{0, 1}));
}

TEST(KernelTest, ArenaOverflowFailsWithoutOverwriting) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {1});
  std::string error = runFail(*mesh, [&](int64_t) {
    std::vector<int64_t> info = makeInfo(0, 1, 4096, 256);
    tessera_rt_kernel_call("big", "v5e", info.data(), 0, [](int64_t, int32_t) {
      int64_t a = tessera_rt_kernel_arena(TESSERA_RT_KERNEL_SMEM, 200);
      int64_t b = tessera_rt_kernel_arena(TESSERA_RT_KERNEL_SMEM, 100);
      // The refused block is separate and usable.
      std::memset(reinterpret_cast<void *>(b), 1, 100);
      EXPECT_NE(a, b);
      EXPECT_NE(b, 0);
    });
  });
  EXPECT_EQ(error, "kernel @big: SMEM of TensorCore 0 exhausted: allocating "
                   "100 bytes with 256 of 256 bytes in use");
}

TEST(KernelTest, ScopesReleaseTheirArenaBuffers) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {1});
  clearKernelCallRecords();
  // A persistent 1 KiB buffer, then per step a scope of 2 KiB with a nested
  // scope of 512 bytes: every step reuses the same addresses and the
  // high-water mark is 3.5 KiB, though 4 steps allocate 10 KiB in all.
  static std::vector<int64_t> addresses;
  addresses.clear();
  runOk(*mesh, [&](int64_t) {
    std::vector<int64_t> info = makeInfo(1, 1, 4096, 256);
    tessera_rt_kernel_call(
        "scoped", "v5e", info.data(), 0, [](int64_t, int32_t) {
          tessera_rt_kernel_arena(TESSERA_RT_KERNEL_VMEM, 1024);
          for (int step = 0; step < 4; ++step) {
            int64_t outer =
                tessera_rt_kernel_arena_mark(TESSERA_RT_KERNEL_VMEM);
            addresses.push_back(
                tessera_rt_kernel_arena(TESSERA_RT_KERNEL_VMEM, 2048));
            int64_t inner =
                tessera_rt_kernel_arena_mark(TESSERA_RT_KERNEL_VMEM);
            addresses.push_back(
                tessera_rt_kernel_arena(TESSERA_RT_KERNEL_VMEM, 512));
            tessera_rt_kernel_arena_release(TESSERA_RT_KERNEL_VMEM, inner);
            tessera_rt_kernel_arena_release(TESSERA_RT_KERNEL_VMEM, outer);
          }
        });
  });
  ASSERT_EQ(addresses.size(), 8u);
  for (size_t i = 2; i < addresses.size(); ++i)
    EXPECT_EQ(addresses[i], addresses[i % 2]);
  EXPECT_EQ(addresses[1] - addresses[0], 2048);
  std::vector<KernelCallRecord> records = getKernelCallRecords();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].vmemPeak, 1024 + 2048 + 512);
}

TEST(KernelTest, ReleaseBeyondTheArenaInUseFails) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {1});
  std::string error = runFail(*mesh, [&](int64_t) {
    std::vector<int64_t> info = makeInfo(0, 1, 4096, 256);
    tessera_rt_kernel_call("bad", "v5e", info.data(), 0, [](int64_t, int32_t) {
      tessera_rt_kernel_arena(TESSERA_RT_KERNEL_VMEM, 128);
      tessera_rt_kernel_arena_release(TESSERA_RT_KERNEL_VMEM, 256);
    });
  });
  EXPECT_EQ(error, "kernel @bad: arena release to 256 bytes with 128 in use "
                   "(scopes released out of order)");
}

TEST(KernelTest, DmaEngineCopiesStridedBlocksInOrderAndSignals) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {1});
  clearKernelCallRecords();
  // A 4x8 block of a 16x16 array into a 4x8 buffer and back into another
  // array; the second copy reads what the first wrote (in-order engine).
  struct State {
    std::vector<float> array = std::vector<float>(256);
    std::vector<float> buffer = std::vector<float>(32, -1.0f);
    std::vector<float> result = std::vector<float>(256, 0.0f);
    int32_t semaphore[2] = {0, 0};
    int32_t hang = -2;
  } state;
  for (int i = 0; i < 256; ++i)
    state.array[i] = static_cast<float>(i);
  runOk(*mesh, [&](int64_t) {
    std::vector<int64_t> info = makeInfo(1, 1, 4096, 256);
    tessera_rt_kernel_call(
        "dma", "v5e", info.data(), reinterpret_cast<int64_t>(&state),
        [](int64_t args, int32_t) {
          auto &s = *reinterpret_cast<State *>(args);
          // Rows 2..5, columns 4..11.
          std::vector<int64_t> in = describe(
              TESSERA_RT_DMA_TO_LOCAL, s.buffer.data(),
              s.array.data() + 2 * 16 + 4, 4, 8, 8, 16, &s.semaphore[0], 128);
          tessera_rt_kernel_dma_start(in.data());
          std::vector<int64_t> out =
              describe(TESSERA_RT_DMA_TO_HBM, s.result.data() + 16 + 1,
                       s.buffer.data(), 4, 8, 16, 8, &s.semaphore[1], 1);
          tessera_rt_kernel_dma_start(out.data());
          EXPECT_EQ(tessera_rt_kernel_dma_wait(
                        reinterpret_cast<int64_t>(&s.semaphore[1]), 1),
                    -1);
          EXPECT_EQ(tessera_rt_kernel_dma_wait(
                        reinterpret_cast<int64_t>(&s.semaphore[0]), 128),
                    -1);
          // Nothing in flight on it: the wait returns the count at once.
          s.hang = tessera_rt_kernel_dma_wait(
              reinterpret_cast<int64_t>(&s.semaphore[0]), 4);
        });
  });
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 8; ++c) {
      EXPECT_EQ(state.buffer[r * 8 + c], state.array[(2 + r) * 16 + 4 + c]);
      EXPECT_EQ(state.result[(1 + r) * 16 + 1 + c],
                state.array[(2 + r) * 16 + 4 + c]);
    }
  EXPECT_EQ(state.result[0], 0.0f);
  EXPECT_EQ(state.result[16 + 9], 0.0f);
  EXPECT_EQ(state.semaphore[0], 0);
  EXPECT_EQ(state.semaphore[1], 0);
  EXPECT_EQ(state.hang, 0);
  std::vector<KernelCallRecord> records = getKernelCallRecords();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].bytesIn, 128);
  EXPECT_EQ(records[0].bytesOut, 128);
  EXPECT_EQ(records[0].dmasIssued, 2);
}

TEST(KernelTest, LargeWriteBacksCopyExactlyTheBlock) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {1});
  // A 20x1001 f32 block (80,080 bytes: written back with non-temporal
  // stores) into rows 1..20, columns 1..1001 of a 24x1003 array: rows start
  // 4 bytes past a 16-byte boundary and end mid-vector.
  constexpr int64_t rows = 20, cols = 1001, width = 1003;
  struct State {
    std::vector<float> buffer = std::vector<float>(rows * cols);
    std::vector<float> array = std::vector<float>(24 * width, -1.0f);
    int32_t semaphore = 0;
  } state;
  for (int64_t i = 0; i < rows * cols; ++i)
    state.buffer[i] = static_cast<float>(i);
  runOk(*mesh, [&](int64_t) {
    std::vector<int64_t> info = makeInfo(1, 1, 4096, 256);
    tessera_rt_kernel_call(
        "write_back", "v5e", info.data(), reinterpret_cast<int64_t>(&state),
        [](int64_t args, int32_t) {
          auto &s = *reinterpret_cast<State *>(args);
          std::vector<int64_t> out = describe(
              TESSERA_RT_DMA_TO_HBM, s.array.data() + width + 1,
              s.buffer.data(), rows, cols, width, cols, &s.semaphore, 1);
          tessera_rt_kernel_dma_start(out.data());
          EXPECT_EQ(tessera_rt_kernel_dma_wait(
                        reinterpret_cast<int64_t>(&s.semaphore), 1),
                    -1);
        });
  });
  for (int64_t r = 0; r < 24; ++r)
    for (int64_t c = 0; c < width; ++c) {
      bool inside = r >= 1 && r <= rows && c >= 1 && c <= cols;
      float expected =
          inside ? static_cast<float>((r - 1) * cols + c - 1) : -1.0f;
      ASSERT_EQ(state.array[r * width + c], expected)
          << "at row " << r << ", column " << c;
    }
}

TEST(KernelTest, SkippedCopiesAreCounted) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {1});
  clearKernelCallRecords();
  runOk(*mesh, [&](int64_t) {
    std::vector<int64_t> info = makeInfo(0, 1, 4096, 256);
    tessera_rt_kernel_call("skip", "v5e", info.data(), 0, [](int64_t, int32_t) {
      tessera_rt_kernel_count_copy(0);
      tessera_rt_kernel_count_copy(0);
    });
  });
  std::vector<KernelCallRecord> records = getKernelCallRecords();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].dmasSkipped, 2);
  EXPECT_EQ(records[0].mode, "interpret");
}

TEST(KernelTest, ArenaOutsideACallFailsWithoutCrashing) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {1});
  std::string error = runFail(*mesh, [&](int64_t) {
    int64_t block = tessera_rt_kernel_arena(TESSERA_RT_KERNEL_VMEM, 64);
    // A usable (zeroed) block, freed here since no call owns it.
    EXPECT_NE(block, 0);
    EXPECT_EQ(reinterpret_cast<char *>(block)[63], 0);
    std::free(reinterpret_cast<void *>(block));
  });
  EXPECT_EQ(error, "tessera_rt_kernel_arena called outside a kernel call");
}

namespace {
/// Restores the DMA engine policy a test changed.
struct EnginePolicyScope {
  explicit EnginePolicyScope(KernelDmaEngines engines)
      : saved(getKernelDmaEngines()) {
    setKernelDmaEngines(engines);
  }
  ~EnginePolicyScope() { setKernelDmaEngines(saved); }
  KernelDmaEngines saved;
};
} // namespace

// Copies of several pieces, performed by the engine thread and by the core
// that waits, take effect in the order they were started: a copy out of a
// buffer reads what the copy before it wrote there, and a copy into the
// buffer after it waits for it to be read; an independent copy overlaps.
// The copies out of the buffer read its rows from the last to the first,
// so their first pieces need the pieces the copies before them perform
// last. Run with and without engine threads, several times each (a wrong
// order would show as a race).
TEST(KernelTest, PiecesOfDependentCopiesKeepTheirOrder) {
  for (KernelDmaEngines engines :
       {KernelDmaEngines::Threads, KernelDmaEngines::Inline}) {
    EnginePolicyScope scope(engines);
    std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {1});
    // 64 rows of 1024 floats: 256 KiB, several pieces per copy.
    constexpr int64_t rows = 64, cols = 1024, n = rows * cols;
    struct State {
      std::vector<float> first = std::vector<float>(n);
      std::vector<float> second = std::vector<float>(n);
      std::vector<float> other = std::vector<float>(n);
      std::vector<float> buffer = std::vector<float>(n, -1.0f);
      std::vector<float> otherBuffer = std::vector<float>(n, -1.0f);
      std::vector<float> out = std::vector<float>(n, 0.0f);
      std::vector<float> out2 = std::vector<float>(n, 0.0f);
      int32_t semaphores[5] = {0, 0, 0, 0, 0};
    } state;
    for (int64_t i = 0; i < n; ++i) {
      state.first[i] = static_cast<float>(i);
      state.second[i] = static_cast<float>(-i);
      state.other[i] = static_cast<float>(2 * i);
    }
    // Row r of `out` is row rows - 1 - r of `from`.
    auto reversed = [&](const std::vector<float> &from) {
      std::vector<float> result(n);
      for (int64_t r = 0; r < rows; ++r)
        std::copy_n(from.begin() + (rows - 1 - r) * cols, cols,
                    result.begin() + r * cols);
      return result;
    };
    for (int repeat = 0; repeat < 16; ++repeat) {
      clearKernelCallRecords();
      std::fill(state.out.begin(), state.out.end(), 0.0f);
      std::fill(state.out2.begin(), state.out2.end(), 0.0f);
      runOk(*mesh, [&](int64_t) {
        std::vector<int64_t> info = makeInfo(1, 1, 4096, 256);
        tessera_rt_kernel_call(
            "order", "v5e", info.data(), reinterpret_cast<int64_t>(&state),
            [](int64_t args, int32_t) {
              auto &s = *reinterpret_cast<State *>(args);
              auto start = [&](int64_t direction, float *dst, const float *src,
                               bool backwards, int32_t *semaphore) {
                std::vector<int64_t> d =
                    backwards
                        ? describe(direction, dst, src + (rows - 1) * cols,
                                   rows, cols, cols, -cols, semaphore, 1)
                        : describe(direction, dst, src, rows, cols, cols, cols,
                                   semaphore, 1);
                tessera_rt_kernel_dma_start(d.data());
              };
              // first -> buffer -> out, second -> buffer -> out2, then
              // other -> otherBuffer, which depends on none of them.
              start(TESSERA_RT_DMA_TO_LOCAL, s.buffer.data(), s.first.data(),
                    false, &s.semaphores[0]);
              start(TESSERA_RT_DMA_TO_HBM, s.out.data(), s.buffer.data(), true,
                    &s.semaphores[1]);
              start(TESSERA_RT_DMA_TO_LOCAL, s.buffer.data(), s.second.data(),
                    false, &s.semaphores[2]);
              start(TESSERA_RT_DMA_TO_HBM, s.out2.data(), s.buffer.data(), true,
                    &s.semaphores[3]);
              start(TESSERA_RT_DMA_TO_LOCAL, s.otherBuffer.data(),
                    s.other.data(), false, &s.semaphores[4]);
              // Only one is waited for; the rest complete at the drain.
              EXPECT_EQ(tessera_rt_kernel_dma_wait(
                            reinterpret_cast<int64_t>(&s.semaphores[3]), 1),
                        -1);
            });
      });
      ASSERT_EQ(state.out, reversed(state.first)) << "repeat " << repeat;
      ASSERT_EQ(state.out2, reversed(state.second)) << "repeat " << repeat;
      ASSERT_EQ(state.buffer, state.second) << "repeat " << repeat;
      ASSERT_EQ(state.otherBuffer, state.other) << "repeat " << repeat;
      for (int i = 0; i < 5; ++i) {
        EXPECT_EQ(state.semaphores[i], i == 3 ? 0 : 1) << "semaphore " << i;
        state.semaphores[i] = 0;
      }
      std::vector<KernelCallRecord> records = getKernelCallRecords();
      ASSERT_EQ(records.size(), 1u);
      EXPECT_EQ(records[0].engineThreads, engines == KernelDmaEngines::Threads);
      EXPECT_EQ(records[0].dmasIssued, 5);
    }
  }
}

// Under the auto policy a compute-bound call (at least 32 FLOPs per byte of
// its block copies, as the lowering estimates them) has its cores perform
// their own copies; a memory-bound one, or one whose copy bytes are
// unknown (0), gets engine threads where the host has a processor for
// them. An explicit policy is kept either way.
TEST(KernelTest, AutoPolicyKeepsComputeBoundCopiesOnTheCores) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {1});
  // The processors the runtime counts (those the process may run on).
  int64_t processors = std::thread::hardware_concurrency();
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    processors = CPU_COUNT(&set);
#endif
  bool spare = processors >= 2;
  struct Case {
    KernelDmaEngines engines;
    int64_t flops, copyBytes;
    bool threads;
  };
  for (Case c : {Case{KernelDmaEngines::Auto, 1 << 20, 1 << 15, false},
                 Case{KernelDmaEngines::Auto, 1 << 20, 1 << 16, spare},
                 Case{KernelDmaEngines::Auto, 1 << 20, 0, spare},
                 Case{KernelDmaEngines::Threads, 1 << 20, 1 << 15, true},
                 Case{KernelDmaEngines::Inline, 1, 1 << 15, false}}) {
    EnginePolicyScope scope(c.engines);
    clearKernelCallRecords();
    runOk(*mesh, [&](int64_t) {
      std::vector<int64_t> info = makeInfo(1, 1, 4096, 256);
      info[TESSERA_RT_KERNEL_INFO_FLOPS] = c.flops;
      info[TESSERA_RT_KERNEL_INFO_COPY_BYTES] = c.copyBytes;
      tessera_rt_kernel_call("policy", "v5e", info.data(), 0,
                             [](int64_t, int32_t) {});
    });
    std::vector<KernelCallRecord> records = getKernelCallRecords();
    ASSERT_EQ(records.size(), 1u);
    EXPECT_EQ(records[0].engineThreads, c.threads)
        << "flops " << c.flops << ", copy bytes " << c.copyBytes;
  }
}
