//===- RunOptionsFuzzer.cpp - fuzz target for tessera-run's options -------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Feeds arbitrary text to the option and input validation of the execution
// library that tessera-run uses, on a fixed program with a static and a
// dynamic argument: line 1 is a `--mesh` value, line 2 `--rtol`, line 3
// `--watchdog-seconds`, line 4 `--kernel-mode`, line 5 `--emit`, and every
// further line an `--input-shape` item (`NAME_OR_INDEX=4x8`). Each step must
// accept its input or reject it with a message; none may crash. Shapes are
// resolved without allocating, so huge shapes are fine.
//
//===----------------------------------------------------------------------===//

#include "FuzzerUtils.h"

#include "tessera/Execution/Execution.h"

#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdlib>

using namespace mlir;
namespace exec = mlir::tessera::exec;

static constexpr const char *kProgram = R"mlir(
spmd.mesh @mesh = <["x"=2, "y"=2]>
func.func @main(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
                %d: tensor<?x4xi32>) -> tensor<8x4xf32> {
  return %a : tensor<8x4xf32>
}
)mlir";

/// Fails the fuzz run if `error` is a failure without a message.
static void expectMessage(llvm::Error error, llvm::StringRef step) {
  llvm::handleAllErrors(
      std::move(error), [](const exec::ReportedError &) {},
      [&](const llvm::ErrorInfoBase &info) {
        if (info.message().empty())
          mlir::tessera::fuzz::fail("rejected without a message", step);
      });
}

/// The number on `line`, or unset when the line is empty.
static std::optional<double> parseNumber(llvm::StringRef line) {
  if (line.trim().empty())
    return std::nullopt;
  std::string text = line.trim().str();
  return std::strtod(text.c_str(), nullptr);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &context = mlir::tessera::fuzz::getContext();
  std::string text = mlir::tessera::fuzz::toText(data, size, 4096);
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(text).split(lines, '\n');
  auto line = [&](size_t i) {
    return i < lines.size() ? lines[i] : llvm::StringRef();
  };

  exec::RunOptions options;
  options.rtol = parseNumber(line(1));
  options.watchdogSeconds = parseNumber(line(2));
  if (!line(3).empty())
    options.compile.kernelMode = line(3).str();
  options.emit = line(4).str();
  for (size_t i = 5; i < lines.size(); ++i)
    options.inputs.shapes.push_back(lines[i].str());
  expectMessage(exec::validateRunOptions(options), "validateRunOptions");

  // A fresh program each time: a mesh override changes it.
  llvm::SourceMgr sourceMgr;
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });
  llvm::Expected<exec::Program> program =
      exec::loadProgram(context, sourceMgr,
                        llvm::MemoryBuffer::getMemBufferCopy(kProgram), "main");
  if (!program)
    mlir::tessera::fuzz::fail("the fixed program does not load",
                              llvm::toString(program.takeError()));
  if (!line(0).trim().empty())
    expectMessage(exec::overrideMeshSizes(*program, line(0)),
                  "overrideMeshSizes");
  auto shapes = exec::getInputShapes(*program, options.inputs);
  if (!shapes)
    expectMessage(shapes.takeError(), "getInputShapes");
  return 0;
}
