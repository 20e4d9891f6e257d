//===- NpyFuzzer.cpp - fuzz target for the .npy reader --------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Feeds arbitrary bytes to the .npy parser tessera-run reads its inputs
// with. Malformed input must be rejected with a message; accepted input
// must round-trip: written back and parsed again it gives the same dtype,
// shape and bytes. The file reader (bounded header reads, then exactly the
// data) must agree with the in-memory parser on every input: the same
// verdict, the same message, the same array.
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

/// Reads `data` through a file with readNpy and checks that it agrees with
/// parseNpy (`parsed`, `array`, `error`).
static void checkFileReader(const uint8_t *data, size_t size, bool parsed,
                            const HostArray &array, const std::string &error) {
  static const std::string path =
      "/tmp/tessera-npy-fuzzer-raw-" + std::to_string(getpid()) + ".npy";
  {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file.write(reinterpret_cast<const char *>(data), size);
    if (!file)
      mlir::tessera::fuzz::fail("cannot write the input to a file", path);
  }
  HostArray fromFile;
  std::string fileError;
  bool read = readNpy(path, fromFile, fileError);
  std::remove(path.c_str());
  if (read != parsed)
    mlir::tessera::fuzz::fail("readNpy and parseNpy disagree",
                              parsed ? fileError : error);
  if (!read) {
    // The same message after the name.
    std::string fromMemory = error.substr(error.find(": ") + 2);
    std::string fromDisk = fileError.substr(path.size() + 2);
    if (fileError.compare(0, path.size() + 2, path + ": ") != 0 ||
        fromDisk != fromMemory)
      mlir::tessera::fuzz::fail("readNpy and parseNpy give different errors",
                                fileError + " vs " + error);
    return;
  }
  if (fromFile.getTypeString() != array.getTypeString() ||
      std::memcmp(fromFile.data(), array.data(), array.getNumBytes()) != 0)
    mlir::tessera::fuzz::fail("readNpy and parseNpy read different arrays",
                              fromFile.getTypeString() + " vs " +
                                  array.getTypeString());
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  HostArray array;
  std::string error;
  bool parsed = parseNpy(data, size, "input.npy", array, error);
  if (!parsed && error.empty())
    mlir::tessera::fuzz::fail("rejected without a message", "");
  if (!parsed && error.find('\n') != std::string::npos)
    mlir::tessera::fuzz::fail("a message of more than one line", error);
  checkFileReader(data, size, parsed, array, error);
  if (!parsed)
    return 0;
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
