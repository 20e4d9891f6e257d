//===- HostArrayTest.cpp - host arrays, .npy and shard blocks -------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Runtime/HostArray.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

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
          "an array of shape (99999999999, 99999999999) and dtype f32 "
          "overflows a 64-bit byte count");
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

//===----------------------------------------------------------------------===//
// Sizes and hostile .npy files
//===----------------------------------------------------------------------===//

TEST(HostArrayTest, FormatsByteSizes) {
  EXPECT_EQ(formatByteSize(0), "0 bytes");
  EXPECT_EQ(formatByteSize(1), "1 byte");
  EXPECT_EQ(formatByteSize(1023), "1023 bytes");
  EXPECT_EQ(formatByteSize(1024), "1.00 KiB");
  EXPECT_EQ(formatByteSize(1536), "1.50 KiB");
  EXPECT_EQ(formatByteSize(int64_t(25) << 30), "25.0 GiB");
  EXPECT_EQ(formatByteSize(int64_t(4000000000000)), "3.64 TiB");
  EXPECT_EQ(formatByteSize(int64_t(1) << 62), "4.00 EiB");
  EXPECT_EQ(formatByteSize(std::numeric_limits<int64_t>::max()), "8.00 EiB");
  EXPECT_EQ(formatShape({}), "()");
  EXPECT_EQ(formatShape({5}), "(5,)");
  EXPECT_EQ(formatShape({2, 3}), "(2, 3)");
}

TEST(HostArrayTest, ByteSizesDoNotOverflow) {
  int64_t bytes = -1;
  EXPECT_TRUE(getByteSize(DType::F64, {2, 3}, bytes));
  EXPECT_EQ(bytes, 48);
  EXPECT_TRUE(getByteSize(DType::F32, {}, bytes));
  EXPECT_EQ(bytes, 4);
  EXPECT_TRUE(getByteSize(DType::F32, {0, 1 << 20}, bytes));
  EXPECT_EQ(bytes, 0);
  EXPECT_FALSE(getByteSize(DType::F32, {int64_t(1) << 62}, bytes));
  EXPECT_FALSE(
      getByteSize(DType::I8, {int64_t(1) << 32, int64_t(1) << 32}, bytes));
  // As NumPy: a zero dimension does not excuse the others overflowing.
  EXPECT_FALSE(
      getByteSize(DType::I8, {0, int64_t(1) << 40, int64_t(1) << 40}, bytes));
  EXPECT_FALSE(getByteSize(DType::I8, {2, -1}, bytes));
  EXPECT_TRUE(
      getByteSize(DType::I8, {std::numeric_limits<int64_t>::max()}, bytes));
}

TEST(HostArrayTest, CreateRefusesWhatCannotBeAllocated) {
  HostArray a(DType::I8, {1});
  std::string error;
  std::string memory = formatByteSize(getPhysicalMemoryBytes());
  EXPECT_FALSE(HostArray::create(DType::F32, {1000000, 1000000}, a, error));
  EXPECT_EQ(error, "an array of shape (1000000, 1000000) and dtype f32 needs "
                   "3.64 TiB, more than the " +
                       memory + " of memory of this host");
  EXPECT_FALSE(HostArray::create(DType::F32, {int64_t(1) << 62, 4}, a, error));
  EXPECT_EQ(error, "an array of shape (4611686018427387904, 4) and dtype f32 "
                   "overflows a 64-bit byte count");
  EXPECT_FALSE(HostArray::create(DType::I32, {3, -2}, a, error));
  EXPECT_EQ(error, "an array of shape (3, -2) and dtype i32 has a negative "
                   "dimension");
  // Failures leave the array alone.
  EXPECT_EQ(a.getTypeString(), "i8[1]");
  ASSERT_TRUE(HostArray::create(DType::F64, {2, 3}, a, error)) << error;
  EXPECT_EQ(a.getTypeString(), "f64[2,3]");
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_EQ(a.getAsDouble(i), 0);
  ASSERT_TRUE(HostArray::create(DType::F32, {0, 7}, a, error)) << error;
  EXPECT_EQ(a.getNumElements(), 0);
  EXPECT_EQ(a.getNumBytes(), 0);
  // The throwing constructor throws std::bad_alloc instead.
  EXPECT_THROW(HostArray(DType::F32, {int64_t(1) << 62, 4}), std::bad_alloc);
}

TEST(ShardLayoutTest, RefusesLayoutsThatDoNotFit) {
  HostArray global(DType::F32, {4, 4}), block;
  std::string error;
  ShardLayout layout;
  layout.dims = {{{2, 1, 2}}};
  EXPECT_FALSE(extractBlock(global, layout, {0, 1}, block, error));
  EXPECT_EQ(error, "cannot cut f32[4,4] into blocks: the layout of "
                   "dimension 0 names axis 2, but the device has 2 "
                   "coordinates");
  EXPECT_THROW(extractBlock(global, layout, {0, 1}), std::invalid_argument);
  layout.dims = {{{0, 0, 2}}};
  EXPECT_FALSE(extractBlock(global, layout, {0}, block, error));
  EXPECT_EQ(error, "cannot cut f32[4,4] into blocks: the layout of "
                   "dimension 0 has a part with pre 0 and size 2 (both must "
                   "be at least 1)");
  layout.dims = {{{0, 1, 2}}};
  ASSERT_TRUE(extractBlock(global, layout, {1}, block, error)) << error;
  EXPECT_EQ(block.getTypeString(), "f32[2,4]");
  HostArray wrong(DType::F32, {4, 2});
  EXPECT_FALSE(insertBlock(global, wrong, layout, {1}, error));
  EXPECT_EQ(error, "cannot assemble f32[4,4] from blocks: the block is "
                   "f32[4,2], expected f32[2,4]");
  EXPECT_THROW(insertBlock(global, wrong, layout, {1}), std::invalid_argument);
  EXPECT_TRUE(insertBlock(global, block, layout, {1}, error)) << error;
}

TEST(ShardLayoutTest, LocalShapesOfHugeDimensionsDoNotOverflow) {
  ShardLayout layout;
  layout.dims = {{{0, 1, 4}}, {{1, 1, 3}}};
  int64_t max = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(layout.getLocalShape({max, max - 1}),
            (std::vector<int64_t>{max / 4 + 1, max / 3}));
  // An empty array with a huge dimension: an empty block.
  HostArray global(DType::I8, {0, int64_t(1) << 40}), block;
  std::string error;
  ASSERT_TRUE(extractBlock(global, layout, {3, 2}, block, error)) << error;
  EXPECT_EQ(block.getNumElements(), 0);
}

namespace {
/// A temporary directory for files of one test, removed afterwards.
class NpyFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "tessera-npy-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    ASSERT_NE(mkdtemp(buffer.data()), nullptr);
    dir = buffer.data();
  }
  void TearDown() override {
    for (const std::string &path : created)
      std::remove(path.c_str());
    rmdir(dir.c_str());
  }
  std::string write(const std::string &name, const std::string &bytes) {
    std::string path = dir + "/" + name;
    std::FILE *file = std::fopen(path.c_str(), "wb");
    EXPECT_NE(file, nullptr) << path;
    if (file) {
      std::fwrite(bytes.data(), 1, bytes.size(), file);
      std::fclose(file);
    }
    created.push_back(path);
    return path;
  }
  /// Reads `path` and expects the error `path + ": " + message`.
  void expectError(const std::string &path, const std::string &message) {
    HostArray a;
    std::string error;
    EXPECT_FALSE(readNpy(path, a, error)) << path;
    EXPECT_EQ(error, path + ": " + message);
  }

  std::string dir;
  std::vector<std::string> created;
};
} // namespace

TEST_F(NpyFileTest, RefusesWhatIsNotARegularFile) {
  expectError(dir, "is a directory, not a .npy file");
  std::string fifo = dir + "/fifo.npy";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  created.push_back(fifo);
  // Neither waits for a writer nor reads forever.
  expectError(fifo, "is a FIFO, not a regular .npy file");
  expectError("/dev/zero", "is a character device, not a regular .npy file");
  expectError(dir + "/missing.npy",
              "cannot open file: No such file or directory");
}

TEST_F(NpyFileTest, RefusesMalformedHeaders) {
  std::string valid =
      npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
               std::string(24, '\0'));
  HostArray a;
  std::string error;
  ASSERT_TRUE(readNpy(write("valid.npy", valid), a, error)) << error;
  EXPECT_EQ(a.getTypeString(), "f32[2,3]");

  expectError(write("empty.npy", ""), "not a .npy file (bad magic string)");
  expectError(write("magic.npy", "\x93NUMPY\x01"), "truncated .npy header");
  expectError(write("junk.npy", npyBytes("{'descr': '<f4', 'fortran_order': "
                                         "False, 'shape': (2, 3), } junk",
                                         std::string(24, '\0'))),
              "malformed .npy header: unexpected text after the dictionary");
  expectError(write("twice.npy", npyBytes("{'descr': '<f4', 'fortran_order': "
                                          "False, 'shape': (), }{}",
                                          std::string(4, '\0'))),
              "malformed .npy header: unexpected text after the dictionary");
  // A version 2 header claiming 2 GiB (the file has a few bytes).
  std::string huge = "\x93NUMPY\x02";
  huge += '\0';
  huge += std::string("\xff\xff\xff\x7f", 4);
  huge += "{'descr': '<f4'";
  expectError(write("huge-header.npy", huge),
              "the .npy header is 2147483647 bytes long, more than the limit "
              "of 1048576");
  std::string v2 = npyBytes(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", "", 2);
  expectError(write("truncated-v2.npy", v2.substr(0, 11)),
              "truncated .npy header");
  expectError(write("truncated-dict.npy", v2.substr(0, 40)),
              "truncated .npy header");
  std::string rank65 = "(";
  for (int i = 0; i < 65; ++i)
    rank65 += "1,";
  rank65 += ")";
  expectError(write("rank.npy", npyBytes("{'descr': '<f4', 'fortran_order': "
                                         "False, 'shape': " +
                                             rank65 + ", }",
                                         std::string(4, '\0'))),
              "malformed .npy header: the shape has 65 dimensions, more "
              "than 64");
}

TEST_F(NpyFileTest, RefusesSizesThatDoNotFit) {
  expectError(
      write("overflow.npy", npyBytes("{'descr': '<f8', 'fortran_order': False, "
                                     "'shape': (4294967296, 4294967296), }",
                                     "")),
      "an array of shape (4294967296, 4294967296) and dtype f64 "
      "overflows a 64-bit byte count");
  expectError(write("short.npy", npyBytes("{'descr': '<f4', 'fortran_order': "
                                          "False, 'shape': (2, 3), }",
                                          std::string(20, '\0'))),
              "has 20 bytes of data, expected 24 for f32 of shape (2, 3)");
  expectError(write("long.npy", npyBytes("{'descr': '<f4', 'fortran_order': "
                                         "False, 'shape': (2, 3), }",
                                         std::string(28, '\0'))),
              "has 28 bytes of data, expected 24 for f32 of shape (2, 3)");
  // A huge claim with little data: the data size is the error, and nothing
  // is allocated.
  expectError(write("claim.npy", npyBytes("{'descr': '<f4', 'fortran_order': "
                                          "False, 'shape': (1000000, "
                                          "1000000), }",
                                          std::string(4, '\0'))),
              "has 4 bytes of data, expected 4000000000000 for f32 of shape "
              "(1000000, 1000000)");
}

TEST_F(NpyFileTest, RefusesMoreThanTheMemoryOfTheHost) {
  // A sparse file as large as it claims, more than the host's memory.
  int64_t physical = getPhysicalMemoryBytes();
  ASSERT_GT(physical, 0);
  int64_t elements = physical / 4 + (int64_t(1) << 28);
  std::string header = npyBytes("{'descr': '<f4', 'fortran_order': False, "
                                "'shape': (" +
                                    std::to_string(elements) + ",), }",
                                "");
  std::string path = write("sparse.npy", header);
  if (truncate(path.c_str(), header.size() + elements * 4) != 0)
    GTEST_SKIP() << "no sparse file of " << elements * 4 << " bytes here";
  expectError(path, "an array of shape (" + std::to_string(elements) +
                        ",) and dtype f32 needs " +
                        formatByteSize(elements * 4) + ", more than the " +
                        formatByteSize(physical) + " of memory of this host");
}

TEST_F(NpyFileTest, ParsesBytesWithTheSameChecks) {
  HostArray a;
  std::string error;
  std::string junk = npyBytes("{'descr': '<f4', 'fortran_order': False, "
                              "'shape': (), } x",
                              std::string(4, '\0'));
  EXPECT_FALSE(parse(junk, a, error));
  EXPECT_EQ(error, "x.npy: malformed .npy header: unexpected text after the "
                   "dictionary");
  EXPECT_FALSE(parseNpy(nullptr, 0, "null.npy", a, error));
  EXPECT_EQ(error, "null.npy: not a .npy file (bad magic string)");
}
