//===- NpyFuzzer.cpp - fuzz target for the .npy reader --------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Feeds arbitrary bytes to the .npy parser tessera-run reads its inputs
// with. Malformed input must be rejected with a message; accepted input
// must round-trip: written back and parsed again it gives the same dtype,
// shape and bytes.
//
//===----------------------------------------------------------------------===//

#include "FuzzerUtils.h"

#include "tessera/Runtime/HostArray.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>

using namespace tessera::rt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  HostArray array;
  std::string error;
  if (!parseNpy(data, size, "input.npy", array, error)) {
    if (error.empty())
      mlir::tessera::fuzz::fail("rejected without a message", "");
    return 0;
  }
  // Round trip through a file.
  static const std::string path =
      "/tmp/tessera-npy-fuzzer-" + std::to_string(getpid()) + ".npy";
  if (!writeNpy(path, array, error))
    mlir::tessera::fuzz::fail("cannot write an accepted array", error);
  HostArray again;
  if (!readNpy(path, again, error))
    mlir::tessera::fuzz::fail("cannot read back a written array", error);
  std::remove(path.c_str());
  if (again.getTypeString() != array.getTypeString() ||
      std::memcmp(again.data(), array.data(), array.getNumBytes()) != 0)
    mlir::tessera::fuzz::fail("round trip changed the array",
                              array.getTypeString() + " vs " +
                                  again.getTypeString());
  return 0;
}
