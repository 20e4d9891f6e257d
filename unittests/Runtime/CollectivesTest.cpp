//===- CollectivesTest.cpp - every collective on many mesh shapes ---------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Tests that each collective computes what its definition says on meshes of
// 1, 2, 4 and 8 devices, 2-D and 3-D meshes, a non-iota device order, and
// groups over one axis, several axes (in both orders), sub-axes and no axes.
// Expected values come from reference loops over the brute-force groups of
// RuntimeTestUtils.h. The MPI test binary runs the same cases on meshes
// spread over its processes (attachTestTransport): each process checks the
// devices it runs.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"

#include <atomic>
#include <set>

using namespace tessera::rt;
using namespace tessera::rt::test;

namespace {
struct Case {
  std::string name;
  std::vector<std::string> axisNames;
  std::vector<int64_t> axisSizes;
  std::vector<int64_t> deviceIds;
  std::vector<Part> parts;
};

class CollectivesTest : public ::testing::TestWithParam<Case> {
protected:
  void SetUp() override {
    const Case &c = GetParam();
    mesh = makeMesh(c.axisNames, c.axisSizes, c.deviceIds);
    ASSERT_TRUE(mesh);
    groups = computeGroups(c.axisSizes, c.deviceIds, c.parts);
    flat = flatten(c.parts);
    n = mesh->numDevices();
    g = groups.groupSize;
    if (!attachTestTransport(*mesh, {GroupSpec{flat, {}}}))
      GTEST_SKIP() << "the mesh does not split over the processes";
    local = getLocalDevices(*mesh);
  }

  const int64_t *parts() const { return flat.data(); }
  int32_t numParts() const { return static_cast<int32_t>(flat.size() / 3); }
  /// The member of `device`'s group with rank `rank`.
  int64_t member(int64_t device, int64_t rank) const {
    return groups.members[device][rank];
  }

  std::unique_ptr<Mesh> mesh;
  RefGroups groups;
  std::vector<int64_t> flat;
  int64_t n = 0;
  int64_t g = 1;
  /// The devices this process runs (all without processes).
  std::vector<int64_t> local;
};
} // namespace

/// Element `k` of device `d`'s operand: small integers, so that float sums
/// are exact in any order.
static int64_t valueOf(int64_t d, int64_t k) {
  return (d * 7 + k * 3) % 11 - 5;
}

template <typename T>
static std::vector<std::vector<T>> makeInputs(int64_t n, int64_t size) {
  std::vector<std::vector<T>> inputs(n, std::vector<T>(size));
  for (int64_t d = 0; d < n; ++d)
    for (int64_t k = 0; k < size; ++k)
      inputs[d][k] = static_cast<T>(valueOf(d, k));
  return inputs;
}

TEST_P(CollectivesTest, AxisIndex) {
  std::vector<int64_t> index(n, -1);
  runOk(*mesh, [&](int64_t d) {
    index[d] = tessera_rt_axis_index(parts(), numParts());
  });
  for (int64_t d : local)
    EXPECT_EQ(index[d], groups.rank[d]) << "device " << d;
}

TEST_P(CollectivesTest, GatherOfDeviceIdsListsTheGroup) {
  std::vector<std::vector<int64_t>> out(n, std::vector<int64_t>(g, -1));
  runOk(*mesh, [&](int64_t d) {
    int64_t id = tessera_rt_device_id();
    int64_t shape[] = {1};
    tessera_rt_all_gather(&id, out[d].data(), shape, 1, TESSERA_RT_I64, 0,
                          parts(), numParts(), "gather ids");
  });
  for (int64_t d : local)
    EXPECT_EQ(out[d], groups.members[d]) << "device " << d;
}

TEST_P(CollectivesTest, AllReduceSumF32) {
  // 100 is not a multiple of the 64-element slices; 5000 spans several
  // kernel chunks.
  for (int64_t size : {int64_t(0), int64_t(1), int64_t(100), int64_t(5000)}) {
    std::vector<std::vector<float>> in = makeInputs<float>(n, size);
    std::vector<std::vector<float>> out(n, std::vector<float>(size, 99));
    runOk(*mesh, [&](int64_t d) {
      tessera_rt_all_reduce(in[d].data(), out[d].data(), size, TESSERA_RT_F32,
                            TESSERA_RT_SUM, parts(), numParts(), "sum");
    });
    for (int64_t d : local) {
      for (int64_t k = 0; k < size; ++k) {
        float expected = 0;
        for (int64_t r = 0; r < g; ++r)
          expected += valueOf(member(d, r), k);
        ASSERT_EQ(out[d][k], expected)
            << "size " << size << " device " << d << " element " << k;
      }
    }
  }
}

TEST_P(CollectivesTest, AllReduceInPlaceMaxI32) {
  const int64_t size = 300;
  std::vector<std::vector<int32_t>> buf = makeInputs<int32_t>(n, size);
  runOk(*mesh, [&](int64_t d) {
    tessera_rt_all_reduce(buf[d].data(), buf[d].data(), size, TESSERA_RT_I32,
                          TESSERA_RT_MAX, parts(), numParts(), "max");
  });
  for (int64_t d : local) {
    for (int64_t k = 0; k < size; ++k) {
      int64_t expected = valueOf(member(d, 0), k);
      for (int64_t r = 1; r < g; ++r)
        expected = std::max(expected, valueOf(member(d, r), k));
      ASSERT_EQ(buf[d][k], expected) << "device " << d << " element " << k;
    }
  }
}

TEST_P(CollectivesTest, AllGatherLeadingAndTrailingDim) {
  const int64_t rows = 3, cols = 2;
  std::vector<std::vector<float>> in = makeInputs<float>(n, rows * cols);
  for (int64_t dim : {0, 1}) {
    std::vector<std::vector<float>> out(n, std::vector<float>(g * rows * cols));
    runOk(*mesh, [&](int64_t d) {
      int64_t shape[] = {rows, cols};
      tessera_rt_all_gather(in[d].data(), out[d].data(), shape, 2,
                            TESSERA_RT_F32, dim, parts(), numParts(), "ag");
    });
    for (int64_t d : local) {
      std::vector<float> expected(g * rows * cols);
      for (int64_t m = 0; m < g; ++m)
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = 0; c < cols; ++c) {
            int64_t index = dim == 0 ? (m * rows + r) * cols + c
                                     : r * g * cols + m * cols + c;
            expected[index] = in[member(d, m)][r * cols + c];
          }
      EXPECT_EQ(out[d], expected) << "dim " << dim << " device " << d;
    }
  }
}

// The valid part of padded blocks: the first `valid` rows of the
// concatenation, nothing written past them (the members whose blocks lie
// wholly past `valid` contribute nothing).
TEST_P(CollectivesTest, AllGatherValidPart) {
  const int64_t rows = 3, cols = 2, sentinel = -7;
  std::vector<std::vector<int32_t>> in = makeInputs<int32_t>(n, rows * cols);
  std::set<int64_t> valids = {1, g * rows};
  if (g > 1)
    valids.insert({(g - 1) * rows + 1, g * rows - 1});
  if (g > 2)
    valids.insert(rows + 1);
  for (int64_t dim : {0, 1})
    for (int64_t valid : valids) {
      int64_t size = valid * (dim == 0 ? cols : rows);
      std::vector<std::vector<int32_t>> out(
          n, std::vector<int32_t>(size + 4, sentinel));
      runOk(*mesh, [&](int64_t d) {
        int64_t shape0[] = {rows, cols}, shape1[] = {cols, rows};
        tessera_rt_all_gather_valid(
            in[d].data(), out[d].data(), dim == 0 ? shape0 : shape1, 2,
            TESSERA_RT_I32, dim, valid, parts(), numParts(), "agv");
      });
      for (int64_t d : local) {
        std::vector<int32_t> expected(size + 4, sentinel);
        for (int64_t i = 0; i < valid; ++i) {
          int64_t m = i / rows, r = i % rows;
          for (int64_t c = 0; c < cols; ++c) {
            // dim 0: a (rows x cols) block per member; dim 1: (cols x rows).
            if (dim == 0)
              expected[i * cols + c] = in[member(d, m)][r * cols + c];
            else
              expected[c * valid + i] = in[member(d, m)][c * rows + r];
          }
        }
        EXPECT_EQ(out[d], expected)
            << "dim " << dim << " valid " << valid << " device " << d;
      }
    }
}

TEST_P(CollectivesTest, AllGatherMiddleDim) {
  const int64_t a = 2, b = 3, c = 2;
  std::vector<std::vector<int16_t>> in = makeInputs<int16_t>(n, a * b * c);
  std::vector<std::vector<int16_t>> out(n, std::vector<int16_t>(g * a * b * c));
  runOk(*mesh, [&](int64_t d) {
    int64_t shape[] = {a, b, c};
    tessera_rt_all_gather(in[d].data(), out[d].data(), shape, 3, TESSERA_RT_I16,
                          1, parts(), numParts(), "ag");
  });
  for (int64_t d : local) {
    std::vector<int16_t> expected(g * a * b * c);
    for (int64_t i = 0; i < a; ++i)
      for (int64_t m = 0; m < g; ++m)
        for (int64_t j = 0; j < b; ++j)
          for (int64_t k = 0; k < c; ++k)
            expected[(i * g * b + m * b + j) * c + k] =
                in[member(d, m)][(i * b + j) * c + k];
    EXPECT_EQ(out[d], expected) << "device " << d;
  }
}

TEST_P(CollectivesTest, ReduceScatterLeadingAndTrailingDim) {
  const int64_t other = 3, block = 2;
  std::vector<std::vector<int64_t>> in =
      makeInputs<int64_t>(n, other * block * g);
  for (int64_t dim : {0, 1}) {
    std::vector<std::vector<int64_t>> out(
        n, std::vector<int64_t>(other * block, -1));
    runOk(*mesh, [&](int64_t d) {
      int64_t shape0[] = {block * g, other};
      int64_t shape1[] = {other, block * g};
      tessera_rt_reduce_scatter(in[d].data(), out[d].data(),
                                dim == 0 ? shape0 : shape1, 2, TESSERA_RT_I64,
                                TESSERA_RT_SUM, dim, parts(), numParts(), "rs");
    });
    for (int64_t d : local) {
      int64_t rank = groups.rank[d];
      std::vector<int64_t> expected(other * block, 0);
      for (int64_t m = 0; m < g; ++m) {
        const std::vector<int64_t> &src = in[member(d, m)];
        for (int64_t i = 0; i < block; ++i)
          for (int64_t j = 0; j < other; ++j) {
            if (dim == 0)
              expected[i * other + j] += src[(rank * block + i) * other + j];
            else
              expected[j * block + i] += src[j * block * g + rank * block + i];
          }
      }
      EXPECT_EQ(out[d], expected) << "dim " << dim << " device " << d;
    }
  }
}

TEST_P(CollectivesTest, AllToAll2D) {
  const int64_t other = 3, block = 2;
  std::vector<std::vector<int32_t>> in =
      makeInputs<int32_t>(n, other * block * g);
  struct Dims {
    int64_t split, concat;
  };
  for (Dims dims : {Dims{1, 0}, Dims{0, 1}, Dims{0, 0}}) {
    std::vector<std::vector<int32_t>> out(
        n, std::vector<int32_t>(other * block * g, -1));
    runOk(*mesh, [&](int64_t d) {
      int64_t shape0[] = {block * g, other};
      int64_t shape1[] = {other, block * g};
      tessera_rt_all_to_all(
          in[d].data(), out[d].data(), dims.split == 0 ? shape0 : shape1, 2,
          TESSERA_RT_I32, dims.split, dims.concat, parts(), numParts(), "a2a");
    });
    for (int64_t d : local) {
      int64_t rank = groups.rank[d];
      std::vector<int32_t> expected(other * block * g);
      for (int64_t m = 0; m < g; ++m) {
        const std::vector<int32_t> &src = in[member(d, m)];
        for (int64_t i = 0; i < block; ++i)
          for (int64_t j = 0; j < other; ++j) {
            if (dims.split == 1) {
              // [other, g * block] -> [g * other, block].
              expected[(m * other + j) * block + i] =
                  src[j * block * g + rank * block + i];
            } else if (dims.concat == 1) {
              // [g * block, other] -> [block, g * other].
              expected[i * g * other + m * other + j] =
                  src[(rank * block + i) * other + j];
            } else {
              // [g * block, other] -> [g * block, other].
              expected[(m * block + i) * other + j] =
                  src[(rank * block + i) * other + j];
            }
          }
      }
      EXPECT_EQ(out[d], expected) << "split " << dims.split << " concat "
                                  << dims.concat << " device " << d;
    }
  }
}

TEST_P(CollectivesTest, InPlaceAllToAllAndReduceScatter) {
  // The output is the input buffer (all_to_all) or its start
  // (reduce_scatter): members must not overwrite what others still read.
  const int64_t size = 4 * g;
  std::vector<std::vector<int32_t>> original = makeInputs<int32_t>(n, size);
  std::vector<std::vector<int32_t>> a2a = original, rs = original;
  runOk(*mesh, [&](int64_t d) {
    int64_t shape[] = {size};
    tessera_rt_all_to_all(a2a[d].data(), a2a[d].data(), shape, 1,
                          TESSERA_RT_I32, 0, 0, parts(), numParts(), "a2a");
    tessera_rt_reduce_scatter(rs[d].data(), rs[d].data(), shape, 1,
                              TESSERA_RT_I32, TESSERA_RT_SUM, 0, parts(),
                              numParts(), "rs");
  });
  for (int64_t d : local) {
    int64_t rank = groups.rank[d];
    for (int64_t m = 0; m < g; ++m)
      for (int64_t i = 0; i < 4; ++i)
        ASSERT_EQ(a2a[d][m * 4 + i], original[member(d, m)][rank * 4 + i])
            << "device " << d;
    for (int64_t i = 0; i < 4; ++i) {
      int32_t expected = 0;
      for (int64_t m = 0; m < g; ++m)
        expected += original[member(d, m)][rank * 4 + i];
      ASSERT_EQ(rs[d][i], expected) << "device " << d;
    }
  }
}

TEST_P(CollectivesTest, AllToAll3D) {
  // [2, g * 2, 3] split 1 concat 2 -> [2, 2, g * 3].
  const int64_t a = 2, b = 2, c = 3;
  std::vector<std::vector<uint8_t>> in = makeInputs<uint8_t>(n, a * b * g * c);
  std::vector<std::vector<uint8_t>> out(n, std::vector<uint8_t>(a * b * g * c));
  runOk(*mesh, [&](int64_t d) {
    int64_t shape[] = {a, b * g, c};
    tessera_rt_all_to_all(in[d].data(), out[d].data(), shape, 3, TESSERA_RT_U8,
                          1, 2, parts(), numParts(), "a2a");
  });
  for (int64_t d : local) {
    int64_t rank = groups.rank[d];
    std::vector<uint8_t> expected(a * b * g * c);
    for (int64_t m = 0; m < g; ++m)
      for (int64_t i = 0; i < a; ++i)
        for (int64_t j = 0; j < b; ++j)
          for (int64_t k = 0; k < c; ++k)
            expected[(i * b + j) * g * c + m * c + k] =
                in[member(d, m)][(i * b * g + rank * b + j) * c + k];
    EXPECT_EQ(out[d], expected) << "device " << d;
  }
}

TEST_P(CollectivesTest, PermuteShiftLeavesRankZeroWithZeros) {
  // Pairs r -> r + 1 for r < g - 1: rank 0 is no target.
  std::vector<int64_t> sources, targets;
  for (int64_t r = 0; r + 1 < g; ++r) {
    sources.push_back(r);
    targets.push_back(r + 1);
  }
  const int64_t size = 5;
  std::vector<std::vector<int64_t>> in = makeInputs<int64_t>(n, size);
  std::vector<std::vector<int64_t>> out(n, std::vector<int64_t>(size, 42));
  runOk(*mesh, [&](int64_t d) {
    tessera_rt_permute(in[d].data(), out[d].data(), size * 8, sources.data(),
                       targets.data(), static_cast<int32_t>(sources.size()),
                       parts(), numParts(), "shift");
  });
  for (int64_t d : local) {
    int64_t rank = groups.rank[d];
    std::vector<int64_t> expected(size, 0);
    if (rank > 0)
      expected = in[member(d, rank - 1)];
    EXPECT_EQ(out[d], expected) << "device " << d;
  }
}

TEST_P(CollectivesTest, PermuteCycleInPlace) {
  std::vector<int64_t> sources, targets;
  for (int64_t r = 0; r < g; ++r) {
    sources.push_back(r);
    targets.push_back((r + 1) % g);
  }
  const int64_t size = 7;
  std::vector<std::vector<int32_t>> original = makeInputs<int32_t>(n, size);
  std::vector<std::vector<int32_t>> buf = original;
  runOk(*mesh, [&](int64_t d) {
    tessera_rt_permute(buf[d].data(), buf[d].data(), size * 4, sources.data(),
                       targets.data(), static_cast<int32_t>(sources.size()),
                       parts(), numParts(), "cycle");
  });
  for (int64_t d : local) {
    int64_t rank = groups.rank[d];
    EXPECT_EQ(buf[d], original[member(d, (rank + g - 1) % g)])
        << "device " << d;
  }
}

TEST_P(CollectivesTest, BarrierWaitsForTheGroup) {
  // (Members in other processes are not visible here.)
  std::vector<std::atomic<int>> arrived(n);
  std::vector<int> sawAll(n, 0);
  runOk(*mesh, [&](int64_t d) {
    arrived[d].store(1);
    tessera_rt_barrier(parts(), numParts(), "barrier");
    int all = 1;
    for (int64_t r = 0; r < g; ++r)
      if (mesh->isLocalDevice(member(d, r)))
        all &= arrived[member(d, r)].load();
    sawAll[d] = all;
  });
  for (int64_t d : local)
    EXPECT_EQ(sawAll[d], 1) << "device " << d;
}

static std::vector<Case> getCases() {
  std::vector<std::string> x = {"x"}, xy = {"x", "y"};
  return {
      {"OneDevice", x, {1}, {}, {{0, 1, 1}}},
      {"OneDeviceNoParts", x, {1}, {}, {}},
      {"Line2", x, {2}, {}, {{0, 1, 2}}},
      {"Line4", x, {4}, {}, {{0, 1, 4}}},
      {"Line8", x, {8}, {}, {{0, 1, 8}}},
      {"Line8NoParts", x, {8}, {}, {}},
      {"Line8SubAxisMinor", x, {8}, {}, {{0, 1, 2}}},
      {"Line8SubAxisMiddle", x, {8}, {}, {{0, 2, 2}}},
      {"Line8SubAxisMajor", x, {8}, {}, {{0, 2, 4}}},
      {"Line8TwoSubAxes", x, {8}, {}, {{0, 4, 2}, {0, 1, 2}}},
      {"Line8TwoSubAxesReversed", x, {8}, {}, {{0, 1, 2}, {0, 4, 2}}},
      {"Mesh2x4OverX", xy, {2, 4}, {}, {{0, 1, 2}}},
      {"Mesh2x4OverY", xy, {2, 4}, {}, {{1, 1, 4}}},
      {"Mesh2x4OverXY", xy, {2, 4}, {}, {{0, 1, 2}, {1, 1, 4}}},
      {"Mesh2x4OverYX", xy, {2, 4}, {}, {{1, 1, 4}, {0, 1, 2}}},
      {"Mesh2x4OverSubY", xy, {2, 4}, {}, {{1, 2, 2}}},
      {"Mesh2x4OverXAndSubY", xy, {2, 4}, {}, {{0, 1, 2}, {1, 1, 2}}},
      {"Mesh4x2OverX", xy, {4, 2}, {}, {{0, 1, 4}}},
      {"Mesh4x2OverY", xy, {4, 2}, {}, {{1, 1, 2}}},
      {"Mesh4x2OverXY", xy, {4, 2}, {}, {{0, 1, 4}, {1, 1, 2}}},
      {"Mesh4x2OverSubX", xy, {4, 2}, {}, {{0, 2, 2}}},
      {"Mesh4x2OverYAndSubX", xy, {4, 2}, {}, {{1, 1, 2}, {0, 1, 2}}},
      {"Permuted2x4OverX", xy, {2, 4}, {5, 2, 7, 0, 3, 6, 1, 4}, {{0, 1, 2}}},
      {"Permuted2x4OverY", xy, {2, 4}, {5, 2, 7, 0, 3, 6, 1, 4}, {{1, 1, 4}}},
      {"Permuted2x4OverYX",
       xy,
       {2, 4},
       {5, 2, 7, 0, 3, 6, 1, 4},
       {{1, 1, 4}, {0, 1, 2}}},
      {"Mesh2x2x2OverZX",
       {"x", "y", "z"},
       {2, 2, 2},
       {},
       {{2, 1, 2}, {0, 1, 2}}},
  };
}

INSTANTIATE_TEST_SUITE_P(Meshes, CollectivesTest,
                         ::testing::ValuesIn(getCases()),
                         [](const ::testing::TestParamInfo<Case> &info) {
                           return info.param.name;
                         });
