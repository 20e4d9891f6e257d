//===- Calibrate.h - measuring the emulated mesh's collectives --*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// What `tessera-run --calibrate` measures on the runtime's side: the time
// of each collective along each axis of a mesh for several message sizes,
// and the least-squares alpha-beta line through those times that
// spmd-auto-partition's cost model prices collectives with
// (docs/AutoPartition.md). Plain C++, like the rest of the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_RUNTIME_CALIBRATE_H
#define TESSERA_RUNTIME_CALIBRATE_H

#include "tessera/Runtime/Mesh.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::rt {

/// A line `seconds = alpha + beta * bytes`.
struct AlphaBetaFit {
  double alpha = 0;
  double beta = 0;
};

/// The weighted least-squares line through the points (`bytes[i]`,
/// `seconds[i]`), point i of weight `weights[i]` (1 for every point when
/// `weights` is shorter), with a non-negative intercept and slope: the
/// unconstrained line when both are >= 0, else the best line with the
/// negative one at 0 (through the origin, or flat at the weighted mean).
/// Points whose bytes are all equal give a flat line at the mean; no points
/// give zeros. `bytes` and `seconds` have the same length.
AlphaBetaFit fitAlphaBeta(const std::vector<double> &bytes,
                          const std::vector<double> &seconds,
                          const std::vector<double> &weights = {});

/// The weights 1 / seconds[i]^2 of a fit of relative errors (calibration's:
/// message sizes span decades, and plain least squares would fit the
/// largest and leave the latency of small messages to chance).
std::vector<double> getRelativeWeights(const std::vector<double> &seconds);

/// The part of a per-device buffer of `bytes` that each device moves in a
/// ring collective over `groupSize` devices (the cost model's formula):
/// 2(n-1)/n of it for an all-reduce, (n-1)/n for an all-gather (of the
/// gathered buffer), a reduce-scatter (of the input) and an all-to-all, all
/// of it for a permute, nothing for one device.
double getRingMovedBytes(CollectiveKind kind, int64_t groupSize, double bytes);

/// What to measure.
struct CollectiveCalibrationOptions {
  /// The per-device buffer sizes (the gathered buffer of an all-gather, the
  /// input of the others), in bytes; each is rounded down to a whole
  /// number of f32 elements that every group size divides.
  std::vector<int64_t> bytes = {16 << 10, 64 << 10, 256 << 10, 1 << 20};
  /// Calls per timing; the time of a call is the fastest of `trials`
  /// timings' means.
  unsigned repeats = 5;
  unsigned trials = 3;
};

/// One measured point.
struct CollectiveSample {
  CollectiveKind kind = CollectiveKind::AllReduce;
  /// The mesh axis the group runs along (index into MeshSpec::axisNames).
  int axis = 0;
  /// The per-device buffer (as CollectiveCalibrationOptions::bytes) and
  /// what each device moves of it (getRingMovedBytes).
  int64_t bytes = 0;
  double movedBytes = 0;
  /// Seconds per call.
  double seconds = 0;
};

/// Times all_reduce (f32 sum), all_gather, reduce_scatter (f32 sum),
/// all_to_all and a permute (each member sends to the next in a ring) along
/// every axis of `mesh` of size > 1, for each size of `options.bytes`: all
/// devices meet at a barrier, call the collective `repeats` times, meet
/// again, and the first device's wall time divided by `repeats` is one
/// timing. The groups of the other positions run at the same time, as in
/// a program. Returns false with `error` set if the mesh fails (or is
/// spread over processes, which calibration does not support).
bool measureCollectives(Mesh &mesh, const CollectiveCalibrationOptions &options,
                        std::vector<CollectiveSample> &samples,
                        std::string &error);

} // namespace tessera::rt

#endif // TESSERA_RUNTIME_CALIBRATE_H
