//===- LittleEndian.h - little-endian fields --------------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The little-endian integers of the artifact header and of cache entries.
// Private to the execution library.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_EXECUTION_LITTLEENDIAN_H
#define TESSERA_LIB_EXECUTION_LITTLEENDIAN_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Endian.h"

#include <string>

namespace mlir::tessera::exec {

/// Appends `value` to `out` in little-endian order.
template <typename T> void appendLittleEndian(std::string &out, T value) {
  char bytes[sizeof(T)];
  llvm::support::endian::write<T, llvm::endianness::little>(bytes, value);
  out.append(bytes, sizeof(T));
}

/// The little-endian `T` at `offset` of `bytes` (which must hold it).
template <typename T> T readLittleEndian(llvm::StringRef bytes, size_t offset) {
  return llvm::support::endian::read<T, llvm::endianness::little>(bytes.data() +
                                                                  offset);
}

} // namespace mlir::tessera::exec

#endif // TESSERA_LIB_EXECUTION_LITTLEENDIAN_H
