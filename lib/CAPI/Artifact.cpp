//===- Artifact.cpp - Tessera C API: exported artifacts -------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera-c/Artifact.h"

#include "tessera/Execution/Artifact.h"
#include "tessera/Runtime/HostArray.h"

#include "mlir/CAPI/Support.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <memory>

using namespace mlir;
namespace exec = mlir::tessera::exec;
namespace rt = ::tessera::rt;

namespace {
/// What a TesseraArtifact points to: a context for its module and the
/// program that runs it.
struct ArtifactHandle {
  std::unique_ptr<MLIRContext> context;
  std::shared_ptr<const exec::Artifact> artifact;
  exec::Program program;
};
} // namespace

static ArtifactHandle &unwrap(TesseraArtifact artifact) {
  return *static_cast<ArtifactHandle *>(artifact.ptr);
}

static void send(MlirStringCallback callback, void *userData,
                 llvm::StringRef text) {
  if (callback)
    callback(mlirStringRefCreate(text.data(), text.size()), userData);
}

/// A context with every dialect a program may use.
static std::unique_ptr<MLIRContext> createContext() {
  DialectRegistry registry;
  exec::registerExecutionDialects(registry);
  auto context = std::make_unique<MLIRContext>(registry);
  context->printOpOnDiagnostic(false);
  return context;
}

/// Hands the message of `error` (and the diagnostics before it) to
/// `onError`.
static MlirLogicalResult fail(llvm::Error error, const std::string &diagnostics,
                              MlirStringCallback onError, void *userData) {
  std::string message;
  llvm::handleAllErrors(
      std::move(error), [](const exec::ReportedError &) {},
      [&](const llvm::ErrorInfoBase &info) {
        message = "error: " + info.message() + "\n";
      });
  if (!diagnostics.empty())
    send(onError, userData, diagnostics);
  if (!message.empty())
    send(onError, userData, message);
  return mlirLogicalResultFailure();
}

MlirLogicalResult
tesseraArtifactExport(MlirStringRef source, MlirStringRef sourceName,
                      MlirStringRef entry, int compressionLevel,
                      MlirStringCallback onBytes, MlirStringCallback onError,
                      void *userData) {
  std::unique_ptr<MLIRContext> context = createContext();
  std::string diagnostics;
  llvm::raw_string_ostream diagnosticStream(diagnostics);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, context.get(),
                                     diagnosticStream);
  llvm::Expected<exec::Program> program =
      exec::loadProgram(*context, sourceMgr,
                        llvm::MemoryBuffer::getMemBufferCopy(
                            llvm::StringRef(source.data, source.length),
                            unwrap(sourceName).str()),
                        unwrap(entry).str());
  if (!program)
    return fail(program.takeError(), diagnostics, onError, userData);
  exec::ExportOptions options;
  options.compressionLevel = compressionLevel;
  options.source = unwrap(sourceName).str();
  llvm::Expected<std::string> bytes = exec::exportProgram(*program, options);
  if (!bytes)
    return fail(bytes.takeError(), diagnostics, onError, userData);
  send(onBytes, userData, *bytes);
  return mlirLogicalResultSuccess();
}

TesseraArtifact tesseraArtifactDeserialize(MlirStringRef bytes,
                                           MlirStringCallback onError,
                                           void *userData) {
  llvm::Expected<exec::Artifact> artifact =
      exec::readArtifact(llvm::StringRef(bytes.data, bytes.length));
  if (!artifact) {
    fail(artifact.takeError(), "", onError, userData);
    return TesseraArtifact{nullptr};
  }
  auto handle = std::make_unique<ArtifactHandle>();
  handle->context = createContext();
  handle->artifact = std::make_shared<exec::Artifact>(std::move(*artifact));
  llvm::Expected<exec::Program> program =
      exec::loadArtifactProgram(*handle->context, handle->artifact, "");
  if (!program) {
    fail(program.takeError(), "", onError, userData);
    return TesseraArtifact{nullptr};
  }
  handle->program = std::move(*program);
  return TesseraArtifact{handle.release()};
}

void tesseraArtifactDestroy(TesseraArtifact artifact) {
  delete static_cast<ArtifactHandle *>(artifact.ptr);
}

void tesseraArtifactSerialize(TesseraArtifact artifact,
                              MlirStringCallback onBytes, void *userData) {
  const exec::ArtifactContainer &container =
      unwrap(artifact).artifact->container;
  llvm::Expected<std::string> bytes = exec::writeArtifactContainer(
      container.metadataJson, container.bytecode,
      container.header.compressionLevel, container.header);
  // The container was read, so its level and version fit.
  if (!bytes) {
    llvm::consumeError(bytes.takeError());
    return;
  }
  send(onBytes, userData, *bytes);
}

void tesseraArtifactInspect(TesseraArtifact artifact, bool json,
                            MlirStringCallback callback, void *userData) {
  std::string text;
  llvm::raw_string_ostream os(text);
  exec::printArtifact(*unwrap(artifact).artifact, "<memory>", os, json);
  send(callback, userData, text);
}

MlirStringRef tesseraArtifactGetFunctionName(TesseraArtifact artifact) {
  const std::string &name = unwrap(artifact).artifact->metadata.functionName;
  return mlirStringRefCreate(name.data(), name.size());
}

intptr_t tesseraArtifactGetNumInputs(TesseraArtifact artifact) {
  return unwrap(artifact).artifact->metadata.inAvals.size();
}

intptr_t tesseraArtifactGetNumOutputs(TesseraArtifact artifact) {
  return unwrap(artifact).artifact->metadata.outAvals.size();
}

intptr_t tesseraArtifactGetNumDevices(TesseraArtifact artifact) {
  return unwrap(artifact).artifact->metadata.numDevices;
}

/// The runtime's dtype named `name`.
static std::optional<rt::DType> parseDType(llvm::StringRef name) {
  for (rt::DType dtype :
       {rt::DType::F32, rt::DType::F64, rt::DType::F16, rt::DType::BF16,
        rt::DType::I1, rt::DType::I8, rt::DType::I16, rt::DType::I32,
        rt::DType::I64, rt::DType::U8, rt::DType::U16, rt::DType::U32,
        rt::DType::U64})
    if (name == rt::getDTypeName(dtype))
      return dtype;
  return std::nullopt;
}

MlirLogicalResult tesseraArtifactCall(
    TesseraArtifact artifact, intptr_t numInputs, const TesseraArray *inputs,
    MlirStringRef meshSizes, unsigned optLevel, bool noCache,
    TesseraArrayCallback onResult, MlirStringCallback onError, void *userData) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  ArtifactHandle &handle = unwrap(artifact);
  std::vector<rt::HostArray> arrays;
  for (intptr_t i = 0; i < numInputs; ++i) {
    const TesseraArray &input = inputs[i];
    std::optional<rt::DType> dtype = parseDType(unwrap(input.dtype).str());
    if (!dtype)
      return fail(exec::makeError("input " + llvm::Twine(i) +
                                  " has the unknown dtype '" +
                                  unwrap(input.dtype).str() + "'"),
                  "", onError, userData);
    std::vector<int64_t> shape(input.shape, input.shape + input.rank);
    rt::HostArray array;
    std::string error;
    if (input.rank < 0 || !rt::HostArray::create(*dtype, shape, array, error))
      return fail(exec::makeError("input " + llvm::Twine(i) + ": " +
                                  (error.empty() ? "a negative rank" : error)),
                  "", onError, userData);
    if (array.getNumBytes())
      std::memcpy(array.data(), input.data, array.getNumBytes());
    arrays.push_back(std::move(array));
  }
  // Each call has its own calling context.
  handle.program.callMesh.reset();
  exec::CallOptions options;
  options.compile.optLevel = optLevel;
  options.cache.enabled = !noCache;
  options.meshSizes = unwrap(meshSizes).str();
  // Diagnostics of the compilation, if it fails.
  std::string diagnostics;
  llvm::raw_string_ostream diagnosticStream(diagnostics);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnosticHandler(sourceMgr, handle.context.get(),
                                               diagnosticStream);
  llvm::Expected<std::vector<rt::HostArray>> results =
      exec::callProgram(handle.program, std::move(arrays), options);
  if (!results)
    return fail(results.takeError(), diagnostics, onError, userData);
  for (const rt::HostArray &result : *results) {
    std::string dtype = rt::getDTypeName(result.getDType());
    TesseraArray array{mlirStringRefCreate(dtype.data(), dtype.size()),
                       static_cast<intptr_t>(result.getShape().size()),
                       result.getShape().data(), result.data()};
    if (onResult)
      onResult(array, userData);
  }
  return mlirLogicalResultSuccess();
}
