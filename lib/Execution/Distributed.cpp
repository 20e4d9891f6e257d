//===- Distributed.cpp - running a program over MPI processes -------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// `tessera-run --backend=mpi` under mpirun: every process compiles the
// program, runs its contiguous block of the mesh's devices and loads only
// the blocks of the inputs they hold (JAX's distributed data loading); rank
// 0 gathers the results and prints the report. Each step ends with every
// process agreeing on its outcome, so that a step that fails on one process
// fails on all with that process's message instead of leaving the others
// waiting.
//
//===----------------------------------------------------------------------===//

#include "tessera/Execution/Artifact.h"
#include "tessera/Execution/Execution.h"

#include "tessera/Execution/Shards.h"
#include "tessera/Runtime/DistributedArray.h"
#include "tessera/Runtime/Kernel.h"
#include "tessera/Runtime/Mesh.h"
#include "tessera/Runtime/Mpi.h"
#include "tessera/Runtime/NpyReader.h"
#include "tessera/Runtime/Transport.h"

#include "ExecutionSteps.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::exec;
using ::tessera::rt::BlockIndex;
using ::tessera::rt::DType;
using ::tessera::rt::HostArray;
namespace rt = ::tessera::rt;
namespace steps = mlir::tessera::exec::detail;
using namespace mlir::tessera::exec::detail;

//===----------------------------------------------------------------------===//
// The job
//===----------------------------------------------------------------------===//

namespace {
/// This process's part in an MPI job.
struct Session {
  std::shared_ptr<rt::Transport> transport;
  /// Set when a run failed: its collectives may have left communication
  /// unfinished, so MPI is not finalized.
  bool dirty = false;
};
} // namespace

static Session &getSession() {
  static Session *session = new Session();
  return *session;
}

llvm::Error mlir::tessera::exec::startBackend(const RunOptions &options) {
  if (options.backend != "mpi" || getSession().transport)
    return llvm::Error::success();
  std::string error;
  getSession().transport = rt::getMpiTransport(error);
  if (!getSession().transport)
    return makeError("--backend=mpi: " + error);
  return llvm::Error::success();
}

/// A ReportedError travels as this text; its process already printed the
/// diagnostics.
static constexpr const char *kReported = "\x01";

llvm::Error
mlir::tessera::exec::agreeAcrossProcesses(llvm::Error error,
                                          const RunOptions &options) {
  if (options.backend != "mpi" || !getSession().transport)
    return error;
  bool reported = false;
  std::string mine;
  if (error) {
    llvm::handleAllErrors(
        std::move(error), [&](const ReportedError &) { reported = true; },
        [&](const llvm::ErrorInfoBase &info) { mine = info.message(); });
    if (reported)
      mine = kReported;
    if (mine.empty())
      mine = "failed";
  }
  std::string agreed = rt::agreeOnError(*getSession().transport, mine);
  if (agreed.empty())
    return llvm::Error::success();
  // "rank R: <message>".
  size_t colon = agreed.find(": ");
  std::string message = agreed.substr(colon + 2);
  if (message == kReported) {
    // A process that reported its own errors adds nothing; the others say
    // whose errors they were.
    if (reported)
      return makeReportedError();
    return makeError(agreed.substr(0, colon) +
                     ": failed with the errors it reported above");
  }
  return makeError(agreed);
}

int mlir::tessera::exec::finishBackend(int status) {
  if (!rt::isMpiActive())
    return status;
  std::fflush(stdout);
  std::fflush(stderr);
  Session &session = getSession();
  bool clean = !session.dirty;
  session.transport.reset();
  rt::finalizeMpi(clean);
  if (!clean)
    std::_Exit(status);
  return status;
}

//===----------------------------------------------------------------------===//
// Serialization of what processes send rank 0
//===----------------------------------------------------------------------===//

namespace {
/// Appends values to a byte string.
class Writer {
public:
  void i64(int64_t value) { bytes(&value, sizeof(value)); }
  void bytes(const void *data, size_t size) {
    text.append(static_cast<const char *>(data), size);
  }
  void string(const std::string &value) {
    i64(static_cast<int64_t>(value.size()));
    text += value;
  }
  void ints(const std::vector<int64_t> &values) {
    i64(static_cast<int64_t>(values.size()));
    for (int64_t v : values)
      i64(v);
  }
  void array(const HostArray &value) {
    i64(static_cast<int64_t>(value.getDType()));
    ints(value.getShape());
    bytes(value.data(), value.getNumBytes());
  }
  std::string text;
};

/// Reads what a Writer wrote; `ok` turns false on malformed data.
class Reader {
public:
  explicit Reader(const std::string &text) : text(text) {}
  int64_t i64() {
    int64_t value = 0;
    take(&value, sizeof(value));
    return value;
  }
  void take(void *out, size_t size) {
    if (pos + size > text.size()) {
      ok = false;
      return;
    }
    std::memcpy(out, text.data() + pos, size);
    pos += size;
  }
  std::string string() {
    int64_t size = i64();
    if (size < 0 || pos + size > text.size()) {
      ok = false;
      return "";
    }
    std::string value = text.substr(pos, size);
    pos += size;
    return value;
  }
  std::vector<int64_t> ints() {
    int64_t size = i64();
    std::vector<int64_t> values;
    for (int64_t i = 0; ok && i < size; ++i)
      values.push_back(i64());
    return values;
  }
  HostArray array() {
    auto dtype = static_cast<DType>(i64());
    std::vector<int64_t> shape = ints();
    HostArray value;
    std::string error;
    if (!ok || !HostArray::create(dtype, shape, value, error)) {
      ok = false;
      return value;
    }
    take(value.data(), value.getNumBytes());
    return value;
  }
  bool ok = true;

private:
  const std::string &text;
  size_t pos = 0;
};
} // namespace

/// Sends every process's `mine` to rank 0 (`all` there, by rank).
static llvm::Error gatherToRoot(const std::string &mine,
                                std::vector<std::string> &all) {
  std::string error;
  if (!rt::gatherStrings(*getSession().transport, mine, 0, all, error))
    return makeError("cannot gather the processes' data on rank 0: " + error);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

namespace {
/// Where an argument's blocks come from.
struct InputSource {
  enum class Kind { File, Shards, ProcessLocal, Random };
  Kind kind = Kind::Random;
  std::string path;
  std::unique_ptr<rt::NpyReader> npy;
  std::optional<ShardIndex> shards;
  /// Process-local data; a generated input's global value.
  HostArray data;
  std::vector<int64_t> globalShape;
  DType dtype = DType::F32;
  /// The data bytes this process read for it.
  int64_t bytesRead = 0;
};
} // namespace

/// Where each input comes from and its global shape (what compiling needs).
static llvm::Error planSources(const Program &program,
                               const RunOptions &options,
                               std::vector<InputSource> &sources) {
  llvm::Expected<InputPlan> plan = planInputs(program, options.inputs);
  if (!plan)
    return plan.takeError();
  sources.resize(program.args.size());
  for (size_t i = 0; i < program.args.size(); ++i) {
    InputSource &source = sources[i];
    const ArgInfo &arg = program.args[i];
    source.path = plan->files[i];
    std::string error;
    if (source.path.empty()) {
      if (!options.inputs.random)
        return getMissingInputError(program, i);
      llvm::Expected<std::vector<int64_t>> shape =
          getInputShape(program, *plan, i);
      if (!shape)
        return shape.takeError();
      source.globalShape = *shape;
      source.dtype = arg.dtype;
      continue;
    }
    if (plan->processLocal[i]) {
      source.kind = InputSource::Kind::ProcessLocal;
      if (!rt::readNpy(source.path, source.data, error))
        return makeError(error);
      source.dtype = source.data.getDType();
      // (An artifact's dtypes are checked with the rest of its call.)
      if (source.data.getDType() != arg.dtype && !program.artifact)
        return checkInputType(program, i, source.path, source.data.getDType(),
                              source.data.getShape());
      if (static_cast<int64_t>(source.data.getShape().size()) !=
          arg.type.getRank())
        return makeError(source.path + ": process-local data of rank " +
                         std::to_string(source.data.getShape().size()) +
                         " for " + program.describeArg(i) + " of type " +
                         typeToString(arg.type));
      // The global shape: the type's, or --input-shape's.
      if (plan->shapes[i]) {
        source.globalShape = *plan->shapes[i];
      } else if (arg.type.hasStaticShape()) {
        source.globalShape.assign(arg.type.getShape().begin(),
                                  arg.type.getShape().end());
      } else {
        return makeError("--process-local-input gives this process's part of " +
                         program.describeArg(i) + ", whose type " +
                         typeToString(arg.type) +
                         " is dynamic: give its global shape with "
                         "--input-shape " +
                         std::to_string(i) + "=...");
      }
      continue;
    }
    if (isDirectory(source.path)) {
      source.kind = InputSource::Kind::Shards;
      llvm::Expected<ShardIndex> index = readShardIndex(source.path);
      if (!index)
        return index.takeError();
      if (llvm::Error error = checkInputType(program, i, source.path,
                                             index->dtype, index->shape))
        return error;
      source.globalShape = index->shape;
      source.dtype = index->dtype;
      source.shards = std::move(*index);
      continue;
    }
    source.kind = InputSource::Kind::File;
    source.npy = rt::NpyReader::open(source.path, error);
    if (!source.npy)
      return makeError(error);
    const rt::NpyHeader &header = source.npy->getHeader();
    if (llvm::Error error =
            checkInputType(program, i, source.path, header.dtype, header.shape))
      return error;
    if (header.fortranOrder)
      return makeError(source.path +
                       ": a Fortran-order .npy file cannot be read in blocks "
                       "(--backend=mpi reads only each process's blocks; "
                       "write it in C order, e.g. with "
                       "numpy.ascontiguousarray)");
    source.globalShape = header.shape;
    source.dtype = header.dtype;
  }
  // An artifact's inputs are checked as Exported.call checks them.
  if (program.artifact) {
    std::vector<std::vector<int64_t>> shapes;
    std::vector<DType> dtypes;
    for (const InputSource &source : sources) {
      shapes.push_back(source.globalShape);
      dtypes.push_back(source.dtype);
    }
    return checkArtifactCall(program, shapes, dtypes);
  }
  return llvm::Error::success();
}

/// Builds this process's blocks of input `i` from its source.
static llvm::Error loadBlocks(const Program &program, size_t i,
                              InputSource &source, const rt::Mesh &mesh,
                              const rt::ShardLayout &layout,
                              const RunOptions &options,
                              rt::DistributedArray &array) {
  DType dtype = program.args[i].dtype;
  std::string error;
  bool ok = false;
  switch (source.kind) {
  case InputSource::Kind::ProcessLocal:
    ok = rt::makeArrayFromProcessLocalData(mesh, layout, source.globalShape,
                                           source.data, array, error);
    if (ok)
      source.bytesRead = source.data.getNumBytes();
    if (!ok)
      error = source.path + ": " + error;
    break;
  case InputSource::Kind::File:
    ok = rt::makeArrayFromCallback(
        mesh, dtype, source.globalShape, layout,
        [&](const BlockIndex &index, HostArray &data, std::string &message) {
          return source.npy->readBox(index.start, index.stop, data, message);
        },
        array, error);
    source.bytesRead = source.npy->getBytesRead();
    break;
  case InputSource::Kind::Shards: {
    ok = rt::makeArrayFromCallback(
        mesh, dtype, source.globalShape, layout,
        [&](const BlockIndex &index, HostArray &data, std::string &message) {
          if (llvm::Error e =
                  readShardBox(*source.shards, index, data, source.bytesRead)) {
            message = llvm::toString(std::move(e));
            return false;
          }
          return true;
        },
        array, error);
    break;
  }
  case InputSource::Kind::Random: {
    // Generated whole on every process (the values are sequential in the
    // seed), then cut.
    llvm::Expected<HostArray> generated =
        makeRandomArray(dtype, source.globalShape, options.inputs.seed, i);
    if (!generated)
      return makeError(program.describeArg(i) + ": " +
                       llvm::toString(generated.takeError()));
    source.data = std::move(*generated);
    ok = rt::makeArrayFromCallback(
        mesh, dtype, source.globalShape, layout,
        [&](const BlockIndex &index, HostArray &data, std::string &) {
          data = getRegion(source.data, index);
          return true;
        },
        array, error);
    break;
  }
  }
  if (!ok)
    return makeError(program.describeArg(i) + ": " + error);
  return llvm::Error::success();
}

/// The shard layout of every dimension replicated.
static rt::ShardLayout getReplicatedLayout(size_t rank) {
  rt::ShardLayout layout;
  layout.dims.resize(rank);
  return layout;
}

/// The global inputs on rank 0, from every process's distinct blocks (for
/// --check and --save-inputs); empty elsewhere.
static llvm::Error gatherInputs(llvm::ArrayRef<rt::DistributedArray> arrays,
                                std::vector<HostArray> &inputs) {
  Writer writer;
  for (const rt::DistributedArray &array : arrays) {
    writer.i64(static_cast<int64_t>(array.distinct.size()));
    for (const auto &[index, data] : array.distinct) {
      writer.ints(index.start);
      writer.ints(index.stop);
      writer.array(*data);
    }
  }
  std::vector<std::string> all;
  if (llvm::Error error = gatherToRoot(writer.text, all))
    return error;
  if (all.empty())
    return llvm::Error::success();
  for (const rt::DistributedArray &array : arrays) {
    HostArray global;
    std::string error;
    if (!HostArray::create(array.dtype, array.globalShape, global, error))
      return makeError("rank 0 cannot hold the inputs for --check: " + error);
    inputs.push_back(std::move(global));
  }
  for (const std::string &text : all) {
    Reader reader(text);
    for (HostArray &global : inputs) {
      int64_t count = reader.i64();
      for (int64_t b = 0; reader.ok && b < count; ++b) {
        BlockIndex index;
        index.start = reader.ints();
        index.stop = reader.ints();
        HostArray data = reader.array();
        if (reader.ok)
          placeBlockData(global, index, data);
      }
    }
    if (!reader.ok)
      return makeError("malformed input blocks from a process");
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Results
//===----------------------------------------------------------------------===//

/// The global shape of result `r`: dynamic dimensions from a block of
/// `run`.
static std::vector<int64_t> getResultShape(const EntryLayouts &layouts,
                                           size_t r, const HostArray &block) {
  if (!layouts.perDevice)
    return block.getShape();
  std::vector<int64_t> shape = layouts.resultShapes[r];
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] < 0)
      shape[d] = block.getShape()[d] * layouts.results[r].getNumBlocks(d);
  return shape;
}

llvm::Expected<std::vector<steps::ShardedResult>>
steps::writeResultShards(const std::string &dir, const RunResult &run,
                         const EntryLayouts &layouts, const rt::Mesh &mesh) {
  std::vector<ShardedResult> results;
  int64_t first = mesh.getFirstLocalDevice();
  const std::vector<HostArray> &firstResults = run.perDevice[first];
  for (size_t r = 0; r < firstResults.size(); ++r) {
    if (layouts.perDevice && !layouts.resultUnreduced[r].empty())
      return makeError("--output-shards: result " + std::to_string(r) +
                       " is unreduced (its devices hold partial values that "
                       "must be combined first): write it with --output-dir "
                       "alone");
    ShardedResult result;
    result.dtype = firstResults[r].getDType();
    result.shape = getResultShape(layouts, r, firstResults[r]);
    rt::ShardLayout layout = layouts.perDevice
                                 ? layouts.results[r]
                                 : getReplicatedLayout(result.shape.size());
    llvm::SmallString<128> path(dir);
    llvm::sys::path::append(path, "result" + std::to_string(r));
    result.dir = path.str().str();
    if (std::error_code ec = llvm::sys::fs::create_directories(path))
      return makeError("--output-shards: cannot create the directory '" + path +
                       "': " + ec.message());
    // Each distinct block once: by the lowest device holding it.
    std::map<BlockIndex, int64_t> owners;
    for (int64_t d = 0; d < mesh.numDevices(); ++d) {
      BlockIndex index = rt::getBlockIndexOf(layout, mesh, d, result.shape);
      auto [it, inserted] = owners.try_emplace(index, d);
      if (inserted)
        result.blocks.push_back(index);
      if (!mesh.isLocalDevice(d))
        continue;
      HostArray data = getBlockData(run.perDevice[d][r], index);
      if (inserted) {
        if (llvm::Error error = writeShardFile(path, index, data))
          return std::move(error);
        continue;
      }
      // Devices of this process holding one block must agree.
      if (!mesh.isLocalDevice(it->second))
        continue;
      HostArray held = getBlockData(run.perDevice[it->second][r], index);
      if (std::memcmp(held.data(), data.data(), data.getNumBytes()) != 0)
        return makeError(
            "result " + std::to_string(r) + " differs between device " +
            std::to_string(it->second) + " and device " + std::to_string(d) +
            ": a manual computation declares it replicated "
            "over a manual axis (its out_shardings) but "
            "computes a value that varies along it");
    }
    results.push_back(std::move(result));
  }
  return std::move(results);
}

llvm::Error
steps::writeResultIndexes(const std::vector<ShardedResult> &results) {
  for (const ShardedResult &result : results)
    if (llvm::Error error = writeShardIndex(result.dir, result.dtype,
                                            result.shape, result.blocks))
      return error;
  return llvm::Error::success();
}

/// Every device's results of the last run on rank 0 (`run` there gets the
/// other processes' devices).
static llvm::Error gatherRun(RunResult &run, const rt::Mesh &mesh) {
  Writer writer;
  for (int64_t d = mesh.getFirstLocalDevice();
       d < mesh.getFirstLocalDevice() + mesh.getNumLocalDevices(); ++d) {
    writer.i64(d);
    writer.i64(static_cast<int64_t>(run.perDevice[d].size()));
    for (const HostArray &result : run.perDevice[d])
      writer.array(result);
  }
  std::vector<std::string> all;
  if (llvm::Error error = gatherToRoot(writer.text, all))
    return error;
  for (size_t p = 1; p < all.size(); ++p) {
    Reader reader(all[p]);
    for (int64_t i = 0; reader.ok && i < mesh.getNumLocalDevices(); ++i) {
      int64_t d = reader.i64();
      int64_t count = reader.i64();
      if (!reader.ok || d < 0 || d >= mesh.numDevices())
        break;
      run.perDevice[d].clear();
      for (int64_t r = 0; reader.ok && r < count; ++r)
        run.perDevice[d].push_back(reader.array());
    }
    if (!reader.ok)
      return makeError("malformed results from rank " + std::to_string(p));
  }
  return llvm::Error::success();
}

/// What `--stats` prints of the inputs of this process.
static std::string describeReads(const Program &program,
                                 const std::vector<InputSource> &sources,
                                 int rank) {
  std::string text;
  for (size_t i = 0; i < sources.size(); ++i) {
    const InputSource &source = sources[i];
    std::string head = "stats: rank " + std::to_string(rank);
    std::string arg = program.describeArg(i);
    switch (source.kind) {
    case InputSource::Kind::File:
      text += head + " read " + std::to_string(source.bytesRead) + " of the " +
              std::to_string(source.npy->getHeader().dataBytes) +
              " data bytes of " + arg + " from " + source.path + "\n";
      break;
    case InputSource::Kind::Shards: {
      int64_t total = rt::getDTypeBytes(source.shards->dtype);
      for (int64_t d : source.globalShape)
        total *= d;
      text += head + " read " + std::to_string(source.bytesRead) + " of the " +
              std::to_string(total) + " data bytes of " + arg +
              " from the shards in " + source.path + "\n";
      break;
    }
    case InputSource::Kind::ProcessLocal:
      text += head + " read " + std::to_string(source.bytesRead) +
              " bytes of process-local data of " + arg + " from " +
              source.path + "\n";
      break;
    case InputSource::Kind::Random:
      text += head + " generated " + arg + "\n";
      break;
    }
  }
  return text;
}

/// The stats of this process's devices, its reads and its loading time,
/// for rank 0.
static std::string packStats(const rt::Mesh &mesh, const std::string &reads,
                             const std::string &load) {
  Writer writer;
  writer.string(reads);
  writer.string(load);
  writer.i64(mesh.getNumLocalDevices());
  for (int64_t i = 0; i < mesh.getNumLocalDevices(); ++i) {
    int64_t d = mesh.getFirstLocalDevice() + i;
    rt::DeviceStats s = mesh.stats(d);
    writer.i64(d);
    writer.bytes(&s, sizeof(s));
  }
  return writer.text;
}

/// `t.json` -> `t.rank1.json`: the trace of one process.
static std::string getTracePath(const std::string &path, int rank) {
  llvm::StringRef stem = llvm::sys::path::stem(path);
  llvm::StringRef extension = llvm::sys::path::extension(path);
  llvm::SmallString<128> result(llvm::sys::path::parent_path(path));
  llvm::sys::path::append(result,
                          stem + ".rank" + std::to_string(rank) + extension);
  return result.str().str();
}

llvm::Error steps::runDistributed(Program &program, const RunOptions &options) {
  if (llvm::Error error = startBackend(options))
    return error;
  rt::Transport &transport = *getSession().transport;
  int rank = transport.getRank();
  int processes = transport.getNumProcesses();
  bool root = rank == 0;
  auto agree = [&](llvm::Error error) {
    return agreeAcrossProcesses(std::move(error), options);
  };

  // 1. The mesh and the processes' blocks of devices.
  int64_t perProcess = 0;
  if (llvm::Error error = agree([&]() -> llvm::Error {
        if (!options.emit.empty())
          return makeError("--emit writes the compiled program without "
                           "running it: use it without --backend=mpi");
        if (!options.meshSizes.empty())
          if (llvm::Error error = overrideMeshSizes(program, options.meshSizes))
            return error;
        int64_t devices = program.mesh.getNumDevices();
        if (devices > rt::Mesh::kMaxDevices)
          return makeError("the mesh " + program.mesh.toString() + " has " +
                           llvm::Twine(devices) +
                           " devices; the emulated mesh runs at most " +
                           llvm::Twine(rt::Mesh::kMaxDevices));
        if (!options.devicesPerProcess) {
          if (devices == 1 && processes > 1)
            return makeError("--backend=mpi: the program runs on a single "
                             "device, which " +
                             llvm::Twine(processes) +
                             " processes cannot split");
          if (devices % processes != 0)
            return makeError("--backend=mpi: " + llvm::Twine(processes) +
                             " processes cannot split the " +
                             llvm::Twine(devices) + " devices of the mesh " +
                             program.mesh.toString() +
                             " into equal blocks (run a number of processes "
                             "that divides " +
                             llvm::Twine(devices) + ")");
          perProcess = devices / processes;
        } else {
          perProcess = *options.devicesPerProcess;
          if (perProcess * processes != devices)
            return makeError("--backend=mpi: " + llvm::Twine(processes) +
                             " processes of " + llvm::Twine(perProcess) +
                             (perProcess == 1 ? " device" : " devices") +
                             " run " + llvm::Twine(perProcess * processes) +
                             " devices, but the mesh " +
                             program.mesh.toString() + " has " +
                             llvm::Twine(devices));
        }
        return llvm::Error::success();
      }()))
    return error;

  // 2. Where the inputs come from and their global shapes.
  std::vector<InputSource> sources;
  if (llvm::Error error = agree(planSources(program, options, sources)))
    return error;
  std::vector<std::vector<int64_t>> shapes;
  for (const InputSource &source : sources)
    shapes.push_back(source.globalShape);

  // 3. Every process compiles the program or takes it from the
  // compiled-code cache (each process looks it up: after the first run of a
  // program, every process hits).
  std::optional<CompiledRun> built;
  if (llvm::Error error = agree([&]() -> llvm::Error {
        llvm::Expected<CompiledRun> compiledRun =
            compileForRun(program, shapes, options.compile, options.cache,
                          CompileTarget::Program, options.showSharding);
        if (!compiledRun)
          return compiledRun.takeError();
        built = std::move(*compiledRun);
        return llvm::Error::success();
      }()))
    return error;
  CompiledProgram *compiled = &built->compiled;
  std::vector<ShardingView> &views = built->views;
  const EntryLayouts &layouts = compiled->layouts;

  // 4. This process's devices and their blocks of the inputs.
  std::unique_ptr<rt::Mesh> mesh;
  std::vector<rt::DistributedArray> arrays(sources.size());
  double loadSeconds = 0;
  if (llvm::Error error = agree([&]() -> llvm::Error {
        auto created = createMesh(program.mesh, options,
                                  "the mesh " + program.mesh.toString());
        if (!created)
          return created.takeError();
        mesh = std::move(*created);
        std::string message;
        if (!mesh->attachTransport(getSession().transport, perProcess, message))
          return makeError("--backend=mpi: " + message);
        auto loadStart = std::chrono::steady_clock::now();
        for (size_t i = 0; i < sources.size(); ++i) {
          rt::ShardLayout layout = layouts.perDevice
                                       ? layouts.args[i]
                                       : getReplicatedLayout(shapes[i].size());
          if (llvm::Error error = loadBlocks(program, i, sources[i], *mesh,
                                             layout, options, arrays[i]))
            return error;
        }
        loadSeconds = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - loadStart)
                          .count();
        return llvm::Error::success();
      }()))
    return error;
  DeviceInputs inputs = makeDeviceInputs(*mesh, layouts, arrays);

  // 5. The run: collective; a failure is the same on every process.
  if (root)
    std::printf("tessera-run: @%s on %s (%lld device%s, %d process%s of "
                "%lld)\n",
                program.entryName.c_str(), program.mesh.toString().c_str(),
                static_cast<long long>(mesh->numDevices()),
                mesh->numDevices() == 1 ? "" : "s", processes,
                processes == 1 ? "" : "es", static_cast<long long>(perProcess));
  std::fflush(stdout);
  llvm::Expected<RunResult> run = runOnDevices(
      *mesh, *compiled, inputs, options.repeat, !options.trace.empty());
  std::string traceError;
  if (!options.trace.empty())
    mesh->writeTrace(getTracePath(options.trace, rank), traceError);
  if (!run) {
    getSession().dirty = true;
    if (mesh->hasRunawayDevices()) {
      abandonWhileDevicesRun(std::move(*compiled));
      abandonWhileDevicesRun(std::move(inputs));
    }
    return run.takeError();
  }
  if (llvm::Error error = agree(traceError.empty() ? llvm::Error::success()
                                                   : makeError(traceError)))
    return error;

  // 6. The results: shards written by each process, or gathered on rank 0.
  if (options.outputShards) {
    std::vector<ShardedResult> sharded;
    if (llvm::Error error = agree([&]() -> llvm::Error {
          auto written =
              writeResultShards(options.outputDir, *run, layouts, *mesh);
          if (!written)
            return written.takeError();
          sharded = std::move(*written);
          return llvm::Error::success();
        }()))
      return error;
    if (llvm::Error error =
            agree(root ? writeResultIndexes(sharded) : llvm::Error::success()))
      return error;
    if (root)
      for (size_t r = 0; r < sharded.size(); ++r)
        std::printf("result%zu: %s[%s] written as %zu shard%s to %s\n", r,
                    rt::getDTypeName(sharded[r].dtype),
                    llvm::join(llvm::map_range(
                                   sharded[r].shape,
                                   [](int64_t d) { return std::to_string(d); }),
                               ",")
                        .c_str(),
                    sharded[r].blocks.size(),
                    sharded[r].blocks.size() == 1 ? "" : "s",
                    sharded[r].dir.c_str());
  }
  bool needResults = !options.outputShards || options.check;
  bool needInputs = options.check || !options.saveInputsDir.empty();
  std::vector<HostArray> globalInputs;
  std::vector<std::string> stats;
  llvm::Error gathered = [&]() -> llvm::Error {
    if (needResults)
      if (llvm::Error error = gatherRun(*run, *mesh))
        return error;
    if (needInputs)
      if (llvm::Error error = gatherInputs(arrays, globalInputs))
        return error;
    if (options.stats || options.timing) {
      // With --timing, how long this process took to load its blocks.
      int64_t bytes = 0;
      for (const InputSource &source : sources)
        bytes += source.bytesRead;
      // And how it got its code (compiled, or from the cache).
      char load[128];
      std::snprintf(load, sizeof(load),
                    "load: rank %d read %lld bytes in %.1f ms\n", rank,
                    static_cast<long long>(bytes), loadSeconds * 1e3);
      std::string times = load;
      times += "compile: rank " + std::to_string(rank) + ": " +
               describeCompile(built->report) + "\n";
      if (llvm::Error error = gatherToRoot(
              packStats(*mesh, describeReads(program, sources, rank), times),
              stats))
        return error;
    }
    return llvm::Error::success();
  }();
  if (llvm::Error error = agree(std::move(gathered)))
    return error;

  // Rank 0 reports; the others wait for its outcome.
  llvm::Error report = [&]() -> llvm::Error {
    if (!root)
      return llvm::Error::success();
    std::vector<HostArray> outputs;
    if (needResults) {
      llvm::Expected<std::vector<HostArray>> global =
          gatherResults(*run, layouts, *mesh);
      if (!global)
        return global.takeError();
      outputs = std::move(*global);
    }
    if (!options.outputShards)
      for (size_t i = 0; i < outputs.size(); ++i)
        printSummary("result" + std::to_string(i), outputs[i],
                     options.printResults);
    if (!options.saveInputsDir.empty())
      if (llvm::Error error = writeArrays(options.saveInputsDir, "arg",
                                          globalInputs, "--save-inputs"))
        return error;
    if (!options.outputDir.empty() && !options.outputShards)
      if (llvm::Error error =
              writeArrays(options.outputDir, "result", outputs, "--output-dir"))
        return error;
    if (options.showSharding) {
      std::vector<std::vector<int64_t>> resultShapes;
      for (size_t r = 0; r < run->perDevice.front().size(); ++r)
        resultShapes.push_back(
            outputs.empty()
                ? getResultShape(layouts, r, run->perDevice.front()[r])
                : outputs[r].getShape());
      printShardings(views, layouts, *mesh, shapes, resultShapes,
                     program.args.size());
    }
    std::vector<rt::DeviceStats> devices(mesh->numDevices());
    std::string reads, loads, compiles;
    for (const std::string &text : stats) {
      Reader reader(text);
      reads += reader.string();
      std::string times = reader.string();
      auto [load, compile] = llvm::StringRef(times).split('\n');
      loads += (load + "\n").str();
      compiles += compile.str();
      int64_t count = reader.i64();
      for (int64_t i = 0; reader.ok && i < count; ++i) {
        int64_t d = reader.i64();
        rt::DeviceStats s;
        reader.take(&s, sizeof(s));
        if (reader.ok && d >= 0 && d < mesh->numDevices())
          devices[d] = s;
      }
    }
    if (options.stats) {
      std::printf("%s", reads.c_str());
      printDeviceStats(devices, options.timing);
      // Kernel calls: those of rank 0's devices.
      printKernelStats(rt::getKernelCallRecords());
    }
    if (options.stats && options.timing)
      printCacheStats(built->report, "program");
    if (options.timing)
      std::printf("%s%s", loads.c_str(), compiles.c_str());
    if (options.timing)
      printTiming(built->report, run->seconds);
    if (!options.check)
      return llvm::Error::success();
    CompileReport referenceReport;
    llvm::Expected<std::vector<HostArray>> expected =
        runReference(program, globalInputs, options, referenceReport);
    if (!expected)
      return expected.takeError();
    if (options.stats && options.timing)
      printCacheStats(referenceReport, "reference");
    if (options.timing)
      std::printf("compile (reference): %s\n",
                  describeCompile(referenceReport).c_str());
    return compareWithReference(program, outputs, *expected, options);
  }();
  std::fflush(stdout);
  return agree(std::move(report));
}
