//===- CostModelTest.cpp - spmd-auto-partition's machine model ------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "CostModel.h"

#include <gtest/gtest.h>

using namespace mlir::tessera::spmd::autopart;

namespace {

TEST(CostModelTest, MovedFractions) {
  EXPECT_DOUBLE_EQ(getMovedFraction(Collective::AllReduce, 4), 1.5);
  EXPECT_DOUBLE_EQ(getMovedFraction(Collective::AllGather, 4), 0.75);
  EXPECT_DOUBLE_EQ(getMovedFraction(Collective::ReduceScatter, 2), 0.5);
  EXPECT_DOUBLE_EQ(getMovedFraction(Collective::AllToAll, 8), 0.875);
  EXPECT_DOUBLE_EQ(getMovedFraction(Collective::Permute, 8), 1.0);
  EXPECT_DOUBLE_EQ(getMovedFraction(Collective::AllReduce, 1), 0.0);
}

TEST(CostModelTest, AlphaBetaPerAxis) {
  MachineModel model = *getBuiltinMachineModel("cpu");
  for (AlphaBeta &entry : model.defaults)
    entry = {1e-5, 1e-9};
  auto &data = model.axes["data"];
  data = model.defaults;
  data[static_cast<unsigned>(Collective::AllReduce)] = {2e-5, 4e-9};
  // One axis: alpha + beta * 2(n-1)/n * bytes.
  EXPECT_DOUBLE_EQ(
      model.getCollectiveTime(Collective::AllReduce, {{"data", 2}}, 1000),
      2e-5 + 4e-9 * 1.0 * 1000);
  EXPECT_DOUBLE_EQ(
      model.getCollectiveTime(Collective::AllReduce, {{"model", 4}}, 1000),
      1e-5 + 1e-9 * 1.5 * 1000);
  // Two axes: the alphas add up, the slower beta counts, the group is both.
  EXPECT_DOUBLE_EQ(model.getCollectiveTime(Collective::AllReduce,
                                           {{"data", 2}, {"model", 4}}, 1000),
                   3e-5 + 4e-9 * (2.0 * 7 / 8) * 1000);
  // A size-1 axis is no collective.
  EXPECT_DOUBLE_EQ(
      model.getCollectiveTime(Collective::AllGather, {{"data", 1}}, 1000), 0);
}

TEST(CostModelTest, ComputeTime) {
  MachineModel model = *getBuiltinMachineModel("v5e");
  EXPECT_DOUBLE_EQ(model.getComputeTime(197e12, 0, true), 1.0);
  EXPECT_DOUBLE_EQ(model.getComputeTime(0, 819e9, false), 1.0);
  // A contraction is bound by its memory traffic when that takes longer.
  EXPECT_DOUBLE_EQ(model.getComputeTime(197e12, 2 * 819e9, true), 2.0);
  EXPECT_DOUBLE_EQ(model.getComputeTime(2 * 197e12, 819e9, true), 2.0);
}

TEST(CostModelTest, BuiltinModels) {
  for (const char *name : {"cpu", "v4", "v5e", "v5p", "v6e"}) {
    std::optional<MachineModel> model = getBuiltinMachineModel(name);
    ASSERT_TRUE(model) << name;
    EXPECT_EQ(model->name, name);
    EXPECT_GT(model->flops, 0);
  }
  EXPECT_FALSE(getBuiltinMachineModel("v9"));
  // Newer generations compute faster.
  EXPECT_LT(getBuiltinMachineModel("v5e")->flops,
            getBuiltinMachineModel("v6e")->flops);
}

TEST(CostModelTest, CalibrationRoundTrip) {
  std::string error;
  std::optional<MachineModel> model = parseCalibration(
      "# measured\n"
      "tessera-calibration 1\n"
      "matmul_gflops 12.5\n"
      "memory_gbps 4\n"
      "collective * all_reduce 1e-05 2e-09\n"
      "collective model all_gather 3e-06 5e-10   # a comment\n",
      error);
  ASSERT_TRUE(model) << error;
  EXPECT_DOUBLE_EQ(model->flops, 12.5e9);
  EXPECT_DOUBLE_EQ(model->memoryBandwidth, 4e9);
  EXPECT_DOUBLE_EQ(model->get(Collective::AllReduce, "data").alpha, 1e-5);
  EXPECT_DOUBLE_EQ(model->get(Collective::AllGather, "model").beta, 5e-10);
  // An axis entry starts from the defaults for its other collectives.
  EXPECT_DOUBLE_EQ(model->get(Collective::AllReduce, "model").beta, 2e-9);
  std::optional<MachineModel> again =
      parseCalibration(printCalibration(*model), error);
  ASSERT_TRUE(again) << error;
  EXPECT_DOUBLE_EQ(again->flops, model->flops);
  EXPECT_DOUBLE_EQ(again->get(Collective::AllGather, "model").alpha, 3e-6);
  EXPECT_DOUBLE_EQ(again->get(Collective::Permute, "x").alpha,
                   model->get(Collective::Permute, "x").alpha);
}

TEST(CostModelTest, CalibrationErrors) {
  std::string error;
  EXPECT_FALSE(parseCalibration("matmul_gflops 3\n", error));
  EXPECT_EQ(error, "line 1: expected 'tessera-calibration 1'");
  EXPECT_FALSE(parseCalibration("tessera-calibration 2\n", error));
  EXPECT_EQ(error, "line 1: unsupported calibration version '2'");
  EXPECT_FALSE(
      parseCalibration("tessera-calibration 1\n\nmatmul_gflops -1\n", error));
  EXPECT_EQ(error, "line 3: expected 'matmul_gflops <positive number>'");
  EXPECT_FALSE(parseCalibration(
      "tessera-calibration 1\ncollective x broadcast 1 1\n", error));
  EXPECT_EQ(error, "line 2: unknown collective 'broadcast'");
  EXPECT_FALSE(parseCalibration(
      "tessera-calibration 1\ncollective x permute 1 nan\n", error));
  EXPECT_EQ(error, "line 2: alpha and beta must be non-negative numbers");
  EXPECT_FALSE(parseCalibration("tessera-calibration 1\nflops 3\n", error));
  EXPECT_EQ(error, "line 2: unknown entry 'flops'");
  EXPECT_FALSE(parseCalibration("", error));
  EXPECT_EQ(error, "line 1: expected 'tessera-calibration 1'");
}

TEST(CostModelTest, ByteSizes) {
  EXPECT_EQ(parseByteSize("123"), 123.0);
  EXPECT_EQ(parseByteSize("2KiB"), 2048.0);
  EXPECT_EQ(parseByteSize("2 KB"), 2000.0);
  EXPECT_EQ(parseByteSize("1.5MiB"), 1.5 * 1024 * 1024);
  EXPECT_EQ(parseByteSize("3G"), 3.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(parseByteSize("1e3B"), 1000.0);
  EXPECT_FALSE(parseByteSize(""));
  EXPECT_FALSE(parseByteSize("-4"));
  EXPECT_FALSE(parseByteSize("12 parsecs"));
  EXPECT_EQ(formatBytes(512), "512 B");
  EXPECT_EQ(formatBytes(1536), "1.5 KiB");
  EXPECT_EQ(formatSeconds(12.34e-6), "12.3 us");
  EXPECT_EQ(formatSeconds(4.5e-3), "4.50 ms");
}

} // namespace
