//===- Calibrate.cpp - measuring the emulated mesh's collectives ----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Runtime/Calibrate.h"
#include "tessera/Runtime/Runtime.h"

#include <algorithm>
#include <chrono>
#include <limits>

using namespace tessera::rt;

AlphaBetaFit tessera::rt::fitAlphaBeta(const std::vector<double> &bytes,
                                       const std::vector<double> &seconds,
                                       const std::vector<double> &weights) {
  size_t n = std::min(bytes.size(), seconds.size());
  auto weight = [&](size_t i) { return i < weights.size() ? weights[i] : 1.0; };
  double sw = 0, meanX = 0, meanY = 0;
  for (size_t i = 0; i < n; ++i) {
    sw += weight(i);
    meanX += weight(i) * bytes[i];
    meanY += weight(i) * seconds[i];
  }
  if (n == 0 || sw <= 0)
    return {};
  meanX /= sw;
  meanY /= sw;
  double sxx = 0, sxy = 0, xx = 0, xy = 0;
  for (size_t i = 0; i < n; ++i) {
    double w = weight(i);
    sxx += w * (bytes[i] - meanX) * (bytes[i] - meanX);
    sxy += w * (bytes[i] - meanX) * (seconds[i] - meanY);
    xx += w * bytes[i] * bytes[i];
    xy += w * bytes[i] * seconds[i];
  }
  AlphaBetaFit flat{std::max(0.0, meanY), 0};
  if (sxx <= 0)
    return flat;
  AlphaBetaFit fit{meanY - sxy / sxx * meanX, sxy / sxx};
  if (fit.beta < 0)
    return flat;
  if (fit.alpha < 0) {
    // Through the origin: minimizes sum w (y - beta x)^2.
    if (xx <= 0)
      return flat;
    return {0, std::max(0.0, xy / xx)};
  }
  return fit;
}

std::vector<double>
tessera::rt::getRelativeWeights(const std::vector<double> &seconds) {
  std::vector<double> weights;
  double floor = 1e-12;
  for (double y : seconds)
    weights.push_back(1.0 / (std::max(y, floor) * std::max(y, floor)));
  return weights;
}

double tessera::rt::getRingMovedBytes(CollectiveKind kind, int64_t groupSize,
                                      double bytes) {
  if (groupSize <= 1)
    return 0;
  double n = static_cast<double>(groupSize);
  switch (kind) {
  case CollectiveKind::AllReduce:
    return 2 * (n - 1) / n * bytes;
  case CollectiveKind::AllGather:
  case CollectiveKind::ReduceScatter:
  case CollectiveKind::AllToAll:
    return (n - 1) / n * bytes;
  case CollectiveKind::Permute:
    return bytes;
  case CollectiveKind::Barrier:
    return 0;
  }
  return 0;
}

namespace {
/// One timing to take: a collective along an axis on a buffer.
struct CalibrationPoint {
  CollectiveKind kind;
  int axis;
  int64_t elements;
};
} // namespace

/// Calls collective `point` once on the calling device (`in` and `out`
/// hold `point.elements` f32 each; `group` is the axis's part triple).
static void callCalibrationCollective(const CalibrationPoint &point,
                                      int64_t groupSize, const int64_t *group,
                                      const float *in, float *out,
                                      const std::vector<int64_t> &sources,
                                      const std::vector<int64_t> &targets) {
  int64_t elements = point.elements;
  switch (point.kind) {
  case CollectiveKind::AllReduce:
    tessera_rt_all_reduce(in, out, elements, TESSERA_RT_F32, TESSERA_RT_SUM,
                          group, 1, "calibrate");
    break;
  case CollectiveKind::AllGather: {
    int64_t shape = elements / groupSize;
    tessera_rt_all_gather(in, out, &shape, 1, TESSERA_RT_F32, 0, group, 1,
                          "calibrate");
    break;
  }
  case CollectiveKind::ReduceScatter:
    tessera_rt_reduce_scatter(in, out, &elements, 1, TESSERA_RT_F32,
                              TESSERA_RT_SUM, 0, group, 1, "calibrate");
    break;
  case CollectiveKind::AllToAll:
    tessera_rt_all_to_all(in, out, &elements, 1, TESSERA_RT_F32, 0, 0, group, 1,
                          "calibrate");
    break;
  case CollectiveKind::Permute:
    tessera_rt_permute(in, out, elements * 4, sources.data(), targets.data(),
                       static_cast<int32_t>(sources.size()), group, 1,
                       "calibrate");
    break;
  case CollectiveKind::Barrier:
    tessera_rt_barrier(group, 1, "calibrate");
    break;
  }
}

bool tessera::rt::measureCollectives(
    Mesh &mesh, const CollectiveCalibrationOptions &options,
    std::vector<CollectiveSample> &samples, std::string &error) {
  if (mesh.getTransport()) {
    error = "calibration runs on a mesh in one process";
    return false;
  }
  const MeshSpec &spec = mesh.spec();
  static constexpr CollectiveKind kKinds[] = {
      CollectiveKind::AllReduce, CollectiveKind::AllGather,
      CollectiveKind::ReduceScatter, CollectiveKind::AllToAll,
      CollectiveKind::Permute};
  std::vector<CalibrationPoint> points;
  int64_t largest = 0;
  for (size_t a = 0; a < spec.axisSizes.size(); ++a) {
    int64_t n = spec.axisSizes[a];
    if (n <= 1)
      continue;
    for (CollectiveKind kind : kKinds)
      for (int64_t bytes : options.bytes) {
        int64_t elements = std::max<int64_t>(bytes / 4 / n, 1) * n;
        points.push_back({kind, static_cast<int>(a), elements});
        largest = std::max(largest, elements);
      }
  }
  // Every axis whole: the group of all devices.
  std::vector<int64_t> all;
  for (size_t a = 0; a < spec.axisSizes.size(); ++a) {
    all.push_back(static_cast<int64_t>(a));
    all.push_back(1);
    all.push_back(spec.axisSizes[a]);
  }
  unsigned repeats = std::max(1u, options.repeats);
  unsigned trials = std::max(1u, options.trials);
  std::vector<double> best(points.size(),
                           std::numeric_limits<double>::infinity());
  auto body = [&](int64_t device) {
    std::vector<float> in(static_cast<size_t>(largest), 1.0f);
    std::vector<float> out(static_cast<size_t>(largest), 0.0f);
    for (size_t p = 0; p < points.size(); ++p) {
      const CalibrationPoint &point = points[p];
      int64_t n = spec.axisSizes[point.axis];
      int64_t group[3] = {point.axis, 1, n};
      std::vector<int64_t> sources, targets;
      for (int64_t r = 0; r < n; ++r) {
        sources.push_back(r);
        targets.push_back((r + 1) % n);
      }
      for (unsigned t = 0; t < trials; ++t) {
        tessera_rt_barrier(all.data(), static_cast<int32_t>(all.size() / 3),
                           "calibrate");
        auto start = std::chrono::steady_clock::now();
        for (unsigned r = 0; r < repeats; ++r)
          callCalibrationCollective(point, n, group, in.data(), out.data(),
                                    sources, targets);
        tessera_rt_barrier(all.data(), static_cast<int32_t>(all.size() / 3),
                           "calibrate");
        double seconds = std::chrono::duration<double>(
                             std::chrono::steady_clock::now() - start)
                             .count() /
                         repeats;
        if (device == 0)
          best[p] = std::min(best[p], seconds);
      }
    }
  };
  if (!mesh.run(body, error))
    return false;
  samples.clear();
  for (size_t p = 0; p < points.size(); ++p) {
    const CalibrationPoint &point = points[p];
    CollectiveSample sample;
    sample.kind = point.kind;
    sample.axis = point.axis;
    sample.bytes = point.elements * 4;
    sample.movedBytes =
        getRingMovedBytes(point.kind, spec.axisSizes[point.axis],
                          static_cast<double>(sample.bytes));
    sample.seconds = best[p];
    samples.push_back(sample);
  }
  return true;
}
