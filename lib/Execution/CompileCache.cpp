//===- CompileCache.cpp - compiling for a run, through the cache ----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// A run's program is compiled to object code and loaded into a JIT; the
// object code and what running it needs are kept in the compiled-code cache
// (Cache.cpp), so a later run with the same key only loads it. The key names
// everything the code depends on: the program, the input shapes, the mesh,
// the compile options, the host CPU and the build of Tessera.
//
//===----------------------------------------------------------------------===//

#include "tessera/Execution/Cache.h"

#include "tessera/Conversion/RuntimeTypes.h"
#include "tessera/Execution/Artifact.h"
#include "tessera/Version.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/SectionMemoryManager.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/TargetParser/Host.h"

#include <xxhash.h>

#include <chrono>
#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::exec;
namespace json = llvm::json;
namespace rt = ::tessera::rt;

/// The version of the key text and of the entry data's layout.
static constexpr int kKeyVersion = 2;

//===----------------------------------------------------------------------===//
// The host and the build
//===----------------------------------------------------------------------===//

std::string mlir::tessera::exec::getHostDescription() {
  static const std::string description = [] {
    std::vector<std::string> features;
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      features.push_back((feature.getValue() ? "+" : "-") +
                         feature.getKey().str());
    llvm::sort(features);
    std::string text = llvm::sys::getProcessTriple() + " " +
                       llvm::sys::getHostCPUName().str() + " " +
                       llvm::join(features, ",");
    // The CPU pipeline's tile sizes follow the caches.
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
    text += " l1=" + std::to_string(sysconf(_SC_LEVEL1_DCACHE_SIZE)) +
            " l2=" + std::to_string(sysconf(_SC_LEVEL2_CACHE_SIZE));
#endif
    return text;
  }();
  return description;
}

namespace {
/// The search of `dl_iterate_phdr` for the build ID of the loaded object
/// that holds `address`.
struct BuildIdSearch {
  uintptr_t address;
  std::string id;
  bool found = false;
};
} // namespace

static int findBuildId(struct dl_phdr_info *info, size_t, void *data) {
  auto *search = static_cast<BuildIdSearch *>(data);
  bool holds = false;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto &header = info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + header.p_vaddr;
    if (header.p_type == PT_LOAD && search->address >= start &&
        search->address < start + header.p_memsz)
      holds = true;
  }
  if (!holds)
    return 0;
  search->found = true;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto &header = info->dlpi_phdr[i];
    if (header.p_type != PT_NOTE)
      continue;
    const char *note =
        reinterpret_cast<const char *>(info->dlpi_addr + header.p_vaddr);
    const char *end = note + header.p_memsz;
    while (note + sizeof(ElfW(Nhdr)) <= end) {
      const auto *nhdr = reinterpret_cast<const ElfW(Nhdr) *>(note);
      const char *name = note + sizeof(ElfW(Nhdr));
      const char *desc = name + ((nhdr->n_namesz + 3) & ~3u);
      if (nhdr->n_type == NT_GNU_BUILD_ID && nhdr->n_namesz == 4 &&
          std::memcmp(name, "GNU", 4) == 0 && desc + nhdr->n_descsz <= end) {
        search->id = llvm::toHex(llvm::StringRef(desc, nhdr->n_descsz),
                                 /*LowerCase=*/true);
        return 1;
      }
      note = desc + ((nhdr->n_descsz + 3) & ~3u);
    }
  }
  return 1;
}

/// The build ID of the loaded object holding `address`, or a hash of its
/// file when it has none.
static std::string getBuildIdOf(const void *address) {
  BuildIdSearch search{reinterpret_cast<uintptr_t>(address), ""};
  dl_iterate_phdr(findBuildId, &search);
  if (!search.id.empty())
    return search.id;
  Dl_info info;
  if (dladdr(address, &info) && info.dli_fname) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
        llvm::MemoryBuffer::getFile(info.dli_fname, /*IsText=*/false,
                                    /*RequiresNullTerminator=*/false);
    if (file)
      return "file-" + hashBytes({(*file)->getBuffer()});
  }
  return "unknown";
}

std::string mlir::tessera::exec::getBuildDescription() {
  static const std::string description =
      "Tessera " TESSERA_VERSION_STRING " build " +
      getBuildIdOf(reinterpret_cast<const void *>(&getBuildDescription)) +
      " mlir " +
      getBuildIdOf(reinterpret_cast<const void *>(&translateModuleToLLVMIR)) +
      " llvm " +
      getBuildIdOf(reinterpret_cast<const void *>(&llvm::sys::getHostCPUName));
  return description;
}

//===----------------------------------------------------------------------===//
// Object code
//===----------------------------------------------------------------------===//

/// Adds `void _mlir_<name>(void **args)`, which calls `name` with
/// `*args[i]` as its argument `i` (and stores a result to `*args[n]`): the
/// packed form the runner calls.
static void addPackedEntry(llvm::Module &module, llvm::Function *target) {
  llvm::LLVMContext &context = module.getContext();
  llvm::IRBuilder<> builder(context);
  llvm::Type *ptr = builder.getPtrTy();
  auto *type = llvm::FunctionType::get(builder.getVoidTy(), {ptr}, false);
  auto *packed =
      llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage,
                             "_mlir_" + target->getName(), module);
  builder.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", packed));
  llvm::Value *slots = packed->getArg(0);
  llvm::SmallVector<llvm::Value *> args;
  for (llvm::Argument &param : target->args()) {
    llvm::Value *slot =
        builder.CreateConstInBoundsGEP1_64(ptr, slots, param.getArgNo());
    llvm::Value *address = builder.CreateLoad(ptr, slot);
    args.push_back(builder.CreateLoad(param.getType(), address));
  }
  llvm::Value *result = builder.CreateCall(target, args);
  if (!result->getType()->isVoidTy()) {
    llvm::Value *slot =
        builder.CreateConstInBoundsGEP1_64(ptr, slots, target->arg_size());
    builder.CreateStore(result, builder.CreateLoad(ptr, slot));
  }
  builder.CreateRetVoid();
}

llvm::Expected<std::string>
mlir::tessera::exec::compileToObject(ModuleOp module, llvm::StringRef entryName,
                                     const CompileOptions &options) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  std::string cInterface = ("_mlir_ciface_" + entryName).str();
  if (llvm::Error error = emitModule(
          module, EmitKind::Object, os, options,
          [&](llvm::Module &llvmModule) -> llvm::Error {
            llvm::Function *entry = llvmModule.getFunction(cInterface);
            if (!entry || entry->isDeclaration())
              return makeError("the compiled program has no function @" +
                               cInterface);
            addPackedEntry(llvmModule, entry);
            return llvm::Error::success();
          }))
    return std::move(error);
  return std::string(buffer.begin(), buffer.end());
}

llvm::Expected<CompiledProgram>
mlir::tessera::exec::loadObjectCode(llvm::StringRef object,
                                    llvm::StringRef entryName,
                                    llvm::ArrayRef<std::string> functionNames) {
  auto failure = [](const llvm::Twine &what, llvm::Error error) {
    return makeError("cannot load the compiled code: " + what + ": " +
                     llvm::toString(std::move(error)));
  };
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return failure("the host", builder.takeError());
  auto jit =
      llvm::orc::LLJITBuilder()
          .setJITTargetMachineBuilder(std::move(*builder))
          .setObjectLinkingLayerCreator(
              [](llvm::orc::ExecutionSession &session)
                  -> llvm::Expected<std::unique_ptr<llvm::orc::ObjectLayer>> {
                return std::make_unique<llvm::orc::RTDyldObjectLinkingLayer>(
                    session, [](const llvm::MemoryBuffer &) {
                      return std::make_unique<llvm::SectionMemoryManager>();
                    });
              })
          .create();
  if (!jit)
    return failure("the JIT", jit.takeError());
  llvm::orc::JITDylib &library = (*jit)->getMainJITDylib();
  // The C library and the rest of the process, then the runtime's symbols.
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process)
    return failure("the process's symbols", process.takeError());
  library.addGenerator(std::move(*process));
  llvm::orc::MangleAndInterner interner((*jit)->getExecutionSession(),
                                        (*jit)->getDataLayout());
  if (llvm::Error error = library.define(
          llvm::orc::absoluteSymbols(getRuntimeSymbols(interner))))
    return failure("the runtime's symbols", std::move(error));
  if (llvm::Error error = (*jit)->addObjectFile(
          llvm::MemoryBuffer::getMemBufferCopy(object, "tessera-device-code")))
    return failure("the object", std::move(error));
  auto entry = (*jit)->lookup(("_mlir__mlir_ciface_" + entryName).str());
  if (!entry)
    return failure("the entry", entry.takeError());
  CompiledProgram compiled;
  compiled.function = entry->toPtr<void (*)(void **)>();
  for (const std::string &name : functionNames) {
    auto address = (*jit)->lookup(name);
    if (!address) {
      llvm::consumeError(address.takeError());
      continue;
    }
    compiled.functions.emplace_back(address->getValue(), name);
  }
  llvm::sort(compiled.functions);
  compiled.jit = std::move(*jit);
  return std::move(compiled);
}

//===----------------------------------------------------------------------===//
// What an entry holds besides the object
//===----------------------------------------------------------------------===//

static json::Array toJson(llvm::ArrayRef<int64_t> values) {
  json::Array array;
  for (int64_t v : values)
    array.push_back(v);
  return array;
}

static json::Value layoutToJson(const rt::ShardLayout &layout) {
  json::Array dims;
  for (const std::vector<rt::AxisPart> &parts : layout.dims) {
    json::Array dim;
    for (const rt::AxisPart &part : parts)
      dim.push_back(json::Array{part.axis, part.pre, part.size});
    dims.push_back(std::move(dim));
  }
  return json::Object{{"dims", std::move(dims)},
                      {"device_ids", toJson(layout.deviceIds)}};
}

static json::Value unreducedToJson(const UnreducedLayout &layout) {
  json::Array parts;
  for (const rt::AxisPart &part : layout.parts)
    parts.push_back(json::Array{part.axis, part.pre, part.size});
  const char *kind = layout.kind == UnreducedLayout::Kind::Max   ? "max"
                     : layout.kind == UnreducedLayout::Kind::Min ? "min"
                                                                 : "sum";
  return json::Object{{"parts", std::move(parts)}, {"kind", kind}};
}

template <typename T, typename F>
static json::Array mapToJson(const std::vector<T> &values, F f) {
  json::Array array;
  for (const T &value : values)
    array.push_back(f(value));
  return array;
}

static json::Value meshToJson(const MeshInfo &mesh) {
  json::Array names;
  for (const std::string &name : mesh.names)
    names.push_back(name);
  return json::Object{{"symbol", mesh.symbol},
                      {"names", std::move(names)},
                      {"sizes", toJson(mesh.sizes)},
                      {"device_ids", toJson(mesh.deviceIds)}};
}

/// The data of an entry: the JSON of what runs the code, then the object.
static std::string encodeRun(const CompiledRun &run,
                             llvm::ArrayRef<ShardingView> allViews,
                             llvm::ArrayRef<std::string> functionNames,
                             llvm::StringRef object) {
  const CompiledProgram &compiled = run.compiled;
  const EntryLayouts &layouts = compiled.layouts;
  json::Array results;
  for (const ValueInfo &result : compiled.results)
    results.push_back(json::Object{
        {"element_type", typeToString(result.type.getElementType())},
        {"shape", toJson(result.type.getShape())}});
  json::Array views;
  for (const ShardingView &view : allViews)
    views.push_back(json::Object{{"label", view.label},
                                 {"type", view.type},
                                 {"sharding", view.sharding},
                                 {"layout", layoutToJson(view.layout)}});
  auto text = [](const std::string &s) { return json::Value(s); };
  json::Object info{
      {"results", std::move(results)},
      {"per_device", layouts.perDevice},
      {"args", mapToJson(layouts.args, layoutToJson)},
      {"result_layouts", mapToJson(layouts.results, layoutToJson)},
      {"arg_unreduced", mapToJson(layouts.argUnreduced, unreducedToJson)},
      {"result_unreduced", mapToJson(layouts.resultUnreduced, unreducedToJson)},
      {"arg_text", mapToJson(layouts.argText, text)},
      {"result_text", mapToJson(layouts.resultText, text)},
      {"result_shapes",
       mapToJson(layouts.resultShapes,
                 [](const std::vector<int64_t> &s) { return toJson(s); })},
      {"functions", mapToJson(std::vector<std::string>(functionNames.begin(),
                                                       functionNames.end()),
                              text)},
      {"views", std::move(views)},
      {"collective_groups",
       mapToJson(layouts.collectiveGroups,
                 [](const rt::GroupSpec &group) -> json::Value {
                   return json::Object{{"parts", toJson(group.parts)},
                                       {"device_ids", toJson(group.deviceIds)}};
                 })},
      {"mesh", meshToJson(run.mesh)}};
  std::string infoText;
  llvm::raw_string_ostream os(infoText);
  os << json::Value(std::move(info));
  std::string data;
  char size[8];
  llvm::support::endian::write64le(size, infoText.size());
  data.append(size, 8);
  data += infoText;
  data += object;
  return data;
}

namespace {
/// Reads the JSON of an entry; any mismatch makes the entry corrupted.
struct EntryReader {
  bool ok = true;

  const json::Array *array(const json::Object &o, llvm::StringRef key) {
    const json::Array *a = o.getArray(key);
    ok &= a != nullptr;
    return a;
  }
  int64_t integer(const json::Value &v) {
    std::optional<int64_t> i = v.getAsInteger();
    ok &= i.has_value();
    return i.value_or(0);
  }
  std::string string(const json::Value &v) {
    std::optional<llvm::StringRef> s = v.getAsString();
    ok &= s.has_value();
    return s ? s->str() : "";
  }
  std::vector<int64_t> integers(const json::Value *v) {
    std::vector<int64_t> out;
    const json::Array *a = v ? v->getAsArray() : nullptr;
    ok &= a != nullptr;
    if (a)
      for (const json::Value &item : *a)
        out.push_back(integer(item));
    return out;
  }
  std::vector<std::string> strings(const json::Array *a) {
    std::vector<std::string> out;
    if (a)
      for (const json::Value &item : *a)
        out.push_back(string(item));
    return out;
  }
  /// The items of the array `o[key]`, each read by `read`.
  template <typename T>
  std::vector<T> list(const json::Object &o, llvm::StringRef key,
                      T (EntryReader::*read)(const json::Value &)) {
    std::vector<T> out;
    if (const json::Array *a = array(o, key))
      for (const json::Value &item : *a)
        out.push_back((this->*read)(item));
    return out;
  }
  rt::AxisPart part(const json::Value &v) {
    std::vector<int64_t> values = integers(&v);
    ok &= values.size() == 3;
    return values.size() == 3 ? rt::AxisPart{values[0], values[1], values[2]}
                              : rt::AxisPart{};
  }
  rt::ShardLayout layout(const json::Value &v) {
    rt::ShardLayout out;
    const json::Object *o = v.getAsObject();
    ok &= o != nullptr;
    if (!o)
      return out;
    if (const json::Array *dims = array(*o, "dims"))
      for (const json::Value &dim : *dims) {
        out.dims.emplace_back();
        if (const json::Array *parts = dim.getAsArray())
          for (const json::Value &p : *parts)
            out.dims.back().push_back(part(p));
        else
          ok = false;
      }
    out.deviceIds = integers(o->get("device_ids"));
    return out;
  }
  UnreducedLayout unreduced(const json::Value &v) {
    UnreducedLayout out;
    const json::Object *o = v.getAsObject();
    ok &= o != nullptr;
    if (!o)
      return out;
    if (const json::Array *parts = array(*o, "parts"))
      for (const json::Value &p : *parts)
        out.parts.push_back(part(p));
    std::string kind = o->get("kind") ? string(*o->get("kind")) : "";
    out.kind = kind == "max"   ? UnreducedLayout::Kind::Max
               : kind == "min" ? UnreducedLayout::Kind::Min
                               : UnreducedLayout::Kind::Sum;
    return out;
  }
};
} // namespace

/// Rebuilds the program of an entry's data (`context` makes the result
/// types).
static llvm::Expected<CompiledRun> decodeRun(llvm::StringRef data,
                                             llvm::StringRef entryName,
                                             MLIRContext &context) {
  auto corrupted = [](const llvm::Twine &what) {
    return makeError("the entry is malformed: " + what);
  };
  if (data.size() < 8)
    return corrupted("it is truncated");
  uint64_t infoSize = llvm::support::endian::read64le(data.data());
  if (infoSize > data.size() - 8)
    return corrupted("its description is truncated");
  llvm::Expected<json::Value> parsed = json::parse(data.substr(8, infoSize));
  if (!parsed)
    return corrupted(llvm::toString(parsed.takeError()));
  const json::Object *info = parsed->getAsObject();
  if (!info)
    return corrupted("its description is not an object");
  EntryReader r;
  CompiledRun run;
  EntryLayouts &layouts = run.compiled.layouts;
  std::vector<ValueInfo> results;
  if (const json::Array *list = r.array(*info, "results"))
    for (const json::Value &item : *list) {
      const json::Object *o = item.getAsObject();
      if (!o || !o->get("element_type"))
        return corrupted("a result");
      std::string element = r.string(*o->get("element_type"));
      Type type = parseType(element, &context);
      std::optional<rt::DType> dtype =
          type ? getRuntimeDType(type) : std::nullopt;
      if (!dtype)
        return corrupted("a result's element type");
      results.push_back(
          {RankedTensorType::get(r.integers(o->get("shape")), type), *dtype});
    }
  layouts.perDevice = info->getBoolean("per_device").value_or(false);
  layouts.args = r.list(*info, "args", &EntryReader::layout);
  layouts.results = r.list(*info, "result_layouts", &EntryReader::layout);
  layouts.argUnreduced =
      r.list(*info, "arg_unreduced", &EntryReader::unreduced);
  layouts.resultUnreduced =
      r.list(*info, "result_unreduced", &EntryReader::unreduced);
  layouts.argText = r.strings(r.array(*info, "arg_text"));
  layouts.resultText = r.strings(r.array(*info, "result_text"));
  if (const json::Array *list = r.array(*info, "result_shapes"))
    for (const json::Value &item : *list)
      layouts.resultShapes.push_back(r.integers(&item));
  std::vector<std::string> functions = r.strings(r.array(*info, "functions"));
  if (const json::Array *list = r.array(*info, "views"))
    for (const json::Value &item : *list) {
      const json::Object *o = item.getAsObject();
      if (!o || !o->get("label") || !o->get("type") || !o->get("sharding") ||
          !o->get("layout"))
        return corrupted("a sharding view");
      run.views.push_back(
          {r.string(*o->get("label")), r.string(*o->get("type")),
           r.string(*o->get("sharding")), r.layout(*o->get("layout"))});
    }
  if (const json::Array *list = r.array(*info, "collective_groups"))
    for (const json::Value &item : *list) {
      const json::Object *o = item.getAsObject();
      if (!o)
        return corrupted("a collective group");
      layouts.collectiveGroups.push_back(
          {r.integers(o->get("parts")), r.integers(o->get("device_ids"))});
    }
  if (const json::Object *mesh = info->getObject("mesh")) {
    if (const json::Value *symbol = mesh->get("symbol"))
      run.mesh.symbol = r.string(*symbol);
    run.mesh.names = r.strings(r.array(*mesh, "names"));
    run.mesh.sizes = r.integers(mesh->get("sizes"));
    run.mesh.deviceIds = r.integers(mesh->get("device_ids"));
  } else {
    r.ok = false;
  }
  bool consistent = layouts.resultShapes.size() == results.size() &&
                    run.mesh.names.size() == run.mesh.sizes.size() &&
                    (!layouts.perDevice ||
                     (layouts.results.size() == results.size() &&
                      layouts.resultUnreduced.size() == results.size() &&
                      layouts.argUnreduced.size() == layouts.args.size()));
  if (!r.ok || !consistent)
    return corrupted("its description does not have the expected fields");
  llvm::Expected<CompiledProgram> loaded =
      loadObjectCode(data.drop_front(8 + infoSize), entryName, functions);
  if (!loaded)
    return loaded.takeError();
  EntryLayouts kept = std::move(layouts);
  run.compiled = std::move(*loaded);
  run.compiled.layouts = std::move(kept);
  run.compiled.results = std::move(results);
  return std::move(run);
}

//===----------------------------------------------------------------------===//
// Compiling
//===----------------------------------------------------------------------===//

/// The entry's results after the global-view passes (specialized shapes).
static std::vector<ValueInfo> getResults(ModuleOp module,
                                         const Program &program) {
  auto entry = module.lookupSymbol<func::FuncOp>(program.entryName);
  std::vector<ValueInfo> results;
  for (auto [type, original] :
       llvm::zip(entry.getResultTypes(), program.results))
    results.push_back({cast<RankedTensorType>(type), original.dtype});
  return results;
}

llvm::Expected<LoweredProgram> mlir::tessera::exec::lowerProgram(
    Program &program, llvm::ArrayRef<std::vector<int64_t>> shapes,
    const CompileOptions &options, bool wantViews) {
  if (llvm::Error error = ensureModule(program))
    return std::move(error);
  LoweredProgram lowered;
  lowered.module = cast<ModuleOp>((*program.module)->clone());
  // An artifact's shardings were fixed when it was exported.
  if (llvm::Error error =
          program.artifact
              ? specializeShapes(*lowered.module, program.entryName, shapes,
                                 options)
              : prepareGlobalView(*lowered.module, program.entryName, shapes,
                                  options))
    return std::move(error);
  lowered.results = getResults(*lowered.module, program);
  // What --show-sharding draws: the shardings after inference and
  // propagation, before the lowering drops them.
  if (wantViews)
    lowered.views = getShardingViews(*lowered.module, program);
  llvm::Expected<EntryLayouts> layouts =
      lowerToDevice(*lowered.module, program.entryName, options);
  if (!layouts)
    return layouts.takeError();
  lowered.layouts = std::move(*layouts);
  return std::move(lowered);
}

/// The names of the functions of the lowered module (for the symbolizer).
static std::vector<std::string> getFunctionNames(ModuleOp module) {
  std::vector<std::string> names;
  for (auto func : module.getOps<LLVM::LLVMFuncOp>())
    if (!func.isExternal() && !func.getName().starts_with("_mlir_ciface_"))
      names.push_back(func.getName().str());
  return names;
}

/// The single-device reference of `program`, lowered.
static llvm::Expected<LoweredProgram>
lowerReference(Program &program, llvm::ArrayRef<std::vector<int64_t>> shapes,
               const CompileOptions &options, MeshInfo &mesh) {
  if (llvm::Error error = ensureModule(program))
    return std::move(error);
  LoweredProgram lowered;
  lowered.module = buildReferenceModule(program, mesh);
  auto cannotBuild = [](llvm::Error error) {
    llvm::consumeError(std::move(error));
    return makeError("cannot build the single-device reference (see the "
                     "errors above)");
  };
  if (failed(verify(*lowered.module)))
    return cannotBuild(makeReportedError());
  if (llvm::Error error = prepareGlobalView(*lowered.module, program.entryName,
                                            shapes, options))
    return cannotBuild(std::move(error));
  lowered.results = getResults(*lowered.module, program);
  llvm::Expected<EntryLayouts> layouts =
      lowerToDevice(*lowered.module, program.entryName, options);
  if (!layouts)
    return cannotBuild(layouts.takeError());
  lowered.layouts = std::move(*layouts);
  return std::move(lowered);
}

/// The key of the compiled code of `target` of `program` for `shapes`.
static std::string getKey(const Program &program,
                          llvm::ArrayRef<std::vector<int64_t>> shapes,
                          const CompileOptions &options, CompileTarget target) {
  std::string inputs;
  for (auto [arg, shape] : llvm::zip(program.args, shapes))
    inputs +=
        std::string(rt::getDTypeName(arg.dtype)) + "[" +
        llvm::join(
            llvm::map_range(shape, [](int64_t d) { return std::to_string(d); }),
            ",") +
        "];";
  const MeshInfo &mesh = program.mesh;
  std::string ids =
      llvm::join(llvm::map_range(mesh.deviceIds,
                                 [](int64_t id) { return std::to_string(id); }),
                 ",");
  return llvm::formatv(
             "tessera compiled code {0}\n{1}\nhost {2}\nprogram {3}\n"
             "entry {4}\ntarget {5}\ninputs {6}\nmesh @{7} {8} ids [{9}]\n"
             "options opt={10} kernel={11} vectorize={12} checks={13}"
             " auto={14}\n",
             kKeyVersion, getBuildDescription(), getHostDescription(),
             program.cacheId, program.entryName,
             target == CompileTarget::Program ? "program" : "reference", inputs,
             mesh.symbol, mesh.toString(), ids, options.optLevel,
             options.kernelMode, options.vectorize, options.runtimeChecks,
             options.autoPartition ? "[" + *options.autoPartition + "]"
                                   : std::string("off"))
      .str();
}

/// Whether the lowered module can be kept as object code: its code needs no
/// global constructors or destructors (a loaded object does not run them).
static bool isCacheable(ModuleOp module) {
  return !module
              .walk([](Operation *op) {
                return isa<LLVM::GlobalCtorsOp, LLVM::GlobalDtorsOp>(op)
                           ? WalkResult::interrupt()
                           : WalkResult::advance();
              })
              .wasInterrupted();
}

llvm::Expected<CompiledRun> mlir::tessera::exec::compileForRun(
    Program &program, llvm::ArrayRef<std::vector<int64_t>> shapes,
    const CompileOptions &baseOptions, const CacheOptions &cacheOptions,
    CompileTarget target, bool wantViews) {
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  CompileOptions options = baseOptions;
  // With kernel.calls, the reference runs them in interpret mode.
  if (target == CompileTarget::Reference && program.hasKernelCalls())
    options.kernelMode = "interpret";
  MLIRContext *context =
      program.module ? program.module->getContext() : program.context;

  CompileReport report;
  std::optional<CompileCache> cache;
  std::string key;
  // A bound that is set wrong is an error; a directory that cannot be used
  // only turns the cache off.
  if (cacheOptions.enabled && !cacheOptions.maxBytes)
    if (llvm::Expected<uint64_t> bound = getDefaultCacheMaxBytes(); !bound)
      return bound.takeError();
  if (!cacheOptions.enabled) {
    report.note = "off (--no-cache)";
  } else if (!context || program.cacheId.empty()) {
    report.note = "off (the program has no cache identity)";
  } else if (llvm::Expected<CompileCache> opened =
                 CompileCache::open(cacheOptions)) {
    cache = std::move(*opened);
    key = getKey(program, shapes, options, target);
    report.cacheUsed = true;
    report.entryPath = cache->getEntryPath(key);
  } else {
    report.note = "off (" + llvm::toString(opened.takeError()) + ")";
  }

  if (cache) {
    CompileCache::Lookup found = cache->lookup(key);
    if (found.status == CompileCache::Status::Hit) {
      llvm::Expected<CompiledRun> run =
          decodeRun(found.data, program.entryName, *context);
      if (run) {
        if (!wantViews)
          run->views.clear();
        run->report = report;
        run->report.hit = true;
        run->report.entryBytes = found.bytes;
        run->report.seconds = elapsed();
        return run;
      }
      report.note = "entry not used (" + llvm::toString(run.takeError()) +
                    "); compiled again";
    } else if (found.status == CompileCache::Status::Corrupted) {
      report.note =
          "corrupted entry removed (" + found.problem + "); compiled again";
    }
  }

  // Compile.
  CompiledRun run;
  llvm::Expected<LoweredProgram> lowered =
      target == CompileTarget::Program
          // The views go into the entry, for later runs that want them.
          ? lowerProgram(program, shapes, options, /*wantViews=*/true)
          : lowerReference(program, shapes, options, run.mesh);
  if (!lowered)
    return lowered.takeError();
  if (target == CompileTarget::Program)
    run.mesh = program.mesh;
  if (wantViews)
    run.views = lowered->views;
  if (!isCacheable(*lowered->module)) {
    // The ExecutionEngine runs the constructors.
    llvm::Expected<CompiledProgram> compiled =
        jitCompile(*lowered->module, program.entryName, lowered->results,
                   std::move(lowered->layouts), options);
    if (!compiled)
      return compiled.takeError();
    run.compiled = std::move(*compiled);
    report.cacheUsed = false;
    report.note = "off for this program (it has global constructors)";
    run.report = report;
    run.report.seconds = elapsed();
    return std::move(run);
  }
  llvm::Expected<std::string> object =
      compileToObject(*lowered->module, program.entryName, options);
  if (!object)
    return object.takeError();
  std::vector<std::string> functions = getFunctionNames(*lowered->module);
  llvm::Expected<CompiledProgram> compiled =
      loadObjectCode(*object, program.entryName, functions);
  if (!compiled)
    return compiled.takeError();
  run.compiled = std::move(*compiled);
  run.compiled.results = std::move(lowered->results);
  run.compiled.layouts = std::move(lowered->layouts);
  run.report = report;
  run.report.seconds = elapsed();
  if (cache) {
    llvm::Expected<uint64_t> stored =
        cache->store(key, encodeRun(run, lowered->views, functions, *object));
    if (stored) {
      run.report.entryBytes = *stored;
    } else {
      run.report.note =
          (run.report.note.empty() ? "" : run.report.note + "; ") +
          "not stored (" + llvm::toString(stored.takeError()) + ")";
    }
  }
  return std::move(run);
}
