//===- FaultTest.cpp - faults, failed allocations and assertions ----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Tests that a device whose code faults (divides by zero, writes through a
// null pointer, aborts, overflows its stack), whose allocation fails or
// whose assertion fails stops at once with an error naming the device and
// the cause, that the devices waiting for it in a collective are released,
// and that signals elsewhere keep their previous handling.
//
// Under AddressSanitizer the runtime's handlers replace ASan's while a mesh
// runs (ASan lets programs install their own), so the fault tests run there
// too; the tests of what happens to a signal outside device threads (which
// ASan then reports and exits on) are skipped.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"

#include "tessera/Runtime/Kernel.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <regex>
#include <thread>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TESSERA_TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define TESSERA_TEST_ASAN 1
#endif

using namespace tessera::rt;
using namespace tessera::rt::test;

namespace {

// The faults, out of the sanitizers' sight (UBSan would stop the process
// before the hardware faults).

volatile int sink;

__attribute__((noinline, no_sanitize("undefined"))) void divideByZero(int a) {
  volatile int zero = 0;
  sink = a / zero;
}

__attribute__((noinline, no_sanitize("undefined", "address"))) void
writeNull() {
  int *volatile pointer = nullptr;
  *pointer = 1;
}

volatile int stopDepth = -1;

__attribute__((noinline, no_sanitize("undefined", "address"))) int
recurse(int depth) {
  volatile char buffer[512];
  buffer[0] = static_cast<char>(depth);
  if (depth == stopDepth)
    return 0;
  return recurse(depth + 1) + buffer[0];
}

const int64_t kOverAll[] = {0, 1, 4};

/// Runs `fault` on device `faulty` of a line of 4 while the others wait in
/// a barrier over all of them; expects the run to fail at once (the
/// watchdog is long) with the others released without returning from the
/// barrier, and returns the error.
std::string runFaulty(int64_t faulty, const std::function<void()> &fault,
                      Mesh *mesh = nullptr) {
  std::unique_ptr<Mesh> owned;
  if (!mesh) {
    owned = makeMesh({"x"}, {4});
    mesh = owned.get();
  }
  mesh->setWatchdogTimeout(30);
  std::atomic<int> passed{0};
  auto start = std::chrono::steady_clock::now();
  std::string error = runFail(*mesh, [&](int64_t d) {
    if (d == faulty) {
      // Let the others arrive first.
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      fault();
      ++passed;
      return;
    }
    tessera_rt_barrier(kOverAll, 1, "comm.barrier");
    ++passed;
  });
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  // Neither the faulty device nor those waiting for it went on.
  EXPECT_EQ(passed.load(), 0);
  return error;
}

bool matches(const std::string &text, const std::string &pattern) {
  return std::regex_match(text, std::regex(pattern));
}

} // namespace

TEST(FaultTest, DivideByZero) {
  std::string error = runFaulty(2, [] { divideByZero(7); });
  EXPECT_TRUE(matches(error, "device 2: SIGFPE \\(integer divide by zero\\) "
                             "at pc 0x[0-9a-f]+"))
      << error;
}

TEST(FaultTest, NullPointerWrite) {
  std::string error = runFaulty(1, [] { writeNull(); });
  EXPECT_TRUE(matches(error, "device 1: SIGSEGV \\(address 0x0 not mapped\\) "
                             "at pc 0x[0-9a-f]+"))
      << error;
}

TEST(FaultTest, Abort) {
  std::string error = runFaulty(0, [] { std::abort(); });
  EXPECT_TRUE(matches(error, "device 0: SIGABRT \\(abort\\) at pc 0x[0-9a-f]+"))
      << error;
}

TEST(FaultTest, StackOverflow) {
  std::string error = runFaulty(3, [] { recurse(0); });
  EXPECT_TRUE(matches(error, "device 3: stack overflow \\(SIGSEGV at address "
                             "0x[0-9a-f]+\\) at pc 0x[0-9a-f]+"))
      << error;
}

TEST(FaultTest, SymbolizerNamesTheFunction) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {4});
  std::atomic<uint64_t> asked{0};
  mesh->setSymbolizer([&](uint64_t pc) -> std::string {
    asked = pc;
    return "@main";
  });
  std::string error = runFaulty(
      2, [] { divideByZero(1); }, mesh.get());
  EXPECT_TRUE(matches(error, "device 2: SIGFPE \\(integer divide by zero\\) "
                             "in @main at pc 0x[0-9a-f]+"))
      << error;
  EXPECT_NE(asked.load(), 0u);
  // A symbolizer that does not know the address: no name.
  mesh->setSymbolizer([](uint64_t) { return std::string(); });
  error = runFaulty(
      2, [] { divideByZero(1); }, mesh.get());
  EXPECT_TRUE(matches(error, "device 2: SIGFPE \\(integer divide by zero\\) "
                             "at pc 0x[0-9a-f]+"))
      << error;
}

TEST(FaultTest, AssertionFailed) {
  const char *message = "index 7 out of bounds for size 4 (and no more)";
  std::string error = runFaulty(3, [&] {
    tessera_rt_assert_failed(message, std::strlen("index 7 out of bounds "
                                                  "for size 4"));
  });
  EXPECT_EQ(error, "device 3: assertion failed: index 7 out of bounds for "
                   "size 4");
  // A negative length: the message is NUL-terminated.
  error = runFaulty(0, [] { tessera_rt_assert_failed("x < y", -1); });
  EXPECT_EQ(error, "device 0: assertion failed: x < y");
}

TEST(FaultTest, HugeAllocation) {
  void *result = reinterpret_cast<void *>(1);
  std::string error =
      runFaulty(1, [&] { result = tessera_rt_alloc(int64_t(1) << 62); });
  EXPECT_EQ(result, reinterpret_cast<void *>(1)) << "the call returned";
  EXPECT_EQ(error.rfind("device 1: tessera_rt_alloc: out of memory "
                        "allocating 4611686018427387904 bytes (4.00 EiB",
                        0),
            0u)
      << error;
  error = runFaulty(
      2, [&] { result = tessera_rt_aligned_alloc(4096, int64_t(1) << 62); });
  EXPECT_EQ(error.rfind("device 2: tessera_rt_aligned_alloc: out of memory "
                        "allocating 4611686018427387904 bytes",
                        0),
            0u)
      << error;
}

TEST(FaultTest, FaultsInEveryDevice) {
  // Every device faults: the first is reported, and the run ends.
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {8});
  std::string error =
      runFail(*mesh, [&](int64_t d) { divideByZero(static_cast<int>(d)); });
  EXPECT_TRUE(matches(error, "device [0-7]: SIGFPE \\(integer divide by "
                             "zero\\) at pc 0x[0-9a-f]+"))
      << error;
  // The mesh runs again.
  runOk(*mesh, [&](int64_t) { tessera_rt_barrier(nullptr, 0, "b"); });
}

TEST(FaultTest, RunDeviceCodeComesBack) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {2});
  std::atomic<int> returned{0}, left{0};
  std::string error = runFail(*mesh, [&](int64_t d) {
    bool ok = runDeviceCode([&] {
      if (d == 1)
        writeNull();
    });
    ++(ok ? returned : left);
  });
  EXPECT_TRUE(matches(error, "device 1: SIGSEGV .*")) << error;
  EXPECT_EQ(returned.load(), 1);
  EXPECT_EQ(left.load(), 1);
  // Outside a device thread it just calls the code.
  bool called = false;
  EXPECT_TRUE(runDeviceCode([&] { called = true; }));
  EXPECT_TRUE(called);
}

TEST(FaultTest, CollectiveOnAFailedMeshLeavesRunDeviceCode) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {2});
  std::vector<int> left(2, 0);
  std::string error = runFail(*mesh, [&](int64_t d) {
    bool ok = runDeviceCode([&] {
      if (d == 0)
        tessera_rt_assert_failed("stop", 4);
      int64_t parts[] = {0, 1, 2};
      tessera_rt_barrier(parts, 1, "b");
    });
    left[d] = !ok;
  });
  EXPECT_EQ(error, "device 0: assertion failed: stop");
  EXPECT_EQ(left, (std::vector<int>{1, 1}));
}

TEST(FaultTest, FaultInADataPhaseReleasesTheOthers) {
  // Device 0 passes an input that is not mapped; whoever reads it faults
  // in the data phase, and nobody is left waiting in the phase's barrier.
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {2});
  mesh->setWatchdogTimeout(30);
  auto start = std::chrono::steady_clock::now();
  std::string error = runFail(*mesh, [&](int64_t d) {
    static float in[1024], out[2][1024];
    const void *input = d == 0 ? reinterpret_cast<const void *>(64) : in;
    int64_t parts[] = {0, 1, 2};
    tessera_rt_all_reduce(input, out[d], 1024, TESSERA_RT_F32, TESSERA_RT_SUM,
                          parts, 1, "ar");
  });
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_TRUE(matches(error, "device [01]: SIGSEGV \\(address 0x[0-9a-f]+ not "
                             "mapped\\) at pc 0x[0-9a-f]+ in the data phase "
                             "of ar"))
      << error;
  runOk(*mesh, [&](int64_t) {});
}

TEST(FaultTest, FaultInAKernelCore) {
  // Core 1 of a two-core kernel call divides by zero: the call still joins
  // its cores and records itself, then the device stops.
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {1});
  clearKernelCallRecords();
  static int64_t info[TESSERA_RT_KERNEL_INFO_SIZE] = {};
  info[TESSERA_RT_KERNEL_INFO_MODE] = 1;
  info[TESSERA_RT_KERNEL_INFO_CORES] = 2;
  info[TESSERA_RT_KERNEL_INFO_VMEM_BYTES] = 4096;
  info[TESSERA_RT_KERNEL_INFO_SMEM_BYTES] = 256;
  bool after = false;
  std::string error = runFail(*mesh, [&](int64_t) {
    tessera_rt_kernel_call("body", "v5p", info, 0, [](int64_t, int32_t core) {
      if (core == 1)
        divideByZero(core);
    });
    after = true;
  });
  EXPECT_TRUE(matches(error, "device 0: SIGFPE \\(integer divide by zero\\) "
                             "at pc 0x[0-9a-f]+"))
      << error;
  EXPECT_FALSE(after);
  EXPECT_EQ(getKernelCallRecords().size(), 1u);
}

TEST(FaultTest, FaultInAKernelDma) {
  // A DMA whose source is not mapped: the copy fails the mesh and counts
  // as done, so the wait for it does not hang.
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {1});
  static int64_t info[TESSERA_RT_KERNEL_INFO_SIZE] = {};
  info[TESSERA_RT_KERNEL_INFO_MODE] = 1;
  info[TESSERA_RT_KERNEL_INFO_CORES] = 1;
  info[TESSERA_RT_KERNEL_INFO_VMEM_BYTES] = 1 << 16;
  info[TESSERA_RT_KERNEL_INFO_SMEM_BYTES] = 256;
  std::string error = runFail(*mesh, [&](int64_t) {
    tessera_rt_kernel_call("dma", "v5e", info, 0, [](int64_t, int32_t) {
      int64_t window = tessera_rt_kernel_arena(TESSERA_RT_KERNEL_VMEM, 4096);
      static int32_t semaphore = 0;
      int64_t descriptor[TESSERA_RT_DMA_SIZES + 3] = {};
      descriptor[TESSERA_RT_DMA_DIRECTION] = TESSERA_RT_DMA_TO_LOCAL;
      descriptor[TESSERA_RT_DMA_DST] = window;
      descriptor[TESSERA_RT_DMA_SRC] = 64;
      descriptor[TESSERA_RT_DMA_ELEMENT_BYTES] = 4;
      descriptor[TESSERA_RT_DMA_SEMAPHORE] =
          reinterpret_cast<int64_t>(&semaphore);
      descriptor[TESSERA_RT_DMA_AMOUNT] = 1;
      descriptor[TESSERA_RT_DMA_RANK] = 1;
      descriptor[TESSERA_RT_DMA_SIZES] = 1024;
      descriptor[TESSERA_RT_DMA_SIZES + 1] = 1;
      descriptor[TESSERA_RT_DMA_SIZES + 2] = 1;
      tessera_rt_kernel_dma_start(descriptor);
      tessera_rt_kernel_dma_wait(reinterpret_cast<int64_t>(&semaphore), 1);
    });
  });
  EXPECT_TRUE(matches(error, "device 0: SIGSEGV \\(address 0x[0-9a-f]+ not "
                             "mapped\\) at pc 0x[0-9a-f]+ in a DMA of a "
                             "kernel call"))
      << error;
}

TEST(FaultTest, HandlersAreRestoredAfterARun) {
  struct sigaction before[5], after[5];
  const int signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
  for (int i = 0; i < 5; ++i)
    sigaction(signals[i], nullptr, &before[i]);
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {2});
  runOk(*mesh, [&](int64_t) {
    struct sigaction during;
    sigaction(SIGSEGV, nullptr, &during);
    EXPECT_TRUE(during.sa_flags & SA_SIGINFO);
    EXPECT_TRUE(during.sa_flags & SA_ONSTACK);
  });
  runFaulty(1, [] { writeNull(); });
  for (int i = 0; i < 5; ++i) {
    sigaction(signals[i], nullptr, &after[i]);
    EXPECT_EQ(reinterpret_cast<void *>(after[i].sa_handler),
              reinterpret_cast<void *>(before[i].sa_handler))
        << "signal " << signals[i];
    EXPECT_EQ(after[i].sa_flags, before[i].sa_flags) << signals[i];
  }
}

TEST(FaultDeathTest, AssertionOutsideAMeshAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(tessera_rt_assert_failed("boom at f.mlir:3", 4),
               "tessera runtime: assertion failed: boom\n");
}

#ifndef TESSERA_TEST_ASAN
TEST(FaultDeathTest, FaultOutsideADeviceThreadKeepsItsDefault) {
  // A thread a device starts is no device thread: its fault kills the
  // process as it would without the runtime.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {1});
        std::string error;
        mesh->run(
            [](int64_t) {
              std::thread helper([] { writeNull(); });
              helper.join();
            },
            error);
      },
      ::testing::KilledBySignal(SIGSEGV), "");
  EXPECT_EXIT(
      {
        std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {1});
        std::string error;
        mesh->run(
            [](int64_t) {
              std::thread helper([] { std::abort(); });
              helper.join();
            },
            error);
      },
      ::testing::KilledBySignal(SIGABRT), "");
}
#endif
