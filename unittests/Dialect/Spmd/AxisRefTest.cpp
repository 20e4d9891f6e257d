//===- AxisRefTest.cpp - axis and sub-axis algebra ------------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "SpmdTestBase.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

namespace {

using AxisRefTest = SpmdTest;

TEST_F(AxisRefTest, ToString) {
  EXPECT_EQ(axis("x").toString(), "\"x\"");
  EXPECT_EQ(sub("x", 2, 4).toString(), "\"x\":(2)4");
}

TEST_F(AxisRefTest, Sizes) {
  MeshAttr m = mesh("<[\"x\"=8, \"y\"=2]>");
  ASSERT_TRUE(m);
  EXPECT_EQ(axis("x").getSize(m), 8);
  EXPECT_EQ(sub("x", 2, 4).getSize(m), 4);
  EXPECT_EQ(axis("x").getPreSize(), 1);
  EXPECT_EQ(sub("x", 2, 4).getPreSize(), 2);
  EXPECT_EQ(sub("x", 2, 2).getNextPreSize(m), 4);
  EXPECT_EQ(axis("y").getNextPreSize(m), 2);
}

TEST_F(AxisRefTest, Overlaps) {
  EXPECT_TRUE(axis("a").overlaps(sub("a", 2, 2)));
  EXPECT_TRUE(sub("a", 2, 2).overlaps(sub("a", 2, 2)));
  EXPECT_TRUE(sub("a", 1, 4).overlaps(sub("a", 2, 4)));
  EXPECT_TRUE(sub("a", 2, 4).overlaps(sub("a", 1, 4)));
  EXPECT_TRUE(sub("a", 1, 4).overlaps(sub("a", 1, 2)));
  EXPECT_TRUE(sub("a", 2, 8).overlaps(sub("a", 4, 2)));
  EXPECT_FALSE(sub("a", 1, 4).overlaps(sub("a", 4, 2)));
  EXPECT_FALSE(sub("a", 1, 2).overlaps(sub("a", 4, 2)));
  EXPECT_FALSE(sub("a", 1, 4).overlaps(sub("b", 2, 4)));
  EXPECT_FALSE(axis("a").overlaps(axis("b")));
}

TEST_F(AxisRefTest, Contains) {
  EXPECT_TRUE(axis("a").contains(sub("a", 2, 2)));
  EXPECT_TRUE(sub("a", 1, 8).contains(sub("a", 1, 4)));
  EXPECT_TRUE(sub("a", 2, 16).contains(sub("a", 4, 2)));
  EXPECT_TRUE(axis("a").contains(axis("a")));
  EXPECT_FALSE(sub("a", 1, 4).contains(sub("a", 2, 4)));
  EXPECT_FALSE(sub("a", 2, 4).contains(sub("a", 1, 2)));
  EXPECT_FALSE(axis("a").contains(sub("b", 1, 2)));
  EXPECT_FALSE(sub("a", 2, 2).contains(axis("a")));
}

TEST_F(AxisRefTest, PrefixOf) {
  EXPECT_TRUE(sub("a", 1, 2).prefixOf(axis("a")));
  EXPECT_TRUE(sub("a", 2, 2).prefixOf(sub("a", 2, 4)));
  EXPECT_TRUE(axis("a").prefixOf(axis("a")));
  EXPECT_FALSE(sub("a", 1, 4).prefixOf(sub("a", 1, 2)));
  EXPECT_FALSE(sub("a", 1, 4).prefixOf(sub("a", 2, 8)));
  EXPECT_FALSE(sub("a", 1, 2).prefixOf(axis("b")));
}

TEST_F(AxisRefTest, CanMergeAndMerge) {
  MeshAttr m = mesh("<[\"a\"=16, \"b\"=8]>");
  ASSERT_TRUE(m);
  EXPECT_TRUE(sub("a", 2, 4).canMerge(sub("a", 8, 2)));
  EXPECT_TRUE(sub("b", 1, 2).canMerge(sub("b", 2, 4)));
  EXPECT_FALSE(sub("a", 1, 2).canMerge(sub("a", 4, 2)));
  EXPECT_FALSE(sub("a", 2, 4).canMerge(sub("a", 1, 2)));
  EXPECT_FALSE(axis("a").canMerge(sub("a", 1, 2)));
  EXPECT_EQ(sub("a", 2, 4).merge(sub("a", 8, 2), m), sub("a", 2, 8));
  // Merging to the whole axis gives the full axis.
  EXPECT_EQ(sub("b", 1, 2).merge(sub("b", 2, 4), m), axis("b"));
}

TEST_F(AxisRefTest, MeshOrder) {
  MeshAttr m = mesh("<[\"c\"=8, \"a\"=2, \"b\"=2]>");
  ASSERT_TRUE(m);
  EXPECT_TRUE(AxisRefAttr::lessInMesh(m, axis("c"), axis("a")));
  EXPECT_FALSE(AxisRefAttr::lessInMesh(m, axis("a"), axis("c")));
  EXPECT_TRUE(AxisRefAttr::lessInMesh(m, axis("a"), axis("b")));
  // Sub-axes of one axis: by pre-size, then size.
  EXPECT_TRUE(AxisRefAttr::lessInMesh(m, sub("c", 1, 2), sub("c", 2, 2)));
  EXPECT_TRUE(AxisRefAttr::lessInMesh(m, sub("c", 2, 2), sub("c", 2, 4)));
  EXPECT_FALSE(AxisRefAttr::lessInMesh(m, sub("c", 4, 2), sub("c", 2, 2)));
  // Irreflexive.
  EXPECT_FALSE(AxisRefAttr::lessInMesh(m, axis("a"), axis("a")));
}

TEST_F(AxisRefTest, ParsePrintRoundTrip) {
  for (const char *text :
       {"#spmd.axis_ref<\"x\">", "#spmd.axis_ref<\"x\":(2)4>"}) {
    Attribute attr = parseAttribute(text, &context);
    ASSERT_TRUE(attr) << text;
    EXPECT_EQ(print(attr), text);
  }
}

} // namespace

namespace {
using namespace mlir::tessera::spmd;

TEST_F(AxisRefTest, CanCoexist) {
  // Full axes and other axes always can.
  EXPECT_TRUE(axis("a").canCoexist(sub("a", 2, 2)));
  EXPECT_TRUE(sub("a", 1, 2).canCoexist(sub("b", 3, 2)));
  // One factorization of 6 (2 x 3) cannot also contain (3)2.
  EXPECT_FALSE(sub("a", 1, 2).canCoexist(sub("a", 3, 2)));
  // Disjoint pieces of one split: 2 x 2 x 2.
  EXPECT_TRUE(sub("a", 1, 2).canCoexist(sub("a", 4, 2)));
  // Overlapping pieces of one split: (1)4 and (2)4 of 8.
  EXPECT_TRUE(sub("a", 1, 4).canCoexist(sub("a", 2, 4)));
  // Overlapping but not from one split: (1)4 and (2)3.
  EXPECT_FALSE(sub("a", 1, 4).canCoexist(sub("a", 2, 3)));
}

} // namespace
