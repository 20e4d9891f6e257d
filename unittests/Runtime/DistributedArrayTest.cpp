//===- DistributedArrayTest.cpp - blocks of .npy files and arrays ---------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Tests that NpyReader reads exactly the boxes asked for (one read per run
// of the file, big-endian data swapped, Fortran order and bad boxes
// refused) and that makeArrayFromCallback and makeArrayFromProcessLocalData
// build every device's block (one callback per distinct block, padding
// zeroed, JAX's errors). On a mesh in one process every device is local;
// the MPI test binary runs the process-local cases over its processes.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"

#include "tessera/Runtime/DistributedArray.h"
#include "tessera/Runtime/HostArray.h"
#include "tessera/Runtime/NpyReader.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <unistd.h>

using namespace tessera::rt;
using namespace tessera::rt::test;

namespace {
/// A .npy file in the temporary directory, removed at the end.
class TempNpy {
public:
  explicit TempNpy(const std::string &name)
      : path(::testing::TempDir() + "/tessera-" + std::to_string(getpid()) +
             "-" + name + ".npy") {}
  ~TempNpy() { std::remove(path.c_str()); }
  /// Writes a raw .npy with `header` (the dict) and `data`.
  void writeRaw(const std::string &header, const std::string &data) {
    std::string dict = header;
    while ((10 + dict.size() + 1) % 64 != 0)
      dict += ' ';
    dict += '\n';
    std::ofstream out(path, std::ios::binary);
    out.write("\x93NUMPY\x01\x00", 8);
    char length[2] = {static_cast<char>(dict.size() & 0xff),
                      static_cast<char>(dict.size() >> 8)};
    out.write(length, 2);
    out << dict << data;
  }
  std::string path;
};

/// iota of `shape` as i32.
HostArray iota(std::vector<int64_t> shape) {
  HostArray array(DType::I32, std::move(shape));
  for (int64_t i = 0; i < array.getNumElements(); ++i)
    array.setFromDouble(i, static_cast<double>(i));
  return array;
}

std::vector<int32_t> values(const HostArray &array) {
  std::vector<int32_t> out(array.getNumElements());
  std::memcpy(out.data(), array.data(), array.getNumBytes());
  return out;
}
} // namespace

TEST(NpyReaderTest, ReadsBoxesAndCountsTheirBytes) {
  TempNpy file("boxes");
  std::string error;
  ASSERT_TRUE(writeNpy(file.path, iota({6, 5}), error)) << error;
  std::unique_ptr<NpyReader> reader = NpyReader::open(file.path, error);
  ASSERT_TRUE(reader) << error;
  EXPECT_EQ(reader->getHeader().shape, (std::vector<int64_t>{6, 5}));
  EXPECT_EQ(reader->getHeader().dataBytes, 120);
  HostArray block;
  // Whole rows: one run.
  ASSERT_TRUE(reader->readBox({2, 0}, {4, 5}, block, error)) << error;
  EXPECT_EQ(values(block),
            (std::vector<int32_t>{10, 11, 12, 13, 14, 15, 16, 17, 18, 19}));
  EXPECT_EQ(reader->getBytesRead(), 40);
  // Columns 1 and 2 of rows 3 to 5.
  ASSERT_TRUE(reader->readBox({3, 1}, {6, 3}, block, error)) << error;
  EXPECT_EQ(block.getShape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(values(block), (std::vector<int32_t>{16, 17, 21, 22, 26, 27}));
  EXPECT_EQ(reader->getBytesRead(), 64);
  // An empty box reads nothing.
  ASSERT_TRUE(reader->readBox({1, 2}, {1, 5}, block, error)) << error;
  EXPECT_EQ(block.getNumElements(), 0);
  EXPECT_EQ(reader->getBytesRead(), 64);
  EXPECT_FALSE(reader->readBox({0, 0}, {7, 5}, block, error));
  EXPECT_EQ(error, file.path + ": the block 0:7 of dimension 0 is outside "
                               "the array's 6");
  EXPECT_FALSE(reader->readBox({0}, {1}, block, error));
  EXPECT_EQ(error, file.path + ": a block of rank 1 of an array of rank 2");
}

TEST(NpyReaderTest, ThreeDimensionalBoxes) {
  TempNpy file("cube");
  std::string error;
  HostArray cube = iota({3, 4, 5});
  ASSERT_TRUE(writeNpy(file.path, cube, error)) << error;
  std::unique_ptr<NpyReader> reader = NpyReader::open(file.path, error);
  ASSERT_TRUE(reader) << error;
  HostArray block;
  ASSERT_TRUE(reader->readBox({1, 1, 2}, {3, 3, 4}, block, error)) << error;
  std::vector<int32_t> expected;
  for (int i = 1; i < 3; ++i)
    for (int j = 1; j < 3; ++j)
      for (int k = 2; k < 4; ++k)
        expected.push_back((i * 4 + j) * 5 + k);
  EXPECT_EQ(values(block), expected);
  EXPECT_EQ(reader->getBytesRead(), 8 * 4);
}

TEST(NpyReaderTest, BigEndianFortranAndObjectFiles) {
  TempNpy big("big");
  big.writeRaw("{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }",
               std::string("\0\0\0\1\0\0\1\0", 8));
  std::string error;
  std::unique_ptr<NpyReader> reader = NpyReader::open(big.path, error);
  ASSERT_TRUE(reader) << error;
  HostArray block;
  ASSERT_TRUE(reader->readBox({0}, {2}, block, error)) << error;
  EXPECT_EQ(values(block), (std::vector<int32_t>{1, 256}));

  TempNpy fortran("fortran");
  fortran.writeRaw("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 2), }",
                   std::string(16, '\0'));
  reader = NpyReader::open(fortran.path, error);
  ASSERT_TRUE(reader) << error;
  EXPECT_TRUE(reader->getHeader().fortranOrder);
  EXPECT_FALSE(reader->readBox({0, 0}, {1, 2}, block, error));
  EXPECT_EQ(error, fortran.path +
                       ": a Fortran-order .npy file cannot be read in blocks "
                       "(write it in C order, e.g. with "
                       "numpy.ascontiguousarray)");

  TempNpy object("object");
  object.writeRaw("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }",
                  std::string(16, '\0'));
  EXPECT_FALSE(NpyReader::open(object.path, error));
  EXPECT_EQ(error, object.path + ": unsupported dtype '|O'");
  EXPECT_FALSE(NpyReader::open(object.path + ".missing", error));
}

TEST(DistributedArrayTest, OneCallbackPerDistinctBlock) {
  // 2x2 mesh; rows over "x", replicated over "y": two distinct blocks.
  std::unique_ptr<Mesh> mesh = makeMesh({"x", "y"}, {2, 2});
  ShardLayout layout;
  layout.dims = {{AxisPart{0, 1, 2}}, {}};
  HostArray global = iota({4, 3});
  std::vector<BlockIndex> asked;
  BlockCallback callback = [&](const BlockIndex &index, HostArray &data,
                               std::string &) {
    asked.push_back(index);
    for (int64_t r = 0; r < data.getShape()[0]; ++r)
      for (int64_t c = 0; c < 3; ++c)
        data.setFromDouble(r * 3 + c,
                           global.getAsDouble((index.start[0] + r) * 3 + c));
    return true;
  };
  DistributedArray array;
  std::string error;
  ASSERT_TRUE(makeArrayFromCallback(*mesh, DType::I32, {4, 3}, layout, callback,
                                    array, error))
      << error;
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_EQ(asked[0].toString(), "0:2, 0:3");
  EXPECT_EQ(asked[1].toString(), "2:4, 0:3");
  EXPECT_EQ(array.distinct.size(), 2u);
  // Devices 0 and 1 (x = 0) share their block.
  EXPECT_EQ(array.blocks[0], array.blocks[1]);
  EXPECT_NE(array.blocks[0], array.blocks[2]);
  EXPECT_EQ(values(*array.blocks[3]),
            (std::vector<int32_t>{6, 7, 8, 9, 10, 11}));
}

TEST(DistributedArrayTest, PaddedBlocksAndCallbackErrors) {
  // 5 rows over 2 devices: blocks of 3, the second padded.
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {2});
  ShardLayout layout;
  layout.dims = {{AxisPart{0, 1, 2}}};
  std::vector<std::vector<int64_t>> shapes;
  BlockCallback fill = [&](const BlockIndex &index, HostArray &data,
                           std::string &) {
    shapes.push_back(data.getShape());
    for (int64_t i = 0; i < data.getNumElements(); ++i)
      data.setFromDouble(i, static_cast<double>(index.start[0] + i + 1));
    return true;
  };
  DistributedArray array;
  std::string error;
  ASSERT_TRUE(
      makeArrayFromCallback(*mesh, DType::I32, {5}, layout, fill, array, error))
      << error;
  EXPECT_EQ(shapes, (std::vector<std::vector<int64_t>>{{3}, {2}}));
  EXPECT_EQ(values(*array.blocks[1]), (std::vector<int32_t>{4, 5, 0}));
  EXPECT_EQ(values(*array.distinct[1].second), (std::vector<int32_t>{4, 5}));

  BlockCallback failing = [](const BlockIndex &, HostArray &,
                             std::string &message) {
    message = "no data";
    return false;
  };
  EXPECT_FALSE(makeArrayFromCallback(*mesh, DType::I32, {5}, layout, failing,
                                     array, error));
  EXPECT_EQ(error, "no data");
  BlockCallback reshaping = [](const BlockIndex &, HostArray &data,
                               std::string &) {
    data = HostArray(DType::I32, {7});
    return true;
  };
  EXPECT_FALSE(makeArrayFromCallback(*mesh, DType::I32, {5}, layout, reshaping,
                                     array, error));
  EXPECT_EQ(error, "the data of block [0:3] is i32[7], expected i32[3]");
}

TEST(DistributedArrayTest, ProcessLocalDataOfOneProcessIsTheArray) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {4});
  ShardLayout layout;
  layout.dims = {{AxisPart{0, 1, 4}}, {}};
  DistributedArray array;
  std::string error;
  ASSERT_TRUE(makeArrayFromProcessLocalData(*mesh, layout, {8, 2}, iota({8, 2}),
                                            array, error))
      << error;
  EXPECT_EQ(values(*array.blocks[3]), (std::vector<int32_t>{12, 13, 14, 15}));
  // The global size inferred.
  ASSERT_TRUE(makeArrayFromProcessLocalData(*mesh, layout, {-1, 2},
                                            iota({8, 2}), array, error))
      << error;
  EXPECT_EQ(array.globalShape, (std::vector<int64_t>{8, 2}));
  // JAX's message for data that fits neither the process nor the array.
  EXPECT_FALSE(makeArrayFromProcessLocalData(*mesh, layout, {8, 2},
                                             iota({6, 2}), array, error));
  EXPECT_EQ(error, "Invalid host data, each dimension should match either "
                   "global or process shape. In dimension 0, the process data "
                   "has 6 elements. Process addresses 8 elements and "
                   "global_shape=(8, 2).");
}
