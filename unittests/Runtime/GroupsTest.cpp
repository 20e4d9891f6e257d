//===- GroupsTest.cpp - groups, ranks and device order by hand ------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Tests the group definition itself on cases worked out by hand (the
// parameterized collective tests compare against a brute-force model; these
// pin that model down): whole axes, axis order, sub-axes, a non-iota
// device order and the device order a call names.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"

using namespace tessera::rt;
using namespace tessera::rt::test;

/// The members, by rank, of every device's group, read with an all_gather of
/// device ids.
static std::vector<std::vector<int64_t>>
gatherGroups(Mesh &mesh, const std::vector<Part> &parts) {
  std::vector<int64_t> flat = flatten(parts);
  int64_t groupSize = 1;
  for (const Part &p : parts)
    groupSize *= p.size;
  int64_t n = mesh.numDevices();
  std::vector<std::vector<int64_t>> out(n, std::vector<int64_t>(groupSize));
  runOk(mesh, [&](int64_t d) {
    int64_t id = d;
    int64_t shape[] = {1};
    tessera_rt_all_gather(&id, out[d].data(), shape, 1, TESSERA_RT_I64, 0,
                          flat.data(), static_cast<int32_t>(parts.size()),
                          "ids");
  });
  return out;
}

TEST(GroupsTest, WholeAxesOf2x4) {
  // Device d sits at (d / 4, d % 4).
  std::unique_ptr<Mesh> mesh = makeMesh({"x", "y"}, {2, 4});
  std::vector<std::vector<int64_t>> overX = gatherGroups(*mesh, {{0, 1, 2}});
  EXPECT_EQ(overX[6], (std::vector<int64_t>{2, 6}));
  std::vector<std::vector<int64_t>> overY = gatherGroups(*mesh, {{1, 1, 4}});
  EXPECT_EQ(overY[6], (std::vector<int64_t>{4, 5, 6, 7}));
  std::vector<std::vector<int64_t>> overXY =
      gatherGroups(*mesh, {{0, 1, 2}, {1, 1, 4}});
  EXPECT_EQ(overXY[6], (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  // The first part is most major.
  std::vector<std::vector<int64_t>> overYX =
      gatherGroups(*mesh, {{1, 1, 4}, {0, 1, 2}});
  EXPECT_EQ(overYX[6], (std::vector<int64_t>{0, 4, 1, 5, 2, 6, 3, 7}));
}

TEST(GroupsTest, SubAxes) {
  // y:(2)2 of a 2x4 mesh: the major half of y; y:(1)2 its minor half.
  std::unique_ptr<Mesh> mesh = makeMesh({"x", "y"}, {2, 4});
  std::vector<std::vector<int64_t>> major = gatherGroups(*mesh, {{1, 2, 2}});
  EXPECT_EQ(major[5], (std::vector<int64_t>{5, 7}));
  EXPECT_EQ(major[2], (std::vector<int64_t>{0, 2}));
  std::vector<std::vector<int64_t>> minor = gatherGroups(*mesh, {{1, 1, 2}});
  EXPECT_EQ(minor[5], (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(minor[2], (std::vector<int64_t>{2, 3}));
  // x with the minor half of y.
  std::vector<std::vector<int64_t>> mixed =
      gatherGroups(*mesh, {{0, 1, 2}, {1, 1, 2}});
  EXPECT_EQ(mixed[7], (std::vector<int64_t>{2, 3, 6, 7}));
}

TEST(GroupsTest, NonIotaDeviceOrder) {
  // Mesh order [[3, 1], [0, 2]]: device 3 at (0, 0), 1 at (0, 1), 0 at
  // (1, 0), 2 at (1, 1).
  std::unique_ptr<Mesh> mesh = makeMesh({"x", "y"}, {2, 2}, {3, 1, 0, 2});
  EXPECT_EQ(mesh->coordinates(0), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(mesh->deviceAt({0, 1}), 1);
  std::vector<std::vector<int64_t>> overX = gatherGroups(*mesh, {{0, 1, 2}});
  EXPECT_EQ(overX[0], (std::vector<int64_t>{3, 0}));
  EXPECT_EQ(overX[2], (std::vector<int64_t>{1, 2}));
  std::vector<std::vector<int64_t>> overY = gatherGroups(*mesh, {{1, 1, 2}});
  EXPECT_EQ(overY[0], (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(overY[1], (std::vector<int64_t>{3, 1}));

  std::vector<int64_t> index(4);
  std::vector<int64_t> flat = flatten({{1, 1, 2}, {0, 1, 2}});
  runOk(*mesh,
        [&](int64_t d) { index[d] = tessera_rt_axis_index(flat.data(), 2); });
  // Rank over {y, x} = y * 2 + x.
  EXPECT_EQ(index, (std::vector<int64_t>{1, 2, 3, 0}));
}

TEST(GroupsTest, DeviceOrderOfTheCall) {
  // An iota 2x2 mesh whose calls number positions by the order
  // [[3, 1], [0, 2]] (another mesh over the same devices), as in
  // NonIotaDeviceOrder; null goes back to the mesh's own order.
  std::unique_ptr<Mesh> mesh = makeMesh({"x", "y"}, {2, 2});
  static const int64_t order[] = {3, 1, 0, 2};
  std::vector<int64_t> flatX = flatten({{0, 1, 2}});
  std::vector<int64_t> flatYX = flatten({{1, 1, 2}, {0, 1, 2}});
  std::vector<std::vector<int64_t>> overX(4, std::vector<int64_t>(2));
  std::vector<int64_t> index(4), own(4);
  runOk(*mesh, [&](int64_t d) {
    tessera_rt_set_device_order(order, 4);
    int64_t id = d;
    int64_t shape[] = {1};
    tessera_rt_all_gather(&id, overX[d].data(), shape, 1, TESSERA_RT_I64, 0,
                          flatX.data(), 1, "ids");
    index[d] = tessera_rt_axis_index(flatYX.data(), 2);
    tessera_rt_set_device_order(nullptr, 0);
    own[d] = tessera_rt_axis_index(flatYX.data(), 2);
  });
  EXPECT_EQ(overX[0], (std::vector<int64_t>{3, 0}));
  EXPECT_EQ(overX[2], (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(index, (std::vector<int64_t>{1, 2, 3, 0}));
  // Iota: device d at (d / 2, d % 2), rank y * 2 + x.
  EXPECT_EQ(own, (std::vector<int64_t>{0, 2, 1, 3}));
}

TEST(GroupsTest, InvalidDeviceOrderFailsTheRun) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {4});
  static const int64_t repeated[] = {0, 1, 1, 3};
  std::string error = runFail(
      *mesh, [&](int64_t) { tessera_rt_set_device_order(repeated, 4); });
  EXPECT_NE(error.find("called set_device_order with an order that is not a "
                       "permutation of the devices (device 1 at position 2)"),
            std::string::npos)
      << error;
  static const int64_t iota[] = {0, 1};
  error =
      runFail(*mesh, [&](int64_t) { tessera_rt_set_device_order(iota, 2); });
  EXPECT_NE(error.find("has 2 devices, the mesh 4"), std::string::npos)
      << error;
}

TEST(GroupsTest, AxisIndexOfSizeOneAxisAndNoParts) {
  std::unique_ptr<Mesh> mesh = makeMesh({"a", "b"}, {1, 4});
  std::vector<int64_t> overA(4, -1), none(4, -1);
  std::vector<int64_t> flatA = flatten({{0, 1, 1}});
  runOk(*mesh, [&](int64_t d) {
    overA[d] = tessera_rt_axis_index(flatA.data(), 1);
    none[d] = tessera_rt_axis_index(nullptr, 0);
  });
  EXPECT_EQ(overA, std::vector<int64_t>(4, 0));
  EXPECT_EQ(none, std::vector<int64_t>(4, 0));
}
