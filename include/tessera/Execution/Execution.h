//===- Execution.h - compile and run a program on the mesh ------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The whole flow of `tessera-run` as one call: inputs, the global-view and
// partitioning passes, JIT compilation, the run on the emulated mesh, the
// report and the comparison with the single-device reference. Tools, the C
// API and tests call it; its stages are in Program.h, Compile.h and Run.h.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_EXECUTION_EXECUTION_H
#define TESSERA_EXECUTION_EXECUTION_H

#include "tessera/Execution/Cache.h"
#include "tessera/Execution/Compile.h"
#include "tessera/Execution/Program.h"
#include "tessera/Execution/Run.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace mlir::tessera::exec {

/// Everything a run can be asked to do.
struct RunOptions {
  CompileOptions compile;
  /// The compiled-code cache (on by default).
  CacheOptions cache;
  InputOptions inputs;
  /// `name=size,...`: new sizes of mesh axes.
  std::string meshSizes;
  /// The backend: `threads` (the emulated mesh in this process) or `mpi`
  /// (one process per block of devices, under mpirun).
  std::string backend = "threads";
  /// With `mpi`: the devices each process runs (unset: the mesh's devices
  /// divided by the processes).
  std::optional<int64_t> devicesPerProcess;
  /// Emit the lowered program instead of running it (`mlir`, `llvm`, `obj`)
  /// to `emitFile` (`-`: stdout).
  std::string emit;
  std::string emitFile = "-";
  unsigned repeat = 1;
  bool printResults = false;
  bool showSharding = false;
  bool stats = false;
  bool timing = false;
  /// Write the results as `result<i>.npy` here.
  std::string outputDir;
  /// Write them instead as shard directories `result<i>/` (one .npy per
  /// distinct block and an index.json), each process its own blocks.
  bool outputShards = false;
  /// Write a Chrome trace of the last run here.
  std::string trace;
  /// Compare with the unpartitioned program on one device.
  bool check = false;
  /// Tolerances of `check` for floats (unset: by dtype).
  std::optional<double> rtol, atol;
  /// The watchdog time (unset: the runtime's default).
  std::optional<double> watchdogSeconds;
  /// Write the inputs as `arg<i>.npy` here (to reproduce the run with
  /// `--input`).
  std::string saveInputsDir;
};

/// Checks the options that do not depend on the program: their values, and
/// that `emit` is not combined with an option only a run uses.
llvm::Error validateRunOptions(const RunOptions &options);

/// Runs `program` as `options` say and prints the report on stdout. An error
/// is a failed step (its message) or a failed `--check`. With
/// `--backend=mpi` every process of the job calls it: each runs its block of
/// devices and loads only their blocks of the inputs, rank 0 prints the
/// report, and every process returns the same error (Distributed.cpp).
llvm::Error runProgram(Program &program, const RunOptions &options);

/// With `--backend=mpi`: makes this process one of the job's (initializes
/// MPI). A no-op for the threads backend.
llvm::Error startBackend(const RunOptions &options);

/// With `--backend=mpi`: every process passes the outcome of the same step
/// (`error`, or success); returns the error of the lowest rank that failed,
/// `rank R: <message>`, on every process, or success if none failed. An
/// error whose diagnostics its process reported returns as a ReportedError
/// on that process. Other backends return `error` unchanged.
llvm::Error agreeAcrossProcesses(llvm::Error error, const RunOptions &options);

/// Ends the job's part in this process (MPI_Finalize once every process got
/// there) and returns `status`; a no-op without MPI. If a failed run left
/// communication unfinished, the process ends here with `status` (_Exit,
/// after flushing stdout and stderr).
int finishBackend(int status);

} // namespace mlir::tessera::exec

#endif // TESSERA_EXECUTION_EXECUTION_H
