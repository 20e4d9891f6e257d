//===- Driver.cpp - tessera-run: compile, scatter, run, gather, check -----===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include "tessera/Conversion/RuntimeTypes.h"
#include "tessera/Dialect/Kernel/IR/KernelOps.h"
#include "tessera/Dialect/Kernel/Transforms/Passes.h"
#include "tessera/Dialect/Poly/Transforms/Passes.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"
#include "tessera/Dialect/Spmd/Transforms/Passes.h"
#include "tessera/InitAllDialects.h"
#include "tessera/Pipelines/Pipelines.h"
#include "tessera/Runtime/Kernel.h"
#include "tessera/Runtime/Mesh.h"
#include "tessera/Runtime/Runtime.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>

using namespace mlir;
using ::tessera::rt::DType;
using ::tessera::rt::HostArray;
using ::tessera::rt::ShardLayout;
namespace cl = llvm::cl;
namespace rt = ::tessera::rt;

namespace mlir::tessera::run {

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

namespace {
struct Options {
  cl::opt<std::string> inputFile{cl::Positional, cl::desc("<input.mlir>"),
                                 cl::Required};
  cl::opt<std::string> entry{"entry",
                             cl::desc("The function to run (default: the "
                                      "only public function, else `main`)"),
                             cl::value_desc("name")};
  cl::opt<std::string> mesh{
      "mesh", cl::desc("Override mesh axis sizes, e.g. \"data=4,model=2\""),
      cl::value_desc("axes")};
  cl::list<std::string> inputs{
      "input", cl::desc("An input: NAME_OR_INDEX=path.npy (repeatable)"),
      cl::value_desc("arg=file.npy")};
  cl::list<std::string> inputShapes{
      "input-shape",
      cl::desc("The shape of a random input with dynamic dimensions: "
               "NAME_OR_INDEX=4x8 (repeatable)"),
      cl::value_desc("arg=shape")};
  cl::opt<bool> randomInputs{
      "random-inputs",
      cl::desc("Generate the inputs not given with --input (deterministic "
               "for a --seed)")};
  cl::opt<uint64_t> seed{"seed", cl::desc("Seed of --random-inputs"),
                         cl::init(0)};
  cl::opt<std::string> outputDir{
      "output-dir", cl::desc("Write the results as result0.npy, ..."),
      cl::value_desc("dir")};
  cl::opt<bool> printResults{"print-results",
                             cl::desc("Print every value of every result")};
  cl::opt<bool> check{
      "check", cl::desc("Also run the unpartitioned program on one device "
                        "and compare every result (exit 1 on mismatch)")};
  cl::opt<double> rtol{"rtol",
                       cl::desc("Relative tolerance of --check for floats "
                                "(default: by dtype)"),
                       cl::init(-1)};
  cl::opt<double> atol{"atol",
                       cl::desc("Absolute tolerance of --check for floats "
                                "(default: by dtype)"),
                       cl::init(-1)};
  /// `--stats`, taken out of argv before LLVM parses it (LLVM's own
  /// `-stats` option has the name).
  bool stats = false;
  cl::opt<bool> showSharding{
      "show-sharding",
      cl::desc("Draw which devices hold which block of every argument and "
               "result")};
  cl::opt<unsigned> repeat{"repeat", cl::desc("Run the program N times"),
                           cl::init(1)};
  cl::opt<bool> timing{"timing", cl::desc("Print compile time and run times")};
  cl::opt<std::string> trace{
      "trace", cl::desc("Write a Chrome trace of the last run to FILE.json"),
      cl::value_desc("file")};
  cl::opt<std::string> emit{
      "emit",
      cl::desc("Emit the compiled per-device program instead of running it: "
               "mlir (LLVM dialect), llvm (LLVM IR) or obj"),
      cl::value_desc("mlir|llvm|obj")};
  cl::opt<std::string> outputFile{"o", cl::desc("Output file of --emit"),
                                  cl::value_desc("file"), cl::init("-")};
  cl::opt<std::string> backend{"backend",
                               cl::desc("threads (the emulated mesh) or mpi"),
                               cl::init("threads")};
  cl::opt<std::string> kernelMode{
      "kernel-mode",
      cl::desc("How kernel.calls run: pipelined (double-buffered windows, "
               "the default) or interpret (sequential, with run-time checks); "
               "--check compares a pipelined run with an interpret run"),
      cl::value_desc("pipelined|interpret"), cl::init("pipelined")};
  cl::opt<bool> scalarLoops{
      "scalar-loops",
      cl::desc("Lower linalg to scalar loops (no tiling/vectorization)")};
  cl::opt<double> watchdog{
      "watchdog-seconds",
      cl::desc("Fail when no collective completes for this long (default 30, "
               "or $TESSERA_WATCHDOG_SECONDS)"),
      cl::init(-1)};
};
Options *options;
} // namespace

void registerOptions() {
  static Options storage;
  options = &storage;
}

void takeStatsFlag(int &argc, char **argv) {
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    StringRef arg = argv[i];
    if (arg == "--") {
      for (; i < argc; ++i)
        argv[out++] = argv[i];
      break;
    }
    if (arg == "--stats" || arg == "-stats") {
      options->stats = true;
      continue;
    }
    argv[out++] = argv[i];
  }
  argc = out;
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

namespace {
/// `tessera-run: error: <message>` on stderr.
int fail(const llvm::Twine &message) {
  llvm::errs() << "tessera-run: error: " << message << "\n";
  return 1;
}

/// An element type's runtime dtype.
std::optional<DType> getDType(Type type) { return getRuntimeDType(type); }

std::string typeString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}
} // namespace

//===----------------------------------------------------------------------===//
// The program: entry, mesh, arguments
//===----------------------------------------------------------------------===//

namespace {

struct MeshInfo {
  std::string symbol; // Empty: no mesh (one device).
  std::vector<std::string> names;
  std::vector<int64_t> sizes;
  std::vector<int64_t> deviceIds;

  int64_t getNumDevices() const {
    int64_t n = 1;
    for (int64_t s : sizes)
      n *= s;
    return n;
  }
  std::string toString() const {
    if (names.empty())
      return "a single device";
    std::string text;
    for (size_t i = 0; i < names.size(); ++i)
      text += (i ? "," : "") + names[i] + "=" + std::to_string(sizes[i]);
    return text;
  }
};

struct ArgInfo {
  std::string name; // `x` for `%x`, or empty.
  RankedTensorType type;
  DType dtype;
};

struct ValueInfo {
  RankedTensorType type;
  DType dtype;
};

/// The single non-maximal mesh of the module.
FailureOr<MeshInfo> getMesh(ModuleOp module) {
  MeshInfo info;
  spmd::MeshOp chosen;
  for (auto mesh : module.getOps<spmd::MeshOp>()) {
    spmd::MeshAttr attr = mesh.getMesh();
    if (attr.getAxes().empty())
      continue; // A maximal or empty mesh runs on one device anyway.
    if (chosen && !chosen.getMesh().hasSameAxes(attr)) {
      fail("the module has several meshes (@" + chosen.getSymName() + ", @" +
           mesh.getSymName() + "); tessera-run runs programs on one mesh");
      return failure();
    }
    if (!chosen)
      chosen = mesh;
  }
  if (!chosen)
    return info;
  info.symbol = chosen.getSymName().str();
  for (spmd::MeshAxisAttr axis : chosen.getMesh().getAxes()) {
    info.names.push_back(axis.getName().str());
    info.sizes.push_back(axis.getSize());
  }
  llvm::append_range(info.deviceIds, chosen.getMesh().getDeviceIds());
  return info;
}

/// Applies `--mesh name=size,...` to `info`.
LogicalResult overrideMesh(MeshInfo &info, StringRef text) {
  SmallVector<StringRef> items;
  text.split(items, ',', -1, /*KeepEmpty=*/false);
  bool changed = false;
  for (StringRef item : items) {
    auto [name, value] = item.split('=');
    name = name.trim();
    int64_t size;
    if (value.trim().getAsInteger(10, size) || size < 1) {
      fail("bad --mesh item '" + item + "': expected name=size with size >= 1");
      return failure();
    }
    auto it = llvm::find(info.names, name.str());
    if (it == info.names.end()) {
      std::string known = info.names.empty()
                              ? std::string("the module has no mesh")
                              : "its axes are " + llvm::join(info.names, ", ");
      fail("--mesh names axis '" + name + "', which the mesh does not have (" +
           known + ")");
      return failure();
    }
    int64_t &current = info.sizes[it - info.names.begin()];
    changed |= current != size;
    current = size;
  }
  if (changed)
    info.deviceIds.clear(); // A new shape has the default device order.
  return success();
}

/// Writes `info`'s sizes and device order into the module's meshes named
/// like it.
void setMesh(ModuleOp module, const MeshInfo &info) {
  for (auto mesh : module.getOps<spmd::MeshOp>()) {
    spmd::MeshAttr attr = mesh.getMesh();
    if (attr.getAxes().empty() || info.names.empty())
      continue;
    SmallVector<spmd::MeshAxisAttr> axes;
    for (size_t i = 0; i < info.names.size(); ++i)
      axes.push_back(spmd::MeshAxisAttr::get(module.getContext(), info.names[i],
                                             info.sizes[i]));
    mesh.setMeshAttr(spmd::MeshAttr::get(module.getContext(), axes,
                                         info.deviceIds, attr.getAxisTypes()));
  }
}

/// Removes from every sharding and axis list of `module` the sub-axes of
/// the axes in `axes`, which the single-device reference shrinks to size 1
/// (a sub-axis of an axis of size 1 does not exist, and sharding over it
/// is the identity).
void dropSubAxesOf(ModuleOp module, const llvm::StringSet<> &axes) {
  MLIRContext *ctx = module.getContext();
  auto filter = [&](ArrayRef<spmd::AxisRefAttr> refs) {
    SmallVector<spmd::AxisRefAttr> kept;
    for (spmd::AxisRefAttr ref : refs)
      if (!ref.getSubAxisInfo() || !axes.contains(ref.getName()))
        kept.push_back(ref);
    return kept;
  };
  AttrTypeReplacer replacer;
  replacer.addReplacement(
      [&](spmd::TensorShardingAttr sharding) -> std::optional<Attribute> {
        SmallVector<spmd::DimensionShardingAttr> dims;
        for (spmd::DimensionShardingAttr dim : sharding.getDimShardings()) {
          SmallVector<spmd::AxisRefAttr> kept = filter(dim.getAxes());
          std::optional<int64_t> priority = dim.getPriority();
          if (kept.empty() && dim.getIsClosed())
            priority = std::nullopt;
          dims.push_back(spmd::DimensionShardingAttr::get(
              ctx, kept, dim.getIsClosed(), priority));
        }
        SmallVector<spmd::AxisRefAttr> unreduced =
            filter(sharding.getUnreducedAxes());
        return spmd::TensorShardingAttr::get(
            ctx, sharding.getMeshOrRef(), dims,
            filter(sharding.getReplicatedAxes()), unreduced,
            sharding.getUnreducedKind());
      });
  replacer.addReplacement(
      [&](spmd::AxisRefListAttr list) -> std::optional<Attribute> {
        return spmd::AxisRefListAttr::get(ctx, filter(list.getValue()));
      });
  replacer.recursivelyReplaceElementsIn(module, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/false);
}

/// The entry function.
FailureOr<func::FuncOp> findEntry(ModuleOp module, StringRef name) {
  if (!name.empty()) {
    auto func = module.lookupSymbol<func::FuncOp>(name);
    if (!func || func.isExternal()) {
      SmallVector<std::string> names;
      for (auto f : module.getOps<func::FuncOp>())
        if (!f.isExternal())
          names.push_back(f.getSymName().str());
      fail("unknown entry function '" + name + "' (the module defines: " +
           (names.empty() ? std::string("no functions")
                          : llvm::join(names, ", ")) +
           ")");
      return failure();
    }
    return func;
  }
  func::FuncOp only;
  int publicCount = 0;
  for (auto f : module.getOps<func::FuncOp>()) {
    if (f.isExternal() || !f.isPublic())
      continue;
    ++publicCount;
    only = f;
  }
  if (publicCount == 1)
    return only;
  if (auto main = module.lookupSymbol<func::FuncOp>("main"))
    if (!main.isExternal())
      return main;
  fail(publicCount == 0 ? "the module has no public function to run"
                        : "the module has several public functions and none "
                          "is named 'main': choose one with --entry");
  return failure();
}

/// Per-argument source names (`x` for `%x`) from the parser's state.
std::vector<std::string> getArgNames(func::FuncOp func,
                                     const AsmParserState &state) {
  std::vector<std::string> names(func.getNumArguments());
  if (func.isExternal())
    return names;
  const AsmParserState::BlockDefinition *def =
      state.getBlockDef(&func.getBody().front());
  if (!def)
    return names;
  for (size_t i = 0; i < def->arguments.size() && i < names.size(); ++i) {
    llvm::SMRange range = def->arguments[i].loc;
    if (!range.isValid())
      continue;
    StringRef text(range.Start.getPointer(),
                   range.End.getPointer() - range.Start.getPointer());
    names[i] = text.ltrim('%').str();
  }
  return names;
}

} // namespace

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

namespace {

/// Resolves an argument reference: an index or a source name.
std::optional<size_t> findArg(StringRef ref, ArrayRef<ArgInfo> args) {
  size_t index;
  if (!ref.getAsInteger(10, index))
    return index < args.size() ? std::optional<size_t>(index) : std::nullopt;
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].name == ref.ltrim('%'))
      return i;
  return std::nullopt;
}

std::string describeArgs(ArrayRef<ArgInfo> args) {
  std::string text;
  for (size_t i = 0; i < args.size(); ++i)
    text += (i ? ", " : "") + std::to_string(i) +
            (args[i].name.empty() ? "" : " (%" + args[i].name + ")");
  return args.empty() ? "the entry has no arguments" : "arguments: " + text;
}

/// splitmix64.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// Deterministic values for `seed` and argument `index`: floats uniform in
/// [-1, 1), signed integers in [-8, 8], unsigned in [0, 16], random bools.
HostArray randomArray(DType dtype, std::vector<int64_t> shape, uint64_t seed,
                      size_t index) {
  HostArray array(dtype, std::move(shape));
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
  return array;
}

LogicalResult parseShape(StringRef text, std::vector<int64_t> &shape) {
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

std::string shapeString(ArrayRef<int64_t> shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

/// Loads or generates every input and checks it against its argument.
FailureOr<std::vector<HostArray>> loadInputs(ArrayRef<ArgInfo> args) {
  std::vector<std::optional<HostArray>> loaded(args.size());
  for (const std::string &item : options->inputs) {
    auto [ref, path] = StringRef(item).split('=');
    if (path.empty()) {
      fail("bad --input '" + item + "': expected NAME_OR_INDEX=path.npy");
      return failure();
    }
    std::optional<size_t> index = findArg(ref, args);
    if (!index) {
      fail("--input names argument '" + ref +
           "', which the entry does not have (" + describeArgs(args) + ")");
      return failure();
    }
    HostArray array;
    std::string error;
    if (!rt::readNpy(path.str(), array, error)) {
      fail(error);
      return failure();
    }
    const ArgInfo &arg = args[*index];
    if (array.getDType() != arg.dtype) {
      fail(path + ": dtype " + rt::getDTypeName(array.getDType()) +
           " does not match argument " + std::to_string(*index) + " of type " +
           typeString(arg.type) + " (" + rt::getDTypeName(arg.dtype) + ")");
      return failure();
    }
    bool shapeOk =
        static_cast<int64_t>(array.getShape().size()) == arg.type.getRank();
    for (int64_t d = 0; shapeOk && d < arg.type.getRank(); ++d)
      shapeOk = arg.type.isDynamicDim(d) ||
                arg.type.getDimSize(d) == array.getShape()[d];
    if (!shapeOk) {
      fail(path + ": shape " + shapeString(array.getShape()) +
           " does not match argument " + std::to_string(*index) + " of type " +
           typeString(arg.type));
      return failure();
    }
    loaded[*index] = std::move(array);
  }
  std::vector<std::optional<std::vector<int64_t>>> shapes(args.size());
  for (const std::string &item : options->inputShapes) {
    auto [ref, text] = StringRef(item).split('=');
    std::optional<size_t> index = findArg(ref, args);
    std::vector<int64_t> shape;
    if (!index || failed(parseShape(text, shape))) {
      fail("bad --input-shape '" + item + "' (" + describeArgs(args) + ")");
      return failure();
    }
    shapes[*index] = shape;
  }
  std::vector<HostArray> result;
  for (size_t i = 0; i < args.size(); ++i) {
    if (loaded[i]) {
      result.push_back(std::move(*loaded[i]));
      continue;
    }
    const ArgInfo &arg = args[i];
    std::string label = "argument " + std::to_string(i) +
                        (arg.name.empty() ? "" : " (%" + arg.name + ")");
    if (!options->randomInputs) {
      fail("missing input for " + label + " of type " + typeString(arg.type) +
           ": give --input " + std::to_string(i) +
           "=file.npy or --random-inputs");
      return failure();
    }
    std::vector<int64_t> shape(arg.type.getShape());
    if (!arg.type.hasStaticShape()) {
      if (!shapes[i]) {
        fail(label + " has the dynamic type " + typeString(arg.type) +
             ": give its shape with --input-shape " + std::to_string(i) +
             "=... or an --input file");
        return failure();
      }
      shape = *shapes[i];
      bool ok = static_cast<int64_t>(shape.size()) == arg.type.getRank();
      for (int64_t d = 0; ok && d < arg.type.getRank(); ++d)
        ok = arg.type.isDynamicDim(d) || arg.type.getDimSize(d) == shape[d];
      if (!ok) {
        fail("--input-shape " + shapeString(shape) + " does not match " +
             label + " of type " + typeString(arg.type));
        return failure();
      }
    }
    result.push_back(randomArray(arg.dtype, shape, options->seed, i));
  }
  return result;
}

} // namespace

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

namespace {

/// A JIT-compiled per-device program.
struct Compiled {
  std::unique_ptr<ExecutionEngine> engine;
  void (*function)(void **) = nullptr;
  std::vector<ValueInfo> results;
  double seconds = 0;
};

/// Runs `pm` on `module`; false if it failed (the diagnostics are out).
LogicalResult runPasses(ModuleOp module,
                        llvm::function_ref<void(OpPassManager &)> build) {
  PassManager pm(module.getContext());
  build(pm);
  return pm.run(module);
}

/// Whether any function argument is polymorphic.
bool hasPolyShapes(ModuleOp module) {
  bool found = false;
  module.walk([&](func::FuncOp func) {
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      if (func.getArgAttr(i, "poly.shape"))
        found = true;
  });
  return found;
}

/// The global-view passes: shape specialization, sharding inference and
/// propagation. The module keeps its global view.
LogicalResult prepareGlobalView(ModuleOp module, func::FuncOp entry,
                                ArrayRef<HostArray> inputs) {
  if (hasPolyShapes(module)) {
    std::string shapes;
    for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
      if (!entry.getArgAttr(i, "poly.shape"))
        continue;
      if (!shapes.empty())
        shapes += ",";
      const auto &shape = inputs[i].getShape();
      for (size_t d = 0; d < shape.size(); ++d)
        shapes += (d ? "x" : "") + std::to_string(shape[d]);
    }
    poly::PolySpecializePassOptions specialize;
    specialize.argShapes = shapes;
    if (failed(runPasses(module, [&](OpPassManager &pm) {
          pm.addPass(poly::createPolySpecializePass(specialize));
        })))
      return failure();
  }
  return runPasses(module, [](OpPassManager &pm) {
    pm.addPass(spmd::createSpmdLiftInlinedMeshesPass());
    spmd::buildTesseraPropagatePipeline(pm);
  });
}

/// How inputs and results are laid out over the devices: with `perDevice`
/// the partitioned entry takes and returns local blocks; otherwise (no
/// argument or result is sharded) every device gets and returns whole
/// arrays.
struct EntryLayouts {
  bool perDevice = false;
  std::vector<ShardLayout> args, results;
  /// The shardings as written, for --show-sharding.
  std::vector<std::string> argText, resultText;
  /// The global shapes of the results (a dynamic dimension is -1: the
  /// blocks divide it). Padded blocks are cut to these.
  std::vector<std::vector<int64_t>> resultShapes;
};

ShardLayout getLayout(spmd::TensorShardingAttr sharding, spmd::MeshAttr mesh,
                      int64_t rank);
std::string attrString(Attribute attr);

/// Lowers the kernel.calls of `module` (if any) as `mode` says: kernel-verify,
/// then kernel-lower-pipelined or kernel-lower-interpret.
LogicalResult lowerKernels(ModuleOp module, StringRef mode) {
  if (!module.walk([](kernel::CallOp) { return WalkResult::interrupt(); })
           .wasInterrupted())
    return success();
  if (mode != "pipelined" && mode != "interpret") {
    fail("--kernel-mode must be pipelined or interpret, got '" + mode.str() +
         "'");
    return failure();
  }
  // Kernel bodies load and store vectors, which only the vectorizing
  // pipeline lowers.
  if (options->scalarLoops) {
    fail("--scalar-loops cannot run kernel.calls (their bodies use vector "
         "ops); run without it");
    return failure();
  }
  return runPasses(module, [&](OpPassManager &pm) {
    pm.addPass(kernel::createKernelVerifyPass());
    if (mode == "interpret")
      pm.addPass(kernel::createKernelLowerInterpretPass());
    else
      pm.addPass(kernel::createKernelLowerPipelinedPass());
  });
}

/// Lowers the global-view module to the per-device LLVM-dialect program;
/// kernel.calls as `kernelMode` says (default: --kernel-mode).
FailureOr<EntryLayouts> lowerToDevice(ModuleOp module, StringRef entryName,
                                      StringRef kernelMode = "") {
  auto entry = module.lookupSymbol<func::FuncOp>(entryName);
  SmallVector<int64_t> argRanks, resultRanks;
  std::vector<std::vector<int64_t>> resultShapes;
  for (Type type : entry.getArgumentTypes())
    argRanks.push_back(cast<RankedTensorType>(type).getRank());
  for (Type type : entry.getResultTypes()) {
    auto tensor = cast<RankedTensorType>(type);
    resultRanks.push_back(tensor.getRank());
    resultShapes.emplace_back(tensor.getShape().begin(),
                              tensor.getShape().end());
  }
  // The global view (already propagated) becomes the per-device program.
  if (failed(runPasses(module, [&](OpPassManager &pm) {
        spmd::SpmdInsertReshardsPassOptions reshards;
        reshards.checkVma = true; // (spmd-check-vma's check, no extra walk)
        pm.addPass(spmd::createSpmdInsertReshardsPass(reshards));
        pm.addPass(spmd::createSpmdReshardToCollectivesPass());
        pm.addPass(spmd::createSpmdPartitionPass());
      })))
    return failure();

  // A partitioned entry: the layouts of its blocks.
  EntryLayouts layouts;
  layouts.resultShapes = std::move(resultShapes);
  if (auto attr = entry->getAttrOfType<ArrayAttr>("tessera.per_device")) {
    SymbolTableCollection symbols;
    layouts.perDevice = true;
    auto addAll = [&](Attribute shardings, ArrayRef<int64_t> ranks,
                      std::vector<ShardLayout> &out,
                      std::vector<std::string> &text) {
      for (auto [sharding, rank] : llvm::zip(
               cast<spmd::TensorShardingPerValueAttr>(shardings).getShardings(),
               ranks)) {
        out.push_back(
            getLayout(sharding, sharding.getMesh(entry, &symbols), rank));
        text.push_back(attrString(sharding));
      }
    };
    addAll(attr[0], argRanks, layouts.args, layouts.argText);
    addAll(attr[1], resultRanks, layouts.results, layouts.resultText);
  }
  // The global interface has been read; the per-device program no longer
  // refers to the meshes through it.
  MLIRContext *ctx = module.getContext();
  auto strip = [&](ArrayRef<DictionaryAttr> old) {
    SmallVector<DictionaryAttr> dicts;
    for (DictionaryAttr dict : old) {
      NamedAttrList attrs(dict ? dict : DictionaryAttr::get(ctx));
      attrs.erase("spmd.global_type");
      attrs.erase("spmd.global_sharding");
      dicts.push_back(attrs.getDictionary(ctx));
    }
    return dicts;
  };
  module.walk([&](func::FuncOp func) {
    func->removeAttr("tessera.per_device");
    SmallVector<DictionaryAttr> args, results;
    func.getAllArgAttrs(args);
    func.getAllResultAttrs(results);
    func.setAllArgAttrs(strip(args));
    func.setAllResultAttrs(strip(results));
  });

  entry->setAttr("llvm.emit_c_interface", UnitAttr::get(module.getContext()));
  // Inputs may be shared between devices: the program must not write them.
  for (unsigned i = 0; i < entry.getNumArguments(); ++i)
    entry.setArgAttr(i, "bufferization.writable",
                     BoolAttr::get(module.getContext(), false));
  if (failed(lowerKernels(module, kernelMode.empty()
                                      ? StringRef(options->kernelMode)
                                      : kernelMode)))
    return failure();
  TesseraCpuPipelineOptions cpu;
  cpu.vectorize = !options->scalarLoops;
  if (failed(runPasses(module, [&](OpPassManager &pm) {
        pm.addPass(createCanonicalizerPass());
        buildTesseraCpuPipeline(pm, cpu);
      })))
    return failure();
  return layouts;
}

/// A target machine for the host CPU (its features detected, not assumed).
std::unique_ptr<llvm::TargetMachine> createHostTargetMachine() {
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) {
    llvm::consumeError(builder.takeError());
    return nullptr;
  }
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto machine = builder->createTargetMachine();
  if (!machine) {
    llvm::consumeError(machine.takeError());
    return nullptr;
  }
  return std::move(*machine);
}

FailureOr<Compiled> jitCompile(ModuleOp module, StringRef entryName,
                               ArrayRef<ValueInfo> results) {
  Compiled compiled;
  std::unique_ptr<llvm::TargetMachine> machine = createHostTargetMachine();
  if (!machine) {
    fail("cannot create a target machine for the host CPU");
    return failure();
  }
  auto transformer = makeOptimizingTransformer(3, 0, machine.get());
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  engineOptions.enableGDBNotificationListener = false;
  engineOptions.enablePerfNotificationListener = false;
  auto engine =
      ExecutionEngine::create(module, engineOptions, std::move(machine));
  if (!engine) {
    fail("JIT compilation failed: " + llvm::toString(engine.takeError()));
    return failure();
  }
  compiled.engine = std::move(*engine);
  compiled.engine->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap map;
    auto add = [&](StringRef name, void *address) {
      map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                             llvm::JITSymbolFlags::Exported};
    };
    for (const TesseraRtSymbol *s = tessera_rt_symbols(); s->name; ++s)
      add(s->name, s->address);
    for (const TesseraRtSymbol *s = tessera_rt_kernel_symbols(); s->name; ++s)
      add(s->name, s->address);
    // The allocation functions of finalize-memref-to-llvm's generic mode.
    add("_mlir_memref_to_llvm_alloc", (void *)&tessera_rt_alloc);
    add("_mlir_memref_to_llvm_aligned_alloc",
        (void *)&tessera_rt_aligned_alloc);
    add("_mlir_memref_to_llvm_free", (void *)&tessera_rt_free);
    // Strided copies (memref.copy of non-contiguous buffers).
    add("memrefCopy", (void *)&memrefCopy);
    return map;
  });
  compiled.engine->initialize();
  auto function =
      compiled.engine->lookupPacked(("_mlir_ciface_" + entryName).str());
  if (!function) {
    fail("JIT compilation failed: " + llvm::toString(function.takeError()));
    return failure();
  }
  compiled.function = *function;
  compiled.results.assign(results.begin(), results.end());
  return compiled;
}

/// Writes the lowered module as `--emit` asks.
int emitModule(ModuleOp module) {
  std::string error;
  auto output = openOutputFile(options->outputFile, &error);
  if (!output)
    return fail(error);
  if (options->emit == "mlir") {
    module.print(output->os());
    output->keep();
    return 0;
  }
  llvm::LLVMContext llvmContext;
  auto llvmModule = translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return fail("translation to LLVM IR failed");
  std::unique_ptr<llvm::TargetMachine> machine = createHostTargetMachine();
  if (!machine)
    return fail("cannot create a target machine for the host CPU");
  ExecutionEngine::setupTargetTripleAndDataLayout(llvmModule.get(),
                                                  machine.get());
  if (llvm::Error err =
          makeOptimizingTransformer(3, 0, machine.get())(llvmModule.get()))
    return fail("LLVM optimization failed: " + llvm::toString(std::move(err)));
  if (options->emit == "llvm") {
    llvmModule->print(output->os(), nullptr);
    output->keep();
    return 0;
  }
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, output->os(), nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
    return fail("the host target cannot emit object files");
  codegen.run(*llvmModule);
  output->keep();
  return 0;
}

} // namespace

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

namespace {

/// A memref descriptor: allocated, aligned, offset, sizes, strides.
void appendDescriptor(std::vector<int64_t> &words, void *data,
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
HostArray readResult(const int64_t *words, size_t rank, DType dtype) {
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

/// The mesh coordinates of `device` in the mesh of `layout`: by its own
/// device order if it has one, else by `mesh`'s.
std::vector<int64_t> coordinatesIn(const ShardLayout &layout,
                                   const rt::Mesh &mesh, int64_t device) {
  if (layout.deviceIds.empty())
    return mesh.coordinates(device);
  const std::vector<int64_t> &sizes = mesh.spec().axisSizes;
  int64_t rest =
      llvm::find(layout.deviceIds, device) - layout.deviceIds.begin();
  std::vector<int64_t> coords(sizes.size());
  for (size_t a = sizes.size(); a-- > 0;) {
    coords[a] = rest % sizes[a];
    rest /= sizes[a];
  }
  return coords;
}

/// The outcome of running a compiled program on a mesh.
struct RunResult {
  std::vector<std::vector<HostArray>> perDevice; // [device][result]
  std::vector<double> seconds;
};

/// Runs `compiled` `repeat` times on `mesh`. A per-device entry gets each
/// device's blocks of the inputs (scattered by `layouts.args`); otherwise
/// every device gets every input whole (shared, read only). Returns each
/// device's results.
FailureOr<RunResult> runOnMesh(rt::Mesh &mesh, const Compiled &compiled,
                               const EntryLayouts &layouts,
                               ArrayRef<HostArray> inputs, unsigned repeat,
                               bool traceLast) {
  int64_t numDevices = mesh.numDevices();
  RunResult result;
  result.perDevice.resize(numDevices);
  // The arrays each device gets.
  std::vector<std::vector<HostArray>> blocks(numDevices);
  std::vector<std::vector<const HostArray *>> deviceInputs(numDevices);
  for (int64_t d = 0; d < numDevices; ++d) {
    if (layouts.perDevice) {
      for (size_t i = 0; i < inputs.size(); ++i)
        blocks[d].push_back(
            rt::extractBlock(inputs[i], layouts.args[i],
                             coordinatesIn(layouts.args[i], mesh, d)));
      for (const HostArray &block : blocks[d])
        deviceInputs[d].push_back(&block);
    } else {
      for (const HostArray &input : inputs)
        deviceInputs[d].push_back(&input);
    }
  }
  for (unsigned iteration = 0; iteration < repeat; ++iteration) {
    bool last = iteration + 1 == repeat;
    mesh.setTraceEnabled(last && traceLast);
    mesh.resetStats();
    rt::clearKernelCallRecords();
    for (int64_t d = 0; d < numDevices; ++d)
      for (const HostArray *input : deviceInputs[d])
        mesh.accountBuffer(d, input->getNumBytes());
    auto fn = [&](int64_t device) {
      std::vector<int64_t> words;
      std::vector<size_t> argOffsets;
      for (const HostArray *input : deviceInputs[device]) {
        argOffsets.push_back(words.size());
        appendDescriptor(words, const_cast<uint8_t *>(input->data()),
                         input->getShape());
      }
      size_t resultWords = 0;
      for (const ValueInfo &r : compiled.results)
        resultWords += 3 + 2 * r.type.getRank();
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
      compiled.function(args.data());
      // Copy the results out (on the last run) and free their buffers (once
      // each: results may share one).
      std::vector<HostArray> outputs;
      std::vector<int64_t> freed;
      size_t offset = 0;
      // Every result is read before any buffer is freed: results may share
      // one (a value returned twice).
      if (last)
        for (const ValueInfo &r : compiled.results) {
          outputs.push_back(readResult(resultBuffer.data() + offset,
                                       r.type.getRank(), r.dtype));
          offset += 3 + 2 * r.type.getRank();
        }
      offset = 0;
      for (const ValueInfo &r : compiled.results) {
        const int64_t *desc = resultBuffer.data() + offset;
        offset += 3 + 2 * r.type.getRank();
        int64_t allocated = desc[0];
        bool isInput =
            llvm::any_of(deviceInputs[device], [&](const HostArray *in) {
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
    bool ok = mesh.run(fn, error);
    auto end = std::chrono::steady_clock::now();
    for (int64_t d = 0; d < numDevices; ++d)
      for (const HostArray *input : deviceInputs[d])
        mesh.releaseBuffer(d, input->getNumBytes());
    if (!ok) {
      fail("the program failed on the emulated mesh: " + error);
      return failure();
    }
    result.seconds.push_back(
        std::chrono::duration<double>(end - start).count());
  }
  return result;
}

/// True if two devices' copies `a` and `b` of the block at `coords` of a
/// result laid out by `layout` (global shape `global`) agree on every
/// element of the result; the padding past its end may differ.
bool sameElements(const HostArray &a, const HostArray &b,
                  const ShardLayout &layout, const std::vector<int64_t> &coords,
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

/// The results as global arrays. A per-device entry's results are
/// assembled from the devices' blocks by `layouts.results`; otherwise every
/// device holds every result whole. Devices that hold the same block must
/// hold the same values.
FailureOr<std::vector<HostArray>> gatherResults(const RunResult &run,
                                                const EntryLayouts &layouts,
                                                rt::Mesh &mesh) {
  size_t numResults = run.perDevice.front().size();
  std::vector<HostArray> globals;
  for (size_t r = 0; r < numResults; ++r) {
    const HostArray &first = run.perDevice.front()[r];
    if (!layouts.perDevice) {
      globals.push_back(first);
    } else {
      const ShardLayout &layout = layouts.results[r];
      std::vector<int64_t> shape = first.getShape();
      for (size_t d = 0; d < shape.size(); ++d)
        shape[d] = ShapedType::isDynamic(layouts.resultShapes[r][d])
                       ? shape[d] * layout.getNumBlocks(d)
                       : layouts.resultShapes[r][d];
      globals.emplace_back(first.getDType(), shape);
    }
    HostArray &global = globals.back();
    // The first device to hold each block, and the values it holds.
    std::map<std::vector<int64_t>, int64_t> owner;
    for (size_t device = 0; device < run.perDevice.size(); ++device) {
      const HostArray &block = run.perDevice[device][r];
      std::vector<int64_t> coords =
          layouts.perDevice ? coordinatesIn(layouts.results[r], mesh, device)
                            : mesh.coordinates(device);
      std::vector<int64_t> key;
      if (layouts.perDevice)
        for (size_t d = 0; d < block.getShape().size(); ++d)
          key.push_back(layouts.results[r].getBlockIndex(d, coords));
      auto [it, inserted] = owner.try_emplace(key, device);
      if (inserted) {
        if (layouts.perDevice)
          rt::insertBlock(global, block, layouts.results[r], coords);
        continue;
      }
      const HostArray &held = run.perDevice[it->second][r];
      bool same = layouts.perDevice
                      ? sameElements(held, block, layouts.results[r], coords,
                                     global.getShape())
                      : held.getShape() == block.getShape() &&
                            std::memcmp(held.data(), block.data(),
                                        held.getNumBytes()) == 0;
      if (!same) {
        fail("result " + std::to_string(r) + " differs between device " +
             std::to_string(it->second) + " and device " +
             std::to_string(device) +
             ": a manual computation declares it replicated over a manual "
             "axis (its out_shardings) but computes a value that varies "
             "along it");
        return failure();
      }
    }
  }
  return globals;
}

/// Default tolerances by dtype.
double defaultTolerance(DType dtype) {
  switch (dtype) {
  case DType::F64:
    return 1e-10;
  case DType::F32:
    return 1e-4;
  default:
    return 1e-2;
  }
}

/// The manual axes of every manual computation in the module.
llvm::StringSet<> getManualAxes(ModuleOp module) {
  llvm::StringSet<> axes;
  module.walk([&](spmd::ManualComputationOp op) {
    for (StringAttr name : op.getManualAxes().getValue())
      axes.insert(name.getValue());
  });
  return axes;
}

/// The layout of `sharding` over `mesh` for --show-sharding.
ShardLayout getLayout(spmd::TensorShardingAttr sharding, spmd::MeshAttr mesh,
                      int64_t rank) {
  ShardLayout layout;
  layout.dims.resize(rank);
  if (!sharding || !mesh)
    return layout;
  for (int64_t d = 0; d < rank && d < sharding.getRank(); ++d)
    for (spmd::AxisRefAttr axis : sharding.getDimSharding(d).getAxes())
      if (std::optional<unsigned> index = mesh.getAxisIndex(axis.getName())) {
        // A sub-axis "x":(m)k is the part of size k after more major parts
        // of product m; the runtime strides by the parts minor to it.
        int64_t size = axis.getSize(mesh);
        int64_t minor =
            axis.getSubAxisInfo()
                ? mesh.getAxisSize(axis.getName()) / (axis.getPreSize() * size)
                : 1;
        layout.dims[d].push_back({static_cast<int64_t>(*index), minor, size});
      }
  // Blocks are placed by the device order of the sharding's own mesh.
  if (!mesh.getAxes().empty())
    llvm::append_range(layout.deviceIds, mesh.getDeviceIdsOrIota());
  return layout;
}

std::string attrString(Attribute attr) {
  if (!attr)
    return "replicated";
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}

} // namespace

//===----------------------------------------------------------------------===//
// Main
//===----------------------------------------------------------------------===//

int runMain() {
  Options &opts = *options;
  if (opts.backend == "mpi")
    return fail("--backend=mpi is not supported yet: this build runs the "
                "emulated mesh in one process (--backend=threads)");
  if (opts.backend != "threads")
    return fail("unknown --backend '" + opts.backend +
                "' (expected threads or mpi)");
  if (!opts.emit.empty() && opts.emit != "mlir" && opts.emit != "llvm" &&
      opts.emit != "obj")
    return fail("unknown --emit '" + opts.emit +
                "' (expected mlir, llvm or obj)");
  if (opts.repeat < 1)
    return fail("--repeat must be at least 1");

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllToLLVMIRTranslations(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics point at the source; the op dump would only repeat it.
  context.printOpOnDiagnostic(false);

  std::string error;
  auto file = openInputFile(opts.inputFile, &error);
  if (!file)
    return fail(error);
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(*sourceMgr, &context);
  AsmParserState parserState;
  ParserConfig config(&context);
  Block block;
  if (failed(parseAsmSourceFile(*sourceMgr, &block, config, &parserState)))
    return 1;
  OwningOpRef<ModuleOp> module;
  if (block.getOperations().size() == 1 && isa<ModuleOp>(block.front())) {
    module = cast<ModuleOp>(block.front());
    module.get()->remove();
  } else {
    module = ModuleOp::create(UnknownLoc::get(&context));
    module->getBody()->getOperations().splice(module->getBody()->begin(),
                                              block.getOperations());
  }
  if (failed(verify(*module)))
    return 1;

  FailureOr<func::FuncOp> entry = findEntry(*module, opts.entry);
  if (failed(entry))
    return 1;
  std::string entryName = entry->getSymName().str();
  std::vector<std::string> names = getArgNames(*entry, parserState);
  std::vector<ArgInfo> args;
  for (unsigned i = 0; i < entry->getNumArguments(); ++i) {
    Type type = entry->getArgument(i).getType();
    auto tensor = dyn_cast<RankedTensorType>(type);
    std::optional<DType> dtype =
        tensor ? getDType(tensor.getElementType()) : std::nullopt;
    if (!tensor || !dtype)
      return fail("argument " + std::to_string(i) + " of @" + entryName +
                  " has type " + typeString(type) +
                  ", which tessera-run cannot pass: entry arguments are "
                  "ranked tensors of f16/bf16/f32/f64, i1/i8/.../i64, "
                  "ui8/.../ui64 or index (a scalar is a rank-0 tensor)");
    args.push_back({names[i], tensor, *dtype});
  }
  for (unsigned i = 0; i < entry->getNumResults(); ++i) {
    Type type = entry->getResultTypes()[i];
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !getDType(tensor.getElementType()))
      return fail("result " + std::to_string(i) + " of @" + entryName +
                  " has type " + typeString(type) +
                  ", which tessera-run cannot return: results are ranked "
                  "tensors of the element types arguments take");
  }

  FailureOr<MeshInfo> mesh = getMesh(*module);
  if (failed(mesh))
    return 1;
  if (!opts.mesh.empty()) {
    if (failed(overrideMesh(*mesh, opts.mesh)))
      return 1;
    setMesh(*module, *mesh);
    if (failed(verify(*module))) {
      return fail("the program cannot run on mesh " + mesh->toString() +
                  " (see the errors above)");
    }
  }

  FailureOr<std::vector<HostArray>> inputs = loadInputs(args);
  if (failed(inputs))
    return 1;

  // The device program.
  auto compileStart = std::chrono::steady_clock::now();
  OwningOpRef<ModuleOp> device = cast<ModuleOp>((*module)->clone());
  if (failed(prepareGlobalView(*device, *entry, *inputs)))
    return 1;
  // What --show-sharding draws: the shardings after inference and
  // propagation, before the lowering drops them.
  auto deviceEntry = device->lookupSymbol<func::FuncOp>(entryName);
  std::vector<ShardingView> views;
  std::vector<ValueInfo> results;
  SymbolTableCollection symbols;
  for (unsigned i = 0; i < deviceEntry.getNumResults(); ++i) {
    auto type = cast<RankedTensorType>(deviceEntry.getResultTypes()[i]);
    results.push_back({type, *getDType(type.getElementType())});
  }
  if (opts.showSharding) {
    auto addView = [&](std::string label, RankedTensorType type,
                       spmd::TensorShardingAttr sharding) {
      spmd::MeshAttr meshAttr =
          sharding ? sharding.getMesh(deviceEntry, &symbols) : nullptr;
      ShardingView view;
      view.label = std::move(label);
      HostArray shapeOnly(*getDType(type.getElementType()), {});
      view.type =
          std::string(rt::getDTypeName(*getDType(type.getElementType()))) +
          "[" +
          llvm::join(
              llvm::map_range(type.getShape(),
                              [](int64_t d) { return std::to_string(d); }),
              ",") +
          "]";
      view.sharding = attrString(sharding);
      view.layout = getLayout(sharding, meshAttr, type.getRank());
      views.push_back(std::move(view));
    };
    for (unsigned i = 0; i < deviceEntry.getNumArguments(); ++i)
      addView("arg" + std::to_string(i) +
                  (args[i].name.empty() ? "" : " (%" + args[i].name + ")"),
              cast<RankedTensorType>(deviceEntry.getArgument(i).getType()),
              spmd::getSharding(deviceEntry.getArgument(i)));
    for (unsigned i = 0; i < deviceEntry.getNumResults(); ++i)
      addView("result" + std::to_string(i), results[i].type,
              spmd::getFuncResultSharding(deviceEntry, i));
  }
  FailureOr<EntryLayouts> layouts = lowerToDevice(*device, entryName);
  if (failed(layouts))
    return 1;
  if (!opts.emit.empty())
    return emitModule(*device);
  FailureOr<Compiled> compiled = jitCompile(*device, entryName, results);
  if (failed(compiled))
    return 1;
  double compileSeconds = std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - compileStart)
                              .count();

  rt::MeshSpec spec{mesh->names, mesh->sizes, mesh->deviceIds};
  std::unique_ptr<rt::Mesh> emulated = rt::Mesh::create(spec, error);
  if (!emulated)
    return fail("cannot create the mesh " + mesh->toString() + ": " + error);
  if (opts.watchdog >= 0)
    emulated->setWatchdogTimeout(opts.watchdog);
  std::printf("tessera-run: @%s on %s (%lld device%s)\n", entryName.c_str(),
              mesh->toString().c_str(),
              static_cast<long long>(emulated->numDevices()),
              emulated->numDevices() == 1 ? "" : "s");
  FailureOr<RunResult> run = runOnMesh(*emulated, *compiled, *layouts, *inputs,
                                       opts.repeat, !opts.trace.empty());
  if (failed(run))
    return 1;
  FailureOr<std::vector<HostArray>> outputs =
      gatherResults(*run, *layouts, *emulated);
  if (failed(outputs))
    return 1;

  for (size_t i = 0; i < outputs->size(); ++i)
    printSummary("result" + std::to_string(i), (*outputs)[i],
                 opts.printResults);

  if (!opts.outputDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(opts.outputDir))
      return fail("cannot create '" + opts.outputDir + "': " + ec.message());
    for (size_t i = 0; i < outputs->size(); ++i) {
      llvm::SmallString<128> path(opts.outputDir);
      llvm::sys::path::append(path, "result" + std::to_string(i) + ".npy");
      if (!rt::writeNpy(path.str().str(), (*outputs)[i], error))
        return fail(error);
    }
  }

  if (opts.showSharding) {
    if (layouts->perDevice) {
      std::printf("sharding (the partitioned program: each device gets and "
                  "returns exactly its blocks):\n");
      for (size_t i = 0; i < views.size(); ++i) {
        bool isArg = i < args.size();
        size_t k = isArg ? i : i - args.size();
        views[i].layout = isArg ? layouts->args[k] : layouts->results[k];
        views[i].sharding =
            isArg ? layouts->argText[k] : layouts->resultText[k];
      }
    } else {
      std::printf("sharding (the entry's arguments and results are "
                  "replicated: every device gets and returns whole "
                  "arrays):\n");
    }
    for (size_t i = 0; i < views.size(); ++i) {
      std::vector<std::vector<int64_t>> coords;
      for (int64_t d = 0; d < emulated->numDevices(); ++d)
        coords.push_back(coordinatesIn(views[i].layout, *emulated, d));
      std::vector<int64_t> shape = i < args.size()
                                       ? (*inputs)[i].getShape()
                                       : (*outputs)[i - args.size()].getShape();
      printShardingGrid(views[i], shape, coords);
    }
  }

  if (opts.stats) {
    // With --timing, the time each device spent in collectives in the last
    // run (waiting and copying), and the part of it after all members of
    // each call had arrived (copying).
    std::printf("stats: %-6s %12s %12s %14s%s\n", "device", "peak memory",
                "collectives", "bytes sent",
                opts.timing ? "  collective time        data time" : "");
    for (int64_t d = 0; d < emulated->numDevices(); ++d) {
      rt::DeviceStats s = emulated->stats(d);
      std::printf("stats: %-6lld %12s %12lld %14s", static_cast<long long>(d),
                  formatBytes(s.peakBytes).c_str(),
                  static_cast<long long>(s.collectiveCalls),
                  formatBytes(s.collectiveBytes).c_str());
      if (opts.timing)
        std::printf(" %13.3f ms %13.3f ms", s.collectiveSeconds * 1e3,
                    s.collectiveDataSeconds * 1e3);
      std::printf("\n");
    }
    printKernelStats(rt::getKernelCallRecords());
  }

  if (opts.timing) {
    std::vector<double> ms;
    for (double s : run->seconds)
      ms.push_back(s * 1e3);
    std::sort(ms.begin(), ms.end());
    double median = ms.size() % 2
                        ? ms[ms.size() / 2]
                        : (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]) / 2;
    std::printf("compile: %.1f ms\n", compileSeconds * 1e3);
    std::printf("run: median %.3f ms, min %.3f ms, max %.3f ms over %zu runs\n",
                median, ms.front(), ms.back(), ms.size());
  }

  if (!opts.trace.empty() && !emulated->writeTrace(opts.trace, error))
    return fail(error);

  if (!opts.check)
    return 0;

  // The reference: the unpartitioned program on one device. The bodies of
  // manual computations are per device by definition; they keep the
  // devices of their manual axes.
  MeshInfo single = *mesh;
  llvm::StringSet<> manual = getManualAxes(*module);
  for (size_t i = 0; i < single.names.size(); ++i)
    if (!manual.contains(single.names[i]))
      single.sizes[i] = 1;
  single.deviceIds.clear();
  OwningOpRef<ModuleOp> reference = cast<ModuleOp>((*module)->clone());
  // With kernel.calls, the reference runs them in interpret mode.
  bool hasKernels =
      (*module)
          ->walk([](kernel::CallOp) { return WalkResult::interrupt(); })
          .wasInterrupted();
  setMesh(*reference, single);
  {
    llvm::StringSet<> shrunk;
    for (size_t i = 0; i < single.names.size(); ++i)
      if (single.sizes[i] == 1)
        shrunk.insert(single.names[i]);
    dropSubAxesOf(*reference, shrunk);
  }
  FailureOr<EntryLayouts> refLayouts = failure();
  if (succeeded(verify(*reference)) &&
      succeeded(prepareGlobalView(*reference, *entry, *inputs)))
    refLayouts =
        lowerToDevice(*reference, entryName, hasKernels ? "interpret" : "");
  if (failed(refLayouts))
    return fail("cannot build the single-device reference (see the errors "
                "above)");
  FailureOr<Compiled> refCompiled = jitCompile(*reference, entryName, results);
  if (failed(refCompiled))
    return 1;
  rt::MeshSpec refSpec{single.names, single.sizes, {}};
  std::unique_ptr<rt::Mesh> refMesh = rt::Mesh::create(refSpec, error);
  if (!refMesh)
    return fail("cannot create the reference mesh: " + error);
  if (opts.watchdog >= 0)
    refMesh->setWatchdogTimeout(opts.watchdog);
  FailureOr<RunResult> refRun =
      runOnMesh(*refMesh, *refCompiled, *refLayouts, *inputs, 1, false);
  if (failed(refRun))
    return 1;
  FailureOr<std::vector<HostArray>> expected =
      gatherResults(*refRun, *refLayouts, *refMesh);
  if (failed(expected))
    return 1;
  int mismatches = 0;
  for (size_t i = 0; i < outputs->size(); ++i) {
    DType dtype = (*outputs)[i].getDType();
    double rtol = opts.rtol >= 0 ? opts.rtol : defaultTolerance(dtype);
    double atol = opts.atol >= 0 ? opts.atol : defaultTolerance(dtype);
    if (!compareArrays("result" + std::to_string(i), (*outputs)[i],
                       (*expected)[i], rtol, atol))
      ++mismatches;
  }
  if (mismatches) {
    std::printf("check: FAILED: %d of %zu results differ from the "
                "single-device reference\n",
                mismatches, outputs->size());
    return 1;
  }
  std::printf("check: all %zu results match the single-device reference%s\n",
              outputs->size(),
              hasKernels ? " (kernels in interpret mode)" : "");
  return 0;
}

} // namespace mlir::tessera::run
