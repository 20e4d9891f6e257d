//===- CalibrateTest.cpp - alpha-beta fits and collective timings ---------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Tests fitAlphaBeta (exact lines, noisy points, the non-negative clamps,
// degenerate inputs), getRingMovedBytes and a small measureCollectives run.
//
//===----------------------------------------------------------------------===//

#include "tessera/Runtime/Calibrate.h"

#include <gtest/gtest.h>

using namespace tessera::rt;

TEST(CalibrateTest, FitsAnExactLine) {
  AlphaBetaFit fit =
      fitAlphaBeta({1000, 2000, 4000, 8000}, {1.1e-5, 1.2e-5, 1.4e-5, 1.8e-5});
  EXPECT_NEAR(fit.alpha, 1e-5, 1e-12);
  EXPECT_NEAR(fit.beta, 1e-9, 1e-15);
}

TEST(CalibrateTest, FitsTheLeastSquaresLine) {
  // y = 1 + 2x with residuals +1, -1, -1, +1 at x = 0..3: least squares
  // gives back the line exactly.
  AlphaBetaFit fit = fitAlphaBeta({0, 1, 2, 3}, {2, 2, 4, 8});
  EXPECT_NEAR(fit.beta, 2.0, 1e-12);
  EXPECT_NEAR(fit.alpha, 1.0, 1e-12);
  // Ordinary least squares on an asymmetric cloud.
  fit = fitAlphaBeta({1, 2, 3}, {1, 3, 2});
  EXPECT_NEAR(fit.beta, 0.5, 1e-12);
  EXPECT_NEAR(fit.alpha, 1.0, 1e-12);
}

TEST(CalibrateTest, ClampsANegativeIntercept) {
  // The unconstrained line is y = -1 + 2x; with alpha >= 0 it goes through
  // the origin: beta = sum(xy) / sum(xx) = (1 + 6 + 15) / (1 + 4 + 9).
  AlphaBetaFit fit = fitAlphaBeta({1, 2, 3}, {1, 3, 5});
  EXPECT_EQ(fit.alpha, 0);
  EXPECT_NEAR(fit.beta, 22.0 / 14.0, 1e-12);
}

TEST(CalibrateTest, ClampsANegativeSlope) {
  // Times that fall with size (noise): a flat line at the mean.
  AlphaBetaFit fit = fitAlphaBeta({1, 2, 3}, {3, 2, 1});
  EXPECT_EQ(fit.beta, 0);
  EXPECT_NEAR(fit.alpha, 2.0, 1e-12);
}

TEST(CalibrateTest, WeightsThePoints) {
  // The points (0, 0), (1, 1), (2, 4): unit weights give y = -1/3 + 2x
  // (clamped: through the origin, beta = 9/5); a heavy middle point pulls
  // the line through it.
  AlphaBetaFit plain = fitAlphaBeta({0, 1, 2}, {0, 1, 4});
  EXPECT_EQ(plain.alpha, 0);
  EXPECT_NEAR(plain.beta, 9.0 / 5.0, 1e-12);
  // (1, 4), (2, 5), (3, 8): unit weights give y = 5/3 + 2x; weights 1,
  // 100, 1 move the weighted mean to (2, 5 + 2/102) and keep the slope.
  AlphaBetaFit unit = fitAlphaBeta({1, 2, 3}, {4, 5, 8});
  EXPECT_NEAR(unit.beta, 2.0, 1e-12);
  EXPECT_NEAR(unit.alpha, 5.0 / 3.0, 1e-12);
  AlphaBetaFit weighted = fitAlphaBeta({1, 2, 3}, {4, 5, 8}, {1, 100, 1});
  EXPECT_NEAR(weighted.beta, 2.0, 1e-12);
  EXPECT_NEAR(weighted.alpha, 1.0 + 2.0 / 102.0, 1e-12);
}

TEST(CalibrateTest, RelativeWeights) {
  std::vector<double> weights = getRelativeWeights({1e-5, 2e-5, 0});
  ASSERT_EQ(weights.size(), 3u);
  EXPECT_NEAR(weights[0], 1e10, 1);
  EXPECT_NEAR(weights[1], 2.5e9, 1);
  EXPECT_GT(weights[2], weights[0]);
  // Times of 10 us + 1 ns per byte from 1 KiB to 1 MiB, 5% off at the
  // largest: relative weights keep alpha near 10 us and beta near 1 ns.
  std::vector<double> bytes = {1024, 16384, 262144, 1048576};
  std::vector<double> seconds;
  for (double b : bytes)
    seconds.push_back(1e-5 + 1e-9 * b);
  seconds.back() *= 1.05;
  AlphaBetaFit fit = fitAlphaBeta(bytes, seconds, getRelativeWeights(seconds));
  EXPECT_NEAR(fit.alpha, 1e-5, 1e-6);
  EXPECT_NEAR(fit.beta, 1e-9, 0.05e-9);
}

TEST(CalibrateTest, DegenerateInputs) {
  AlphaBetaFit none = fitAlphaBeta({}, {});
  EXPECT_EQ(none.alpha, 0);
  EXPECT_EQ(none.beta, 0);
  AlphaBetaFit one = fitAlphaBeta({64}, {5e-6});
  EXPECT_DOUBLE_EQ(one.alpha, 5e-6);
  EXPECT_EQ(one.beta, 0);
  AlphaBetaFit same = fitAlphaBeta({64, 64}, {4e-6, 6e-6});
  EXPECT_DOUBLE_EQ(same.alpha, 5e-6);
  EXPECT_EQ(same.beta, 0);
}

TEST(CalibrateTest, RingMovedBytes) {
  EXPECT_DOUBLE_EQ(getRingMovedBytes(CollectiveKind::AllReduce, 4, 1024), 1536);
  EXPECT_DOUBLE_EQ(getRingMovedBytes(CollectiveKind::AllGather, 4, 1024), 768);
  EXPECT_DOUBLE_EQ(getRingMovedBytes(CollectiveKind::ReduceScatter, 2, 1024),
                   512);
  EXPECT_DOUBLE_EQ(getRingMovedBytes(CollectiveKind::AllToAll, 8, 1024), 896);
  EXPECT_DOUBLE_EQ(getRingMovedBytes(CollectiveKind::Permute, 2, 1024), 1024);
  EXPECT_DOUBLE_EQ(getRingMovedBytes(CollectiveKind::AllReduce, 1, 1024), 0);
}

TEST(CalibrateTest, MeasuresEveryCollectiveAlongEveryAxis) {
  std::string error;
  std::unique_ptr<Mesh> mesh =
      Mesh::create({{"x", "one", "y"}, {2, 1, 2}, {}}, error);
  ASSERT_NE(mesh, nullptr) << error;
  CollectiveCalibrationOptions options;
  options.bytes = {64, 1000};
  options.repeats = 2;
  options.trials = 1;
  std::vector<CollectiveSample> samples;
  ASSERT_TRUE(measureCollectives(*mesh, options, samples, error)) << error;
  // Axes "x" and "y" (not the axis of size 1), 5 collectives, 2 sizes.
  ASSERT_EQ(samples.size(), 20u);
  for (const CollectiveSample &sample : samples) {
    EXPECT_TRUE(sample.axis == 0 || sample.axis == 2);
    EXPECT_GT(sample.seconds, 0);
    // Whole f32 elements that the group of 2 divides.
    EXPECT_EQ(sample.bytes % 8, 0);
    EXPECT_DOUBLE_EQ(sample.movedBytes,
                     getRingMovedBytes(sample.kind, 2, sample.bytes));
  }
  EXPECT_EQ(samples.front().bytes, 64);
  EXPECT_EQ(samples[1].bytes, 1000);
}
