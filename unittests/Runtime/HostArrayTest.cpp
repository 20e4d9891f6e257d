//===- HostArrayTest.cpp - host arrays, .npy and shard blocks -------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Runtime/HostArray.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

using namespace tessera::rt;

namespace {

/// The bytes of a version 1.0 .npy file with `header` (padded) and `data`.
std::string npyBytes(const std::string &dict, const std::string &data,
                     int version = 1) {
  std::string header = dict;
  size_t prefix = version == 1 ? 10 : 12;
  size_t total = prefix + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string bytes = "\x93NUMPY";
  bytes += static_cast<char>(version);
  bytes += '\0';
  uint32_t length = header.size();
  bytes += static_cast<char>(length & 0xff);
  bytes += static_cast<char>((length >> 8) & 0xff);
  if (version != 1) {
    bytes += static_cast<char>((length >> 16) & 0xff);
    bytes += static_cast<char>(length >> 24);
  }
  return bytes + header + data;
}

bool parse(const std::string &bytes, HostArray &array, std::string &error) {
  return parseNpy(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size(),
                  "x.npy", array, error);
}

std::string floats(std::initializer_list<float> values) {
  std::string data;
  for (float v : values)
    data.append(reinterpret_cast<const char *>(&v), sizeof(v));
  return data;
}

TEST(HostArrayTest, CopiesKeepDataAndAlignment) {
  HostArray a(DType::F32, {3, 5});
  for (int64_t i = 0; i < a.getNumElements(); ++i)
    a.setFromDouble(i, i * 0.5);
  for (int round = 0; round < 8; ++round) {
    HostArray b = a;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % 64, 0u);
    for (int64_t i = 0; i < b.getNumElements(); ++i)
      ASSERT_EQ(b.getAsDouble(i), i * 0.5);
    a = b;
  }
  EXPECT_EQ(a.getTypeString(), "f32[3,5]");
}

TEST(HostArrayTest, ConvertsHalfAndBfloat16) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(halfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(floatToHalf(1e6f), 0x7c00); // Overflow to infinity.
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24)); // Subnormal.
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(NAN))));
  EXPECT_EQ(floatToBfloat16(1.0f), 0x3f80);
  // 1 + 2^-8 is halfway between two bf16 values: ties to even (down).
  EXPECT_EQ(floatToBfloat16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  EXPECT_EQ(floatToBfloat16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_TRUE(std::isnan(bfloat16ToFloat(floatToBfloat16(NAN))));
}

TEST(NpyTest, ParsesVersionsOrdersAndEndianness) {
  HostArray a;
  std::string error;
  ASSERT_TRUE(parse(npyBytes("{'descr': '<f4', 'fortran_order': False, "
                             "'shape': (2, 2), }",
                             floats({1, 2, 3, 4})),
                    a, error))
      << error;
  EXPECT_EQ(a.getTypeString(), "f32[2,2]");
  EXPECT_EQ(a.getAsDouble(3), 4);

  // Version 2 header, keys in another order, Fortran order: the element
  // at (0, 1) is the third stored value.
  ASSERT_TRUE(parse(npyBytes("{'shape': (2, 2), 'fortran_order': True, "
                             "'descr': '<f4'}",
                             floats({1, 2, 3, 4}), 2),
                    a, error))
      << error;
  EXPECT_EQ(a.getAsDouble(1), 3);
  EXPECT_EQ(a.getAsDouble(2), 2);

  // Big-endian int32.
  std::string big = std::string("\0\0\0\x07", 4);
  ASSERT_TRUE(parse(npyBytes("{'descr': '>i4', 'fortran_order': False, "
                             "'shape': (1,), }",
                             big),
                    a, error))
      << error;
  EXPECT_EQ(a.getDType(), DType::I32);
  EXPECT_EQ(a.getAsDouble(0), 7);

  // Rank 0 and empty arrays.
  ASSERT_TRUE(parse(npyBytes("{'descr': '|b1', 'fortran_order': False, "
                             "'shape': (), }",
                             std::string("\x01", 1)),
                    a, error));
  EXPECT_EQ(a.getTypeString(), "bool[]");
  ASSERT_TRUE(parse(npyBytes("{'descr': '<f8', 'fortran_order': False, "
                             "'shape': (0, 3), }",
                             ""),
                    a, error));
  EXPECT_EQ(a.getNumElements(), 0);
}

TEST(NpyTest, RejectsMalformedInput) {
  HostArray a;
  std::string error;
  auto rejects = [&](const std::string &bytes, const std::string &message) {
    error.clear();
    EXPECT_FALSE(parse(bytes, a, error));
    EXPECT_NE(error.find(message), std::string::npos)
        << "error: " << error << "\nexpected: " << message;
  };
  rejects("hello", "not a .npy file (bad magic string)");
  rejects(npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                   floats({1}))
              .substr(0, 30),
          "truncated .npy header");
  rejects(npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                   floats({1})),
          "has 4 bytes of data, expected 8 for f32 of shape (2,)");
  rejects(npyBytes("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }",
                   floats({1, 2})),
          "unsupported dtype '<c8'");
  rejects(npyBytes("{'descr': '<f4', 'shape': (1,), }", floats({1})),
          "'descr', 'fortran_order' and 'shape' are required");
  rejects(npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (a,), }",
                   floats({1})),
          "bad 'shape'");
  rejects(npyBytes("{'descr': '<f4', 'fortran_order': False, "
                   "'shape': (99999999999, 99999999999), }",
                   ""),
          "array too large");
  std::string badVersion = npyBytes(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", floats({1}));
  badVersion[6] = 9;
  rejects(badVersion, "unsupported .npy format version 9");
}

TEST(NpyTest, WritesWhatItReads) {
  std::string path = ::testing::TempDir() + "/tessera-npy-roundtrip.npy";
  for (DType dtype :
       {DType::F32, DType::F64, DType::F16, DType::BF16, DType::I1, DType::I8,
        DType::I32, DType::I64, DType::U16, DType::U64}) {
    HostArray a(dtype, {2, 3});
    for (int64_t i = 0; i < 6; ++i)
      a.setFromDouble(i, dtype == DType::I1 ? i % 2 : i);
    std::string error;
    ASSERT_TRUE(writeNpy(path, a, error)) << error;
    HostArray b;
    ASSERT_TRUE(readNpy(path, b, error)) << error;
    EXPECT_EQ(b.getTypeString(), a.getTypeString());
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.getNumBytes()), 0);
  }
  std::remove(path.c_str());
}

TEST(ShardLayoutTest, BlocksOfA2DMesh) {
  // A 2x4 mesh ("x", "y"); dim 0 over y, dim 1 over the sub-axis x.
  ShardLayout layout;
  layout.dims = {{{1, 1, 4}}, {{0, 1, 2}}};
  HostArray global(DType::I32, {8, 6});
  for (int64_t i = 0; i < global.getNumElements(); ++i)
    global.setFromDouble(i, i);
  EXPECT_EQ(layout.getLocalShape({8, 6}), (std::vector<int64_t>{2, 3}));
  // The device at x = 1, y = 2 holds rows 4-5, columns 3-5.
  HostArray block = extractBlock(global, layout, {1, 2});
  ASSERT_EQ(block.getTypeString(), "i32[2,3]");
  EXPECT_EQ(block.getAsDouble(0), 4 * 6 + 3);
  EXPECT_EQ(block.getAsDouble(5), 5 * 6 + 5);

  // Reassembling every block gives the global array back.
  HostArray rebuilt(DType::I32, {8, 6});
  for (int64_t x = 0; x < 2; ++x)
    for (int64_t y = 0; y < 4; ++y)
      insertBlock(rebuilt, extractBlock(global, layout, {x, y}), layout,
                  {x, y});
  EXPECT_EQ(std::memcmp(rebuilt.data(), global.data(), global.getNumBytes()),
            0);
}

TEST(ShardLayoutTest, PadsTheLastBlock) {
  // 5 elements over 2 devices: blocks of 3, the second padded with a zero.
  ShardLayout layout;
  layout.dims = {{{0, 1, 2}}};
  HostArray global(DType::F32, {5});
  for (int64_t i = 0; i < 5; ++i)
    global.setFromDouble(i, i + 1);
  HostArray second = extractBlock(global, layout, {1});
  ASSERT_EQ(second.getTypeString(), "f32[3]");
  EXPECT_EQ(second.getAsDouble(0), 4);
  EXPECT_EQ(second.getAsDouble(1), 5);
  EXPECT_EQ(second.getAsDouble(2), 0);
}

} // namespace
