//===- ExecutionSteps.h - steps shared by the run flows ---------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Private to lib/Execution: the steps of runProgram that the threads flow
// (Execution.cpp) and the MPI flow (Distributed.cpp) share.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_EXECUTION_EXECUTIONSTEPS_H
#define TESSERA_LIB_EXECUTION_EXECUTIONSTEPS_H

#include "tessera/Execution/Execution.h"
#include "tessera/Execution/Report.h"
#include "tessera/Runtime/DistributedArray.h"
#include "tessera/Runtime/Mesh.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir::tessera::exec::detail {

/// The shapes of `arrays`.
std::vector<std::vector<int64_t>>
getShapes(llvm::ArrayRef<::tessera::rt::HostArray> arrays);

/// Creates the emulated mesh for `info`, with the watchdog of `options`.
llvm::Expected<std::unique_ptr<::tessera::rt::Mesh>>
createMesh(const MeshInfo &info, const RunOptions &options,
           llvm::StringRef what);

/// Compiles (or takes from the cache) and runs the single-device reference
/// of `program` on `inputs` (in this process); `report` says how it was
/// compiled.
llvm::Expected<std::vector<::tessera::rt::HostArray>>
runReference(Program &program, std::vector<::tessera::rt::HostArray> &inputs,
             const RunOptions &options, CompileReport &report);

/// Compares `outputs` with the reference's and prints the --check lines;
/// a ReportedError on a mismatch.
llvm::Error
compareWithReference(const Program &program,
                     llvm::ArrayRef<::tessera::rt::HostArray> outputs,
                     llvm::ArrayRef<::tessera::rt::HostArray> expected,
                     const RunOptions &options);

/// Writes `arrays` as `<dir>/<prefix><i>.npy`. Whether every file can be
/// written is checked before any is, so a directory that cannot take them
/// all is reported with nothing written to it.
llvm::Error writeArrays(const std::string &dir, llvm::StringRef prefix,
                        llvm::ArrayRef<::tessera::rt::HostArray> arrays,
                        llvm::StringRef option);

/// A result written as a shard directory.
struct ShardedResult {
  std::string dir;
  ::tessera::rt::DType dtype;
  std::vector<int64_t> shape;
  /// Every distinct block (written by the process of its lowest device).
  std::vector<::tessera::rt::BlockIndex> blocks;
};

/// Writes the results of `run` as shard directories `<dir>/result<i>`: the
/// distinct blocks whose first holder (the lowest device id) this process
/// runs. Devices of this process that hold one block must agree on it.
/// Returns what the index of each result lists (the same on every process).
llvm::Expected<std::vector<ShardedResult>>
writeResultShards(const std::string &dir, const RunResult &run,
                  const EntryLayouts &layouts, const ::tessera::rt::Mesh &mesh);

/// Writes the index.json of every result (once every process wrote its
/// blocks).
llvm::Error writeResultIndexes(const std::vector<ShardedResult> &results);

/// Prints the --show-sharding grids of `views` (the entry's arguments, then
/// its results).
void printShardings(std::vector<ShardingView> views,
                    const EntryLayouts &layouts,
                    const ::tessera::rt::Mesh &mesh,
                    const std::vector<std::vector<int64_t>> &argShapes,
                    const std::vector<std::vector<int64_t>> &resultShapes,
                    size_t numArgs);

/// The --stats table of `devices` (by device id).
void printDeviceStats(llvm::ArrayRef<::tessera::rt::DeviceStats> devices,
                      bool timing);

/// How the program was compiled: `812.3 ms (cache miss)`.
std::string describeCompile(const CompileReport &report);

/// The `--stats` line of the compiled-code cache.
void printCacheStats(const CompileReport &report, const char *what);

/// `compile: X ms (cache ...)` and `run: median ...`.
void printTiming(const CompileReport &compile, std::vector<double> seconds);

/// runProgram with --backend=mpi (Distributed.cpp).
llvm::Error runDistributed(Program &program, const RunOptions &options);

} // namespace mlir::tessera::exec::detail

#endif // TESSERA_LIB_EXECUTION_EXECUTIONSTEPS_H
