//===- Run.cpp - inputs, the emulated mesh, results -----------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Execution/Run.h"

#include "tessera/Execution/Artifact.h"
#include "tessera/Execution/Shards.h"
#include "tessera/Runtime/DistributedArray.h"

#include "tessera/Runtime/Kernel.h"
#include "tessera/Runtime/Mesh.h"
#include "tessera/Runtime/Runtime.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <optional>
#include <type_traits>

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::exec;
using ::tessera::rt::DType;
using ::tessera::rt::HostArray;
using ::tessera::rt::ShardLayout;
namespace rt = ::tessera::rt;

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

/// Resolves an argument reference: an index or a source name.
static std::optional<size_t> findArg(StringRef ref, ArrayRef<ArgInfo> args) {
  size_t index;
  if (!ref.getAsInteger(10, index))
    return index < args.size() ? std::optional<size_t>(index) : std::nullopt;
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].name == ref.ltrim('%'))
      return i;
  return std::nullopt;
}

static std::string describeArgs(ArrayRef<ArgInfo> args) {
  std::string text;
  for (size_t i = 0; i < args.size(); ++i)
    text += (i ? ", " : "") + std::to_string(i) +
            (args[i].name.empty() ? "" : " (%" + args[i].name + ")");
  return args.empty() ? "the entry has no arguments" : "arguments: " + text;
}

/// splitmix64.
static uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

llvm::Expected<HostArray>
mlir::tessera::exec::makeRandomArray(DType dtype, std::vector<int64_t> shape,
                                     uint64_t seed, size_t index) {
  HostArray array;
  std::string error;
  // Sizes are checked (overflow, the host's memory) before allocating.
  if (!HostArray::create(dtype, std::move(shape), array, error))
    return makeError(error);
  uint64_t state = mix(seed * 0x100000001b3ull + index);
  for (int64_t i = 0, n = array.getNumElements(); i < n; ++i) {
    state = mix(state);
    double unit = static_cast<double>(state >> 11) * 0x1.0p-53;
    double value;
    switch (dtype) {
    case DType::F32:
    case DType::F64:
    case DType::F16:
    case DType::BF16:
      value = unit * 2 - 1;
      break;
    case DType::I1:
      value = (state >> 63) & 1;
      break;
    case DType::U8:
    case DType::U16:
    case DType::U32:
    case DType::U64:
      value = static_cast<double>(state % 17);
      break;
    default:
      value = static_cast<double>(static_cast<int64_t>(state % 17) - 8);
      break;
    }
    array.setFromDouble(i, value);
  }
  return std::move(array);
}

static LogicalResult parseShape(StringRef text, std::vector<int64_t> &shape) {
  shape.clear();
  if (text.trim().empty())
    return success(); // Rank 0.
  SmallVector<StringRef> parts;
  text.split(parts, 'x');
  for (StringRef part : parts) {
    int64_t d;
    if (part.trim().getAsInteger(10, d) || d < 0)
      return failure();
    shape.push_back(d);
  }
  return success();
}

static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

/// Whether `shape` fits `type` (its static dimensions equal).
static bool fitsType(ArrayRef<int64_t> shape, RankedTensorType type) {
  if (static_cast<int64_t>(shape.size()) != type.getRank())
    return false;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (!type.isDynamicDim(d) && type.getDimSize(d) != shape[d])
      return false;
  return true;
}

llvm::Expected<InputPlan>
mlir::tessera::exec::planInputs(const Program &program,
                                const InputOptions &options) {
  ArrayRef<ArgInfo> args = program.args;
  InputPlan plan;
  plan.files.resize(args.size());
  plan.processLocal.resize(args.size());
  plan.shapes.resize(args.size());
  auto addFiles = [&](ArrayRef<std::string> items, bool processLocal,
                      StringRef option) -> llvm::Error {
    for (const std::string &item : items) {
      auto [ref, path] = StringRef(item).split('=');
      if (path.empty())
        return makeError("bad " + option + " '" + item +
                         "': expected NAME_OR_INDEX=path.npy");
      std::optional<size_t> index = findArg(ref, args);
      if (!index)
        return makeError(option + " names argument '" + ref +
                         "', which the entry does not have (" +
                         describeArgs(args) + ")");
      if (!plan.files[*index].empty())
        return makeError(option + " gives " + program.describeArg(*index) +
                         " twice ('" + plan.files[*index] + "' and '" + path +
                         "')");
      if (processLocal && isDirectory(path))
        return makeError(option + " '" + item +
                         "': process-local data is one .npy file, not a "
                         "directory");
      plan.files[*index] = path.str();
      plan.processLocal[*index] = processLocal;
    }
    return llvm::Error::success();
  };
  if (llvm::Error error = addFiles(options.files, false, "--input"))
    return std::move(error);
  if (llvm::Error error =
          addFiles(options.processLocal, true, "--process-local-input"))
    return std::move(error);
  for (const std::string &item : options.shapes) {
    auto [ref, text] = StringRef(item).split('=');
    std::optional<size_t> index = findArg(ref, args);
    std::vector<int64_t> shape;
    if (!index || failed(parseShape(text, shape)))
      return makeError("bad --input-shape '" + item + "' (" +
                       describeArgs(args) + ")");
    const ArgInfo &arg = args[*index];
    std::string label = program.describeArg(*index);
    if (arg.type.hasStaticShape())
      return makeError("--input-shape gives the shape of " + label +
                       ", whose type " + typeToString(arg.type) + " is static");
    if (plan.shapes[*index])
      return makeError("--input-shape gives the shape of " + label + " twice");
    // The global shape of process-local data may be given.
    if (!plan.files[*index].empty() && !plan.processLocal[*index])
      return makeError("--input-shape gives the shape of " + label +
                       ", which --input reads from '" + plan.files[*index] +
                       "'");
    // An artifact's arguments are checked as Exported.call checks them,
    // once every input is known.
    if (!program.artifact && !fitsType(shape, arg.type))
      return makeError("--input-shape " + shapeString(shape) +
                       " does not match " + label + " of type " +
                       typeToString(arg.type));
    plan.shapes[*index] = shape;
  }
  return std::move(plan);
}

llvm::Error mlir::tessera::exec::getMissingInputError(const Program &program,
                                                      size_t index) {
  return makeError("missing input for " + program.describeArg(index) +
                   " of type " + typeToString(program.args[index].type) +
                   ": give --input " + std::to_string(index) +
                   "=file.npy or --random-inputs");
}

llvm::Error mlir::tessera::exec::checkInputType(const Program &program,
                                                size_t index, StringRef path,
                                                DType dtype,
                                                ArrayRef<int64_t> shape) {
  // An artifact's arguments are checked as Exported.call checks them, once
  // every input is known.
  if (program.artifact)
    return llvm::Error::success();
  const ArgInfo &arg = program.args[index];
  if (dtype != arg.dtype)
    return makeError(path + ": dtype " + rt::getDTypeName(dtype) +
                     " does not match argument " + std::to_string(index) +
                     " of type " + typeToString(arg.type) + " (" +
                     rt::getDTypeName(arg.dtype) + ")");
  if (!fitsType(shape, arg.type))
    return makeError(path + ": shape " + shapeString(shape) +
                     " does not match argument " + std::to_string(index) +
                     " of type " + typeToString(arg.type));
  return llvm::Error::success();
}

/// Reads the .npy file or shard directory `path` for argument `index` and
/// checks it.
static llvm::Expected<HostArray> readInput(const Program &program, size_t index,
                                           StringRef path) {
  HostArray array;
  std::string error;
  if (isDirectory(path)) {
    llvm::Expected<ShardIndex> shards = readShardIndex(path);
    if (!shards)
      return shards.takeError();
    rt::BlockIndex whole;
    whole.start.assign(shards->shape.size(), 0);
    whole.stop = shards->shape;
    int64_t bytes = 0;
    if (llvm::Error error =
            checkInputType(program, index, path, shards->dtype, shards->shape))
      return std::move(error);
    if (llvm::Error error = readShardBox(*shards, whole, array, bytes))
      return std::move(error);
    return std::move(array);
  }
  if (!rt::readNpy(path.str(), array, error))
    return makeError(error);
  if (llvm::Error error = checkInputType(program, index, path, array.getDType(),
                                         array.getShape()))
    return std::move(error);
  return std::move(array);
}

llvm::Expected<std::vector<int64_t>>
mlir::tessera::exec::getInputShape(const Program &program,
                                   const InputPlan &plan, size_t index) {
  const ArgInfo &arg = program.args[index];
  if (arg.type.hasStaticShape())
    return std::vector<int64_t>(arg.type.getShape());
  if (!plan.shapes[index])
    return makeError(program.describeArg(index) + " has the dynamic type " +
                     typeToString(arg.type) +
                     ": give its shape with --input-shape " +
                     std::to_string(index) + "=... or an --input file");
  return *plan.shapes[index];
}

llvm::Expected<std::vector<HostArray>>
mlir::tessera::exec::loadInputs(const Program &program,
                                const InputOptions &options) {
  llvm::Expected<InputPlan> plan = planInputs(program, options);
  if (!plan)
    return plan.takeError();
  std::vector<HostArray> result;
  for (size_t i = 0; i < program.args.size(); ++i) {
    if (!plan->files[i].empty()) {
      llvm::Expected<HostArray> array = readInput(program, i, plan->files[i]);
      if (!array)
        return array.takeError();
      // In one process, process-local data is the whole array (JAX's
      // check).
      if (plan->processLocal[i] && plan->shapes[i] &&
          *plan->shapes[i] != array->getShape())
        return makeError(
            "When calling `make_array_from_process_local_data` on a single "
            "process, global_shape should be None or equal to "
            "local_data.shape.Got global_shape=" +
            rt::formatShape(*plan->shapes[i]) + " and local_data.shape=" +
            rt::formatShape(array->getShape()) + ".");
      result.push_back(std::move(*array));
      continue;
    }
    const ArgInfo &arg = program.args[i];
    if (!options.random)
      return getMissingInputError(program, i);
    llvm::Expected<std::vector<int64_t>> shape =
        getInputShape(program, *plan, i);
    if (!shape)
      return shape.takeError();
    llvm::Expected<HostArray> array =
        makeRandomArray(arg.dtype, *shape, options.seed, i);
    if (!array)
      return makeError(program.describeArg(i) + ": " +
                       llvm::toString(array.takeError()));
    result.push_back(std::move(*array));
  }
  if (program.artifact) {
    std::vector<std::vector<int64_t>> shapes;
    std::vector<DType> dtypes;
    for (const HostArray &array : result) {
      shapes.push_back(array.getShape());
      dtypes.push_back(array.getDType());
    }
    if (llvm::Error error = checkArtifactCall(program, shapes, dtypes))
      return std::move(error);
  }
  return std::move(result);
}

llvm::Expected<std::vector<std::vector<int64_t>>>
mlir::tessera::exec::getInputShapes(const Program &program,
                                    const InputOptions &options) {
  llvm::Expected<InputPlan> plan = planInputs(program, options);
  if (!plan)
    return plan.takeError();
  std::vector<std::vector<int64_t>> shapes;
  std::vector<DType> dtypes;
  for (size_t i = 0; i < program.args.size(); ++i) {
    if (!plan->files[i].empty() && isDirectory(plan->files[i])) {
      llvm::Expected<ShardIndex> shards = readShardIndex(plan->files[i]);
      if (!shards)
        return shards.takeError();
      if (llvm::Error error = checkInputType(program, i, plan->files[i],
                                             shards->dtype, shards->shape))
        return std::move(error);
      shapes.push_back(shards->shape);
      dtypes.push_back(shards->dtype);
      continue;
    }
    if (!plan->files[i].empty()) {
      llvm::Expected<HostArray> array = readInput(program, i, plan->files[i]);
      if (!array)
        return array.takeError();
      shapes.push_back(array->getShape());
      dtypes.push_back(array->getDType());
      continue;
    }
    dtypes.push_back(program.args[i].dtype);
    llvm::Expected<std::vector<int64_t>> shape =
        getInputShape(program, *plan, i);
    if (!shape)
      return shape.takeError();
    shapes.push_back(std::move(*shape));
  }
  if (program.artifact)
    if (llvm::Error error = checkArtifactCall(program, shapes, dtypes))
      return std::move(error);
  return std::move(shapes);
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

/// A memref descriptor: allocated, aligned, offset, sizes, strides.
static void appendDescriptor(std::vector<int64_t> &words, void *data,
                             ArrayRef<int64_t> shape) {
  words.push_back(reinterpret_cast<int64_t>(data));
  words.push_back(reinterpret_cast<int64_t>(data));
  words.push_back(0);
  for (int64_t d : shape)
    words.push_back(d);
  int64_t stride = 1;
  std::vector<int64_t> strides(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= shape[d];
  }
  for (int64_t s : strides)
    words.push_back(s);
}

/// Copies a result out of its (possibly strided) descriptor at `words`.
static HostArray readResult(const int64_t *words, size_t rank, DType dtype) {
  std::vector<int64_t> shape(words + 3, words + 3 + rank);
  const int64_t *strides = words + 3 + rank;
  HostArray array(dtype, shape);
  int64_t width = rt::getDTypeBytes(dtype);
  const uint8_t *base =
      reinterpret_cast<const uint8_t *>(words[1]) + words[2] * width;
  int64_t n = array.getNumElements();
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d)
      offset += index[d] * strides[d];
    std::memcpy(array.data() + i * width, base + offset * width, width);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  return array;
}

std::vector<int64_t>
mlir::tessera::exec::coordinatesIn(const ShardLayout &layout,
                                   const rt::Mesh &mesh, int64_t device) {
  return rt::getLayoutCoordinates(layout, mesh, device);
}

llvm::Expected<DeviceInputs>
mlir::tessera::exec::scatterInputs(const rt::Mesh &mesh,
                                   const EntryLayouts &layouts,
                                   ArrayRef<HostArray> inputs) {
  DeviceInputs result;
  result.perDevice.resize(mesh.numDevices());
  for (int64_t d = 0; d < mesh.numDevices(); ++d) {
    if (!mesh.isLocalDevice(d))
      continue;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!layouts.perDevice) {
        // Shared, not owned.
        result.perDevice[d].push_back(std::shared_ptr<const HostArray>(
            std::shared_ptr<void>(), &inputs[i]));
        continue;
      }
      std::vector<int64_t> coords = coordinatesIn(layouts.args[i], mesh, d);
      auto block = std::make_shared<HostArray>();
      std::string error;
      if (!rt::extractBlock(inputs[i], layouts.args[i], coords, *block, error))
        return makeError("argument " + std::to_string(i) +
                         ": the block of device " + std::to_string(d) + ": " +
                         error);
      // An unreduced sum is placed as JAX places it: the first device of
      // each group holds the value, the others zeros, so the partial
      // values sum to it. Max and min partials may all hold it.
      const UnreducedLayout &unreduced = layouts.argUnreduced[i];
      if (!unreduced.empty() && unreduced.kind == UnreducedLayout::Kind::Sum &&
          !unreduced.isFirstOfGroup(coords))
        std::memset(block->data(), 0, block->getNumBytes());
      result.perDevice[d].push_back(std::move(block));
    }
  }
  return std::move(result);
}

DeviceInputs
mlir::tessera::exec::makeDeviceInputs(const rt::Mesh &mesh,
                                      const EntryLayouts &layouts,
                                      ArrayRef<rt::DistributedArray> arrays) {
  DeviceInputs inputs;
  inputs.perDevice.resize(mesh.numDevices());
  for (size_t i = 0; i < arrays.size(); ++i) {
    std::shared_ptr<const HostArray> zeros;
    for (int64_t d = 0; d < mesh.numDevices(); ++d) {
      if (!mesh.isLocalDevice(d))
        continue;
      std::shared_ptr<const HostArray> block = arrays[i].blocks[d];
      if (layouts.perDevice) {
        // An unreduced sum on the first device of each group only.
        const UnreducedLayout &unreduced = layouts.argUnreduced[i];
        if (!unreduced.empty() &&
            unreduced.kind == UnreducedLayout::Kind::Sum &&
            !unreduced.isFirstOfGroup(
                coordinatesIn(layouts.args[i], mesh, d))) {
          if (!zeros)
            zeros = std::make_shared<HostArray>(block->getDType(),
                                                block->getShape());
          block = zeros;
        }
      }
      inputs.perDevice[d].push_back(block);
    }
  }
  return inputs;
}

llvm::Expected<RunResult>
mlir::tessera::exec::runOnMesh(rt::Mesh &mesh, const CompiledProgram &compiled,
                               ArrayRef<HostArray> inputs, unsigned repeat,
                               bool traceLast) {
  llvm::Expected<DeviceInputs> scattered =
      scatterInputs(mesh, compiled.layouts, inputs);
  if (!scattered)
    return scattered.takeError();
  return runOnDevices(mesh, compiled, *scattered, repeat, traceLast);
}

llvm::Expected<RunResult> mlir::tessera::exec::runOnDevices(
    rt::Mesh &mesh, const CompiledProgram &compiled, const DeviceInputs &inputs,
    unsigned repeat, bool traceLast) {
  int64_t numDevices = mesh.numDevices();
  RunResult result;
  result.perDevice.resize(numDevices);
  std::string prepareError;
  if (!mesh.prepareGroups(compiled.layouts.collectiveGroups, prepareError))
    return makeError("cannot connect the processes' devices: " + prepareError);
  const std::vector<std::vector<std::shared_ptr<const HostArray>>>
      &deviceInputs = inputs.perDevice;
  size_t resultWords = 0;
  for (const ValueInfo &r : compiled.results)
    resultWords += 3 + 2 * r.type.getRank();
  for (unsigned iteration = 0; iteration < repeat; ++iteration) {
    bool last = iteration + 1 == repeat;
    mesh.setTraceEnabled(last && traceLast);
    mesh.resetStats();
    rt::clearKernelCallRecords();
    for (int64_t d = 0; d < numDevices; ++d)
      for (const auto &input : deviceInputs[d])
        mesh.accountBuffer(d, input->getNumBytes());
    auto fn = [&](int64_t device) {
      std::vector<int64_t> words;
      std::vector<size_t> argOffsets;
      for (const auto &input : deviceInputs[device]) {
        argOffsets.push_back(words.size());
        appendDescriptor(words, const_cast<uint8_t *>(input->data()),
                         input->getShape());
      }
      std::vector<int64_t> resultBuffer(std::max<size_t>(1, resultWords));
      std::vector<void *> pointers;
      for (size_t offset : argOffsets)
        pointers.push_back(words.data() + offset);
      void *resultPointer = resultBuffer.data();
      std::vector<void *> args;
      if (!compiled.results.empty())
        args.push_back(&resultPointer);
      for (void *&p : pointers)
        args.push_back(&p);
      // A device that must stop (a fault, a failed allocation or assertion)
      // leaves the compiled code here, not through this function.
      if (!rt::runDeviceCode([&] { compiled.function(args.data()); }))
        return;
      // Every result is read (on the last run) before any buffer is freed:
      // results may share one (a value returned twice).
      std::vector<HostArray> outputs;
      size_t offset = 0;
      if (last)
        for (const ValueInfo &r : compiled.results) {
          outputs.push_back(readResult(resultBuffer.data() + offset,
                                       r.type.getRank(), r.dtype));
          offset += 3 + 2 * r.type.getRank();
        }
      std::vector<int64_t> freed;
      offset = 0;
      for (const ValueInfo &r : compiled.results) {
        const int64_t *desc = resultBuffer.data() + offset;
        offset += 3 + 2 * r.type.getRank();
        int64_t allocated = desc[0];
        bool isInput = llvm::any_of(deviceInputs[device], [&](const auto &in) {
          return reinterpret_cast<int64_t>(in->data()) == allocated;
        });
        // 0xdeadbeef marks a constant global's buffer.
        if (allocated && allocated != 0xdeadbeef && !isInput &&
            !llvm::is_contained(freed, allocated)) {
          freed.push_back(allocated);
          tessera_rt_free(reinterpret_cast<void *>(allocated));
        }
      }
      if (last)
        result.perDevice[device] = std::move(outputs);
    };
    std::string error;
    auto start = std::chrono::steady_clock::now();
    mesh.setSymbolizer(
        [&compiled](uint64_t pc) { return compiled.getFunctionAt(pc); });
    bool ok = mesh.run(fn, error);
    auto end = std::chrono::steady_clock::now();
    for (int64_t d = 0; d < numDevices; ++d)
      for (const auto &input : deviceInputs[d])
        mesh.releaseBuffer(d, input->getNumBytes());
    if (!ok) {
      // Devices still running the compiled code read their inputs: they
      // must outlive this call (the caller keeps the code).
      if (mesh.hasRunawayDevices())
        abandonWhileDevicesRun(inputs);
      return makeError("the program failed on the emulated mesh: " + error);
    }
    result.seconds.push_back(
        std::chrono::duration<double>(end - start).count());
  }
  return std::move(result);
}

//===----------------------------------------------------------------------===//
// Results
//===----------------------------------------------------------------------===//

/// True if two devices' copies `a` and `b` of the block at `coords` of a
/// result laid out by `layout` (global shape `global`) agree on every
/// element of the result; the padding past its end may differ.
static bool sameElements(const HostArray &a, const HostArray &b,
                         const ShardLayout &layout,
                         const std::vector<int64_t> &coords,
                         const std::vector<int64_t> &global) {
  if (a.getShape() != b.getShape())
    return false;
  const std::vector<int64_t> &local = a.getShape();
  size_t rank = local.size();
  std::vector<int64_t> extent(rank);
  bool whole = true;
  for (size_t d = 0; d < rank; ++d) {
    int64_t origin = layout.getBlockIndex(d, coords) * local[d];
    extent[d] = std::clamp<int64_t>(global[d] - origin, 0, local[d]);
    if (extent[d] == 0)
      return true;
    whole &= extent[d] == local[d];
  }
  if (whole)
    return std::memcmp(a.data(), b.data(), a.getNumBytes()) == 0;
  // Row by row over the elements of the result.
  int64_t width = rt::getDTypeBytes(a.getDType());
  std::vector<int64_t> index(rank, 0);
  while (true) {
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d)
      offset = offset * local[d] + index[d];
    if (std::memcmp(a.data() + offset * width, b.data() + offset * width,
                    extent[rank - 1] * width) != 0)
      return false;
    size_t d = rank - 1;
    while (true) {
      if (d == 0)
        return true;
      --d;
      if (++index[d] < extent[d])
        break;
      index[d] = 0;
    }
  }
}

/// `acc[i] = combine(acc[i], x[i])` for every element, in `T`.
template <typename T>
static void combineAs(HostArray &acc, const HostArray &x,
                      UnreducedLayout::Kind kind) {
  int64_t n = acc.getNumElements();
  for (int64_t i = 0; i < n; ++i) {
    T a, b;
    std::memcpy(&a, acc.data() + i * sizeof(T), sizeof(T));
    std::memcpy(&b, x.data() + i * sizeof(T), sizeof(T));
    switch (kind) {
    case UnreducedLayout::Kind::Sum:
      // Integers wrap as the devices' adds do.
      if constexpr (std::is_integral_v<T>)
        a = static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) +
                           static_cast<std::make_unsigned_t<T>>(b));
      else
        a = a + b;
      break;
    case UnreducedLayout::Kind::Max:
      a = std::max(a, b);
      break;
    case UnreducedLayout::Kind::Min:
      a = std::min(a, b);
      break;
    }
    std::memcpy(acc.data() + i * sizeof(T), &a, sizeof(T));
  }
}

/// Combines the partial value `x` into `acc` as `kind` says.
static void combinePartials(HostArray &acc, const HostArray &x,
                            UnreducedLayout::Kind kind) {
  switch (acc.getDType()) {
  case DType::F32:
    return combineAs<float>(acc, x, kind);
  case DType::F64:
    return combineAs<double>(acc, x, kind);
  case DType::I8:
    return combineAs<int8_t>(acc, x, kind);
  case DType::I16:
    return combineAs<int16_t>(acc, x, kind);
  case DType::I32:
    return combineAs<int32_t>(acc, x, kind);
  case DType::I64:
    return combineAs<int64_t>(acc, x, kind);
  case DType::U8:
    return combineAs<uint8_t>(acc, x, kind);
  case DType::U16:
    return combineAs<uint16_t>(acc, x, kind);
  case DType::U32:
    return combineAs<uint32_t>(acc, x, kind);
  case DType::U64:
    return combineAs<uint64_t>(acc, x, kind);
  default:
    break;
  }
  // i1, f16 and bf16 through double (i1: a sum is an or).
  for (int64_t i = 0, n = acc.getNumElements(); i < n; ++i) {
    double a = acc.getAsDouble(i), b = x.getAsDouble(i);
    double value = kind == UnreducedLayout::Kind::Max   ? std::max(a, b)
                   : kind == UnreducedLayout::Kind::Min ? std::min(a, b)
                   : acc.getDType() == DType::I1        ? double(a || b)
                                                        : a + b;
    acc.setFromDouble(i, value);
  }
}

llvm::Expected<std::vector<HostArray>> mlir::tessera::exec::gatherResults(
    const RunResult &run, const EntryLayouts &layouts, const rt::Mesh &mesh) {
  size_t numResults = run.perDevice.front().size();
  std::vector<HostArray> globals;
  for (size_t r = 0; r < numResults; ++r) {
    const HostArray &first = run.perDevice.front()[r];
    static const UnreducedLayout kReduced;
    const UnreducedLayout &unreduced =
        layouts.perDevice ? layouts.resultUnreduced[r] : kReduced;
    if (!layouts.perDevice) {
      globals.push_back(first);
    } else {
      const ShardLayout &layout = layouts.results[r];
      std::vector<int64_t> shape = first.getShape();
      for (size_t d = 0; d < shape.size(); ++d)
        shape[d] = ShapedType::isDynamic(layouts.resultShapes[r][d])
                       ? shape[d] * layout.getNumBlocks(d)
                       : layouts.resultShapes[r][d];
      HostArray global;
      std::string error;
      if (!HostArray::create(first.getDType(), shape, global, error))
        return makeError("result " + std::to_string(r) + ": " + error);
      globals.push_back(std::move(global));
    }
    HostArray &global = globals.back();
    // Each device's block, its partial values combined over the device's
    // unreduced group (the block of the group's first device), by the
    // coordinates of that first device.
    std::map<std::vector<int64_t>, HostArray> combined;
    std::map<std::vector<int64_t>, int64_t> firstOfGroup;
    std::vector<std::vector<int64_t>> groupOf(run.perDevice.size());
    for (size_t device = 0; device < run.perDevice.size(); ++device) {
      std::vector<int64_t> coords =
          layouts.perDevice ? coordinatesIn(layouts.results[r], mesh, device)
                            : mesh.coordinates(device);
      groupOf[device] = unreduced.getFirstOfGroup(coords);
      if (unreduced.empty())
        continue;
      const HostArray &block = run.perDevice[device][r];
      auto [it, inserted] = combined.try_emplace(groupOf[device], block);
      if (!inserted)
        combinePartials(it->second, block, unreduced.kind);
    }
    auto valueOf = [&](size_t device) -> const HostArray & {
      return unreduced.empty() ? run.perDevice[device][r]
                               : combined.at(groupOf[device]);
    };
    // The first device to hold each block, and the values it holds.
    std::map<std::vector<int64_t>, int64_t> owner;
    for (size_t device = 0; device < run.perDevice.size(); ++device) {
      const HostArray &block = valueOf(device);
      const std::vector<int64_t> &coords = groupOf[device];
      std::vector<int64_t> key;
      if (layouts.perDevice)
        for (size_t d = 0; d < block.getShape().size(); ++d)
          key.push_back(layouts.results[r].getBlockIndex(d, coords));
      auto [it, inserted] = owner.try_emplace(key, device);
      if (inserted) {
        std::string error;
        if (layouts.perDevice &&
            !rt::insertBlock(global, block, layouts.results[r], coords, error))
          return makeError("result " + std::to_string(r) +
                           ": the block of "
                           "device " +
                           std::to_string(device) + ": " + error);
        continue;
      }
      const HostArray &held = valueOf(it->second);
      bool same = layouts.perDevice
                      ? sameElements(held, block, layouts.results[r], coords,
                                     global.getShape())
                      : held.getShape() == block.getShape() &&
                            std::memcmp(held.data(), block.data(),
                                        held.getNumBytes()) == 0;
      if (!same)
        return makeError(
            "result " + std::to_string(r) + " differs between device " +
            std::to_string(it->second) + " and device " +
            std::to_string(device) +
            ": a manual computation declares it replicated over a manual "
            "axis (its out_shardings) but computes a value that varies "
            "along it");
    }
  }
  return std::move(globals);
}

double mlir::tessera::exec::getDefaultTolerance(DType dtype) {
  switch (dtype) {
  case DType::F64:
    return 1e-10;
  case DType::F32:
    return 1e-4;
  default:
    return 1e-2;
  }
}
