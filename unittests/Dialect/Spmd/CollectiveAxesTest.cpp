//===- CollectiveAxesTest.cpp - axis-list algebra of the collectives ------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "SpmdTestBase.h"

#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

namespace {

class CollectiveAxesTest : public SpmdTest {};

TEST_F(CollectiveAxesTest, RemoveFullAxisSuffix) {
  MeshAttr m = mesh(R"(<["a"=2, "b"=2, "c"=2]>)");
  SmallVector<AxisRefAttr> axes = {axis("a"), axis("b"), axis("c")};
  ASSERT_TRUE(succeeded(removeAxesSuffix(axes, {axis("b"), axis("c")}, m)));
  EXPECT_EQ(axes, SmallVector<AxisRefAttr>{axis("a")});
}

TEST_F(CollectiveAxesTest, RemoveMinorSubAxisLeavesMajorPart) {
  MeshAttr m = mesh(R"(<["x"=8, "z"=2]>)");
  SmallVector<AxisRefAttr> axes = {axis("x"), axis("z")};
  ASSERT_TRUE(
      succeeded(removeAxesSuffix(axes, {sub("x", 4, 2), axis("z")}, m)));
  EXPECT_EQ(axes, SmallVector<AxisRefAttr>{sub("x", 1, 4)});
}

TEST_F(CollectiveAxesTest, RemoveSubAxisOfSubAxis) {
  MeshAttr m = mesh(R"(<["x"=16]>)");
  SmallVector<AxisRefAttr> axes = {sub("x", 2, 4)};
  ASSERT_TRUE(succeeded(removeAxesSuffix(axes, {sub("x", 4, 2)}, m)));
  EXPECT_EQ(axes, SmallVector<AxisRefAttr>{sub("x", 2, 2)});
}

TEST_F(CollectiveAxesTest, RemoveFailsOnMajorPartOrWrongOrder) {
  MeshAttr m = mesh(R"(<["x"=8, "y"=2]>)");
  AxisRefAttr failedRef;
  SmallVector<AxisRefAttr> axes = {axis("x")};
  EXPECT_TRUE(failed(removeAxesSuffix(axes, {sub("x", 2, 2)}, m, &failedRef)));
  EXPECT_EQ(failedRef, sub("x", 2, 2));
  axes = {axis("y"), axis("x")};
  // Refs are removed from the minor end: "y" is checked (and fails) first.
  EXPECT_TRUE(
      failed(removeAxesSuffix(axes, {axis("x"), axis("y")}, m, &failedRef)));
  EXPECT_EQ(failedRef, axis("y"));
  axes = {sub("x", 1, 2)};
  EXPECT_TRUE(failed(removeAxesSuffix(axes, {axis("x")}, m, &failedRef)));
  axes = {};
  EXPECT_TRUE(failed(removeAxesSuffix(axes, {axis("y")}, m, &failedRef)));
}

TEST_F(CollectiveAxesTest, AppendMergesConsecutiveSubAxes) {
  MeshAttr m = mesh(R"(<["x"=8, "y"=2]>)");
  SmallVector<AxisRefAttr> axes = {sub("x", 1, 2)};
  appendAxisOrMerge(axes, sub("x", 2, 2), m);
  EXPECT_EQ(axes, SmallVector<AxisRefAttr>{sub("x", 1, 4)});
  appendAxisOrMerge(axes, sub("x", 4, 2), m);
  EXPECT_EQ(axes, SmallVector<AxisRefAttr>{axis("x")});
  appendAxisOrMerge(axes, axis("y"), m);
  EXPECT_EQ(axes, (SmallVector<AxisRefAttr>{axis("x"), axis("y")}));
}

TEST_F(CollectiveAxesTest, AppendDoesNotMergeNonConsecutive) {
  MeshAttr m = mesh(R"(<["x"=8]>)");
  SmallVector<AxisRefAttr> axes = {sub("x", 1, 2)};
  appendAxisOrMerge(axes, sub("x", 4, 2), m);
  EXPECT_EQ(axes, (SmallVector<AxisRefAttr>{sub("x", 1, 2), sub("x", 4, 2)}));
}

TEST_F(CollectiveAxesTest, FormatAxisList) {
  EXPECT_EQ(formatAxisList({}), "[]");
  EXPECT_EQ(formatAxisList({axis("x"), sub("y", 1, 2)}), "[\"x\", \"y\":(1)2]");
}

TEST_F(CollectiveAxesTest, EquivalentLayoutIgnoresOpennessAndReplicated) {
  auto a = parse<TensorShardingAttr>(
      R"(#spmd.sharding<mesh<["x"=2, "y"=2]>, [{"x", ?}, {}], replicated={"y"}>)");
  auto b = parse<TensorShardingAttr>(
      R"(#spmd.sharding<mesh<["x"=2, "y"=2]>, [{"x"}, {?}]>)");
  auto c = parse<TensorShardingAttr>(
      R"(#spmd.sharding<mesh<["x"=2, "y"=2]>, [{"x"}, {}], unreduced={"y"}>)");
  auto d = parse<TensorShardingAttr>(
      R"(#spmd.sharding<mesh<["x"=2, "y"=2], device_ids=[3, 2, 1, 0]>, [{"x"}, {}]>)");
  ASSERT_TRUE(a && b && c && d);
  EXPECT_TRUE(isEquivalentLayout(a, b, nullptr));
  EXPECT_FALSE(isEquivalentLayout(a, c, nullptr));
  EXPECT_FALSE(isEquivalentLayout(b, d, nullptr));
  EXPECT_FALSE(isEquivalentLayout(a, TensorShardingAttr(), nullptr));
}

} // namespace
