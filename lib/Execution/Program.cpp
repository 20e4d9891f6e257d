//===- Program.cpp - a global-view program to compile and run -------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Execution/Program.h"

#include "tessera/Execution/Artifact.h"
#include "tessera/Execution/Cache.h"

#include "tessera/Conversion/RuntimeTypes.h"
#include "tessera/Dialect/Kernel/IR/KernelOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/InitAllDialects.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdio>
#include <limits>

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::exec;

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

char ReportedError::ID = 0;

void ReportedError::log(llvm::raw_ostream &os) const {
  os << "the errors are reported above";
}

std::error_code ReportedError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

llvm::Error mlir::tessera::exec::makeReportedError() {
  return llvm::make_error<ReportedError>();
}

llvm::Error mlir::tessera::exec::makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

void mlir::tessera::exec::reportError(llvm::Error error, StringRef tool) {
  // What the run printed comes first, as it happened.
  std::fflush(stdout);
  llvm::handleAllErrors(
      std::move(error), [](const ReportedError &) {},
      [&](const llvm::ErrorInfoBase &info) {
        // One write, so that the lines of several processes (mpirun) do not
        // interleave.
        llvm::errs() << (tool + ": error: " + info.message() + "\n").str();
        llvm::errs().flush();
      });
}

//===----------------------------------------------------------------------===//
// MeshInfo, Program
//===----------------------------------------------------------------------===//

int64_t MeshInfo::getNumDevices() const {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  return n;
}

std::string MeshInfo::toString() const {
  if (names.empty())
    return "a single device";
  std::string text;
  for (size_t i = 0; i < names.size(); ++i)
    text += (i ? "," : "") + names[i] + "=" + std::to_string(sizes[i]);
  return text;
}

std::string Program::describeArg(size_t index) const {
  return "argument " + std::to_string(index) +
         (args[index].name.empty() ? "" : " (%" + args[index].name + ")");
}

bool Program::hasKernelCalls() const {
  if (!module && artifact)
    return artifact->metadata.hasKernelCalls;
  return (*module)
      ->walk([](kernel::CallOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

std::string mlir::tessera::exec::typeToString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

void mlir::tessera::exec::registerExecutionDialects(DialectRegistry &registry) {
  mlir::tessera::registerAllDialects(registry);
  registerAllToLLVMIRTranslations(registry);
}

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

/// The mesh the program runs on: the module's first non-maximal mesh of the
/// most devices (the others, with the same axes in other device orders or
/// other axes over as many devices, share its devices).
static llvm::Expected<MeshInfo> getMesh(ModuleOp module) {
  MeshInfo info;
  spmd::MeshOp chosen;
  for (auto mesh : module.getOps<spmd::MeshOp>()) {
    spmd::MeshAttr attr = mesh.getMesh();
    if (attr.getAxes().empty())
      continue; // A maximal or empty mesh runs on one device anyway.
    if (!chosen || attr.getTotalSize() > chosen.getMesh().getTotalSize())
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

/// The entry function.
static llvm::Expected<func::FuncOp> findEntry(ModuleOp module, StringRef name) {
  if (!name.empty()) {
    auto func = module.lookupSymbol<func::FuncOp>(name);
    if (!func || func.isExternal()) {
      SmallVector<std::string> names;
      for (auto f : module.getOps<func::FuncOp>())
        if (!f.isExternal())
          names.push_back(f.getSymName().str());
      return makeError("unknown entry function '" + name +
                       "' (the module defines: " +
                       (names.empty() ? std::string("no functions")
                                      : llvm::join(names, ", ")) +
                       ")");
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
  return makeError(publicCount == 0
                       ? "the module has no public function to run"
                       : "the module has several public functions and none "
                         "is named 'main': choose one with --entry");
}

/// Per-argument source names (`x` for `%x`) from the parser's state.
static std::vector<std::string> getArgNames(func::FuncOp func,
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

llvm::Expected<Program> mlir::tessera::exec::loadProgram(
    MLIRContext &context, llvm::SourceMgr &sourceMgr,
    std::unique_ptr<llvm::MemoryBuffer> buffer, StringRef entryName) {
  // The compiled-code cache knows the program by its name and text (the
  // name is in the code's messages).
  std::string cacheId = "source:" + hashBytes({buffer->getBufferIdentifier(),
                                               buffer->getBuffer()});
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  AsmParserState parserState;
  ParserConfig config(&context);
  Block block;
  if (failed(parseAsmSourceFile(sourceMgr, &block, config, &parserState)))
    return makeReportedError();
  Program program;
  if (block.getOperations().size() == 1 && isa<ModuleOp>(block.front())) {
    program.module = cast<ModuleOp>(block.front());
    program.module.get()->remove();
  } else {
    program.module = ModuleOp::create(UnknownLoc::get(&context));
    program.module->getBody()->getOperations().splice(
        program.module->getBody()->begin(), block.getOperations());
  }
  if (failed(verify(*program.module)))
    return makeReportedError();

  llvm::Expected<func::FuncOp> entry = findEntry(*program.module, entryName);
  if (!entry)
    return entry.takeError();
  program.entryName = entry->getSymName().str();
  program.cacheId = std::move(cacheId);
  std::vector<std::string> names = getArgNames(*entry, parserState);
  for (unsigned i = 0; i < entry->getNumArguments(); ++i) {
    Type type = entry->getArgument(i).getType();
    auto tensor = dyn_cast<RankedTensorType>(type);
    std::optional<::tessera::rt::DType> dtype =
        tensor ? getRuntimeDType(tensor.getElementType()) : std::nullopt;
    if (!tensor || !dtype)
      return makeError("argument " + std::to_string(i) + " of @" +
                       program.entryName + " has type " + typeToString(type) +
                       ", which tessera-run cannot pass: entry arguments are "
                       "ranked tensors of f16/bf16/f32/f64, i1/i8/.../i64, "
                       "ui8/.../ui64 or index (a scalar is a rank-0 tensor)");
    program.args.push_back({names[i], tensor, *dtype});
  }
  for (unsigned i = 0; i < entry->getNumResults(); ++i) {
    Type type = entry->getResultTypes()[i];
    auto tensor = dyn_cast<RankedTensorType>(type);
    std::optional<::tessera::rt::DType> dtype =
        tensor ? getRuntimeDType(tensor.getElementType()) : std::nullopt;
    if (!tensor || !dtype)
      return makeError("result " + std::to_string(i) + " of @" +
                       program.entryName + " has type " + typeToString(type) +
                       ", which tessera-run cannot return: results are ranked "
                       "tensors of the element types arguments take");
    program.results.push_back({tensor, *dtype});
  }

  llvm::Expected<MeshInfo> mesh = getMesh(*program.module);
  if (!mesh)
    return mesh.takeError();
  program.mesh = std::move(*mesh);
  return program;
}

//===----------------------------------------------------------------------===//
// Meshes
//===----------------------------------------------------------------------===//

void mlir::tessera::exec::setMesh(ModuleOp module, const MeshInfo &info) {
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

void mlir::tessera::exec::resizeMeshes(ModuleOp module,
                                       const llvm::StringMap<int64_t> &sizes) {
  for (auto mesh : module.getOps<spmd::MeshOp>()) {
    spmd::MeshAttr attr = mesh.getMesh();
    if (attr.getAxes().empty())
      continue;
    SmallVector<spmd::MeshAxisAttr> axes;
    bool changed = false;
    int64_t devices = 1;
    for (spmd::MeshAxisAttr axis : attr.getAxes()) {
      auto it = sizes.find(axis.getName());
      int64_t size = it == sizes.end() ? axis.getSize() : it->second;
      changed |= size != axis.getSize();
      devices *= size;
      axes.push_back(
          spmd::MeshAxisAttr::get(module.getContext(), axis.getName(), size));
    }
    if (!changed)
      continue;
    // The same devices in a new shape keep their order; another number of
    // devices takes the default order.
    ArrayRef<int64_t> ids = devices == attr.getTotalSize()
                                ? attr.getDeviceIds()
                                : ArrayRef<int64_t>();
    mesh.setMeshAttr(spmd::MeshAttr::get(module.getContext(), axes, ids,
                                         attr.getAxisTypes()));
  }
}

llvm::Expected<SmallVector<mlir::tessera::exec::MeshSizeItem>>
mlir::tessera::exec::parseMeshSizes(StringRef text) {
  SmallVector<StringRef> pieces;
  text.split(pieces, ',', -1, /*KeepEmpty=*/true);
  SmallVector<MeshSizeItem> items;
  for (StringRef piece : pieces) {
    if (piece.trim().empty())
      return makeError("bad --mesh '" + text +
                       "': an empty item (expected name=size,...)");
    auto [name, value] = piece.split('=');
    name = name.trim();
    int64_t size;
    if (value.trim().getAsInteger(10, size) || size < 1)
      return makeError("bad --mesh item '" + piece +
                       "': expected name=size with size >= 1");
    if (llvm::any_of(
            items, [&](const MeshSizeItem &seen) { return seen.name == name; }))
      return makeError("--mesh gives the size of axis '" + name + "' twice");
    items.push_back({piece, name, size});
  }
  return items;
}

llvm::Error mlir::tessera::exec::overrideMeshSizes(Program &program,
                                                   StringRef text) {
  // An artifact's mesh is fixed: `--mesh` describes the calling context,
  // which the call checks compare with it.
  MeshInfo callMesh = program.mesh;
  MeshInfo &info = program.artifact ? callMesh : program.mesh;
  // The axes `--mesh` may name: the program mesh's, and those of the
  // module's other meshes.
  std::vector<std::string> known = info.names;
  if (!program.artifact)
    for (auto mesh : program.module->getOps<spmd::MeshOp>())
      for (spmd::MeshAxisAttr axis : mesh.getMesh().getAxes())
        if (!llvm::is_contained(known, axis.getName().str()))
          known.push_back(axis.getName().str());
  llvm::Expected<SmallVector<MeshSizeItem>> items = parseMeshSizes(text);
  if (!items)
    return items.takeError();
  bool changed = false;
  llvm::StringMap<int64_t> sizes;
  for (const MeshSizeItem &entry : *items) {
    StringRef name = entry.name;
    int64_t size = entry.size;
    sizes[name] = size;
    if (!llvm::is_contained(known, name.str())) {
      bool several = known.size() > info.names.size();
      std::string list = known.empty()
                             ? std::string("the module has no mesh")
                             : (several ? "their axes are " : "its axes are ") +
                                   llvm::join(known, ", ");
      return makeError(
          "--mesh names axis '" + name + "', which " +
          (several ? "no mesh of the module has" : "the mesh does not have") +
          " (" + list + ")");
    }
    auto it = llvm::find(info.names, name.str());
    if (it != info.names.end()) {
      int64_t &current = info.sizes[it - info.names.begin()];
      changed |= current != size;
      current = size;
    }
  }
  // The mesh verifier's limit, checked before any pass sees a mesh.
  std::vector<std::vector<std::pair<std::string, int64_t>>> shapes;
  if (program.artifact) {
    shapes.emplace_back();
    for (size_t i = 0; i < info.names.size(); ++i)
      shapes.back().emplace_back(info.names[i], info.sizes[i]);
  } else {
    for (auto mesh : program.module->getOps<spmd::MeshOp>()) {
      shapes.emplace_back();
      for (spmd::MeshAxisAttr axis : mesh.getMesh().getAxes())
        shapes.back().emplace_back(axis.getName().str(), axis.getSize());
    }
  }
  for (const auto &shape : shapes) {
    int64_t devices = 1;
    for (const auto &[name, own] : shape) {
      auto it = sizes.find(name);
      int64_t size = it == sizes.end() ? own : it->second;
      if (llvm::MulOverflow(devices, size, devices) ||
          devices > std::numeric_limits<int32_t>::max())
        return makeError("--mesh '" + text +
                         "': the mesh has too many devices (the product of the "
                         "axis sizes is more than " +
                         llvm::Twine(std::numeric_limits<int32_t>::max()) +
                         ")");
    }
  }
  if (program.artifact) {
    if (changed)
      info.deviceIds.clear(); // A new shape has the default device order.
    program.callMesh = std::move(callMesh);
    return llvm::Error::success();
  }
  resizeMeshes(*program.module, sizes);
  if (failed(verify(*program.module)))
    return makeError("the program cannot run on mesh " + info.toString() +
                     " (see the errors above)");
  llvm::Expected<MeshInfo> resized = getMesh(*program.module);
  if (!resized)
    return resized.takeError();
  program.mesh = std::move(*resized);
  return llvm::Error::success();
}
