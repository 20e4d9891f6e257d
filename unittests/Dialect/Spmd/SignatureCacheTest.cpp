//===- SignatureCacheTest.cpp - spmd::SignatureCache ----------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/Transforms/SignatureCache.h"

#include "gtest/gtest.h"

#include <string>

using namespace mlir::tessera::spmd;

namespace {

TEST(SignatureCacheTest, LookupFindsOnlyWhatWasInserted) {
  SignatureCache<std::string> cache;
  int a = 0, b = 0;
  const void *ab[] = {&a, &b};
  const void *ba[] = {&b, &a};
  const void *aOnly[] = {&a};
  EXPECT_EQ(cache.lookup(ab), nullptr);
  cache.insert(ab, "ab");
  ASSERT_NE(cache.lookup(ab), nullptr);
  EXPECT_EQ(*cache.lookup(ab), "ab");
  // Order and length are part of the signature.
  EXPECT_EQ(cache.lookup(ba), nullptr);
  EXPECT_EQ(cache.lookup(aOnly), nullptr);
  const void *empty[] = {signatureInt(0)};
  EXPECT_EQ(cache.lookup(empty), nullptr);
}

TEST(SignatureCacheTest, KeysAreCopiedAndValuesStayPut) {
  SignatureCache<int> cache;
  llvm::SmallVector<const void *> key = {signatureInt(1), signatureInt(2)};
  int &first = cache.insert(key, 12);
  // The cache keeps its own copy of the signature.
  key[1] = signatureInt(3);
  EXPECT_EQ(cache.lookup(key), nullptr);
  key[1] = signatureInt(2);
  ASSERT_NE(cache.lookup(key), nullptr);
  // Many more entries: the first value does not move.
  for (uintptr_t i = 0; i < 10000; ++i) {
    const void *other[] = {signatureInt(i), signatureInt(i + 5)};
    cache.insert(other, static_cast<int>(i));
  }
  EXPECT_EQ(cache.lookup(key), &first);
  EXPECT_EQ(first, 12);
  const void *probe[] = {signatureInt(4242), signatureInt(4247)};
  ASSERT_NE(cache.lookup(probe), nullptr);
  EXPECT_EQ(*cache.lookup(probe), 4242);
}

} // namespace
