//===- CostModel.h - spmd-auto-partition's machine model --------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The constants spmd-auto-partition prices a plan with: compute throughput
// per device and an alpha-beta model of each collective along each mesh
// axis. They come from a built-in table (the emulated CPU mesh, TPU v4,
// v5e, v5p, v6e) or from a calibration file that `tessera-run --calibrate`
// writes. Pure C++ (no MLIR), tested in unittests/Dialect/Spmd.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_AUTO_COSTMODEL_H
#define TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_AUTO_COSTMODEL_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

namespace mlir::tessera::spmd::autopart {

/// The collectives the cost model prices.
enum class Collective {
  AllReduce,
  AllGather,
  ReduceScatter,
  AllToAll,
  Permute,
};
inline constexpr unsigned kNumCollectives = 5;

/// The name of `kind` in calibration files: `all_reduce`, `all_gather`,
/// `reduce_scatter`, `all_to_all`, `permute`.
llvm::StringRef getCollectiveName(Collective kind);
std::optional<Collective> parseCollectiveName(llvm::StringRef name);

/// The fraction of a per-device buffer of `bytes` that each device sends in
/// a ring collective over a group of `groupSize` devices: (n-1)/n for
/// all-gather (of the gathered buffer), reduce-scatter (of the input) and
/// all-to-all, 2(n-1)/n for all-reduce, 1 for a permute, 0 for n = 1.
double getMovedFraction(Collective kind, int64_t groupSize);

/// The alpha-beta model of one collective along one axis: a collective of
/// `bytes` moved per device takes `alpha + beta * bytes` seconds.
struct AlphaBeta {
  double alpha = 0;
  double beta = 0;
};

/// The cost constants of a machine.
struct MachineModel {
  /// Where the constants come from (`cpu`, `v5e`, a calibration file).
  std::string name;
  /// Contraction throughput per device, FLOP/s.
  double flops = 1e10;
  /// Memory bandwidth per device for other ops, bytes/s.
  double memoryBandwidth = 1e10;
  /// Per collective: the model of an axis without an entry of its own.
  std::array<AlphaBeta, kNumCollectives> defaults{};
  /// Per mesh axis name, per collective (calibrated axes).
  std::map<std::string, std::array<AlphaBeta, kNumCollectives>> axes;

  /// The model of `kind` along `axis`.
  AlphaBeta get(Collective kind, llvm::StringRef axis) const;

  /// The time of a collective of `kind` over `axes` (name and size of each
  /// axis, major to minor) on a per-device buffer of `bytes` (the gathered
  /// buffer of an all-gather, the input of the others): the sum of the
  /// axes' alphas plus the largest beta times the bytes moved.
  double getCollectiveTime(Collective kind,
                           llvm::ArrayRef<std::pair<std::string, int64_t>> axes,
                           double bytes) const;

  /// The time of an op that does `flops` floating-point operations and
  /// touches `bytes` per device: a contraction (`isContraction`) takes the
  /// longer of its FLOPs at the compute throughput and its bytes at the
  /// memory bandwidth (a roofline), other ops their bytes at the memory
  /// bandwidth.
  double getComputeTime(double flops, double bytes, bool isContraction) const;
};

/// The built-in model named `name` (`cpu`: the emulated mesh of a typical
/// host; `v4`, `v5e`, `v5p`, `v6e`: public peak figures of one TPU chip and
/// its ICI links), or std::nullopt.
std::optional<MachineModel> getBuiltinMachineModel(llvm::StringRef name);

/// The names of the built-in models, comma-separated.
llvm::StringRef getBuiltinMachineModelNames();

/// Parses a calibration file (see docs/AutoPartition.md):
///
///   # comment
///   tessera-calibration 1
///   matmul_gflops 12.5
///   memory_gbps 8.0
///   collective <axis|*> <collective> <alpha seconds> <beta seconds/byte>
///
/// Returns the model, or std::nullopt with `error` naming the line.
std::optional<MachineModel> parseCalibration(llvm::StringRef text,
                                             std::string &error);

/// Prints `model` in the calibration format (parseCalibration reads it
/// back).
std::string printCalibration(const MachineModel &model);

/// Parses a byte count: a non-negative number with an optional suffix B, K,
/// KB, KiB, M, MB, MiB, G, GB, GiB (powers of 1024 for K/M/G and KiB/MiB/GiB,
/// of 1000 for KB/MB/GB).
std::optional<double> parseByteSize(llvm::StringRef text);

/// `bytes` for people: `512 B`, `1.5 KiB`, `3.2 MiB`, `2.0 GiB`.
std::string formatBytes(double bytes);
/// `seconds` for people: `12.3 us`, `4.56 ms`, `1.20 s`.
std::string formatSeconds(double seconds);

} // namespace mlir::tessera::spmd::autopart

#endif // TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_AUTO_COSTMODEL_H
