//===- Execution.cpp - Tessera C API: compile and run programs ------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera-c/Execution.h"

#include "tessera/Execution/Execution.h"

#include "mlir/CAPI/Support.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"

#include <cstdio>

using namespace mlir;
namespace exec = mlir::tessera::exec;

TesseraRunOptions tesseraRunOptionsGetDefault(void) {
  TesseraRunOptions options;
  options.entry = MlirStringRef{nullptr, 0};
  options.meshSizes = MlirStringRef{nullptr, 0};
  options.seed = 0;
  options.check = false;
  options.optLevel = 3;
  return options;
}

MlirLogicalResult tesseraRunProgram(MlirStringRef source,
                                    MlirStringRef sourceName,
                                    const TesseraRunOptions *options,
                                    MlirStringCallback onError,
                                    void *userData) {
  TesseraRunOptions defaults = tesseraRunOptionsGetDefault();
  if (!options)
    options = &defaults;
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  DialectRegistry registry;
  exec::registerExecutionDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  // Diagnostics, as the source manager formats them, go to `onError`.
  std::string diagnostics;
  llvm::raw_string_ostream diagnosticStream(diagnostics);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, diagnosticStream);
  auto fail = [&](llvm::Error error) {
    std::string message;
    llvm::handleAllErrors(
        std::move(error), [](const exec::ReportedError &) {},
        [&](const llvm::ErrorInfoBase &info) {
          message = "error: " + info.message() + "\n";
        });
    std::fflush(stdout);
    if (onError) {
      if (!diagnostics.empty())
        onError(MlirStringRef{diagnostics.data(), diagnostics.size()},
                userData);
      if (!message.empty())
        onError(MlirStringRef{message.data(), message.size()}, userData);
    }
    return mlirLogicalResultFailure();
  };

  llvm::Expected<exec::Program> program =
      exec::loadProgram(context, sourceMgr,
                        llvm::MemoryBuffer::getMemBufferCopy(
                            llvm::StringRef(source.data, source.length),
                            unwrap(sourceName).str()),
                        unwrap(options->entry).str());
  if (!program)
    return fail(program.takeError());
  exec::RunOptions run;
  run.inputs.random = true;
  run.inputs.seed = options->seed;
  run.meshSizes = unwrap(options->meshSizes).str();
  run.check = options->check;
  run.compile.optLevel = options->optLevel;
  if (llvm::Error error = exec::runProgram(*program, run))
    return fail(std::move(error));
  std::fflush(stdout);
  return mlirLogicalResultSuccess();
}
