//===- FuzzerUtils.h - shared set-up of Tessera's fuzz targets --*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_FUZZ_FUZZERUTILS_H
#define TESSERA_FUZZ_FUZZERUTILS_H

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace mlir::tessera::fuzz {

/// The context an input of a fuzz target is parsed in: all of Tessera's
/// dialects and the upstream ones its programs use, multithreading off,
/// every diagnostic swallowed (bad input is expected; only crashes, hangs and
/// sanitizer reports are failures). Call it once per input: it is replaced
/// by a fresh one every 20,000 calls, so memory stays bounded.
MLIRContext &getContext();

/// Ends the run with a message naming a broken invariant (round trip,
/// soundness), so libFuzzer records the input as a crash.
[[noreturn]] inline void fail(llvm::StringRef what, llvm::StringRef detail) {
  fprintf(stderr, "tessera fuzz invariant broken: %.*s\n%.*s\n",
          static_cast<int>(what.size()), what.data(),
          static_cast<int>(detail.size()), detail.data());
  abort();
}

/// The input as text; inputs larger than `maxSize` bytes are cut, so one
/// input never takes long only because it is large.
inline std::string toText(const uint8_t *data, size_t size,
                          size_t maxSize = 1 << 16) {
  return std::string(reinterpret_cast<const char *>(data),
                     size < maxSize ? size : maxSize);
}

} // namespace mlir::tessera::fuzz

#endif // TESSERA_FUZZ_FUZZERUTILS_H
