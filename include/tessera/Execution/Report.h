//===- Report.h - what a run prints -----------------------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The text a run prints on stdout: result summaries, sharding grids, the
// comparison with the reference and the kernel cost report.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_EXECUTION_REPORT_H
#define TESSERA_EXECUTION_REPORT_H

#include "tessera/Runtime/HostArray.h"
#include "tessera/Runtime/Kernel.h"

#include <string>
#include <vector>

namespace mlir::tessera::exec {

/// A value's sharding over the mesh, for `--show-sharding`.
struct ShardingView {
  /// `arg0 (%x)`, `result0`.
  std::string label;
  /// `f32[16,8]`.
  std::string type;
  /// The attribute as written.
  std::string sharding;
  ::tessera::rt::ShardLayout layout;
};

/// One line per result: type, leading values, sum/min/max and a checksum;
/// `full` prints every value.
void printSummary(const std::string &label, const ::tessera::rt::HostArray &a,
                  bool full);

/// Draws which devices hold which block of an array, as
/// `jax.debug.visualize_array_sharding` does (1-D and 2-D arrays; others are
/// listed block by block).
void printShardingGrid(const ShardingView &view,
                       const std::vector<int64_t> &shape,
                       const std::vector<std::vector<int64_t>> &deviceCoords);

/// Compares `actual` with `reference`: bit-exact for integers, within
/// `rtol`/`atol` for floats. Prints one line; returns true on a match.
bool compareArrays(const std::string &label,
                   const ::tessera::rt::HostArray &actual,
                   const ::tessera::rt::HostArray &reference, double rtol,
                   double atol);

/// `1.5 MiB`.
std::string formatBytes(int64_t bytes);

/// The `--stats` cost report of kernel calls: one line per call and device
/// with its HBM<->VMEM traffic, DMAs issued and skipped, FLOPs, VMEM
/// high-water mark, the roofline estimate on the target (bytes over HBM
/// bandwidth, FLOPs over peak rate, the larger) and the measured CPU time;
/// by device, then in the order the calls finished.
void printKernelStats(
    const std::vector<::tessera::rt::KernelCallRecord> &calls);

} // namespace mlir::tessera::exec

#endif // TESSERA_EXECUTION_REPORT_H
