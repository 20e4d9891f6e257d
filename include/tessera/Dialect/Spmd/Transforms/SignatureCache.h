//===- SignatureCache.h - results memoized per op signature ------*- C++-*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The layers of a large model repeat a handful of op signatures (the same
// rule, mesh, types and shardings), so the propagation and partitioning
// passes compute what an op needs once per signature. A signature is a
// sequence of opaque pointers (uniqued attributes and types, small integers
// cast to pointers) that determines the result completely.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_TRANSFORMS_SIGNATURECACHE_H
#define TESSERA_DIALECT_SPMD_TRANSFORMS_SIGNATURECACHE_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Allocator.h"

#include <cstdint>
#include <deque>

namespace mlir::tessera::spmd {

/// A signature entry holding a small integer.
inline const void *signatureInt(uintptr_t value) {
  return reinterpret_cast<const void *>(value);
}

/// Values of type `T` by signature. References to stored values stay valid
/// while the cache lives.
template <typename T> class SignatureCache {
public:
  /// The value stored for `signature`, or null.
  T *lookup(ArrayRef<const void *> signature) {
    auto it = ids.find(signature);
    return it == ids.end() ? nullptr : &values[it->second];
  }

  /// Stores `value` for `signature` (which must not have one yet).
  T &insert(ArrayRef<const void *> signature, T value) {
    auto *copy = storage.Allocate<const void *>(signature.size());
    llvm::copy(signature, copy);
    ids[ArrayRef<const void *>(copy, signature.size())] = values.size();
    values.push_back(std::move(value));
    return values.back();
  }

private:
  llvm::BumpPtrAllocator storage;
  llvm::DenseMap<ArrayRef<const void *>, unsigned> ids;
  std::deque<T> values;
};

} // namespace mlir::tessera::spmd

#endif // TESSERA_DIALECT_SPMD_TRANSFORMS_SIGNATURECACHE_H
