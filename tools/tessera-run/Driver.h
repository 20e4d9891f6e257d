//===- Driver.h - tessera-run's driver --------------------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TOOLS_TESSERA_RUN_DRIVER_H
#define TESSERA_TOOLS_TESSERA_RUN_DRIVER_H

#include "tessera/Runtime/HostArray.h"
#include "tessera/Runtime/Kernel.h"

#include <string>
#include <vector>

namespace mlir::tessera::run {

/// Registers tessera-run's command-line options.
void registerOptions();

/// Removes `--stats` from argv and records it (LLVM's `-stats` option has
/// the same name).
void takeStatsFlag(int &argc, char **argv);

/// Runs the tool with the parsed options; returns the exit code.
int runMain();

//===----------------------------------------------------------------------===//
// Display helpers (Display.cpp)
//===----------------------------------------------------------------------===//

/// A value's sharding over the mesh, for `--show-sharding`.
struct ShardingView {
  std::string label;    // `arg0 (%x)`, `result0`
  std::string type;     // `f32[16,8]`
  std::string sharding; // the attribute as written
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

} // namespace mlir::tessera::run

#endif // TESSERA_TOOLS_TESSERA_RUN_DRIVER_H
