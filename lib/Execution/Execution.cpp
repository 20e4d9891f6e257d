//===- Execution.cpp - compile and run a program on the mesh --------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Execution/Execution.h"

#include "tessera/Execution/Report.h"

#include "ExecutionSteps.h"
#include "tessera/Runtime/Kernel.h"
#include "tessera/Runtime/Mesh.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::exec;
using ::tessera::rt::DType;
using ::tessera::rt::HostArray;
namespace rt = ::tessera::rt;
namespace steps = mlir::tessera::exec::detail;
using namespace mlir::tessera::exec::detail;

/// `nan`, `-1`, `0.5`.
static std::string formatNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

llvm::Error mlir::tessera::exec::validateRunOptions(const RunOptions &options) {
  if (options.backend != "threads" && options.backend != "mpi")
    return makeError("unknown --backend '" + options.backend +
                     "' (expected threads or mpi)");
  if (!options.emit.empty() && options.emit != "mlir" &&
      options.emit != "llvm" && options.emit != "obj")
    return makeError("unknown --emit '" + options.emit +
                     "' (expected mlir, llvm or obj)");
  if (options.repeat < 1)
    return makeError("--repeat must be at least 1");
  if (options.compile.optLevel > 3)
    return makeError("--opt-level must be 0, 1, 2 or 3, got '" +
                     llvm::Twine(options.compile.optLevel) + "'");
  if (options.compile.kernelMode != "pipelined" &&
      options.compile.kernelMode != "interpret")
    return makeError("--kernel-mode must be pipelined or interpret, got '" +
                     options.compile.kernelMode + "'");
  auto checkSeconds = [](const std::optional<double> &value,
                         llvm::StringRef name) -> llvm::Error {
    if (value && !(std::isfinite(*value) && *value >= 0))
      return makeError(name + " must be a finite number >= 0, got '" +
                       formatNumber(*value) + "'");
    return llvm::Error::success();
  };
  if (llvm::Error error = checkSeconds(options.rtol, "--rtol"))
    return error;
  if (llvm::Error error = checkSeconds(options.atol, "--atol"))
    return error;
  if (llvm::Error error =
          checkSeconds(options.watchdogSeconds, "--watchdog-seconds"))
    return error;
  if (options.devicesPerProcess && options.backend != "mpi")
    return makeError("--devices-per-process applies to --backend=mpi");
  if (options.devicesPerProcess && *options.devicesPerProcess < 1)
    return makeError("--devices-per-process must be at least 1, got '" +
                     llvm::Twine(*options.devicesPerProcess) + "'");
  if (options.outputShards && options.outputDir.empty())
    return makeError("--output-shards needs --output-dir (where the shards "
                     "are written)");
  if (!options.emit.empty()) {
    // What only a run does.
    std::pair<bool, const char *> runOnly[] = {
        {options.check, "--check"},
        {!options.outputDir.empty(), "--output-dir"},
        {!options.trace.empty(), "--trace"},
        {options.repeat != 1, "--repeat"},
        {options.timing, "--timing"},
        {options.stats, "--stats"},
        {options.showSharding, "--show-sharding"},
        {options.printResults, "--print-results"},
        {!options.saveInputsDir.empty(), "--save-inputs"},
        {options.watchdogSeconds.has_value(), "--watchdog-seconds"},
        {options.rtol.has_value(), "--rtol"},
        {options.atol.has_value(), "--atol"}};
    for (auto [given, name] : runOnly)
      if (given)
        return makeError(llvm::Twine(name) +
                         " applies to a run, not to --emit=" + options.emit);
  }
  return llvm::Error::success();
}

std::vector<std::vector<int64_t>>
steps::getShapes(llvm::ArrayRef<HostArray> arrays) {
  std::vector<std::vector<int64_t>> shapes;
  for (const HostArray &array : arrays)
    shapes.push_back(array.getShape());
  return shapes;
}

/// Compiles `program` for `shapes` and writes the lowered module as `--emit`
/// asks.
static llvm::Error emit(Program &program, ArrayRef<std::vector<int64_t>> shapes,
                        const RunOptions &options) {
  llvm::Expected<LoweredProgram> lowered =
      lowerProgram(program, shapes, options.compile, /*wantViews=*/false);
  if (!lowered)
    return lowered.takeError();
  ModuleOp module = *lowered->module;
  std::string error;
  auto output = openOutputFile(options.emitFile, &error);
  if (!output)
    return makeError(error);
  EmitKind kind = options.emit == "mlir"   ? EmitKind::Mlir
                  : options.emit == "llvm" ? EmitKind::Llvm
                                           : EmitKind::Object;
  if (llvm::Error err = emitModule(module, kind, output->os(), options.compile))
    return err;
  output->keep();
  return llvm::Error::success();
}

void steps::printDeviceStats(llvm::ArrayRef<rt::DeviceStats> devices,
                             bool timing) {
  // With --timing, the time each device spent in collectives in the last
  // run (waiting and copying), and the part of it after all members of each
  // call had arrived (copying).
  std::printf("stats: %-6s %12s %12s %14s%s\n", "device", "peak memory",
              "collectives", "bytes sent",
              timing ? "  collective time        data time" : "");
  for (size_t d = 0; d < devices.size(); ++d) {
    const rt::DeviceStats &s = devices[d];
    std::printf("stats: %-6lld %12s %12lld %14s", static_cast<long long>(d),
                formatBytes(s.peakBytes).c_str(),
                static_cast<long long>(s.collectiveCalls),
                formatBytes(s.collectiveBytes).c_str());
    if (timing)
      std::printf(" %13.3f ms %13.3f ms", s.collectiveSeconds * 1e3,
                  s.collectiveDataSeconds * 1e3);
    std::printf("\n");
  }
}

static void printStats(const rt::Mesh &mesh, bool timing) {
  std::vector<rt::DeviceStats> devices;
  for (int64_t d = 0; d < mesh.numDevices(); ++d)
    devices.push_back(mesh.stats(d));
  steps::printDeviceStats(devices, timing);
  printKernelStats(rt::getKernelCallRecords());
}

std::string steps::describeCompile(const CompileReport &report) {
  std::string how = !report.cacheUsed ? "cache " + report.note
                    : report.hit      ? std::string("cache hit")
                                      : std::string("cache miss");
  if (report.cacheUsed && !report.note.empty())
    how += ": " + report.note;
  char text[64];
  std::snprintf(text, sizeof(text), "%.1f ms", report.seconds * 1e3);
  return std::string(text) + " (" + how + ")";
}

void steps::printCacheStats(const CompileReport &report, const char *what) {
  if (!report.cacheUsed) {
    std::printf("cache: %s: %s\n", what, report.note.c_str());
    return;
  }
  std::printf("cache: %s: %s, entry %s (%s)%s%s\n", what,
              report.hit ? "hit" : "miss", report.entryPath.c_str(),
              report.entryBytes ? formatBytes(report.entryBytes).c_str()
                                : "not stored",
              report.note.empty() ? "" : ": ", report.note.c_str());
}

void steps::printTiming(const CompileReport &compile,
                        std::vector<double> seconds) {
  std::vector<double> ms;
  for (double s : seconds)
    ms.push_back(s * 1e3);
  std::sort(ms.begin(), ms.end());
  double median = ms.size() % 2
                      ? ms[ms.size() / 2]
                      : (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]) / 2;
  std::printf("compile: %s\n", describeCompile(compile).c_str());
  std::printf("run: median %.3f ms, min %.3f ms, max %.3f ms over %zu runs\n",
              median, ms.front(), ms.back(), ms.size());
}

llvm::Error steps::writeArrays(const std::string &dir, llvm::StringRef prefix,
                               llvm::ArrayRef<HostArray> arrays,
                               llvm::StringRef option) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return makeError(option + ": cannot create the directory '" + dir +
                     "': " + ec.message());
  std::vector<std::string> paths;
  for (size_t i = 0; i < arrays.size(); ++i) {
    llvm::SmallString<128> path(dir);
    llvm::sys::path::append(path, prefix + std::to_string(i) + ".npy");
    paths.push_back(path.str().str());
    llvm::sys::fs::file_status status;
    std::error_code ec = llvm::sys::fs::status(path, status);
    if (!ec && llvm::sys::fs::is_directory(status))
      return makeError(option + ": cannot create '" + paths.back() +
                       "': it is a directory");
    bool exists = !ec && llvm::sys::fs::exists(status);
    if (std::error_code access = llvm::sys::fs::access(
            exists ? llvm::StringRef(path) : llvm::StringRef(dir),
            llvm::sys::fs::AccessMode::Write))
      return makeError(option + ": cannot create '" + paths.back() +
                       "': " + access.message());
  }
  for (size_t i = 0; i < arrays.size(); ++i) {
    std::string error;
    if (!rt::writeNpy(paths[i], arrays[i], error))
      return makeError(option + ": " + error);
  }
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<rt::Mesh>>
steps::createMesh(const MeshInfo &info, const RunOptions &options,
                  llvm::StringRef what) {
  rt::MeshSpec spec{info.names, info.sizes, info.deviceIds};
  std::string error;
  std::unique_ptr<rt::Mesh> mesh = rt::Mesh::create(spec, error);
  if (!mesh)
    return makeError("cannot create " + what + ": " + error);
  if (options.watchdogSeconds &&
      !mesh->setWatchdogTimeout(*options.watchdogSeconds))
    return makeError("--watchdog-seconds must be a finite number >= 0");
  return std::move(mesh);
}

llvm::Expected<std::vector<HostArray>>
steps::runReference(Program &program, std::vector<HostArray> &inputs,
                    const RunOptions &options, CompileReport &report) {
  llvm::Expected<CompiledRun> built =
      compileForRun(program, getShapes(inputs), options.compile, options.cache,
                    CompileTarget::Reference, /*wantViews=*/false);
  if (!built)
    return built.takeError();
  report = built->report;
  CompiledProgram *compiled = &built->compiled;
  const MeshInfo &single = built->mesh;
  auto mesh = steps::createMesh(single, options, "the reference mesh");
  if (!mesh)
    return mesh.takeError();
  llvm::Expected<RunResult> run =
      runOnMesh(**mesh, *compiled, inputs, 1, /*traceLast=*/false);
  if (!run) {
    if ((*mesh)->hasRunawayDevices()) {
      abandonWhileDevicesRun(std::move(*compiled));
      abandonWhileDevicesRun(std::move(inputs));
    }
    return run.takeError();
  }
  return gatherResults(*run, compiled->layouts, **mesh);
}

llvm::Error mlir::tessera::exec::runProgram(Program &program,
                                            const RunOptions &options) {
  if (llvm::Error error = validateRunOptions(options))
    return error;
  if (options.backend == "mpi")
    return steps::runDistributed(program, options);
  if (!options.meshSizes.empty())
    if (llvm::Error error = overrideMeshSizes(program, options.meshSizes))
      return error;
  // Refused before compiling: the partitioner would list every device.
  if (program.mesh.getNumDevices() > rt::Mesh::kMaxDevices)
    return makeError("the mesh " + program.mesh.toString() + " has " +
                     llvm::Twine(program.mesh.getNumDevices()) +
                     " devices; the emulated mesh runs at most " +
                     llvm::Twine(rt::Mesh::kMaxDevices) + " (one thread each)");
  // --emit compiles for the inputs' shapes and needs no values.
  std::vector<HostArray> inputs;
  std::vector<std::vector<int64_t>> shapes;
  if (options.emit.empty()) {
    llvm::Expected<std::vector<HostArray>> loaded =
        loadInputs(program, options.inputs);
    if (!loaded)
      return loaded.takeError();
    inputs = std::move(*loaded);
    shapes = getShapes(inputs);
    if (!options.saveInputsDir.empty())
      if (llvm::Error error = steps::writeArrays(options.saveInputsDir, "arg",
                                                 inputs, "--save-inputs"))
        return error;
  } else {
    llvm::Expected<std::vector<std::vector<int64_t>>> given =
        getInputShapes(program, options.inputs);
    if (!given)
      return given.takeError();
    shapes = std::move(*given);
  }

  if (!options.emit.empty())
    return emit(program, shapes, options);
  // The device program, compiled or from the cache.
  llvm::Expected<CompiledRun> built =
      compileForRun(program, shapes, options.compile, options.cache,
                    CompileTarget::Program, options.showSharding);
  if (!built)
    return built.takeError();
  CompiledProgram *compiled = &built->compiled;
  std::vector<ShardingView> &views = built->views;

  std::string meshText = program.mesh.toString();
  auto mesh = steps::createMesh(program.mesh, options, "the mesh " + meshText);
  if (!mesh)
    return mesh.takeError();
  rt::Mesh &emulated = **mesh;
  std::printf("tessera-run: @%s on %s (%lld device%s)\n",
              program.entryName.c_str(), meshText.c_str(),
              static_cast<long long>(emulated.numDevices()),
              emulated.numDevices() == 1 ? "" : "s");
  llvm::Expected<RunResult> run = runOnMesh(
      emulated, *compiled, inputs, options.repeat, !options.trace.empty());
  std::string error;
  if (!run && emulated.hasRunawayDevices()) {
    // A device still runs the compiled code and reads the inputs: neither
    // may be freed. The caller exits soon after.
    abandonWhileDevicesRun(std::move(*compiled));
    abandonWhileDevicesRun(std::move(inputs));
  }
  if (!run) {
    // The trace of a failed run ends with the failure.
    if (!options.trace.empty() && !emulated.writeTrace(options.trace, error))
      return llvm::joinErrors(run.takeError(), makeError(error));
    return run.takeError();
  }
  const EntryLayouts &entryLayouts = compiled->layouts;
  llvm::Expected<std::vector<HostArray>> outputs =
      gatherResults(*run, entryLayouts, emulated);
  if (!outputs)
    return outputs.takeError();

  for (size_t i = 0; i < outputs->size(); ++i)
    printSummary("result" + std::to_string(i), (*outputs)[i],
                 options.printResults);
  if (!options.outputDir.empty() && options.outputShards) {
    auto sharded = steps::writeResultShards(options.outputDir, *run,
                                            entryLayouts, emulated);
    if (!sharded)
      return sharded.takeError();
    if (llvm::Error error = steps::writeResultIndexes(*sharded))
      return error;
  } else if (!options.outputDir.empty()) {
    if (llvm::Error error = steps::writeArrays(options.outputDir, "result",
                                               *outputs, "--output-dir"))
      return error;
  }
  if (options.showSharding)
    steps::printShardings(views, entryLayouts, emulated, getShapes(inputs),
                          getShapes(*outputs), program.args.size());
  // Whether the cache had the code depends on earlier runs, like a time:
  // --timing says it, and with --stats also names the entry.
  if (options.stats) {
    printStats(emulated, options.timing);
    if (options.timing)
      printCacheStats(built->report, "program");
  }
  if (options.timing)
    steps::printTiming(built->report, run->seconds);
  if (!options.trace.empty() && !emulated.writeTrace(options.trace, error))
    return makeError(error);
  if (!options.check)
    return llvm::Error::success();

  CompileReport referenceReport;
  llvm::Expected<std::vector<HostArray>> expected =
      steps::runReference(program, inputs, options, referenceReport);
  if (!expected)
    return expected.takeError();
  if (options.stats && options.timing)
    steps::printCacheStats(referenceReport, "reference");
  if (options.timing)
    std::printf("compile (reference): %s\n",
                steps::describeCompile(referenceReport).c_str());
  return steps::compareWithReference(program, *outputs, *expected, options);
}

void steps::printShardings(
    std::vector<ShardingView> views, const EntryLayouts &layouts,
    const rt::Mesh &mesh, const std::vector<std::vector<int64_t>> &argShapes,
    const std::vector<std::vector<int64_t>> &resultShapes, size_t numArgs) {
  if (layouts.perDevice) {
    std::printf("sharding (the partitioned program: each device gets and "
                "returns exactly its blocks):\n");
    for (size_t i = 0; i < views.size(); ++i) {
      bool isArg = i < numArgs;
      size_t k = isArg ? i : i - numArgs;
      views[i].layout = isArg ? layouts.args[k] : layouts.results[k];
      views[i].sharding = isArg ? layouts.argText[k] : layouts.resultText[k];
    }
  } else {
    std::printf("sharding (the entry's arguments and results are "
                "replicated: every device gets and returns whole "
                "arrays):\n");
  }
  for (size_t i = 0; i < views.size(); ++i) {
    std::vector<std::vector<int64_t>> coords;
    for (int64_t d = 0; d < mesh.numDevices(); ++d)
      coords.push_back(coordinatesIn(views[i].layout, mesh, d));
    printShardingGrid(views[i],
                      i < numArgs ? argShapes[i] : resultShapes[i - numArgs],
                      coords);
  }
}

llvm::Error steps::compareWithReference(const Program &program,
                                        llvm::ArrayRef<HostArray> outputs,
                                        llvm::ArrayRef<HostArray> expected,
                                        const RunOptions &options) {
  int mismatches = 0;
  for (size_t i = 0; i < outputs.size(); ++i) {
    DType dtype = outputs[i].getDType();
    double rtol = options.rtol.value_or(getDefaultTolerance(dtype));
    double atol = options.atol.value_or(getDefaultTolerance(dtype));
    if (!compareArrays("result" + std::to_string(i), outputs[i], expected[i],
                       rtol, atol))
      ++mismatches;
  }
  if (mismatches) {
    std::printf("check: FAILED: %d of %zu results differ from the "
                "single-device reference\n",
                mismatches, outputs.size());
    return makeReportedError();
  }
  std::printf("check: all %zu results match the single-device reference%s\n",
              outputs.size(),
              program.hasKernelCalls() ? " (kernels in interpret mode)" : "");
  return llvm::Error::success();
}
