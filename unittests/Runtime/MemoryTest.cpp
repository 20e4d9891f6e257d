//===- MemoryTest.cpp - allocation, accounting and counters ---------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Tests tessera_rt_alloc and friends (alignment, per-device current and peak
// bytes, frees from another thread, the host bucket, host-owned buffers) and
// the per-device collective counters.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

using namespace tessera::rt;
using namespace tessera::rt::test;

TEST(MemoryTest, Alignment) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {1});
  runOk(*mesh, [&](int64_t) {
    for (int64_t alignment : {1, 2, 8, 16, 64, 256, 4096}) {
      void *p = tessera_rt_aligned_alloc(alignment, 100);
      ASSERT_NE(p, nullptr);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % alignment, 0u) << alignment;
      std::memset(p, 0xab, 100);
      tessera_rt_free(p);
    }
    void *p = tessera_rt_alloc(33);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
    tessera_rt_free(p);
    // Not a power of two: rounded up (to 64).
    void *q = tessera_rt_aligned_alloc(48, 10);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(q) % 64, 0u);
    tessera_rt_free(q);
    void *empty = tessera_rt_alloc(0);
    EXPECT_NE(empty, nullptr);
    tessera_rt_free(empty);
    tessera_rt_free(nullptr);
  });
}

TEST(MemoryTest, PeakPerDevice) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {2});
  runOk(*mesh, [&](int64_t d) {
    if (d == 0) {
      void *a = tessera_rt_alloc(1000);
      void *b = tessera_rt_aligned_alloc(4096, 500);
      tessera_rt_free(a);
      void *c = tessera_rt_alloc(200);
      tessera_rt_free(b);
      tessera_rt_free(c);
    } else {
      void *a = tessera_rt_alloc(4096);
      tessera_rt_free(a);
    }
  });
  EXPECT_EQ(mesh->stats(0).peakBytes, 1500);
  EXPECT_EQ(mesh->stats(0).currentBytes, 0);
  EXPECT_EQ(mesh->stats(1).peakBytes, 4096);
  EXPECT_EQ(mesh->stats(1).currentBytes, 0);
}

TEST(MemoryTest, FreeOnAnotherThreadReleasesTheDevice) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {2});
  std::vector<void *> results(2);
  runOk(*mesh,
        [&](int64_t d) { results[d] = tessera_rt_alloc(128 * (d + 1)); });
  EXPECT_EQ(mesh->stats(0).currentBytes, 128);
  EXPECT_EQ(mesh->stats(1).currentBytes, 256);
  DeviceStats hostBefore = getHostMemoryStats();
  tessera_rt_free(results[1]);
  EXPECT_EQ(mesh->stats(1).currentBytes, 0);
  EXPECT_EQ(getHostMemoryStats().currentBytes, hostBefore.currentBytes);
  // A block may outlive its mesh.
  mesh.reset();
  tessera_rt_free(results[0]);
}

TEST(MemoryTest, HostBucket) {
  DeviceStats before = getHostMemoryStats();
  void *p = tessera_rt_alloc(777);
  EXPECT_EQ(getHostMemoryStats().currentBytes, before.currentBytes + 777);
  EXPECT_GE(getHostMemoryStats().peakBytes, before.currentBytes + 777);
  tessera_rt_free(p);
  EXPECT_EQ(getHostMemoryStats().currentBytes, before.currentBytes);
}

TEST(MemoryTest, HostBuffersCountTowardsThePeak) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {2});
  mesh->accountBuffer(1, 10000);
  runOk(*mesh, [&](int64_t d) { tessera_rt_free(tessera_rt_alloc(100)); });
  EXPECT_EQ(mesh->stats(0).peakBytes, 100);
  EXPECT_EQ(mesh->stats(1).peakBytes, 10100);
  EXPECT_EQ(mesh->stats(1).currentBytes, 10000);
  mesh->releaseBuffer(1, 10000);
  EXPECT_EQ(mesh->stats(1).currentBytes, 0);
  // Peaks accumulate over runs until resetStats.
  runOk(*mesh, [&](int64_t d) { tessera_rt_free(tessera_rt_alloc(50)); });
  EXPECT_EQ(mesh->stats(1).peakBytes, 10100);
  mesh->resetStats();
  EXPECT_EQ(mesh->stats(1).peakBytes, 0);
  runOk(*mesh, [&](int64_t d) { tessera_rt_free(tessera_rt_alloc(50)); });
  EXPECT_EQ(mesh->stats(1).peakBytes, 50);
}

TEST(MemoryTest, LargeFreedBlocksAreReused) {
  releaseCachedMemory();
  EXPECT_EQ(getCachedMemoryBytes(), 0);
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {2});
  const int64_t size = (3 << 20) + 100000;
  std::vector<void *> first(2), second(2);
  // Both blocks are live at once before either is freed (otherwise the
  // second device may get the first device's freed block back).
  runOk(*mesh, [&](int64_t d) {
    first[d] = tessera_rt_alloc(size);
    std::memset(first[d], 0x5a, size);
  });
  runOk(*mesh, [&](int64_t d) { tessera_rt_free(first[d]); });
  // Both blocks are cached (with at most 1/8 rounding), and still accounted
  // to no device.
  EXPECT_GE(getCachedMemoryBytes(), 2 * size);
  EXPECT_LE(getCachedMemoryBytes(), 2 * (size + size / 8 + 4096));
  EXPECT_EQ(mesh->stats(0).currentBytes, 0);
  EXPECT_EQ(mesh->stats(0).peakBytes, size);
  // The same size class (a slightly smaller block) gets them back,
  // whichever device asks.
  runOk(*mesh, [&](int64_t d) {
    second[d] = tessera_rt_alloc(size - 1000);
    std::memset(second[d], 0, size - 1000);
  });
  EXPECT_EQ(getCachedMemoryBytes(), 0);
  EXPECT_TRUE(std::is_permutation(first.begin(), first.end(), second.begin()));
  EXPECT_EQ(mesh->stats(1).currentBytes, size - 1000);
  for (void *p : second)
    tessera_rt_free(p);
  EXPECT_GE(getCachedMemoryBytes(), 2 * size);
  // A larger alignment places the block further into a reused one.
  void *aligned = tessera_rt_aligned_alloc(4096, size);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(aligned) % 4096, 0u);
  EXPECT_LT(getCachedMemoryBytes(), 2 * size);
  std::memset(aligned, 1, size);
  tessera_rt_free(aligned);
  releaseCachedMemory();
  EXPECT_EQ(getCachedMemoryBytes(), 0);
}

TEST(MemoryTest, SmallAndDifferentSizesAreNotReused) {
  releaseCachedMemory();
  void *small = tessera_rt_alloc(4000);
  tessera_rt_free(small);
  EXPECT_EQ(getCachedMemoryBytes(), 0);
  void *big = tessera_rt_alloc(1 << 20);
  tessera_rt_free(big);
  int64_t cached = getCachedMemoryBytes();
  EXPECT_GE(cached, 1 << 20);
  // Twice the size is another class: a new block, the cached one stays.
  void *twice = tessera_rt_alloc(2 << 20);
  EXPECT_EQ(getCachedMemoryBytes(), cached);
  tessera_rt_free(twice);
  releaseCachedMemory();
  EXPECT_EQ(getCachedMemoryBytes(), 0);
}

TEST(MemoryTest, ForeignPointerIsAnError) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {1});
  std::vector<char> storage(128, 0);
  std::string error =
      runFail(*mesh, [&](int64_t) { tessera_rt_free(storage.data() + 64); });
  EXPECT_NE(error.find("device 0: tessera_rt_free: "), std::string::npos)
      << error;
  EXPECT_NE(error.find("was not allocated by tessera_rt_alloc"),
            std::string::npos)
      << error;
}

TEST(MemoryTest, NegativeSizeIsAnError) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {1});
  void *p = reinterpret_cast<void *>(1);
  std::string error =
      runFail(*mesh, [&](int64_t) { p = tessera_rt_alloc(-5); });
  // The device ended in the call: it never returned a pointer.
  EXPECT_EQ(p, reinterpret_cast<void *>(1));
  EXPECT_EQ(error, "device 0: tessera_rt_alloc: negative size -5");
}

TEST(MemoryTest, FailedAllocationOutsideAMeshReturnsNull) {
  EXPECT_EQ(tessera_rt_alloc(-5), nullptr);
  EXPECT_EQ(tessera_rt_aligned_alloc(64, int64_t(1) << 62), nullptr);
}

TEST(MemoryTest, CollectiveCounters) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {4});
  std::vector<int64_t> parts = {0, 1, 4};
  runOk(*mesh, [&](int64_t d) {
    std::vector<float> in(16, 1), out(64);
    for (int i = 0; i < 3; ++i)
      tessera_rt_all_reduce(in.data(), out.data(), 16, TESSERA_RT_F32,
                            TESSERA_RT_SUM, parts.data(), 1, "ar");
    int64_t shape[] = {16};
    tessera_rt_all_gather(in.data(), out.data(), shape, 1, TESSERA_RT_F32, 0,
                          parts.data(), 1, "ag");
    tessera_rt_barrier(parts.data(), 1, "barrier");
    int64_t src = 0, dst = 1;
    tessera_rt_permute(in.data(), out.data(), 8, &src, &dst, 1, parts.data(), 1,
                       "permute");
  });
  for (int64_t d = 0; d < 4; ++d) {
    DeviceStats stats = mesh->stats(d);
    EXPECT_EQ(stats.collectiveCalls, 6);
    EXPECT_EQ(stats.collectiveBytes, 3 * 64 + 64 + 8);
    EXPECT_EQ(stats.callsByKind[int(CollectiveKind::AllReduce)], 3);
    EXPECT_EQ(stats.bytesByKind[int(CollectiveKind::AllReduce)], 192);
    EXPECT_EQ(stats.callsByKind[int(CollectiveKind::AllGather)], 1);
    EXPECT_EQ(stats.callsByKind[int(CollectiveKind::Barrier)], 1);
    EXPECT_EQ(stats.bytesByKind[int(CollectiveKind::Barrier)], 0);
    EXPECT_EQ(stats.callsByKind[int(CollectiveKind::Permute)], 1);
    EXPECT_EQ(stats.callsByKind[int(CollectiveKind::ReduceScatter)], 0);
    EXPECT_GE(stats.collectiveSeconds, 0);
  }
  // Counters accumulate over runs until resetStats.
  runOk(*mesh,
        [&](int64_t) { tessera_rt_barrier(parts.data(), 1, "barrier"); });
  EXPECT_EQ(mesh->stats(2).collectiveCalls, 7);
  mesh->resetStats();
  EXPECT_EQ(mesh->stats(2).collectiveCalls, 0);
  EXPECT_EQ(mesh->stats(2).collectiveBytes, 0);
  EXPECT_EQ(mesh->stats(2).collectiveSeconds, 0);
  EXPECT_EQ(mesh->stats(2).collectiveDataSeconds, 0);
}

TEST(MemoryTest, CollectiveDataTimeLeavesOutTheWait) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {2});
  std::vector<int64_t> parts = {0, 1, 2};
  runOk(*mesh, [&](int64_t d) {
    // Device 1 arrives 300 ms after device 0.
    if (d == 1)
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    std::vector<float> in(16, 1), out(16);
    tessera_rt_all_reduce(in.data(), out.data(), 16, TESSERA_RT_F32,
                          TESSERA_RT_SUM, parts.data(), 1, "ar");
  });
  DeviceStats waited = mesh->stats(0), late = mesh->stats(1);
  EXPECT_GE(waited.collectiveSeconds, 0.25);
  // Reducing 16 floats takes microseconds; the bound leaves room for a
  // busy machine.
  EXPECT_LT(waited.collectiveDataSeconds, 0.2);
  EXPECT_GT(waited.collectiveDataSeconds, 0);
  EXPECT_LE(late.collectiveDataSeconds, late.collectiveSeconds);
  EXPECT_LT(late.collectiveSeconds, 0.2);
}
