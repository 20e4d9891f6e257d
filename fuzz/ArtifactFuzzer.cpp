//===- ArtifactFuzzer.cpp - fuzz target for the artifact reader -----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Feeds arbitrary bytes to the reader of exported artifacts
// (tessera/Execution/Artifact.h) in two modes, chosen by the first byte:
//
//  even  the rest is an artifact file: header, checksums, versions,
//        decompression, sections and metadata are checked;
//  odd   the rest is `<metadata JSON> 0x00 <module bytecode>`, packed into an
//        artifact with valid checksums first, so that the checks behind them
//        (the metadata's fields and shapes, the module's bytecode and its
//        agreement with the metadata) see arbitrary input too.
//
// Every rejection must be a non-empty one-line message; nothing may crash.
// An accepted artifact must write back to an artifact that reads to the
// same sections and metadata, and its program must load.
//
//===----------------------------------------------------------------------===//

#include "FuzzerUtils.h"

#include "tessera/Execution/Artifact.h"

#include "llvm/ADT/StringRef.h"

using namespace mlir;
namespace exec = mlir::tessera::exec;

/// Fails the run unless `error` is a failure with a one-line message.
static void expectOneLine(llvm::Error error, llvm::StringRef step) {
  std::string message = llvm::toString(std::move(error));
  if (message.empty())
    mlir::tessera::fuzz::fail("rejected without a message", step);
  if (message.find('\n') != std::string::npos)
    mlir::tessera::fuzz::fail("a message of more than one line", message);
}

/// The checks after an artifact was read: it writes back to the same
/// sections, its program loads, its module reads (or is rejected).
static void checkAccepted(const exec::Artifact &artifact) {
  const exec::ArtifactContainer &container = artifact.container;
  llvm::Expected<std::string> again = exec::writeArtifactContainer(
      container.metadataJson, container.bytecode,
      container.header.compressionLevel, container.header);
  if (!again)
    mlir::tessera::fuzz::fail("an accepted artifact does not write back",
                              llvm::toString(again.takeError()));
  llvm::Expected<exec::Artifact> reread = exec::readArtifact(*again);
  if (!reread)
    mlir::tessera::fuzz::fail("a written artifact does not read back",
                              llvm::toString(reread.takeError()));
  if (reread->container.metadataJson != container.metadataJson ||
      reread->container.bytecode != container.bytecode ||
      reread->metadata.functionName != artifact.metadata.functionName)
    mlir::tessera::fuzz::fail("the round trip changed the artifact",
                              artifact.metadata.functionName);

  MLIRContext &context = mlir::tessera::fuzz::getContext();
  auto shared = std::make_shared<exec::Artifact>(artifact);
  llvm::Expected<exec::Program> program =
      exec::loadArtifactProgram(context, shared, "");
  if (!program) {
    expectOneLine(program.takeError(), "loadArtifactProgram");
    return;
  }
  if (llvm::Error error = exec::ensureModule(*program))
    expectOneLine(std::move(error), "readArtifactModule");
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  llvm::StringRef rest(reinterpret_cast<const char *>(data) + 1, size - 1);
  std::string bytes;
  if (data[0] % 2 == 0) {
    bytes = rest.str();
  } else {
    auto [metadata, bytecode] = rest.split('\0');
    llvm::Expected<std::string> packed =
        exec::writeArtifactContainer(metadata, bytecode, 1);
    if (!packed) {
      expectOneLine(packed.takeError(), "writeArtifactContainer");
      return 0;
    }
    bytes = std::move(*packed);
  }
  llvm::Expected<exec::Artifact> artifact = exec::readArtifact(bytes);
  if (!artifact) {
    expectOneLine(artifact.takeError(), "readArtifact");
    return 0;
  }
  checkAccepted(*artifact);
  return 0;
}
