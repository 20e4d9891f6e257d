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

#include <string>
#include <type_traits>
#include <vector>

namespace tessera::rt {
class Mesh;
} // namespace tessera::rt

namespace mlir::tessera::exec {

/// Where the entry's inputs come from.
struct InputOptions {
  /// `NAME_OR_INDEX=path.npy` items.
  std::vector<std::string> files;
  /// `NAME_OR_INDEX=4x8` items: the shapes of generated inputs with dynamic
  /// dimensions.
  std::vector<std::string> shapes;
  /// Generate the inputs no file gives.
  bool random = false;
  uint64_t seed = 0;
};

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

/// Runs `compiled` `repeat` times on `mesh`. A per-device entry gets each
/// device's blocks of the inputs; otherwise every device gets every input
/// whole (shared, read only). Returns each device's results of the last run;
/// `traceLast` records a trace of it.
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
