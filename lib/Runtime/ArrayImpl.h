//===- ArrayImpl.h - internals of host arrays and .npy files ----*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Shared by HostArray.cpp, ShardBlocks.cpp, NpyReader.cpp and
// DistributedArray.cpp only.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_RUNTIME_ARRAYIMPL_H
#define TESSERA_LIB_RUNTIME_ARRAYIMPL_H

#include "tessera/Runtime/HostArray.h"
#include "tessera/Runtime/NpyReader.h"

#include <new>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera::rt::detail {

/// "f32[4,8]".
std::string formatTypeString(DType dtype, const std::vector<int64_t> &shape);

/// Opens the .npy file `path` with readNpy's checks (a regular file, a
/// well-formed header, a data section of the size the header says) and
/// fills `header`. Returns the open descriptor, or -1 with `error` set.
/// Never throws.
int openNpyForReading(const std::string &path, NpyHeader &header,
                      std::string &error);

/// Runs `body`, turning any exception into an error naming `name`.
template <typename Body>
bool catchAll(const std::string &name, std::string &error, Body body) {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    error = name + ": out of memory";
  } catch (const std::exception &e) {
    error = name + ": " + e.what();
  } catch (...) {
    error = name + ": unexpected error";
  }
  return false;
}

} // namespace tessera::rt::detail

#endif // TESSERA_LIB_RUNTIME_ARRAYIMPL_H
