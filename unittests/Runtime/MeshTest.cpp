//===- MeshTest.cpp - mesh specs, coordinates and runs --------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Tests Mesh::create's validation, coordinates and deviceAt, runs (device
// ids, repeated runs, one-device and axis-less meshes, exceptions), calls
// outside a device thread, and the C ABI's symbol table and C header.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"

#include <chrono>
#include <set>
#include <stdexcept>

using namespace tessera::rt;
using namespace tessera::rt::test;

extern "C" int tesseraRuntimeHeaderCompilesAsC(void);

static std::string createError(MeshSpec spec) {
  std::string error;
  EXPECT_EQ(Mesh::create(spec, error), nullptr);
  return error;
}

TEST(MeshTest, InvalidSpecs) {
  EXPECT_EQ(createError({{"x"}, {2, 2}, {}}),
            "the mesh has 1 axis names but 2 axis sizes");
  EXPECT_EQ(createError({{"x", "x"}, {2, 2}, {}}),
            "duplicate axis name: \"x\"");
  EXPECT_EQ(createError({{""}, {2}, {}}), "axis 0 has an empty name");
  EXPECT_EQ(createError({{"x", "y"}, {2, 0}, {}}),
            "axis \"y\" has size 0; sizes must be at least 1");
  EXPECT_EQ(createError({{"x"}, {4}, {0, 1, 2}}),
            "the mesh has 4 devices but 3 device ids");
  EXPECT_EQ(createError({{"x"}, {3}, {0, 2, 2}}),
            "device ids are not a permutation of 0..2: id 2 appears twice");
  EXPECT_EQ(createError({{"x"}, {3}, {0, 1, 3}}),
            "device ids are not a permutation of 0..2: id 3 is out of range");
  EXPECT_EQ(createError({{"x", "y"}, {1 << 10, 1 << 10}, {}}),
            "the mesh has more than 65536 devices");
}

TEST(MeshTest, CoordinatesAndDeviceAt) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x", "y"}, {2, 3}, {5, 4, 3, 2, 1, 0});
  EXPECT_EQ(mesh->numDevices(), 6);
  EXPECT_EQ(mesh->coordinates(5), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(mesh->coordinates(1), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(mesh->coordinates(6), std::vector<int64_t>{});
  EXPECT_EQ(mesh->deviceAt({1, 2}), 0);
  EXPECT_EQ(mesh->deviceAt({0, 1}), 4);
  EXPECT_EQ(mesh->deviceAt({2, 0}), -1);
  EXPECT_EQ(mesh->deviceAt({0}), -1);
  for (int64_t d = 0; d < 6; ++d)
    EXPECT_EQ(mesh->deviceAt(mesh->coordinates(d)), d);
  // The spec reports the ids; an empty list means 0..N-1.
  EXPECT_EQ(mesh->spec().deviceIds, (std::vector<int64_t>{5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(makeMesh({"x"}, {3})->spec().deviceIds,
            (std::vector<int64_t>{0, 1, 2}));
}

TEST(MeshTest, RunSetsTheCurrentDevice) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x", "y"}, {2, 2});
  std::vector<int64_t> seen(4, -1);
  runOk(*mesh, [&](int64_t d) { seen[d] = tessera_rt_device_id(); });
  EXPECT_EQ(seen, (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(tessera_rt_device_id(), -1);
}

TEST(MeshTest, RunsManyTimes) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {4});
  std::vector<int64_t> parts = {0, 1, 4};
  for (int run = 0; run < 20; ++run) {
    std::vector<int32_t> out(4);
    runOk(*mesh, [&](int64_t d) {
      int32_t value = static_cast<int32_t>(d + run);
      tessera_rt_all_reduce(&value, &out[d], 1, TESSERA_RT_I32, TESSERA_RT_SUM,
                            parts.data(), 1, "ar");
    });
    EXPECT_EQ(out, std::vector<int32_t>(4, 6 + 4 * run));
  }
}

TEST(MeshTest, OneDeviceAndNoAxes) {
  std::unique_ptr<Mesh> axisless = makeMesh({}, {});
  EXPECT_EQ(axisless->numDevices(), 1);
  float in[3] = {1, 2, 3}, out[3] = {};
  runOk(*axisless, [&](int64_t) {
    tessera_rt_all_reduce(in, out, 3, TESSERA_RT_F32, TESSERA_RT_SUM, nullptr,
                          0, "ar");
    tessera_rt_barrier(nullptr, 0, "barrier");
  });
  EXPECT_EQ(out[2], 3);
}

TEST(MeshTest, ExceptionIsAnError) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {2});
  std::vector<int64_t> parts = {0, 1, 2};
  float out[1] = {7};
  std::string error = runFail(*mesh, [&](int64_t d) {
    if (d == 0)
      throw std::runtime_error("boom");
    float in = 1;
    tessera_rt_all_reduce(&in, out, 1, TESSERA_RT_F32, TESSERA_RT_SUM,
                          parts.data(), 1, "ar");
  });
  EXPECT_EQ(error, "device 0 threw an exception: boom");
  EXPECT_EQ(out[0], 0);
  // The mesh runs again after a failure.
  runOk(*mesh, [&](int64_t) {});
}

TEST(MeshTest, EmptyFunction) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {2});
  std::string error;
  EXPECT_FALSE(mesh->run(nullptr, error));
  EXPECT_EQ(error, "no function to run");
}

TEST(MeshTest, CollectiveOutsideADeviceThreadWritesZeros) {
  float in[2] = {1, 2}, out[2] = {5, 5};
  int64_t parts[] = {0, 1, 1};
  tessera_rt_all_reduce(in, out, 2, TESSERA_RT_F32, TESSERA_RT_SUM, parts, 1,
                        "outside");
  EXPECT_EQ(out[0], 0);
  EXPECT_EQ(out[1], 0);
  EXPECT_EQ(tessera_rt_axis_index(parts, 1), 0);
}

TEST(MeshTest, SymbolTable) {
  std::set<std::string> names;
  const TesseraRtSymbol *symbols = tessera_rt_symbols();
  for (; symbols->name; ++symbols) {
    EXPECT_NE(symbols->address, nullptr) << symbols->name;
    names.insert(symbols->name);
  }
  EXPECT_EQ(symbols->address, nullptr);
  for (const char *name :
       {"tessera_rt_all_reduce", "tessera_rt_all_gather",
        "tessera_rt_reduce_scatter", "tessera_rt_all_to_all",
        "tessera_rt_permute", "tessera_rt_barrier", "tessera_rt_axis_index",
        "tessera_rt_device_id", "tessera_rt_alloc", "tessera_rt_aligned_alloc",
        "tessera_rt_free", "tessera_rt_assert_failed", "tessera_rt_symbols"})
    EXPECT_EQ(names.count(name), 1u) << name;
  EXPECT_EQ(reinterpret_cast<void *>(&tessera_rt_free), [] {
    for (const TesseraRtSymbol *s = tessera_rt_symbols(); s->name; ++s)
      if (std::string(s->name) == "tessera_rt_free")
        return s->address;
    return static_cast<void *>(nullptr);
  }());
}

TEST(MeshTest, HeaderCompilesAsC) {
  EXPECT_EQ(tesseraRuntimeHeaderCompilesAsC(), 14);
}

TEST(MeshTest, HugeMeshesAreRefusedBeforeAllocating) {
  // Refused from the axis sizes alone, at once: no per-device state (the
  // last one would need 2^62 of it).
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(createError({{"x", "y"}, {65536, 2}, {}}),
            "the mesh has more than 65536 devices");
  EXPECT_EQ(createError({{"x"}, {int64_t(1) << 40}, {}}),
            "the mesh has more than 65536 devices");
  EXPECT_EQ(createError(
                {{"x", "y", "z"}, {int64_t(1) << 31, int64_t(1) << 31, 4}, {}}),
            "the mesh has more than 65536 devices");
  EXPECT_EQ(createError({{"x", "y"}, {256, 256}, std::vector<int64_t>(3)}),
            "the mesh has 65536 devices but 3 device ids");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}
