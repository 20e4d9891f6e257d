//===- Calibrate.h - the cost model's constants of this host ----*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// `tessera-run --calibrate`: measures, on this host's emulated mesh, the
// constants spmd-auto-partition's cost model prices a plan with (the
// compiled matmul's FLOP/s and an elementwise op's bytes/s per device with
// every device busy, and each collective's alpha-beta line along each mesh
// axis) and writes them as a calibration file, which the pass reads with
// `calibration=FILE` (docs/AutoPartition.md).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_EXECUTION_CALIBRATE_H
#define TESSERA_EXECUTION_CALIBRATE_H

#include "tessera/Execution/Cache.h"
#include "tessera/Execution/Compile.h"
#include "tessera/Execution/Program.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::tessera::exec {

struct CalibrateOptions {
  /// The per-device message sizes of the collectives, bytes (at least two
  /// different ones for a line).
  std::vector<int64_t> messageBytes = {16 << 10, 64 << 10, 256 << 10, 1 << 20};
  /// Runs (matmul, elementwise op) or calls (collectives) per timing; the
  /// fastest timing counts.
  unsigned repeats = 5;
  /// The matmul is N x N times N x N in f32.
  int64_t matmulSize = 256;
  /// The elementwise op adds two f32 arrays of this many bytes each.
  int64_t vectorBytes = 1 << 20;
  /// How the matmul and the elementwise op are compiled, and the cache.
  CompileOptions compile;
  CacheOptions cache;
  /// The watchdog time (unset: the runtime's default).
  std::optional<double> watchdogSeconds;
};

/// Parses `--calibrate-sizes`: a comma-separated list of byte counts, each
/// a positive integer with an optional suffix KiB, MiB (or K, M), at least
/// two different ones.
llvm::Expected<std::vector<int64_t>> parseMessageSizes(llvm::StringRef text);

/// Checks the options' values.
llvm::Error validateCalibrateOptions(const CalibrateOptions &options);

/// Measures the constants on an emulated mesh of `mesh`'s axes (compiling
/// two small programs in `context`) and returns the calibration file's
/// text: the header, `matmul_gflops`, `memory_gbps`, and per collective
/// `collective <axis> <kind> <alpha> <beta>` for every axis of size > 1
/// plus `*` (the mean over the axes) for the axes of other meshes; the
/// measured points as comments.
llvm::Expected<std::string> calibrate(MLIRContext &context,
                                      const MeshInfo &mesh,
                                      const CalibrateOptions &options);

/// Writes `text` to `path` (`-`: stdout).
llvm::Error writeCalibration(llvm::StringRef text, llvm::StringRef path);

/// Checks that `path` (`-`: stdout) can be written, before measuring.
llvm::Error checkCalibrationPath(llvm::StringRef path);

/// The mesh `--mesh "data=2,model=4"` names when there is no program: its
/// axes in that order, of those sizes.
llvm::Expected<MeshInfo> parseMeshAxes(llvm::StringRef text);

/// `--calibrate`: checks `options` and `path`, measures on `mesh` and
/// writes the file.
llvm::Error runCalibration(MLIRContext &context, const MeshInfo &mesh,
                           const CalibrateOptions &options,
                           llvm::StringRef path);

} // namespace mlir::tessera::exec

#endif // TESSERA_EXECUTION_CALIBRATE_H
