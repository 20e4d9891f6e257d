//===- ProcessesTest.cpp - meshes spread over MPI processes -----*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Tests of a mesh spread over the processes of the MPI test binary (run
// under mpirun with 2 and 4 processes by test/Integration/Mpi): every
// reduction kind and dtype across processes, the agreement on a run's
// outcome, a failure on one process ending the run on all, divergence
// between processes, a process finishing early, the watchdog naming what
// every process waits in, and the errors of attaching and preparing.
//
//===----------------------------------------------------------------------===//

#include "../RuntimeTestUtils.h"

#include "tessera/Runtime/DistributedArray.h"
#include "tessera/Runtime/HostArray.h"

#include "gmock/gmock.h"

#include <cmath>
#include <cstring>

using namespace tessera::rt;
using namespace tessera::rt::test;
using ::testing::HasSubstr;

namespace {
/// A mesh "x" = processes by "y" = 2: "x" spans the processes, "y" lies in
/// each; device d runs on process d / 2.
class ProcessesTest : public ::testing::Test {
protected:
  void SetUp() override {
    transport = getTestTransport();
    ASSERT_TRUE(transport) << "run the MPI test binary under mpirun";
    processes = transport->getNumProcesses();
    rank = transport->getRank();
    mesh = makeMesh({"x", "y"}, {processes, 2});
    ASSERT_TRUE(mesh);
    n = mesh->numDevices();
    overX = {0, 1, processes};
    overXY = {0, 1, processes, 1, 1, 2};
    overYX = {1, 1, 2, 0, 1, processes};
    std::string error;
    ASSERT_TRUE(mesh->attachTransport(transport, 2, error)) << error;
    ASSERT_TRUE(mesh->prepareGroups(
        {{overX, {}}, {overXY, {}}, {overYX, {}}, {overY, {}}}, error))
        << error;
    ASSERT_TRUE(mesh->setWatchdogTimeout(10));
  }

  std::shared_ptr<Transport> transport;
  std::unique_ptr<Mesh> mesh;
  int64_t processes = 1, rank = 0, n = 0;
  /// Parts: {x}, {y}, {x, y} and {y, x}.
  std::vector<int64_t> overX, overXY, overYX;
  const std::vector<int64_t> overY{1, 1, 2};
};
} // namespace

TEST_F(ProcessesTest, RunsOnlyTheLocalDevices) {
  EXPECT_EQ(mesh->getFirstLocalDevice(), 2 * rank);
  EXPECT_EQ(mesh->getNumLocalDevices(), 2);
  EXPECT_EQ(mesh->getProcessOf(n - 1), processes - 1);
  std::vector<int> ran(n, 0);
  runOk(*mesh, [&](int64_t d) { ran[d] = 1; });
  for (int64_t d = 0; d < n; ++d)
    EXPECT_EQ(ran[d], d / 2 == rank) << "device " << d;
}

/// The reduction of `values` by `kind` as the runtime computes it for
/// small integers.
static double reduceReference(const std::vector<double> &values, int kind) {
  double acc = values[0];
  for (size_t i = 1; i < values.size(); ++i) {
    double v = values[i];
    acc = kind == TESSERA_RT_SUM    ? acc + v
          : kind == TESSERA_RT_PROD ? acc * v
          : kind == TESSERA_RT_MAX  ? std::max(acc, v)
                                    : std::min(acc, v);
  }
  return acc;
}

TEST_F(ProcessesTest, AllReduceEveryDtypeAndKindAcrossProcesses) {
  // Over {x} (one member per process) and {x, y} (every device), with
  // small values whose sums and products are exact in every dtype.
  const int64_t size = 130;
  const DType dtypes[] = {DType::F32, DType::F64, DType::F16, DType::BF16,
                          DType::I8,  DType::I16, DType::I32, DType::I64,
                          DType::U8,  DType::U16, DType::U32, DType::U64,
                          DType::I1};
  for (const std::vector<int64_t> *parts : {&overX, &overXY}) {
    int64_t groupSize = parts == &overX ? processes : n;
    for (DType dtype : dtypes) {
      for (int kind :
           {TESSERA_RT_SUM, TESSERA_RT_PROD, TESSERA_RT_MAX, TESSERA_RT_MIN}) {
        bool isBool = dtype == DType::I1;
        if (isBool && (kind == TESSERA_RT_SUM || kind == TESSERA_RT_PROD))
          continue;
        bool isUnsigned = dtype == DType::U8 || dtype == DType::U16 ||
                          dtype == DType::U32 || dtype == DType::U64;
        auto valueOf = [&](int64_t d, int64_t k) -> double {
          if (isBool)
            return (d + k) % 3 == 0;
          if (kind == TESSERA_RT_PROD)
            return 1 + (d + k) % 2;
          return isUnsigned ? (d * 5 + k) % 7 : (d * 5 + k) % 7 - 3;
        };
        std::vector<HostArray> in, out;
        for (int64_t d = 0; d < n; ++d) {
          in.emplace_back(dtype, std::vector<int64_t>{size});
          out.emplace_back(dtype, std::vector<int64_t>{size});
          for (int64_t k = 0; k < size; ++k)
            in[d].setFromDouble(k, valueOf(d, k));
        }
        runOk(*mesh, [&](int64_t d) {
          tessera_rt_all_reduce(in[d].data(), out[d].data(), size,
                                static_cast<int32_t>(dtype), kind,
                                parts->data(),
                                static_cast<int32_t>(parts->size() / 3), "r");
        });
        for (int64_t d : getLocalDevices(*mesh)) {
          for (int64_t k = 0; k < size; k += 7) {
            std::vector<double> values;
            if (parts == &overX)
              for (int64_t x = 0; x < processes; ++x)
                values.push_back(valueOf(x * 2 + d % 2, k));
            else
              for (int64_t e = 0; e < n; ++e)
                values.push_back(valueOf(e, k));
            ASSERT_EQ(out[d].getAsDouble(k), reduceReference(values, kind))
                << getDTypeName(dtype) << " kind " << kind << " groups of "
                << groupSize << " device " << d << " element " << k;
          }
        }
      }
    }
  }
}

TEST_F(ProcessesTest, LargeAllReduceInPlace) {
  // Several MiB: the slices of the processes, streaming stores.
  const int64_t size = int64_t(3) << 20;
  std::vector<std::vector<int32_t>> buf(n, std::vector<int32_t>(size));
  for (int64_t d = 0; d < n; ++d)
    for (int64_t k = 0; k < size; ++k)
      buf[d][k] = static_cast<int32_t>((d + 1) * (k % 1000));
  runOk(*mesh, [&](int64_t d) {
    tessera_rt_all_reduce(buf[d].data(), buf[d].data(), size, TESSERA_RT_I32,
                          TESSERA_RT_SUM, overXY.data(), 2, "big");
  });
  int64_t factor = n * (n + 1) / 2;
  for (int64_t d : getLocalDevices(*mesh))
    for (int64_t k = 0; k < size; k += 4099)
      ASSERT_EQ(buf[d][k], factor * (k % 1000)) << "device " << d;
}

TEST_F(ProcessesTest, AllReduceWhoseOutputOverlapsAnotherInput) {
  // The first local device's output lies 64 elements into the second's
  // input: the local reduction must not go into that output (it would
  // overwrite input elements before they are read). Also each second
  // device's in-place call takes its result in its own output.
  const int64_t size = 1000;
  std::vector<std::vector<int32_t>> own(n, std::vector<int32_t>(size));
  std::vector<std::vector<int32_t>> shared(n, std::vector<int32_t>(size + 64));
  std::vector<std::vector<int32_t>> out(n, std::vector<int32_t>(size));
  auto value = [](int64_t d, int64_t k) {
    return static_cast<int32_t>((d + 1) * 1000 + k % 97);
  };
  for (int64_t d = 0; d < n; ++d)
    for (int64_t k = 0; k < size; ++k)
      (d % 2 ? shared[d][k] : own[d][k]) = value(d, k);
  runOk(*mesh, [&](int64_t d) {
    // Device 2p reads its own buffer and writes into the buffer device
    // 2p + 1 reads, 64 elements in.
    const int32_t *in = d % 2 ? shared[d].data() : own[d].data();
    int32_t *result = d % 2 ? out[d].data() : shared[d + 1].data() + 64;
    tessera_rt_all_reduce(in, result, size, TESSERA_RT_I32, TESSERA_RT_SUM,
                          overXY.data(), 2, "overlap");
  });
  for (int64_t d : getLocalDevices(*mesh)) {
    const int32_t *result = d % 2 ? out[d].data() : shared[d + 1].data() + 64;
    for (int64_t k = 0; k < size; ++k) {
      int64_t expected = 0;
      for (int64_t e = 0; e < n; ++e)
        expected += value(e, k);
      ASSERT_EQ(result[k], expected) << "device " << d << " element " << k;
    }
  }
}

TEST_F(ProcessesTest, RepeatedRunsAndCountersPerRun) {
  for (int run = 0; run < 3; ++run) {
    std::vector<int64_t> out(n, -1);
    runOk(*mesh, [&](int64_t d) {
      int64_t value = d + run;
      tessera_rt_all_reduce(&value, &out[d], 1, TESSERA_RT_I64, TESSERA_RT_SUM,
                            overYX.data(), 2, "sum");
    });
    for (int64_t d : getLocalDevices(*mesh))
      EXPECT_EQ(out[d], n * (n - 1) / 2 + n * run);
  }
  DeviceStats stats = mesh->stats(2 * rank);
  EXPECT_EQ(stats.collectiveCalls, 3);
  EXPECT_EQ(stats.collectiveBytes, 24);
  // Another process's device did nothing here.
  EXPECT_EQ(mesh->stats((2 * rank + 2) % n).collectiveCalls,
            processes == 1 ? 3 : 0);
}

TEST_F(ProcessesTest, AFailureOnOneProcessFailsTheRunOnEvery) {
  // The last process's first device fails while the others wait for it.
  std::string error = runFail(*mesh, [&](int64_t d) {
    if (d == n - 2) {
      const char message[] = "boom";
      tessera_rt_assert_failed(message, 4);
    }
    float value = 1, out = 0;
    tessera_rt_all_reduce(&value, &out, 1, TESSERA_RT_F32, TESSERA_RT_SUM,
                          overX.data(), 1, "comm.all_reduce at \"f.mlir\":3:5");
  });
  EXPECT_EQ(error, "rank " + std::to_string(processes - 1) + ": device " +
                       std::to_string(n - 2) + ": assertion failed: boom");
  // The mesh runs again afterwards.
  runOk(*mesh, [](int64_t) {});
}

TEST_F(ProcessesTest, ProcessesThatDivergeAreReportedWithRanksAndSites) {
  // The last process's device makes another call: every process reports
  // the same pair, the lowest rank's call first. (Only the group of devices
  // with y = 0 calls, so that one pair is reported.)
  std::string error = runFail(*mesh, [&](int64_t d) {
    if (d % 2 != 0)
      return;
    float in[8] = {}, out[8];
    bool last = d / 2 == processes - 1;
    tessera_rt_all_reduce(in, out, last ? 8 : 4, TESSERA_RT_F32, TESSERA_RT_SUM,
                          overX.data(), 1,
                          last ? "comm.all_reduce at \"f.mlir\":9:3"
                               : "comm.all_reduce at \"f.mlir\":5:3");
  });
  EXPECT_THAT(error,
              HasSubstr("devices diverged: device 0 (rank 0) called "
                        "comm.all_reduce at \"f.mlir\":5:3 (sum, f32, 4 "
                        "elements over {x}) but device " +
                        std::to_string(n - 2) + " (rank " +
                        std::to_string(processes - 1) +
                        ") called comm.all_reduce at \"f.mlir\":9:3 (sum, "
                        "f32, 8 elements over {x})"))
      << error;
  EXPECT_EQ(error.rfind("rank 0: ", 0), 0u) << error;
}

TEST_F(ProcessesTest, AProcessThatFinishesEarlyIsReported) {
  std::string error = runFail(*mesh, [&](int64_t d) {
    if (d / 2 == processes - 1)
      return;
    int32_t value = 1, out;
    tessera_rt_all_reduce(&value, &out, 1, TESSERA_RT_I32, TESSERA_RT_SUM,
                          overX.data(), 1, "comm.all_reduce at \"f.mlir\":7:3");
  });
  std::string last = std::to_string(processes - 1);
  EXPECT_THAT(error, HasSubstr("finished without reaching comm.all_reduce at "
                               "\"f.mlir\":7:3 that "))
      << error;
  EXPECT_THAT(error, HasSubstr(" (rank " + last + ") finished")) << error;
}

TEST_F(ProcessesTest, TheWatchdogNamesWhatEveryProcessWaitsIn) {
  // Process 0 waits in groups over {x}, the others in the group of every
  // device: nothing ever completes.
  ASSERT_TRUE(mesh->setWatchdogTimeout(0.3));
  std::string error = runFail(*mesh, [&](int64_t d) {
    if (d / 2 == 0)
      tessera_rt_barrier(overX.data(), 1, "comm.barrier at \"w.mlir\":2:3");
    else
      tessera_rt_barrier(overXY.data(), 2, "comm.barrier at \"w.mlir\":4:3");
  });
  EXPECT_THAT(error, HasSubstr("watchdog: no collective completed for 0.3 s"))
      << error;
  EXPECT_THAT(error, HasSubstr("device 0 (rank 0) is waiting in comm.barrier "
                               "at \"w.mlir\":2:3"))
      << error;
  EXPECT_THAT(error,
              HasSubstr("devices 2, 3 (rank 1) are waiting in comm.barrier at "
                        "\"w.mlir\":4:3"))
      << error;
}

TEST_F(ProcessesTest, AGroupWithoutChannelIsAnError) {
  // A mesh with no group prepared: groups in one process still work.
  std::unique_ptr<Mesh> bare = makeMesh({"x", "y"}, {processes, 2});
  std::string error;
  ASSERT_TRUE(bare->attachTransport(transport, 2, error)) << error;
  std::vector<int64_t> sums(n, 0);
  runOk(*bare, [&](int64_t d) {
    int64_t one = 1;
    tessera_rt_all_reduce(&one, &sums[d], 1, TESSERA_RT_I64, TESSERA_RT_SUM,
                          overY.data(), 1, "local");
  });
  for (int64_t d : getLocalDevices(*bare))
    EXPECT_EQ(sums[d], 2);
  // (Only the group of the devices with y = 0 calls, so that one is
  // reported.)
  error = runFail(*bare, [&](int64_t d) {
    if (d % 2 != 0)
      return;
    int64_t one = 1, out;
    tessera_rt_all_reduce(&one, &out, 1, TESSERA_RT_I64, TESSERA_RT_SUM,
                          overX.data(), 1, "comm.all_reduce at \"g.mlir\":1:1");
  });
  EXPECT_THAT(error, HasSubstr("called comm.all_reduce at \"g.mlir\":1:1 over "
                               "devices 0 (rank 0), 2 (rank 1)"))
      << error;
  EXPECT_THAT(error, HasSubstr("no channel was prepared")) << error;
}

TEST_F(ProcessesTest, AttachingChecksTheDeviceBlocks) {
  std::unique_ptr<Mesh> other = makeMesh({"x"}, {processes * 2});
  std::string error;
  EXPECT_FALSE(other->attachTransport(transport, 3, error));
  EXPECT_EQ(error, std::to_string(processes) + " processes of 3 devices do " +
                       "not run the " + std::to_string(processes * 2) +
                       " devices of the mesh");
  EXPECT_TRUE(other->attachTransport(transport, 2, error)) << error;
  EXPECT_FALSE(other->attachTransport(transport, 2, error));
  EXPECT_EQ(error, "the mesh is attached to a transport already");
}

TEST_F(ProcessesTest, AgreeingOnErrorsAndGatheringStrings) {
  EXPECT_EQ(agreeOnError(*transport, ""), "");
  std::string mine = rank == processes - 1 ? "bad input" : "";
  EXPECT_EQ(agreeOnError(*transport, mine),
            "rank " + std::to_string(processes - 1) + ": bad input");
  std::vector<std::string> all;
  std::string error;
  ASSERT_TRUE(gatherStrings(*transport, std::string(rank + 1, 'a' + rank), 0,
                            all, error))
      << error;
  if (rank == 0) {
    ASSERT_EQ(all.size(), static_cast<size_t>(processes));
    EXPECT_EQ(all.back(), std::string(processes, 'a' + processes - 1));
  } else {
    EXPECT_TRUE(all.empty());
  }
}

TEST_F(ProcessesTest, ProcessLocalDataHoldsTheProcessesRows) {
  // Rows over {x, y}: each process supplies the 4 rows of its 2 devices.
  ShardLayout layout;
  layout.dims = {{AxisPart{0, 1, processes}, AxisPart{1, 1, 2}}, {}};
  HostArray local(DType::I32, {4, 3});
  for (int64_t i = 0; i < 12; ++i)
    local.setFromDouble(i, static_cast<double>(rank * 12 + i));
  DistributedArray array;
  std::string error;
  ASSERT_TRUE(makeArrayFromProcessLocalData(*mesh, layout, {4 * processes, 3},
                                            local, array, error))
      << error;
  // Device 2r + 1 holds global rows 4r + 2 and 4r + 3.
  const HostArray &block = *array.blocks[2 * rank + 1];
  EXPECT_EQ(block.getShape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(block.getAsDouble(0), rank * 12 + 6);
  EXPECT_EQ(array.blocks[(2 * rank + 2) % n] != nullptr, processes == 1);
  // The global size, inferred: the processes' row parts.
  ASSERT_TRUE(makeArrayFromProcessLocalData(*mesh, layout, {-1, 3}, local,
                                            array, error))
      << error;
  EXPECT_EQ(array.globalShape, (std::vector<int64_t>{4 * processes, 3}));
  // A process with the wrong rows is told so, in JAX's words.
  HostArray wrong(DType::I32, {3, 3});
  EXPECT_FALSE(makeArrayFromProcessLocalData(*mesh, layout, {4 * processes, 3},
                                             wrong, array, error));
  EXPECT_THAT(error, HasSubstr("In dimension 0, the process data has 3 "
                               "elements. Process addresses 4 elements"));
}
