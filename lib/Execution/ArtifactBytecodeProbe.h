//===- ArtifactBytecodeProbe.h - reading bytecode in a child ----*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// MLIR's bytecode reader is not hardened against crafted bytecode (an
// artifact's checksums catch corruption, not intent): a count out of range
// makes it abort on a huge allocation, and some inputs make it loop. Before
// an artifact's module is read, it is read once in a child process with
// limits, so that such bytecode is an error message instead of the end (or
// the hang) of the reading process. Private to the execution library.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_EXECUTION_ARTIFACTBYTECODEPROBE_H
#define TESSERA_LIB_EXECUTION_ARTIFACTBYTECODEPROBE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace mlir::tessera::exec {

/// Reads `bytecode` in a child process with a context of its own (threads
/// off), the default signal actions, its output captured, a limit on
/// processor time and memory, and a deadline.
/// Returns an error naming what happened when the reader died there or did
/// not finish; success when it returned (with or without a diagnosed
/// failure: the caller reads the bytecode again for its diagnostics) or
/// when no child could be started.
llvm::Error probeArtifactBytecode(llvm::StringRef bytecode);

} // namespace mlir::tessera::exec

#endif // TESSERA_LIB_EXECUTION_ARTIFACTBYTECODEPROBE_H
