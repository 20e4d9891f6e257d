//===- ArtifactCall.cpp - running an exported artifact --------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The program of an artifact (its signature from the metadata, its module
// read only when it is compiled) and the checks of JAX's `Exported.call`.
//
//===----------------------------------------------------------------------===//

#include "ArtifactShapes.h"

#include "tessera/Conversion/RuntimeTypes.h"
#include "tessera/Execution/Run.h"
#include "tessera/Runtime/Mesh.h"
#include "tessera/SymbolicShape/Parser.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::exec;
using symbolic::DimExpr;
using ::tessera::rt::DType;

llvm::StringRef mlir::tessera::exec::getJaxDTypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "float32";
  case DType::F64:
    return "float64";
  case DType::F16:
    return "float16";
  case DType::BF16:
    return "bfloat16";
  case DType::I1:
    return "bool";
  case DType::I8:
    return "int8";
  case DType::I16:
    return "int16";
  case DType::I32:
    return "int32";
  case DType::I64:
    return "int64";
  case DType::U8:
    return "uint8";
  case DType::U16:
    return "uint16";
  case DType::U32:
    return "uint32";
  case DType::U64:
    return "uint64";
  }
  return "unknown";
}

//===----------------------------------------------------------------------===//
// ArtifactShapes
//===----------------------------------------------------------------------===//

llvm::Expected<std::vector<std::string>>
mlir::tessera::exec::splitShapeSpec(llvm::StringRef spec) {
  spec = spec.trim();
  if (spec.consume_front("("))
    if (!spec.consume_back(")"))
      return makeError("unbalanced parentheses in the shape '" + spec + "'");
  std::vector<std::string> dims;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= spec.size(); ++i) {
    char c = i < spec.size() ? spec[i] : ',';
    if (c == '(')
      ++depth;
    else if (c == ')' && --depth < 0)
      return makeError("unbalanced parentheses in the shape '" + spec + "'");
    if (c != ',' || depth != 0)
      continue;
    llvm::StringRef dim = spec.slice(start, i).trim();
    start = i + 1;
    // A trailing comma ends a one-dimensional tuple.
    if (dim.empty() && i == spec.size() && !dims.empty())
      break;
    if (dim.empty()) {
      if (spec.trim().empty())
        break; // Rank 0.
      return makeError("an empty dimension in the shape '" + spec + "'");
    }
    dims.push_back(dim.str());
  }
  if (depth != 0)
    return makeError("unbalanced parentheses in the shape '" + spec + "'");
  return dims;
}

llvm::Expected<std::unique_ptr<ArtifactShapes>>
ArtifactShapes::create(const ArtifactMetadata &metadata) {
  std::unique_ptr<ArtifactShapes> shapes(new ArtifactShapes);
  shapes->context = std::make_unique<symbolic::DimContext>();
  symbolic::ScopeOptions options;
  options.location = "the artifact's function " + metadata.functionName;
  auto scope = symbolic::SymbolicScope::create(*shapes->context,
                                               metadata.constraints, options);
  if (!scope)
    return makeError("the artifact's symbolic constraints are invalid: " +
                     scope.getError().getMessage());
  shapes->scope = std::move(*scope);
  auto parse = [&](const ArtifactAval &aval, const std::string &label,
                   llvm::SmallVector<DimExpr> &out) -> llvm::Error {
    for (auto [j, text] : llvm::enumerate(aval.shape)) {
      symbolic::DimResult<DimExpr> dim =
          symbolic::parseDimExpr(text, *shapes->scope);
      if (!dim)
        return makeError("malformed metadata: " + label + ".shape[" +
                         llvm::Twine(j) + "] '" + text +
                         "': " + dim.getError().getMessage());
      if (std::optional<int64_t> size = dim->getConstant(); size && *size < 0)
        return makeError("malformed metadata: " + label + ".shape[" +
                         llvm::Twine(j) + "] is negative");
      out.push_back(*dim);
    }
    return llvm::Error::success();
  };
  for (auto [i, aval] : llvm::enumerate(metadata.inAvals)) {
    symbolic::ArgShapeSpec spec;
    spec.name = "args[" + std::to_string(i) + "]";
    if (llvm::Error e =
            parse(aval, "in_avals[" + std::to_string(i) + "]", spec.shape))
      return std::move(e);
    shapes->inputs.push_back(std::move(spec));
  }
  for (auto [i, aval] : llvm::enumerate(metadata.outAvals)) {
    shapes->outputs.emplace_back();
    if (llvm::Error e = parse(aval, "out_avals[" + std::to_string(i) + "]",
                              shapes->outputs.back()))
      return std::move(e);
  }
  bool symbolicInputs = llvm::any_of(shapes->inputs, [](const auto &spec) {
    return llvm::any_of(spec.shape,
                        [](const DimExpr &d) { return !d.isConstant(); });
  });
  if (!symbolicInputs)
    return std::move(shapes);
  symbolic::DimResult<symbolic::DimVarSolution> solution =
      symbolic::solveDimVars(shapes->inputs, metadata.functionName);
  if (!solution)
    return makeError("the artifact's shapes cannot be solved: " +
                     solution.getError().getMessage());
  shapes->solution = std::move(*solution);
  return std::move(shapes);
}

std::vector<std::string> ArtifactShapes::getDimVars() const {
  if (!solution)
    return {};
  llvm::SmallVector<std::string> vars = solution->getDimVars();
  return std::vector<std::string>(vars.begin(), vars.end());
}

//===----------------------------------------------------------------------===//
// The program of an artifact
//===----------------------------------------------------------------------===//

/// The type of `aval`, with a dynamic size for each symbolic dimension.
static llvm::Expected<std::pair<RankedTensorType, DType>>
getAvalType(MLIRContext &context, const ArtifactAval &aval,
            const std::string &label) {
  auto malformed = [&](const llvm::Twine &what) {
    return makeError("malformed metadata: '" + label + "' " + what);
  };
  Type element;
  if (!aval.elementType.empty() && llvm::all_of(aval.elementType, [](char c) {
        return llvm::isAlnum(c) || c == '_';
      }))
    element = parseType(aval.elementType, &context, nullptr,
                        /*isKnownNullTerminated=*/false);
  std::optional<DType> dtype =
      element ? getRuntimeDType(element) : std::nullopt;
  if (!dtype)
    return malformed("has the element type '" + aval.elementType +
                     "', which tessera-run cannot pass");
  if (getJaxDTypeName(*dtype) != aval.dtype)
    return malformed("has the dtype '" + aval.dtype +
                     "' and the element type '" + aval.elementType +
                     "', which disagree");
  SmallVector<int64_t> dims;
  for (const std::string &text : aval.shape) {
    int64_t size;
    dims.push_back(llvm::StringRef(text).getAsInteger(10, size)
                       ? ShapedType::kDynamic
                       : size);
  }
  return std::make_pair(RankedTensorType::get(dims, element), *dtype);
}

llvm::Expected<Program> mlir::tessera::exec::loadArtifactProgram(
    MLIRContext &context, std::shared_ptr<const Artifact> artifact,
    llvm::StringRef entryName) {
  const ArtifactMetadata &metadata = artifact->metadata;
  if (!entryName.empty() && entryName != metadata.functionName)
    return makeError("unknown entry function '" + entryName +
                     "' (the artifact exports @" + metadata.functionName + ")");
  // Shapes that do not parse or solve are reported now, not at the call.
  llvm::Expected<std::unique_ptr<ArtifactShapes>> shapes =
      ArtifactShapes::create(metadata);
  if (!shapes)
    return shapes.takeError();
  Program program;
  program.entryName = metadata.functionName;
  for (auto [i, aval] : llvm::enumerate(metadata.inAvals)) {
    auto type =
        getAvalType(context, aval, "in_avals[" + std::to_string(i) + "]");
    if (!type)
      return type.takeError();
    program.args.push_back({aval.name, type->first, type->second});
  }
  for (auto [i, aval] : llvm::enumerate(metadata.outAvals)) {
    auto type =
        getAvalType(context, aval, "out_avals[" + std::to_string(i) + "]");
    if (!type)
      return type.takeError();
    program.results.push_back({type->first, type->second});
  }
  program.mesh.symbol = metadata.mesh.symbol;
  for (const ArtifactMeshAxis &axis : metadata.mesh.axes) {
    program.mesh.names.push_back(axis.name);
    program.mesh.sizes.push_back(axis.size);
  }
  program.mesh.deviceIds = metadata.mesh.deviceIds;
  program.cacheId = "artifact:" + artifact->getId();
  program.artifact = std::move(artifact);
  program.context = &context;
  return program;
}

llvm::Error mlir::tessera::exec::ensureModule(Program &program) {
  if (program.module)
    return llvm::Error::success();
  if (!program.artifact || !program.context)
    return makeError("the program has no module");
  llvm::Expected<OwningOpRef<ModuleOp>> module =
      readArtifactModule(*program.artifact, *program.context);
  if (!module)
    return module.takeError();
  program.module = std::move(*module);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Exported.call's checks
//===----------------------------------------------------------------------===//

/// A concrete shape as Python prints a tuple.
static std::string formatConcreteShape(llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<DimExpr> dims;
  for (int64_t d : shape)
    dims.push_back(DimExpr(d));
  return symbolic::formatShape(dims);
}

llvm::Error mlir::tessera::exec::checkArtifactCall(
    const Program &program, llvm::ArrayRef<std::vector<int64_t>> shapes,
    llvm::ArrayRef<DType> dtypes) {
  const ArtifactMetadata &metadata = program.artifact->metadata;
  llvm::Expected<std::unique_ptr<ArtifactShapes>> parsed =
      ArtifactShapes::create(metadata);
  if (!parsed)
    return parsed.takeError();
  llvm::ArrayRef<symbolic::ArgShapeSpec> inputs = (*parsed)->getInputs();
  if (shapes.size() != inputs.size())
    return makeError("the artifact's function " + metadata.functionName +
                     " takes " + llvm::Twine(inputs.size()) +
                     " arguments, called with " + llvm::Twine(shapes.size()));
  // For each argument: its rank, its dtype, its constant dimensions.
  for (auto [i, spec] : llvm::enumerate(inputs)) {
    const std::vector<int64_t> &actual = shapes[i];
    std::string expected = symbolic::formatShape(spec.shape);
    if (actual.size() != spec.shape.size())
      return makeError("Rank mismatch for " + spec.name + ": expected " +
                       expected + " and called with " +
                       formatConcreteShape(actual));
    llvm::StringRef dtype = getJaxDTypeName(dtypes[i]);
    if (dtype != metadata.inAvals[i].dtype)
      return makeError("Dtype mismatch for " + spec.name + ": expected " +
                       metadata.inAvals[i].dtype + " and called with " + dtype);
    for (auto [j, dim] : llvm::enumerate(spec.shape))
      if (std::optional<int64_t> size = dim.getConstant();
          size && *size != actual[j])
        return makeError("Shape mismatch for " + spec.name + ".shape[" +
                         llvm::Twine(j) +
                         "] (expected same constant): expected " + expected +
                         " and called with " + formatConcreteShape(actual));
  }
  // The dimension variables, solved and checked (remainders, `>= 1`,
  // consistency, the constraints), with JAX's messages.
  if (const std::optional<symbolic::DimVarSolution> &solution =
          (*parsed)->getSolution()) {
    SmallVector<symbolic::ConcreteShape> concrete;
    for (const std::vector<int64_t> &shape : shapes)
      concrete.emplace_back(shape.begin(), shape.end());
    auto values = solution->checkConcreteShapes(concrete);
    if (!values)
      return makeError(values.getError().getMessage());
  }
  // The calling context's devices.
  const MeshInfo &called = program.callMesh ? *program.callMesh : program.mesh;
  int64_t devices = called.getNumDevices();
  if (metadata.numDevices != 1 && devices != metadata.numDevices)
    return makeError("Function " + metadata.functionName +
                     " was exported for " + llvm::Twine(metadata.numDevices) +
                     " devices and is called in a context with " +
                     llvm::Twine(devices) + " devices, which is not allowed.");
  if (called.sizes != program.mesh.sizes)
    return makeError("the artifact's function @" + metadata.functionName +
                     " was exported for the mesh " + program.mesh.toString() +
                     " and is called on the mesh " + called.toString() +
                     ": an artifact runs on the mesh it was exported for "
                     "(its shardings are fixed at export)");
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Calling
//===----------------------------------------------------------------------===//

llvm::Expected<std::vector<::tessera::rt::HostArray>>
mlir::tessera::exec::callProgram(Program &program,
                                 std::vector<::tessera::rt::HostArray> inputs,
                                 const CallOptions &options) {
  if (!options.meshSizes.empty())
    if (llvm::Error error = overrideMeshSizes(program, options.meshSizes))
      return std::move(error);
  std::vector<std::vector<int64_t>> shapes;
  std::vector<DType> dtypes;
  for (const ::tessera::rt::HostArray &input : inputs) {
    shapes.push_back(input.getShape());
    dtypes.push_back(input.getDType());
  }
  if (program.artifact) {
    if (llvm::Error error = checkArtifactCall(program, shapes, dtypes))
      return std::move(error);
  } else {
    // What loadInputs checks of a file, for a program from source.
    if (inputs.size() != program.args.size())
      return makeError("@" + program.entryName + " takes " +
                       llvm::Twine(program.args.size()) +
                       " arguments, called with " + llvm::Twine(inputs.size()));
    for (auto [i, arg] : llvm::enumerate(program.args)) {
      bool fits = dtypes[i] == arg.dtype &&
                  static_cast<int64_t>(shapes[i].size()) == arg.type.getRank();
      for (int64_t d = 0; fits && d < arg.type.getRank(); ++d)
        fits =
            arg.type.isDynamicDim(d) || arg.type.getDimSize(d) == shapes[i][d];
      if (!fits)
        return makeError("input " + llvm::Twine(i) + " (" +
                         inputs[i].getTypeString() + ") does not match " +
                         program.describeArg(i) + " of type " +
                         typeToString(arg.type));
    }
  }
  if (program.mesh.getNumDevices() > ::tessera::rt::Mesh::kMaxDevices)
    return makeError("the mesh " + program.mesh.toString() +
                     " has more devices than the emulated mesh runs");
  llvm::Expected<CompiledRun> built =
      compileForRun(program, shapes, options.compile, options.cache,
                    CompileTarget::Program, /*wantViews=*/false);
  if (!built)
    return built.takeError();
  std::string error;
  std::unique_ptr<::tessera::rt::Mesh> mesh = ::tessera::rt::Mesh::create(
      {built->mesh.names, built->mesh.sizes, built->mesh.deviceIds}, error);
  if (!mesh)
    return makeError("cannot create the mesh " + built->mesh.toString() + ": " +
                     error);
  llvm::Expected<RunResult> run =
      runOnMesh(*mesh, built->compiled, inputs, 1, /*traceLast=*/false);
  if (!run) {
    if (mesh->hasRunawayDevices()) {
      abandonWhileDevicesRun(std::move(built->compiled));
      abandonWhileDevicesRun(std::move(inputs));
    }
    return run.takeError();
  }
  return gatherResults(*run, built->compiled.layouts, *mesh);
}
