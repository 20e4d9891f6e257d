//===- ArtifactExport.cpp - exporting a function, reading its module ------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// `exportProgram` runs the export-time passes on a copy of the program (the
// entry and what it reaches), reads the metadata off the entry and writes
// the module as bytecode with its dialects' versions. `readArtifactModule`
// reads it back and checks it against the metadata.
//
//===----------------------------------------------------------------------===//

#include "ArtifactBytecodeProbe.h"
#include "ArtifactShapes.h"

#include "tessera/Conversion/RuntimeTypes.h"
#include "tessera/Dialect/BytecodeVersion.h"
#include "tessera/Dialect/Kernel/IR/KernelOps.h"
#include "tessera/Dialect/Poly/IR/PolyUtils.h"
#include "tessera/Dialect/Poly/Transforms/Passes.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"
#include "tessera/Dialect/Spmd/Transforms/Passes.h"
#include "tessera/Version.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <set>

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::exec;

static std::string attrToString(Attribute attr) {
  if (!attr)
    return "";
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}

/// The dimensions of `type` as JAX prints them: the symbolic shape of
/// `spec` (the `poly.shape` annotation, whose dimensions are printed one by
/// one) or the static sizes.
static llvm::Expected<std::vector<std::string>>
getDims(RankedTensorType type, poly::ShapeAttr spec, llvm::StringRef what) {
  std::vector<std::string> dims;
  if (spec) {
    llvm::Expected<std::vector<std::string>> parsed =
        splitShapeSpec(spec.getSpec().getValue());
    if (!parsed)
      return makeError(what + ": " + llvm::toString(parsed.takeError()));
    if (static_cast<int64_t>(parsed->size()) != type.getRank())
      return makeError(what + " has " + llvm::Twine(type.getRank()) +
                       " dimensions but its poly.shape has " +
                       llvm::Twine(parsed->size()));
    return std::move(*parsed);
  }
  for (int64_t size : type.getShape()) {
    if (ShapedType::isDynamic(size))
      return makeError(what + " has the dynamic type " + typeToString(type) +
                       " and no poly.shape: an exported function's dynamic "
                       "dimensions must be symbolic");
    dims.push_back(std::to_string(size));
  }
  return dims;
}

/// The aval of a value of type `type`.
static llvm::Expected<ArtifactAval> makeAval(Type type, poly::ShapeAttr spec,
                                             spmd::TensorShardingAttr sharding,
                                             std::string name,
                                             llvm::StringRef what) {
  auto tensor = cast<RankedTensorType>(type);
  ArtifactAval aval;
  llvm::Expected<std::vector<std::string>> dims = getDims(tensor, spec, what);
  if (!dims)
    return dims.takeError();
  aval.shape = std::move(*dims);
  aval.dtype = getJaxDTypeName(*getRuntimeDType(tensor.getElementType())).str();
  aval.elementType = typeToString(tensor.getElementType());
  aval.sharding = attrToString(sharding);
  aval.name = std::move(name);
  return aval;
}

/// The sharding a caller gets for result `index` of `entry`: the result's
/// `spmd.sharding`, else (explicit axes, whose shardings are in the types)
/// that of the value returned.
static spmd::TensorShardingAttr getResultSharding(func::FuncOp entry,
                                                  unsigned index) {
  if (spmd::TensorShardingAttr sharding =
          spmd::getFuncResultSharding(entry, index))
    return sharding;
  for (Block &block : entry.getBody())
    if (auto ret = dyn_cast_if_present<func::ReturnOp>(block.getTerminator()))
      return spmd::getSharding(ret.getOperand(index));
  return nullptr;
}

/// The names of the Tessera dialects whose ops, attributes or types the
/// module uses (those whose bytecode versions the artifact depends on).
static std::set<std::string> getUsedTesseraDialects(ModuleOp module) {
  llvm::StringSet<> tessera;
  for (const DialectVersionInfo &info : getDialectVersions())
    tessera.insert(info.dialect);
  std::set<std::string> used;
  auto note = [&](Dialect *dialect) {
    if (dialect && tessera.contains(dialect->getNamespace()))
      used.insert(dialect->getNamespace().str());
  };
  auto noteType = [&](Type type) {
    type.walk([&](Type t) { note(&t.getDialect()); });
    type.walk([&](Attribute a) { note(&a.getDialect()); });
  };
  module->walk([&](Operation *op) {
    note(op->getDialect());
    op->getAttrDictionary().walk([&](Attribute a) { note(&a.getDialect()); },
                                 [&](Type t) { note(&t.getDialect()); });
    for (Type type : op->getResultTypes())
      noteType(type);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          noteType(arg.getType());
  });
  return used;
}

/// Runs the export-time passes on `module`.
static llvm::Error runExportPasses(ModuleOp module,
                                   const ExportOptions &options) {
  bool polymorphic = false;
  module.walk([&](func::FuncOp func) {
    polymorphic |= static_cast<bool>(func->getAttr("poly.constraints"));
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      polymorphic |= static_cast<bool>(func.getArgAttr(i, "poly.shape"));
  });
  PassManager pm(module.getContext());
  if (options.configurePassManager && failed(options.configurePassManager(pm)))
    return makeReportedError();
  if (polymorphic) {
    pm.addPass(poly::createPolyInferPass());
    pm.addPass(poly::createPolyInsertAssertionsPass());
  }
  pm.addPass(spmd::createSpmdLiftInlinedMeshesPass());
  spmd::buildTesseraPropagatePipeline(pm);
  if (failed(pm.run(module)))
    return makeReportedError();
  return llvm::Error::success();
}

/// The metadata of the exported entry of `module`.
static llvm::Expected<ArtifactMetadata>
buildMetadata(ModuleOp module, const Program &program,
              const ExportOptions &options) {
  auto entry = module.lookupSymbol<func::FuncOp>(program.entryName);
  ArtifactMetadata metadata;
  metadata.functionName = program.entryName;
  metadata.source = options.source;
  for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
    llvm::Expected<ArtifactAval> aval =
        makeAval(entry.getArgument(i).getType(),
                 entry.getArgAttrOfType<poly::ShapeAttr>(i, "poly.shape"),
                 spmd::getSharding(entry.getArgument(i)), program.args[i].name,
                 "argument " + std::to_string(i) + " of @" + program.entryName);
    if (!aval)
      return aval.takeError();
    metadata.inAvals.push_back(std::move(*aval));
  }
  for (unsigned i = 0; i < entry.getNumResults(); ++i) {
    llvm::Expected<ArtifactAval> aval =
        makeAval(entry.getResultTypes()[i],
                 entry.getResultAttrOfType<poly::ShapeAttr>(i, "poly.shape"),
                 getResultSharding(entry, i), "",
                 "result " + std::to_string(i) + " of @" + program.entryName);
    if (!aval)
      return aval.takeError();
    metadata.outAvals.push_back(std::move(*aval));
  }
  // The abstract mesh.
  const MeshInfo &mesh = program.mesh;
  metadata.mesh.symbol = mesh.symbol;
  metadata.mesh.deviceIds = mesh.deviceIds;
  spmd::MeshAttr meshAttr;
  if (!mesh.symbol.empty())
    if (auto op = module.lookupSymbol<spmd::MeshOp>(mesh.symbol))
      meshAttr = op.getMesh();
  for (size_t i = 0; i < mesh.names.size(); ++i)
    metadata.mesh.axes.push_back(
        {mesh.names[i], mesh.sizes[i],
         meshAttr ? spmd::stringifyAxisType(meshAttr.getAxisType(i)).str()
                  : "auto"});
  metadata.numDevices = mesh.getNumDevices();
  if (auto target = module->getAttrOfType<kernel::TargetAttr>("kernel.target"))
    metadata.kernelTarget = target.getGeneration().str();
  metadata.hasKernelCalls =
      module.walk([](kernel::CallOp) { return WalkResult::interrupt(); })
          .wasInterrupted();
  if (Attribute constraints = entry->getAttr("poly.constraints")) {
    symbolic::DimResult<std::vector<std::string>> strings =
        poly::getConstraintStrings(constraints);
    if (!strings)
      return makeError(strings.getError().getMessage());
    metadata.constraints = std::move(*strings);
  }
  // The dimension variables, as a call solves them.
  llvm::Expected<std::unique_ptr<ArtifactShapes>> shapes =
      ArtifactShapes::create(metadata);
  if (!shapes)
    return shapes.takeError();
  metadata.dimVars = (*shapes)->getDimVars();
  for (const std::string &dialect : getUsedTesseraDialects(module)) {
    for (const DialectVersionInfo &info : getDialectVersions())
      if (info.dialect == dialect)
        metadata.dialectVersions[dialect] = info.current;
    auto it = options.dialectVersions.find(dialect);
    if (it != options.dialectVersions.end())
      metadata.dialectVersions[dialect] = it->second;
  }
  return metadata;
}

llvm::Expected<std::string>
mlir::tessera::exec::exportProgram(const Program &program,
                                   const ExportOptions &options) {
  if (options.compressionLevel < kMinCompressionLevel ||
      options.compressionLevel > kMaxCompressionLevel)
    return makeError("--compression-level must be " +
                     llvm::Twine(kMinCompressionLevel) + " to " +
                     llvm::Twine(kMaxCompressionLevel) + ", got '" +
                     llvm::Twine(options.compressionLevel) + "'");
  for (const auto &entry : options.dialectVersions)
    if (!llvm::any_of(getDialectVersions(), [&](const auto &info) {
          return info.dialect == entry.first;
        }))
      return makeError("unknown dialect '" + entry.first +
                       "' (the versioned dialects are comm, kernel, poly "
                       "and spmd)");
  OwningOpRef<ModuleOp> module = cast<ModuleOp>((*program.module)->clone());
  // One function and what it calls.
  pruneUnreachableFunctions(*module, program.entryName);
  if (llvm::Error error = runExportPasses(*module, options))
    return std::move(error);
  llvm::Expected<ArtifactMetadata> metadata =
      buildMetadata(*module, program, options);
  if (!metadata)
    return metadata.takeError();

  std::string bytecode;
  llvm::raw_string_ostream os(bytecode);
  BytecodeWriterConfig config("Tessera " TESSERA_VERSION_STRING);
  for (const auto &[dialect, version] : options.dialectVersions)
    config.setDialectVersion(dialect,
                             std::make_unique<TesseraDialectVersion>(version));
  if (failed(writeBytecodeToFile(*module, os, config)))
    return makeError("cannot write the module as bytecode");
  return writeArtifactContainer(metadataToJson(*metadata), bytecode,
                                options.compressionLevel);
}

//===----------------------------------------------------------------------===//
// Reading the module back
//===----------------------------------------------------------------------===//

/// `text` on one line.
static std::string oneLine(std::string text) {
  for (char &c : text)
    if (c == '\n' || c == '\r')
      c = ' ';
  return text;
}

namespace {
/// Compares the module with the metadata; errors say where they disagree.
class ModuleChecker {
public:
  ModuleChecker(ModuleOp module, const ArtifactMetadata &metadata)
      : module(module), metadata(metadata) {}

  llvm::Error check() {
    auto entry = module.lookupSymbol<func::FuncOp>(metadata.functionName);
    if (!entry || entry.isExternal())
      return disagree("the module has no function @" + metadata.functionName);
    if (entry.getNumArguments() != metadata.inAvals.size() ||
        entry.getNumResults() != metadata.outAvals.size())
      return disagree("in_avals and out_avals have " +
                      llvm::Twine(metadata.inAvals.size()) + " and " +
                      llvm::Twine(metadata.outAvals.size()) + " values, @" +
                      metadata.functionName + " has " +
                      llvm::Twine(entry.getNumArguments()) + " arguments and " +
                      llvm::Twine(entry.getNumResults()) + " results");
    for (unsigned i = 0; i < entry.getNumArguments(); ++i)
      if (llvm::Error e = checkValue(
              metadata.inAvals[i], "in_avals[" + std::to_string(i) + "]",
              entry.getArgument(i).getType(),
              entry.getArgAttrOfType<poly::ShapeAttr>(i, "poly.shape"),
              spmd::getSharding(entry.getArgument(i)),
              "argument " + std::to_string(i)))
        return e;
    for (unsigned i = 0; i < entry.getNumResults(); ++i)
      if (llvm::Error e = checkValue(
              metadata.outAvals[i], "out_avals[" + std::to_string(i) + "]",
              entry.getResultTypes()[i],
              entry.getResultAttrOfType<poly::ShapeAttr>(i, "poly.shape"),
              getResultSharding(entry, i), "result " + std::to_string(i)))
        return e;
    if (llvm::Error e = checkMesh())
      return e;
    auto target = module->getAttrOfType<kernel::TargetAttr>("kernel.target");
    std::string generation = target ? target.getGeneration().str() : "";
    if (generation != metadata.kernelTarget)
      return disagree("the kernel target is '" + metadata.kernelTarget +
                      "' but the module's is '" + generation + "'");
    return llvm::Error::success();
  }

private:
  llvm::Error disagree(const llvm::Twine &what) {
    return makeError("the artifact's metadata disagrees with its module: " +
                     what);
  }

  llvm::Error checkValue(const ArtifactAval &aval, const std::string &label,
                         Type type, poly::ShapeAttr spec,
                         spmd::TensorShardingAttr sharding,
                         const std::string &what) {
    std::string where = what + " of @" + metadata.functionName;
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return disagree(where + " has type " + typeToString(type) +
                      ", not a ranked tensor");
    std::string element = typeToString(tensor.getElementType());
    if (element != aval.elementType)
      return disagree(label + " has element type '" + aval.elementType +
                      "' but " + where + " has type " + typeToString(type));
    llvm::Expected<std::vector<std::string>> dims =
        getDims(tensor, spec, where);
    if (!dims) {
      llvm::consumeError(dims.takeError());
      return disagree(where + " (type " + typeToString(type) +
                      ") has no symbolic shape for its dynamic dimensions");
    }
    if (*dims != aval.shape)
      return disagree(label + " has the shape (" +
                      llvm::join(aval.shape, ", ") + ") but " + where +
                      " has (" + llvm::join(*dims, ", ") + ")");
    std::string text = attrToString(sharding);
    if (text != aval.sharding)
      return disagree(label + " has the sharding " +
                      (aval.sharding.empty() ? "none" : aval.sharding) +
                      " but " + where + " has " +
                      (text.empty() ? "none" : text));
    return llvm::Error::success();
  }

  llvm::Error checkMesh() {
    const ArtifactMesh &mesh = metadata.mesh;
    if (mesh.symbol.empty()) {
      if (!mesh.axes.empty())
        return disagree("the mesh has axes but no symbol");
      return llvm::Error::success();
    }
    auto op = module.lookupSymbol<spmd::MeshOp>(mesh.symbol);
    if (!op)
      return disagree("the module has no mesh @" + mesh.symbol);
    spmd::MeshAttr attr = op.getMesh();
    bool same = attr.getAxes().size() == mesh.axes.size();
    for (size_t i = 0; same && i < mesh.axes.size(); ++i)
      same = attr.getAxes()[i].getName() == mesh.axes[i].name &&
             attr.getAxes()[i].getSize() == mesh.axes[i].size &&
             spmd::stringifyAxisType(attr.getAxisType(i)) == mesh.axes[i].type;
    same = same && llvm::equal(attr.getDeviceIds(), mesh.deviceIds);
    if (!same)
      return disagree("the mesh differs from the module's @" + mesh.symbol +
                      " (" + attrToString(attr) + ")");
    return llvm::Error::success();
  }

  ModuleOp module;
  const ArtifactMetadata &metadata;
};
} // namespace

llvm::Expected<OwningOpRef<ModuleOp>>
mlir::tessera::exec::readArtifactModule(const Artifact &artifact,
                                        MLIRContext &context) {
  // The first diagnostic is the message; the handler keeps the rest quiet.
  std::string first;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    if (first.empty() && diagnostic.getSeverity() == DiagnosticSeverity::Error)
      first = diagnostic.str();
    return success();
  });
  llvm::MemoryBufferRef buffer(artifact.container.bytecode,
                               "the artifact's module");
  if (!isBytecode(buffer))
    return makeError("the artifact's module is not MLIR bytecode");
  if (llvm::Error error = probeArtifactBytecode(artifact.container.bytecode))
    return std::move(error);
  ParserConfig config(&context);
  Block block;
  if (failed(readBytecodeFile(buffer, &block, config)))
    return makeError("cannot read the artifact's module: " +
                     oneLine(first.empty() ? "malformed bytecode" : first));
  if (block.getOperations().size() != 1 || !isa<ModuleOp>(block.front()))
    return makeError("the artifact's module bytecode does not hold one "
                     "builtin.module");
  OwningOpRef<ModuleOp> module(cast<ModuleOp>(block.front()));
  module.get()->remove();
  if (failed(verify(*module)))
    return makeError("the artifact's module does not verify: " +
                     oneLine(first));
  if (llvm::Error error = ModuleChecker(*module, artifact.metadata).check())
    return std::move(error);
  return module;
}
