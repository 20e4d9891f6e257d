//===- WatchdogTest.cpp - divergence, deadlocks, timeouts, bad arguments --===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Tests that programs that would hang or corrupt memory become errors:
// devices that call different collectives or sizes, a device that returns
// while others wait for it, a cycle of waits, a device that stalls past the
// watchdog timeout, and invalid arguments. After an error, every pending and
// later collective returns zeros and ends its device, and the run reports
// the first error.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <regex>
#include <thread>

using namespace tessera::rt;
using namespace tessera::rt::test;

static const int64_t kOverX[] = {0, 1, 2};

static void allReduce16(int64_t numElements, const char *site,
                        float *out = nullptr) {
  float in[16] = {}, scratch[16];
  tessera_rt_all_reduce(in, out ? out : scratch, numElements, TESSERA_RT_F32,
                        TESSERA_RT_SUM, kOverX, 1, site);
}

TEST(WatchdogTest, DifferentCollectivesDiverge) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {2});
  std::string error = runFail(*mesh, [&](int64_t d) {
    if (d == 0) {
      allReduce16(16, "comm.all_reduce at \"f.mlir\":3:5");
    } else {
      float in[16] = {}, out[32];
      int64_t shape[] = {16};
      tessera_rt_all_gather(in, out, shape, 1, TESSERA_RT_F32, 0, kOverX, 1,
                            "comm.all_gather at \"f.mlir\":4:5");
    }
  });
  EXPECT_EQ(error, "devices diverged: device 0 called comm.all_reduce at "
                   "\"f.mlir\":3:5 (sum, f32, 16 elements over {x}) but "
                   "device 1 called comm.all_gather at \"f.mlir\":4:5 "
                   "(16xf32, gather dim 0 over {x})");
}

TEST(WatchdogTest, DifferentSizesDiverge) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {2});
  std::string error = runFail(*mesh, [&](int64_t d) {
    allReduce16(d == 0 ? 16 : 8, "comm.all_reduce at \"f.mlir\":3:5");
  });
  EXPECT_EQ(error, "devices diverged: device 0 called comm.all_reduce at "
                   "\"f.mlir\":3:5 (sum, f32, 16 elements over {x}) but "
                   "device 1 called comm.all_reduce at \"f.mlir\":3:5 "
                   "(sum, f32, 8 elements over {x})");
}

TEST(WatchdogTest, DifferentGroupPartsDiverge) {
  // Same devices, different descriptions: {x} vs {x, y} with |y| = 1.
  std::unique_ptr<Mesh> mesh = makeMesh({"x", "y"}, {2, 1});
  std::string error = runFail(*mesh, [&](int64_t d) {
    int64_t overXY[] = {0, 1, 2, 1, 1, 1};
    tessera_rt_barrier(overXY, d == 0 ? 1 : 2, "comm.barrier");
  });
  EXPECT_EQ(error, "devices diverged: device 0 called comm.barrier (over {x}) "
                   "but device 1 called comm.barrier (over {x, y})");
}

TEST(WatchdogTest, DeviceFinishesEarly) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {4});
  int64_t overX[] = {0, 1, 4};
  std::vector<std::vector<float>> out(4, std::vector<float>(4, 7));
  std::string error = runFail(*mesh, [&](int64_t d) {
    if (d == 3) {
      // Give the others time to arrive (the message holds either way).
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      return;
    }
    float in[4] = {1, 1, 1, 1};
    tessera_rt_all_reduce(in, out[d].data(), 4, TESSERA_RT_F32, TESSERA_RT_SUM,
                          overX, 1, "comm.all_reduce at \"f.mlir\":7:3");
  });
  EXPECT_TRUE(std::regex_match(
      error, std::regex("device 3 finished without reaching comm\\.all_reduce "
                        "at \"f\\.mlir\":7:3 that (device [0-2] is|devices "
                        "[0-2], [0-2](, [0-2])? are) waiting in")))
      << error;
  for (int d = 0; d < 3; ++d)
    EXPECT_EQ(out[d], std::vector<float>(4, 0)) << "device " << d;
}

TEST(WatchdogTest, CycleOfWaitsIsADeadlock) {
  // On a 2x2 mesh, device 0 waits for 2 over x, 2 for 3 over y, 3 for 1 over
  // x and 1 for 0 over y: nobody can proceed. Reported at once, well before
  // the (default) watchdog timeout.
  std::unique_ptr<Mesh> mesh = makeMesh({"x", "y"}, {2, 2});
  mesh->setWatchdogTimeout(30);
  auto start = std::chrono::steady_clock::now();
  std::string error = runFail(*mesh, [&](int64_t d) {
    int64_t overX[] = {0, 1, 2}, overY[] = {1, 1, 2};
    bool x = d == 0 || d == 3;
    std::string site = "s" + std::to_string(d);
    tessera_rt_barrier(x ? overX : overY, 1, site.c_str());
  });
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(error, "deadlock: every running device is waiting in a collective: "
                   "device 1 is waiting in s1 for device 0 that never arrived; "
                   "device 0 is waiting in s0 for device 2 that never arrived; "
                   "device 3 is waiting in s3 for device 1 that never arrived; "
                   "device 2 is waiting in s2 for device 3 that never arrived");
}

TEST(WatchdogTest, TimeoutNamesWaitingAndMissingDevices) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {2});
  mesh->setWatchdogTimeout(0.2);
  std::vector<std::vector<float>> out(2, std::vector<float>(16, 7));
  std::string error = runFail(*mesh, [&](int64_t d) {
    if (d == 1)
      std::this_thread::sleep_for(std::chrono::milliseconds(600));
    allReduce16(16, "comm.all_reduce at \"f.mlir\":9:1", out[d].data());
  });
  EXPECT_EQ(error, "watchdog: no collective completed for 0.2 s: device 0 is "
                   "waiting in comm.all_reduce at \"f.mlir\":9:1 for device "
                   "1 that never arrived");
  // The waiting call and the late one both return zeros.
  EXPECT_EQ(out[0], std::vector<float>(16, 0));
  EXPECT_EQ(out[1], std::vector<float>(16, 0));
}

TEST(WatchdogTest, TimeoutCountsOnlyWaiting) {
  // Every device computes longer than the timeout before its first
  // collective; nobody waits meanwhile, so nothing fails.
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {2});
  mesh->setWatchdogTimeout(0.25);
  runOk(*mesh, [&](int64_t d) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    allReduce16(16, "late");
  });
}

TEST(WatchdogTest, TimeoutOff) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {2});
  mesh->setWatchdogTimeout(0);
  runOk(*mesh, [&](int64_t d) {
    if (d == 1)
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    allReduce16(16, "slow");
  });
}

TEST(WatchdogTest, TimeoutFromEnvironment) {
  ASSERT_EQ(setenv("TESSERA_WATCHDOG_SECONDS", "0.25", 1), 0);
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {2});
  unsetenv("TESSERA_WATCHDOG_SECONDS");
  EXPECT_EQ(mesh->getWatchdogTimeout(), 0.25);
  EXPECT_EQ(makeMesh({"x"}, {2})->getWatchdogTimeout(), 30);
}

TEST(WatchdogTest, CallsAfterAFailureEndTheDevice) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {2});
  std::vector<std::vector<float>> first(2, std::vector<float>(16, 7));
  std::vector<std::vector<float>> second(2, std::vector<float>(16, 7));
  std::vector<std::vector<float>> gathered(2, std::vector<float>(32, 7));
  std::string error = runFail(*mesh, [&](int64_t d) {
    if (d == 0)
      tessera_rt_all_reduce(nullptr, nullptr, 16, TESSERA_RT_F32, 42, kOverX, 1,
                            "bad");
    allReduce16(16, "first", first[d].data());
    allReduce16(16, "second", second[d].data());
    float in[16] = {1};
    int64_t shape[] = {16};
    tessera_rt_all_gather(in, gathered[d].data(), shape, 1, TESSERA_RT_F32, 0,
                          kOverX, 1, "gather");
  });
  EXPECT_EQ(error,
            "device 0 called bad with invalid arguments: invalid reduction "
            "kind 42");
  // Device 0 ended in its bad call; device 1's first call returned zeros
  // (waiting or not when the mesh failed) and ended the device: no call
  // returns into the program after a failure.
  EXPECT_EQ(first[0], std::vector<float>(16, 7));
  EXPECT_EQ(first[1], std::vector<float>(16, 0));
  for (int d = 0; d < 2; ++d) {
    EXPECT_EQ(second[d], std::vector<float>(16, 7));
    EXPECT_EQ(gathered[d], std::vector<float>(32, 7));
  }
}

namespace {
/// A call with invalid arguments, made by device 0 of a line of 4 while the
/// others make a valid all_reduce, and the error it must produce.
struct BadCall {
  std::string name;
  std::function<void()> call;
  std::string error;
};
} // namespace

static const int64_t kOverLine[] = {0, 1, 4};

static std::vector<BadCall> getBadCalls() {
  static float in[64], out[256];
  static int64_t shape[] = {6, 4};
  static int64_t badAxis[] = {2, 1, 4};
  static int64_t badPart[] = {0, 1, 3};
  static int64_t overlapping[] = {0, 1, 4, 0, 2, 2};
  static int64_t sources[] = {0, 1}, targets[] = {1, 1}, farTargets[] = {1, 9};
  const char *prefix = "device 0 called site with invalid arguments: ";
  std::vector<BadCall> calls = {
      {"Dtype",
       [] {
         tessera_rt_all_reduce(in, out, 4, 13, TESSERA_RT_SUM, kOverLine, 1,
                               "site");
       },
       "invalid dtype 13"},
      {"Kind",
       [] {
         tessera_rt_all_reduce(in, out, 4, TESSERA_RT_F32, -1, kOverLine, 1,
                               "site");
       },
       "invalid reduction kind -1"},
      {"SumOnI1",
       [] {
         tessera_rt_all_reduce(in, out, 4, TESSERA_RT_I1, TESSERA_RT_SUM,
                               kOverLine, 1, "site");
       },
       "sum is not supported for i1 (use max or min)"},
      {"AxisOutOfRange",
       [] {
         tessera_rt_all_reduce(in, out, 4, TESSERA_RT_F32, TESSERA_RT_SUM,
                               badAxis, 1, "site");
       },
       "axis 2 out of range (the mesh has 1 axis)"},
      {"PartDoesNotDivide",
       [] {
         tessera_rt_all_reduce(in, out, 4, TESSERA_RT_F32, TESSERA_RT_SUM,
                               badPart, 1, "site");
       },
       "invalid part (pre 1, size 3) of axis \"x\" of size 4: pre * size "
       "must divide the axis size"},
      {"OverlappingParts",
       [] {
         tessera_rt_all_reduce(in, out, 4, TESSERA_RT_F32, TESSERA_RT_SUM,
                               overlapping, 2, "site");
       },
       "axis parts x and x:(2)2 overlap"},
      {"NegativeElements",
       [] {
         tessera_rt_all_reduce(in, out, -4, TESSERA_RT_F32, TESSERA_RT_SUM,
                               kOverLine, 1, "site");
       },
       "negative number of elements -4"},
      {"NullOutput",
       [] {
         tessera_rt_all_reduce(in, nullptr, 4, TESSERA_RT_F32, TESSERA_RT_SUM,
                               kOverLine, 1, "site");
       },
       "null output buffer"},
      {"ScatterDimNotDivisible",
       [] {
         tessera_rt_reduce_scatter(in, out, shape, 2, TESSERA_RT_F32,
                                   TESSERA_RT_SUM, 0, kOverLine, 1, "site");
       },
       "dimension 0 of size 6 is not divisible by the group size 4"},
      {"SplitDimNotDivisible",
       [] {
         tessera_rt_all_to_all(in, out, shape, 2, TESSERA_RT_F32, 0, 1,
                               kOverLine, 1, "site");
       },
       "dimension 0 of size 6 is not divisible by the group size 4"},
      {"GatherDimOutOfRange",
       [] {
         tessera_rt_all_gather(in, out, shape, 2, TESSERA_RT_F32, 2, kOverLine,
                               1, "site");
       },
       "gather dimension 2 is out of range for an operand of rank 2"},
      {"ValidSizeNotPositive",
       [] {
         tessera_rt_all_gather_valid(in, out, shape, 2, TESSERA_RT_F32, 0, 0,
                                     kOverLine, 1, "site");
       },
       "valid size 0 is not positive"},
      {"ValidSizePastTheBlocks",
       [] {
         tessera_rt_all_gather_valid(in, out, shape, 2, TESSERA_RT_F32, 0, 25,
                                     kOverLine, 1, "site");
       },
       "valid size 25 exceeds the 24 elements the group's blocks hold along "
       "dimension 0"},
      {"NegativeShape",
       [] {
         int64_t negative[] = {4, -1};
         tessera_rt_all_gather(in, out, negative, 2, TESSERA_RT_F32, 0,
                               kOverLine, 1, "site");
       },
       "negative dimension size in shape 4x-1"},
      {"PermuteRepeatsATarget",
       [] {
         tessera_rt_permute(in, out, 8, sources, targets, 2, kOverLine, 1,
                            "site");
       },
       "permute pair 1->1 repeats a target"},
      {"PermutePairOutOfRange",
       [] {
         tessera_rt_permute(in, out, 8, sources, farTargets, 2, kOverLine, 1,
                            "site");
       },
       "permute pair 1->9 is out of range for a group of 4"},
  };
  for (BadCall &call : calls)
    call.error = prefix + call.error;
  return calls;
}

class BadArgumentsTest : public ::testing::TestWithParam<BadCall> {};

TEST_P(BadArgumentsTest, IsAnError) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {4});
  std::vector<std::vector<float>> out(4, std::vector<float>(4, 7));
  std::string error = runFail(*mesh, [&](int64_t d) {
    if (d == 0) {
      GetParam().call();
      return;
    }
    float in[4] = {1, 2, 3, 4};
    tessera_rt_all_reduce(in, out[d].data(), 4, TESSERA_RT_F32, TESSERA_RT_SUM,
                          kOverLine, 1, "valid");
  });
  EXPECT_EQ(error, GetParam().error);
  for (int d = 1; d < 4; ++d)
    EXPECT_EQ(out[d], std::vector<float>(4, 0)) << "device " << d;
}

INSTANTIATE_TEST_SUITE_P(Calls, BadArgumentsTest,
                         ::testing::ValuesIn(getBadCalls()),
                         [](const ::testing::TestParamInfo<BadCall> &info) {
                           return info.param.name;
                         });

TEST(WatchdogTest, BadAxisIndexIsAnError) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {2});
  int64_t result = -1;
  std::string error = runFail(*mesh, [&](int64_t d) {
    int64_t parts[] = {0, 0, 2};
    if (d == 0)
      result = tessera_rt_axis_index(parts, 1);
  });
  EXPECT_EQ(result, 0);
  EXPECT_EQ(error, "device 0 called axis_index with invalid arguments: "
                   "invalid part (pre 0, size 2) of axis \"x\" of size 2: pre "
                   "* size must divide the axis size");
}

//===----------------------------------------------------------------------===//
// Devices that never end, and the timeout's value
//===----------------------------------------------------------------------===//

namespace {
/// Lets the spinning devices of the tests below end.
std::atomic<bool> stopSpinning{false};

void spin() {
  while (!stopSpinning.load())
    std::this_thread::yield();
}

/// Waits (up to 10 s) until the abandoned threads of `mesh` ended.
bool waitForRunaways(const Mesh &mesh) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (mesh.hasRunawayDevices()) {
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}
} // namespace

TEST(WatchdogTest, RunawayDeviceIsAbandoned) {
  // Device 1 spins forever outside any collective while device 0 waits for
  // it: the watchdog fires after 1 s, and after a grace period of 1 s more
  // `run` returns without device 1.
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {2});
  ASSERT_TRUE(mesh->setWatchdogTimeout(1));
  stopSpinning = false;
  auto start = std::chrono::steady_clock::now();
  std::function<void(int64_t)> fn = [&](int64_t d) {
    if (d == 1)
      spin();
    tessera_rt_barrier(kOverX, 1, "comm.barrier at \"f.mlir\":5:3");
  };
  std::string error = runFail(*mesh, fn);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_GE(seconds, 1.9);
  EXPECT_LT(seconds, 3.0);
  EXPECT_EQ(error, "watchdog: no collective completed for 1 s: device 0 is "
                   "waiting in comm.barrier at \"f.mlir\":5:3 for device 1 "
                   "that never arrived; device 1 (no collective completed) "
                   "was still running 1 s after the failure and was "
                   "abandoned");
  EXPECT_TRUE(mesh->hasRunawayDevices());
  // No new run while it runs.
  std::string again;
  EXPECT_FALSE(mesh->run([](int64_t) {}, again));
  EXPECT_EQ(again, "cannot run the mesh: device 1 of an earlier failed run "
                   "is still running");
  // Once it ends (here it reaches the barrier of the failed mesh, which
  // ends it), the mesh runs again.
  stopSpinning = true;
  ASSERT_TRUE(waitForRunaways(*mesh));
  runOk(*mesh, [](int64_t) {});
}

TEST(WatchdogTest, RunawayReportsItsLastCollective) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x", "y"}, {2, 2});
  ASSERT_TRUE(mesh->setWatchdogTimeout(0.2));
  stopSpinning = false;
  int64_t overAll[] = {0, 1, 2, 1, 1, 2};
  std::function<void(int64_t)> fn = [&](int64_t d) {
    tessera_rt_barrier(overAll, 2, "first");
    if (d >= 2)
      spin();
    tessera_rt_barrier(overAll, 2, "second");
  };
  auto start = std::chrono::steady_clock::now();
  std::string error = runFail(*mesh, fn);
  // The grace period is at least 1 s.
  EXPECT_LT(std::chrono::steady_clock::now() - start,
            std::chrono::milliseconds(2500));
  EXPECT_NE(error.find("; devices 2 (last completed collective: first), 3 "
                       "(last completed collective: first) were still "
                       "running 1 s after the failure and were abandoned"),
            std::string::npos)
      << error;
  stopSpinning = true;
  ASSERT_TRUE(waitForRunaways(*mesh));
}

TEST(WatchdogTest, MeshDestroyedWhileADeviceRuns) {
  // The abandoned thread ends after its mesh is gone: it must not touch
  // freed memory (ASan would tell).
  stopSpinning = false;
  static std::function<void(int64_t)> fn = [](int64_t d) {
    if (d == 0)
      spin();
    tessera_rt_barrier(kOverX, 1, "b");
  };
  {
    std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {2});
    ASSERT_TRUE(mesh->setWatchdogTimeout(0.1));
    std::string error = runFail(*mesh, fn);
    EXPECT_TRUE(mesh->hasRunawayDevices());
  }
  stopSpinning = true;
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
}

TEST(WatchdogTest, DevicesEndingWithinTheGracePeriodAreWaitedFor) {
  // After the failure, device 1 computes 300 ms more, then ends: nothing is
  // abandoned.
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {2});
  ASSERT_TRUE(mesh->setWatchdogTimeout(0.1));
  std::atomic<bool> ended{false};
  std::string error = runFail(*mesh, [&](int64_t d) {
    if (d == 1) {
      std::this_thread::sleep_for(std::chrono::milliseconds(400));
      ended = true;
      return;
    }
    tessera_rt_barrier(kOverX, 1, "b");
  });
  EXPECT_TRUE(ended);
  EXPECT_FALSE(mesh->hasRunawayDevices());
  EXPECT_EQ(error.find("abandoned"), std::string::npos) << error;
}

TEST(WatchdogTest, InvalidTimeoutsAreRefused) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {2});
  ASSERT_TRUE(mesh->setWatchdogTimeout(2.5));
  for (double bad : {-1.0, std::nan(""), HUGE_VAL, -HUGE_VAL}) {
    EXPECT_FALSE(mesh->setWatchdogTimeout(bad)) << bad;
    EXPECT_EQ(mesh->getWatchdogTimeout(), 2.5);
  }
  EXPECT_TRUE(mesh->setWatchdogTimeout(0));
  EXPECT_EQ(mesh->getWatchdogTimeout(), 0);
}

TEST(WatchdogTest, InvalidTimeoutInTheEnvironmentIsAnError) {
  for (const char *bad :
       {"nan", "inf", "-inf", "-1", "junk", "", "5s", "1e999"}) {
    ASSERT_EQ(setenv("TESSERA_WATCHDOG_SECONDS", bad, 1), 0);
    std::string error;
    std::unique_ptr<Mesh> mesh = Mesh::create(MeshSpec{{"x"}, {2}, {}}, error);
    EXPECT_FALSE(mesh) << bad;
    EXPECT_EQ(error, std::string("TESSERA_WATCHDOG_SECONDS='") + bad +
                         "' is not a finite number of seconds >= 0");
  }
  ASSERT_EQ(setenv("TESSERA_WATCHDOG_SECONDS", "0", 1), 0);
  EXPECT_EQ(makeMesh({"x"}, {2})->getWatchdogTimeout(), 0);
  unsetenv("TESSERA_WATCHDOG_SECONDS");
}
