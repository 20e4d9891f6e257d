//===- Compile.cpp - global view to per-device machine code ---------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Execution/Compile.h"

#include "tessera/Conversion/RuntimeTypes.h"
#include "tessera/Dialect/Comm/IR/CommOps.h"
#include "tessera/Dialect/Kernel/IR/KernelOps.h"
#include "tessera/Dialect/Kernel/Transforms/Passes.h"
#include "tessera/Dialect/Poly/Transforms/Passes.h"
#include "tessera/Dialect/Spmd/IR/CollectiveShardings.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"
#include "tessera/Dialect/Spmd/Transforms/Passes.h"
#include "tessera/Pipelines/Pipelines.h"
#include "tessera/Runtime/Kernel.h"
#include "tessera/Runtime/Runtime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Target/TargetMachine.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::exec;
using ::tessera::rt::ShardLayout;

CompiledProgram::CompiledProgram() = default;
CompiledProgram::CompiledProgram(CompiledProgram &&) = default;
CompiledProgram &CompiledProgram::operator=(CompiledProgram &&) = default;
CompiledProgram::~CompiledProgram() = default;

std::string CompiledProgram::getFunctionAt(uint64_t pc) const {
  auto next = llvm::upper_bound(
      functions, pc,
      [](uint64_t value, const std::pair<uint64_t, std::string> &function) {
        return value < function.first;
      });
  if (next == functions.begin())
    return "";
  return "@" + std::prev(next)->second;
}

/// Runs the passes `build` adds on `module`; a `ReportedError` if they fail.
static llvm::Error runPasses(ModuleOp module, const CompileOptions &options,
                             llvm::function_ref<void(OpPassManager &)> build) {
  PassManager pm(module.getContext());
  if (options.configurePassManager && failed(options.configurePassManager(pm)))
    return makeReportedError();
  build(pm);
  if (failed(pm.run(module)))
    return makeReportedError();
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// The global view
//===----------------------------------------------------------------------===//

llvm::Error
mlir::tessera::exec::specializeShapes(ModuleOp module, StringRef entryName,
                                      ArrayRef<std::vector<int64_t>> argShapes,
                                      const CompileOptions &options) {
  auto entry = module.lookupSymbol<func::FuncOp>(entryName);
  bool polymorphic = false;
  module.walk([&](func::FuncOp func) {
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      polymorphic |= static_cast<bool>(func.getArgAttr(i, "poly.shape"));
  });
  if (polymorphic) {
    std::string shapes;
    for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
      if (!entry.getArgAttr(i, "poly.shape"))
        continue;
      if (!shapes.empty())
        shapes += ",";
      const std::vector<int64_t> &shape = argShapes[i];
      for (size_t d = 0; d < shape.size(); ++d)
        shapes += (d ? "x" : "") + std::to_string(shape[d]);
    }
    poly::PolySpecializePassOptions specialize;
    specialize.argShapes = shapes;
    return runPasses(module, options, [&](OpPassManager &pm) {
      pm.addPass(poly::createPolySpecializePass(specialize));
    });
  }
  return llvm::Error::success();
}

llvm::Error
mlir::tessera::exec::prepareGlobalView(ModuleOp module, StringRef entryName,
                                       ArrayRef<std::vector<int64_t>> argShapes,
                                       const CompileOptions &options) {
  if (llvm::Error error =
          specializeShapes(module, entryName, argShapes, options))
    return error;
  // The automatic partitioner's options are checked before anything runs.
  std::unique_ptr<Pass> autoPartition;
  if (options.autoPartition) {
    autoPartition = spmd::createSpmdAutoPartitionPass();
    std::string message;
    if (failed(autoPartition->initializeOptions(*options.autoPartition,
                                                [&](const llvm::Twine &error) {
                                                  message = error.str();
                                                  return failure();
                                                })))
      return makeError("invalid --auto-options '" + *options.autoPartition +
                       "': " + message);
  }
  return runPasses(module, options, [&](OpPassManager &pm) {
    pm.addPass(spmd::createSpmdLiftInlinedMeshesPass());
    if (autoPartition)
      pm.addPass(std::move(autoPartition));
    spmd::buildTesseraPropagatePipeline(pm);
  });
}

//===----------------------------------------------------------------------===//
// The per-device program
//===----------------------------------------------------------------------===//

void mlir::tessera::exec::buildPartitionStages(OpPassManager &pm) {
  spmd::SpmdInsertReshardsPassOptions reshards;
  reshards.checkVma = true; // (spmd-check-vma's check, no extra walk)
  pm.addPass(spmd::createSpmdInsertReshardsPass(reshards));
  pm.addPass(spmd::createSpmdReshardToCollectivesPass());
  pm.addPass(spmd::createSpmdPartitionPass());
}

void mlir::tessera::exec::pruneUnreachableFunctions(ModuleOp module,
                                                    StringRef entryName) {
  SymbolTable symbols(module);
  auto entry = symbols.lookup<func::FuncOp>(entryName);
  if (!entry)
    return;
  // Every function a reached function names, in any attribute of any op of
  // its body or of the function itself (calls, kernel bodies, ...).
  llvm::SetVector<Operation *> reached;
  reached.insert(entry);
  for (size_t i = 0; i < reached.size(); ++i) {
    reached[i]->walk([&](Operation *op) {
      op->getAttrDictionary().walk([&](SymbolRefAttr ref) {
        if (auto callee = symbols.lookup<func::FuncOp>(ref.getRootReference()))
          reached.insert(callee);
      });
    });
  }
  for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (!reached.contains(func))
      symbols.erase(func);
}

/// `axis` as a part of `mesh`'s axes (none if the mesh lacks it). A
/// sub-axis "x":(m)k is the part of size k after more major parts of product
/// m; the runtime strides by the parts minor to it.
static std::optional<::tessera::rt::AxisPart>
getAxisPart(spmd::AxisRefAttr axis, spmd::MeshAttr mesh) {
  std::optional<unsigned> index = mesh.getAxisIndex(axis.getName());
  if (!index)
    return std::nullopt;
  int64_t size = axis.getSize(mesh);
  int64_t minor = axis.getSubAxisInfo() ? mesh.getAxisSize(axis.getName()) /
                                              (axis.getPreSize() * size)
                                        : 1;
  return ::tessera::rt::AxisPart{static_cast<int64_t>(*index), minor, size};
}

/// The mesh the runtime emulates: the module's first non-maximal mesh of
/// the most devices (the program mesh, whose axes convert-comm-to-runtime
/// also names).
static spmd::MeshAttr getRuntimeMesh(ModuleOp module) {
  spmd::MeshAttr chosen;
  for (auto mesh : module.getOps<spmd::MeshOp>()) {
    spmd::MeshAttr attr = mesh.getMesh();
    if (!attr.getAxes().empty() &&
        (!chosen || attr.getTotalSize() > chosen.getTotalSize()))
      chosen = attr;
  }
  return chosen;
}

/// `sharding` on `mesh` spelled in the axes of the runtime's mesh
/// `runtime`, with that mesh (unchanged when `mesh` has the runtime's axes;
/// null when they cannot spell it). The device order stays `mesh`'s.
static std::pair<spmd::TensorShardingAttr, spmd::MeshAttr>
onRuntimeMesh(spmd::TensorShardingAttr sharding, spmd::MeshAttr mesh,
              spmd::MeshAttr runtime) {
  if (!sharding || !mesh || !runtime || mesh.getAxes().empty() ||
      mesh.hasSameAxes(runtime) ||
      mesh.getTotalSize() != runtime.getTotalSize())
    return {sharding, mesh};
  FailureOr<spmd::TensorShardingAttr> translated =
      spmd::translateShardingToMesh(sharding, mesh, sharding.getMeshOrRef(),
                                    runtime);
  if (failed(translated))
    return {};
  return {*translated, runtime};
}

/// The layout of `sharding` over `mesh` (placed on the runtime's mesh
/// `runtime`).
static ShardLayout getLayout(spmd::TensorShardingAttr sharding,
                             spmd::MeshAttr mesh, int64_t rank,
                             spmd::MeshAttr runtime) {
  ShardLayout layout;
  layout.dims.resize(rank);
  if (!sharding || !mesh)
    return layout;
  auto [placed, axesMesh] = onRuntimeMesh(sharding, mesh, runtime);
  if (!placed)
    return layout;
  for (int64_t d = 0; d < rank && d < placed.getRank(); ++d)
    for (spmd::AxisRefAttr axis : placed.getDimSharding(d).getAxes())
      if (std::optional<::tessera::rt::AxisPart> part =
              getAxisPart(axis, axesMesh))
        layout.dims[d].push_back(*part);
  // Blocks are placed by the device order of the sharding's own mesh.
  if (!mesh.getAxes().empty())
    llvm::append_range(layout.deviceIds, mesh.getDeviceIdsOrIota());
  return layout;
}

bool UnreducedLayout::isFirstOfGroup(const std::vector<int64_t> &coords) const {
  for (const ::tessera::rt::AxisPart &part : parts)
    if ((coords[part.axis] / part.pre) % part.size != 0)
      return false;
  return true;
}

std::vector<int64_t>
UnreducedLayout::getFirstOfGroup(std::vector<int64_t> coords) const {
  for (const ::tessera::rt::AxisPart &part : parts)
    coords[part.axis] -=
        ((coords[part.axis] / part.pre) % part.size) * part.pre;
  return coords;
}

/// The axes `sharding` leaves unreduced, as parts of `mesh`'s axes (placed
/// on the runtime's mesh `runtime`).
static UnreducedLayout getUnreducedLayout(spmd::TensorShardingAttr sharding,
                                          spmd::MeshAttr mesh,
                                          spmd::MeshAttr runtime) {
  UnreducedLayout layout;
  if (!sharding || !mesh)
    return layout;
  std::tie(sharding, mesh) = onRuntimeMesh(sharding, mesh, runtime);
  if (!sharding)
    return layout;
  for (spmd::AxisRefAttr axis : sharding.getUnreducedAxes())
    if (std::optional<::tessera::rt::AxisPart> part = getAxisPart(axis, mesh))
      layout.parts.push_back(*part);
  switch (sharding.getUnreducedKind()) {
  case spmd::ReductionKind::Max:
    layout.kind = UnreducedLayout::Kind::Max;
    break;
  case spmd::ReductionKind::Min:
    layout.kind = UnreducedLayout::Kind::Min;
    break;
  case spmd::ReductionKind::Sum:
    layout.kind = UnreducedLayout::Kind::Sum;
    break;
  }
  return layout;
}

static std::string shardingToString(Attribute attr) {
  if (!attr)
    return "replicated";
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}

std::vector<ShardingView>
mlir::tessera::exec::getShardingViews(ModuleOp module, const Program &program) {
  auto entry = module.lookupSymbol<func::FuncOp>(program.entryName);
  SymbolTableCollection symbols;
  spmd::MeshAttr runtime = getRuntimeMesh(module);
  std::vector<ShardingView> views;
  auto addView = [&](std::string label, RankedTensorType type,
                     spmd::TensorShardingAttr sharding) {
    spmd::MeshAttr mesh =
        sharding ? sharding.getMesh(entry, &symbols) : nullptr;
    ShardingView view;
    view.label = std::move(label);
    std::optional<::tessera::rt::DType> dtype =
        getRuntimeDType(type.getElementType());
    view.type =
        std::string(::tessera::rt::getDTypeName(*dtype)) + "[" +
        llvm::join(llvm::map_range(type.getShape(),
                                   [](int64_t d) { return std::to_string(d); }),
                   ",") +
        "]";
    view.sharding = shardingToString(sharding);
    view.layout = getLayout(sharding, mesh, type.getRank(), runtime);
    views.push_back(std::move(view));
  };
  for (unsigned i = 0; i < entry.getNumArguments(); ++i)
    addView("arg" + std::to_string(i) +
                (program.args[i].name.empty()
                     ? ""
                     : " (%" + program.args[i].name + ")"),
            cast<RankedTensorType>(entry.getArgument(i).getType()),
            spmd::getSharding(entry.getArgument(i)));
  for (unsigned i = 0; i < entry.getNumResults(); ++i)
    addView("result" + std::to_string(i),
            cast<RankedTensorType>(entry.getResultTypes()[i]),
            spmd::getFuncResultSharding(entry, i));
  return views;
}

/// Lowers the kernel.calls of `module` (if any) as `options` say:
/// kernel-verify, then kernel-lower-pipelined or kernel-lower-interpret.
static llvm::Error lowerKernels(ModuleOp module,
                                const CompileOptions &options) {
  if (!module.walk([](kernel::CallOp) { return WalkResult::interrupt(); })
           .wasInterrupted())
    return llvm::Error::success();
  StringRef mode = options.kernelMode;
  if (mode != "pipelined" && mode != "interpret")
    return makeError("--kernel-mode must be pipelined or interpret, got '" +
                     mode + "'");
  // Kernel bodies load and store vectors, which only the vectorizing
  // pipeline lowers.
  if (!options.vectorize)
    return makeError("--scalar-loops cannot run kernel.calls (their bodies "
                     "use vector ops); run without it");
  return runPasses(module, options, [&](OpPassManager &pm) {
    pm.addPass(kernel::createKernelVerifyPass());
    buildKernelLoweringPipeline(
        pm, mode == "interpret" ? kernel::KernelLoweringMode::Interpret
                                : kernel::KernelLoweringMode::Pipelined);
  });
}

/// Whether the bytes of a static `type` fit a signed 64-bit count (the
/// compiled code computes allocation sizes in 64-bit integers: a larger
/// size would wrap to a small allocation).
static bool fitsByteCount(ShapedType type) {
  if (!type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return true;
  int64_t bytes = (type.getElementType().getIntOrFloatBitWidth() + 7) / 8;
  for (int64_t size : type.getShape())
    if (llvm::MulOverflow(bytes, size, bytes))
      return false;
  return true;
}

/// Reports every value of `module` whose static tensor or memref type has
/// more bytes than a 64-bit count holds.
static llvm::Error checkByteCounts(ModuleOp module) {
  bool failed = false;
  auto check = [&](Value value, Location loc) {
    auto type = dyn_cast<ShapedType>(value.getType());
    if (!type || !isa<RankedTensorType, MemRefType>(type) ||
        fitsByteCount(type))
      return;
    emitError(loc) << "a value of type " << type
                   << " has more bytes than a 64-bit count holds; "
                      "tessera-run cannot allocate it";
    failed = true;
  };
  module.walk([&](Operation *op) {
    for (Value result : op->getResults())
      check(result, op->getLoc());
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          check(arg, op->getLoc());
  });
  return failed ? makeReportedError() : llvm::Error::success();
}

/// Reports every op the CPU pipeline left outside the LLVM dialect (an op
/// it has no lowering for), at its location; the conversion casts it leaves
/// around them are reported only when nothing else is left.
static llvm::Error checkLoweredToLLVM(ModuleOp module) {
  SmallVector<Operation *> unsupported, casts;
  module.walk([&](Operation *op) {
    if (op == module.getOperation() || isa<LLVM::LLVMDialect>(op->getDialect()))
      return;
    if (isa<UnrealizedConversionCastOp>(op))
      casts.push_back(op);
    else
      unsupported.push_back(op);
  });
  if (unsupported.empty() && casts.empty())
    return llvm::Error::success();
  llvm::StringSet<> reported;
  for (Operation *op : unsupported) {
    // One error per op kind and location.
    std::string key;
    llvm::raw_string_ostream os(key);
    os << op->getName() << '@' << op->getLoc();
    if (reported.insert(key).second)
      op->emitError() << "'" << op->getName()
                      << "' is not supported by tessera-run (the CPU "
                         "pipeline has no lowering for it)";
  }
  if (unsupported.empty())
    casts.front()->emitError()
        << "a value of type " << casts.front()->getOperandTypes()
        << " is not supported by tessera-run (the CPU pipeline cannot "
           "lower it)";
  return makeReportedError();
}

/// The groups of the collectives of the per-device `module`: the (axis,
/// pre, size) triples and the device order convert-comm-to-runtime passes
/// the runtime, once each.
static std::vector<::tessera::rt::GroupSpec>
getCollectiveGroups(ModuleOp module) {
  std::vector<::tessera::rt::GroupSpec> groups;
  SymbolTableCollection symbols;
  spmd::MeshAttr runtime = getRuntimeMesh(module);
  module.walk([&](comm::MeshAxesOpInterface op) {
    if (isa<comm::AxisIndexOp, comm::AxisSizeOp>(op))
      return;
    spmd::MeshAttr mesh = op.resolveMesh(&symbols);
    if (!mesh)
      return;
    ::tessera::rt::GroupSpec group;
    // (In the runtime mesh's axes, as convert-comm-to-runtime names them.)
    SmallVector<spmd::AxisRefAttr> refs(op.getAxisRefs());
    llvm::append_range(group.deviceIds, mesh.getDeviceIdsOrIota());
    if (runtime && !mesh.hasSameAxes(runtime) &&
        mesh.getTotalSize() == runtime.getTotalSize()) {
      FailureOr<SmallVector<spmd::AxisRefAttr>> translated =
          spmd::translateCommAxisRefsToMesh(refs, mesh, runtime);
      if (failed(translated))
        return;
      refs = *translated;
      mesh = runtime;
    }
    for (spmd::AxisRefAttr axis : refs) {
      std::optional<unsigned> index = mesh.getAxisIndex(axis.getName());
      if (!index)
        return;
      group.parts.push_back(*index);
      group.parts.push_back(axis.getPreSize());
      group.parts.push_back(axis.getSize(mesh));
    }
    if (!llvm::any_of(groups, [&](const ::tessera::rt::GroupSpec &other) {
          return other.parts == group.parts &&
                 other.deviceIds == group.deviceIds;
        }))
      groups.push_back(std::move(group));
  });
  return groups;
}

llvm::Expected<EntryLayouts>
mlir::tessera::exec::lowerToDevice(ModuleOp module, StringRef entryName,
                                   const CompileOptions &options) {
  auto entry = module.lookupSymbol<func::FuncOp>(entryName);
  SmallVector<int64_t> argRanks, resultRanks;
  EntryLayouts layouts;
  for (Type type : entry.getArgumentTypes())
    argRanks.push_back(cast<RankedTensorType>(type).getRank());
  for (Type type : entry.getResultTypes()) {
    auto tensor = cast<RankedTensorType>(type);
    resultRanks.push_back(tensor.getRank());
    layouts.resultShapes.emplace_back(tensor.getShape().begin(),
                                      tensor.getShape().end());
  }
  if (llvm::Error error = runPasses(module, options, buildPartitionStages))
    return std::move(error);
  // Code the entry never runs is not compiled.
  pruneUnreachableFunctions(module, entryName);
  if (llvm::Error error = checkByteCounts(module))
    return std::move(error);
  layouts.collectiveGroups = getCollectiveGroups(module);

  // A partitioned entry: the layouts of its blocks.
  if (auto attr = entry->getAttrOfType<ArrayAttr>("tessera.per_device")) {
    SymbolTableCollection symbols;
    spmd::MeshAttr runtime = getRuntimeMesh(module);
    layouts.perDevice = true;
    std::string unplaceable;
    auto addAll = [&](Attribute shardings, ArrayRef<int64_t> ranks,
                      std::vector<ShardLayout> &out,
                      std::vector<UnreducedLayout> &unreduced,
                      std::vector<std::string> &text, StringRef what) {
      for (auto [i, pair] : llvm::enumerate(llvm::zip(
               cast<spmd::TensorShardingPerValueAttr>(shardings).getShardings(),
               ranks))) {
        auto [sharding, rank] = pair;
        spmd::MeshAttr mesh = sharding.getMesh(entry, &symbols);
        if (unplaceable.empty() && sharding && mesh &&
            !onRuntimeMesh(sharding, mesh, runtime).first)
          unplaceable =
              (what + " " + Twine(i) + " (" + shardingToString(sharding) + ")")
                  .str();
        out.push_back(getLayout(sharding, mesh, rank, runtime));
        unreduced.push_back(getUnreducedLayout(sharding, mesh, runtime));
        text.push_back(shardingToString(sharding));
      }
    };
    addAll(attr[0], argRanks, layouts.args, layouts.argUnreduced,
           layouts.argText, "argument");
    addAll(attr[1], resultRanks, layouts.results, layouts.resultUnreduced,
           layouts.resultText, "result");
    if (!unplaceable.empty())
      return makeError(
          "the entry's " + unplaceable +
          " is on a mesh whose axes do not fall on whole axes or sub-axes of "
          "the program mesh " +
          shardingToString(runtime) +
          ", so tessera-run cannot place its blocks on the devices");
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

  entry->setAttr("llvm.emit_c_interface", UnitAttr::get(ctx));
  // Inputs may be shared between devices: the program must not write them.
  for (unsigned i = 0; i < entry.getNumArguments(); ++i)
    entry.setArgAttr(i, "bufferization.writable", BoolAttr::get(ctx, false));
  if (llvm::Error error = lowerKernels(module, options))
    return std::move(error);
  TesseraCpuPipelineOptions cpu;
  cpu.vectorize = options.vectorize;
  cpu.runtimeChecks = options.runtimeChecks;
  if (llvm::Error error = runPasses(module, options, [&](OpPassManager &pm) {
        pm.addPass(createCanonicalizerPass());
        buildTesseraCpuPipeline(pm, cpu);
      }))
    return std::move(error);
  if (llvm::Error error = checkLoweredToLLVM(module))
    return std::move(error);
  return layouts;
}

//===----------------------------------------------------------------------===//
// Machine code
//===----------------------------------------------------------------------===//

static llvm::CodeGenOptLevel getCodeGenOptLevel(unsigned level) {
  switch (level) {
  case 0:
    return llvm::CodeGenOptLevel::None;
  case 1:
    return llvm::CodeGenOptLevel::Less;
  case 2:
    return llvm::CodeGenOptLevel::Default;
  default:
    return llvm::CodeGenOptLevel::Aggressive;
  }
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
mlir::tessera::exec::createHostTargetMachine(unsigned optLevel) {
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  auto failure = [](llvm::Error error) {
    llvm::consumeError(std::move(error));
    return makeError("cannot create a target machine for the host CPU");
  };
  if (!builder)
    return failure(builder.takeError());
  builder->setCodeGenOptLevel(getCodeGenOptLevel(optLevel));
  auto machine = builder->createTargetMachine();
  if (!machine)
    return failure(machine.takeError());
  return std::move(*machine);
}

llvm::orc::SymbolMap
mlir::tessera::exec::getRuntimeSymbols(llvm::orc::MangleAndInterner &interner) {
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
  add("_mlir_memref_to_llvm_aligned_alloc", (void *)&tessera_rt_aligned_alloc);
  add("_mlir_memref_to_llvm_free", (void *)&tessera_rt_free);
  // Strided copies (memref.copy of non-contiguous buffers).
  add("memrefCopy", (void *)&memrefCopy);
  return map;
}

static llvm::Error checkOptLevel(const CompileOptions &options) {
  if (options.optLevel > 3)
    return makeError("--opt-level must be 0, 1, 2 or 3, got '" +
                     llvm::Twine(options.optLevel) + "'");
  return llvm::Error::success();
}

llvm::Expected<CompiledProgram> mlir::tessera::exec::jitCompile(
    ModuleOp module, StringRef entryName, ArrayRef<ValueInfo> results,
    EntryLayouts layouts, const CompileOptions &options) {
  if (llvm::Error error = checkOptLevel(options))
    return std::move(error);
  auto machine = createHostTargetMachine(options.optLevel);
  if (!machine)
    return machine.takeError();
  // The options refer to the transformer (a function_ref): it must outlive
  // ExecutionEngine::create.
  std::function<llvm::Error(llvm::Module *)> transformer =
      makeOptimizingTransformer(options.optLevel, 0, machine->get());
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel = getCodeGenOptLevel(options.optLevel);
  engineOptions.enableGDBNotificationListener = false;
  // TESSERA_PERF_JIT=1 writes a jitdump for `perf inject --jit`, so that
  // `perf report` names the compiled functions (bench/README-kernel.md).
  const char *perfJit = std::getenv("TESSERA_PERF_JIT");
  engineOptions.enablePerfNotificationListener =
      perfJit && llvm::StringRef(perfJit) == "1";
  auto engine =
      ExecutionEngine::create(module, engineOptions, std::move(*machine));
  if (!engine)
    return makeError("JIT compilation failed: " +
                     llvm::toString(engine.takeError()));
  CompiledProgram compiled;
  compiled.engine = std::move(*engine);
  compiled.engine->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    return getRuntimeSymbols(interner);
  });
  compiled.engine->initialize();
  auto function =
      compiled.engine->lookupPacked(("_mlir_ciface_" + entryName).str());
  if (!function)
    return makeError("JIT compilation failed: " +
                     llvm::toString(function.takeError()));
  compiled.function = *function;
  // The functions' addresses name the function a device faulted in.
  for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
    if (func.isExternal() || func.getName().starts_with("_mlir_ciface_"))
      continue;
    auto address = compiled.engine->lookup(func.getName());
    if (!address) {
      llvm::consumeError(address.takeError());
      continue;
    }
    compiled.functions.emplace_back(reinterpret_cast<uint64_t>(*address),
                                    func.getName().str());
  }
  llvm::sort(compiled.functions);
  compiled.results.assign(results.begin(), results.end());
  compiled.layouts = std::move(layouts);
  return std::move(compiled);
}

llvm::Error mlir::tessera::exec::emitModule(
    ModuleOp module, EmitKind kind, llvm::raw_pwrite_stream &os,
    const CompileOptions &options,
    llvm::function_ref<llvm::Error(llvm::Module &)> prepare) {
  if (kind == EmitKind::Mlir) {
    module.print(os);
    return llvm::Error::success();
  }
  if (llvm::Error error = checkOptLevel(options))
    return error;
  llvm::LLVMContext llvmContext;
  auto llvmModule = translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return makeError("translation to LLVM IR failed");
  auto machine = createHostTargetMachine(options.optLevel);
  if (!machine)
    return machine.takeError();
  ExecutionEngine::setupTargetTripleAndDataLayout(llvmModule.get(),
                                                  machine->get());
  if (prepare)
    if (llvm::Error err = prepare(*llvmModule))
      return err;
  if (llvm::Error err = makeOptimizingTransformer(
          options.optLevel, 0, machine->get())(llvmModule.get()))
    return makeError("LLVM optimization failed: " +
                     llvm::toString(std::move(err)));
  if (kind == EmitKind::Llvm) {
    llvmModule->print(os, nullptr);
    return llvm::Error::success();
  }
  llvm::legacy::PassManager codegen;
  if ((*machine)->addPassesToEmitFile(codegen, os, nullptr,
                                      llvm::CodeGenFileType::ObjectFile))
    return makeError("the host target cannot emit object files");
  codegen.run(*llvmModule);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// The single-device reference
//===----------------------------------------------------------------------===//

/// Removes from every sharding and axis list of `module` the sub-axes of
/// the axes in `axes`, which the single-device reference shrinks to size 1
/// (a sub-axis of an axis of size 1 does not exist, and sharding over it
/// is the identity).
static void dropSubAxesOf(ModuleOp module, const llvm::StringSet<> &axes) {
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
            sharding.getUnreducedKind(), filter(sharding.getReducedAxes()));
      });
  replacer.addReplacement(
      [&](spmd::AxisRefListAttr list) -> std::optional<Attribute> {
        return spmd::AxisRefListAttr::get(ctx, filter(list.getValue()));
      });
  replacer.recursivelyReplaceElementsIn(module, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/false);
}

OwningOpRef<ModuleOp>
mlir::tessera::exec::buildReferenceModule(const Program &program,
                                          MeshInfo &mesh) {
  llvm::StringSet<> manual;
  (*program.module)->walk([&](spmd::ManualComputationOp op) {
    for (StringAttr name : op.getManualAxes().getValue())
      manual.insert(name.getValue());
  });
  mesh = program.mesh;
  for (size_t i = 0; i < mesh.names.size(); ++i)
    if (!manual.contains(mesh.names[i]))
      mesh.sizes[i] = 1;
  mesh.deviceIds.clear();
  OwningOpRef<ModuleOp> reference = cast<ModuleOp>((*program.module)->clone());
  // Every mesh shrinks the same way (a module may have several, over the
  // same devices), in the default device order.
  llvm::StringSet<> shrunk;
  for (auto meshOp : reference->getOps<spmd::MeshOp>()) {
    spmd::MeshAttr attr = meshOp.getMesh();
    SmallVector<spmd::MeshAxisAttr> axes;
    for (spmd::MeshAxisAttr axis : attr.getAxes()) {
      bool keep = manual.contains(axis.getName());
      if (!keep)
        shrunk.insert(axis.getName());
      axes.push_back(spmd::MeshAxisAttr::get(
          reference->getContext(), axis.getName(), keep ? axis.getSize() : 1));
    }
    if (!attr.getAxes().empty())
      meshOp.setMeshAttr(spmd::MeshAttr::get(reference->getContext(), axes, {},
                                             attr.getAxisTypes()));
  }
  dropSubAxesOf(*reference, shrunk);
  return reference;
}
