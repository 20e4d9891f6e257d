//===- Run.h - inputs, the emulated mesh, results ---------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The run half of the execution library: the entry's inputs (from .npy files
// or generated), scattered to the devices by the entry's layouts, the
// compiled program run once per device on an emulated mesh, and the devices'
// blocks gathered into global results.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_EXECUTION_RUN_H
#define TESSERA_EXECUTION_RUN_H

#include "tessera/Execution/Compile.h"
#include "tessera/Execution/Program.h"
#include "tessera/Runtime/HostArray.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace tessera::rt {
class Mesh;
struct DistributedArray;
} // namespace tessera::rt

namespace mlir::tessera::exec {

/// Where the entry's inputs come from.
struct InputOptions {
  /// `NAME_OR_INDEX=path` items: a .npy file, or a directory of shards
  /// (an index.json and one .npy per block, as --output-shards writes).
  std::vector<std::string> files;
  /// `NAME_OR_INDEX=4x8` items: the shapes of generated inputs with dynamic
  /// dimensions (and the global shapes of process-local inputs).
  std::vector<std::string> shapes;
  /// `NAME_OR_INDEX=path.npy` items of process-local data (JAX's
  /// make_array_from_process_local_data): under MPI each process's part of
  /// the argument; in one process the whole argument.
  std::vector<std::string> processLocal;
  /// Generate the inputs no file gives.
  bool random = false;
  uint64_t seed = 0;
};

/// Where each argument's input comes from, as the options say: a file (a
/// .npy or a shard directory; `processLocal` if it is process-local data),
/// or generated with `shapes` (--input-shape; for process-local data, the
/// argument's global shape).
struct InputPlan {
  std::vector<std::string> files;
  std::vector<bool> processLocal;
  std::vector<std::optional<std::vector<int64_t>>> shapes;
};

/// Reads and checks `options` against `program`'s arguments: each argument
/// named at most once by `--input` or `--process-local-input` and once by
/// `--input-shape`, `--input-shape` only for arguments with dynamic
/// dimensions and not with `--input`.
llvm::Expected<InputPlan> planInputs(const Program &program,
                                     const InputOptions &options);

/// The shape of a generated input for argument `index`: its static type's,
/// or the one --input-shape gives.
llvm::Expected<std::vector<int64_t>>
getInputShape(const Program &program, const InputPlan &plan, size_t index);

/// The error for argument `index` of `program`, which no input is given for
/// (and none is to be generated).
llvm::Error getMissingInputError(const Program &program, size_t index);

/// Checks that data of `dtype` and `shape` read from `path` fit argument
/// `index`.
llvm::Error checkInputType(const Program &program, size_t index,
                           llvm::StringRef path, ::tessera::rt::DType dtype,
                           llvm::ArrayRef<int64_t> shape);

/// Deterministic values for `seed` and argument `index`: floats uniform in
/// [-1, 1), signed integers in [-8, 8], unsigned in [0, 16], random bools.
/// Fails (with the size in the message) for a shape whose byte count
/// overflows or exceeds the host's memory.
llvm::Expected<::tessera::rt::HostArray>
makeRandomArray(::tessera::rt::DType dtype, std::vector<int64_t> shape,
                uint64_t seed, size_t index);

/// Keeps `value` alive until the process ends: what devices abandoned while
/// still running compiled code (`Mesh::hasRunawayDevices`) may read or run
/// must never be freed. Nothing else may use this.
template <typename T> void abandonWhileDevicesRun(T &&value) {
  new std::decay_t<T>(std::forward<T>(value));
}

/// Loads or generates every input of `program`'s entry and checks each
/// against its argument's type. An argument may be named once by `--input`
/// or once by `--input-shape` (only if its type has dynamic dimensions).
llvm::Expected<std::vector<::tessera::rt::HostArray>>
loadInputs(const Program &program, const InputOptions &options);

/// The shapes of the entry's inputs, without generating them: from the
/// `--input` files, `--input-shape` or the static types (what compiling
/// needs, e.g. for `--emit`).
llvm::Expected<std::vector<std::vector<int64_t>>>
getInputShapes(const Program &program, const InputOptions &options);

/// The outcome of running a compiled program on a mesh.
struct RunResult {
  /// [device][result]
  std::vector<std::vector<::tessera::rt::HostArray>> perDevice;
  /// The wall time of each run.
  std::vector<double> seconds;
};

/// The mesh coordinates of `device` in the mesh of `layout`: by its own
/// device order if it has one, else by `mesh`'s.
std::vector<int64_t> coordinatesIn(const ::tessera::rt::ShardLayout &layout,
                                   const ::tessera::rt::Mesh &mesh,
                                   int64_t device);

/// The arrays each device of this process gets: `perDevice[device][arg]`
/// (empty for the devices of other processes). Devices may share an array;
/// the program only reads them.
struct DeviceInputs {
  std::vector<std::vector<std::shared_ptr<const ::tessera::rt::HostArray>>>
      perDevice;
};

/// The inputs of the devices of `mesh` this process runs: for a per-device
/// entry each device's blocks of `inputs` (an unreduced sum placed on the
/// first device of each group, zeros on the others), otherwise every input
/// whole (not copied: `inputs` must outlive the result).
llvm::Expected<DeviceInputs>
scatterInputs(const ::tessera::rt::Mesh &mesh, const EntryLayouts &layouts,
              llvm::ArrayRef<::tessera::rt::HostArray> inputs);

/// The inputs of the devices of `mesh` this process runs from arrays built
/// with the blocks they hold (rt::makeArrayFromCallback,
/// rt::makeArrayFromProcessLocalData; one per argument, laid out by the
/// entry's argument layouts, or replicated for an entry that takes whole
/// arrays): an unreduced sum on the first device of each group, zeros on
/// the others.
DeviceInputs
makeDeviceInputs(const ::tessera::rt::Mesh &mesh, const EntryLayouts &layouts,
                 llvm::ArrayRef<::tessera::rt::DistributedArray> arrays);

/// Runs `compiled` `repeat` times on the devices of `mesh` this process
/// runs, with `inputs`. Returns each device's results of the last run (for
/// this process's devices); `traceLast` records a trace of it. With a mesh
/// spread over processes, every process calls it (Mesh::run is collective)
/// and the groups of the program's collectives are prepared first.
llvm::Expected<RunResult> runOnDevices(::tessera::rt::Mesh &mesh,
                                       const CompiledProgram &compiled,
                                       const DeviceInputs &inputs,
                                       unsigned repeat, bool traceLast);

/// scatterInputs, then runOnDevices.
llvm::Expected<RunResult>
runOnMesh(::tessera::rt::Mesh &mesh, const CompiledProgram &compiled,
          llvm::ArrayRef<::tessera::rt::HostArray> inputs, unsigned repeat,
          bool traceLast);

/// The results as global arrays, assembled from the devices' blocks. Devices
/// that hold the same block must hold the same values.
llvm::Expected<std::vector<::tessera::rt::HostArray>>
gatherResults(const RunResult &run, const EntryLayouts &layouts,
              const ::tessera::rt::Mesh &mesh);

/// The default `--check` tolerance (relative and absolute) of `dtype`.
double getDefaultTolerance(::tessera::rt::DType dtype);

} // namespace mlir::tessera::exec

#endif // TESSERA_EXECUTION_RUN_H
