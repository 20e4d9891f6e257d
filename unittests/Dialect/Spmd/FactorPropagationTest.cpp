//===- FactorPropagationTest.cpp - projections and strategies -------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "SpmdTestBase.h"

#include "tessera/Dialect/Spmd/Transforms/FactorPropagation.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

namespace {

class FactorPropagationTest : public SpmdTest {
protected:
  MeshAttr m = mesh(R"(<["a"=2, "b"=2, "c"=4, "d"=8]>)");

  TensorShardingAttr sharding(const std::string &body) {
    return parse<TensorShardingAttr>(
        R"(#spmd.sharding<mesh<["a"=2, "b"=2, "c"=4, "d"=8]>, )" + body + ">");
  }
  OpShardingRuleAttr rule(const std::string &text) {
    return parse<OpShardingRuleAttr>("#spmd.op_sharding_rule<" + text + ">");
  }
  static PropagationDirection both(int64_t) {
    return PropagationDirection::BOTH;
  }
};

TEST_F(FactorPropagationTest, PrefixStatus) {
  EXPECT_EQ(isAxisListPrefixOf({}, {}), PrefixStatus::Equal);
  EXPECT_EQ(isAxisListPrefixOf({}, {axis("a")}), PrefixStatus::StrictPrefix);
  EXPECT_EQ(isAxisListPrefixOf({axis("a")}, {axis("a"), axis("b")}),
            PrefixStatus::StrictPrefix);
  EXPECT_EQ(isAxisListPrefixOf({sub("c", 1, 2)}, {axis("c")}),
            PrefixStatus::StrictPrefix);
  EXPECT_EQ(isAxisListPrefixOf({sub("c", 2, 2)}, {axis("c")}),
            PrefixStatus::NotAPrefix);
  EXPECT_EQ(isAxisListPrefixOf({axis("b")}, {axis("a"), axis("b")}),
            PrefixStatus::NotAPrefix);
  EXPECT_EQ(isAxisListPrefixOf({axis("a"), axis("b")}, {axis("a")}),
            PrefixStatus::NotAPrefix);
}

TEST_F(FactorPropagationTest, PrefixWithoutOverlap) {
  // "c" overlapping "c":(2)2 keeps its major part "c":(1)2.
  EXPECT_EQ(getPrefixWithoutOverlap(axis("c"), {sub("c", 2, 2)}, m),
            sub("c", 1, 2));
  EXPECT_EQ(getPrefixWithoutOverlap(axis("c"), {sub("c", 1, 2)}, m),
            std::nullopt);
  EXPECT_EQ(getPrefixWithoutOverlap(axis("a"), {axis("b")}, m), axis("a"));
}

TEST_F(FactorPropagationTest, ProjectSplitsAxisAcrossFactors) {
  // [ij] with i=2, j=4 and "c" (4), "a": i takes "c":(1)2, j the rest.
  OpShardingRuleAttr r = rule("([ij])->([i, j]) {i=2, j=4}");
  TensorFactorShardings t = ShardingProjection::project(
      sharding(R"([{"c", "a"}])"), r.getOperandMapping(0), r.getFactorSizes(),
      m);
  ASSERT_EQ(t.factorIndexToSharding.size(), 2u);
  EXPECT_EQ(t.factorIndexToSharding[0].axisRefs,
            SmallVector<AxisRefAttr>({sub("c", 1, 2)}));
  EXPECT_EQ(t.factorIndexToSharding[1].axisRefs,
            SmallVector<AxisRefAttr>({sub("c", 2, 2), axis("a")}));
  EXPECT_TRUE(t.factorIndexToSharding[1].isMinorMost);
  EXPECT_FALSE(t.factorIndexToSharding[0].isMinorMost);
}

TEST_F(FactorPropagationTest, ProjectOverflowClosesMinorFactors) {
  // [ij] with i=3: "a" (2) does not divide 3, so it is overflow of i and j
  // is closed.
  OpShardingRuleAttr r = rule("([ij])->([i, j]) {i=3, j=2}");
  TensorFactorShardings t = ShardingProjection::project(
      sharding(R"([{"a", ?}])"), r.getOperandMapping(0), r.getFactorSizes(), m);
  EXPECT_TRUE(t.factorIndexToSharding[0].axisRefs.empty());
  EXPECT_EQ(t.factorIndexToSharding[0].overflowAxes,
            SmallVector<AxisRefAttr>({axis("a")}));
  EXPECT_TRUE(t.factorIndexToSharding[1].isClosed);
  // Back to a sharding: the overflow axis stays on the (open) dim.
  EXPECT_EQ(print(t.createTensorSharding(
                r.getOperandMapping(0), r.getFactorSizes(),
                sharding("[{?}]").getMeshOrRef(), m, TensorShardingAttr())),
            print(sharding(R"([{"a", ?}])")));
}

TEST_F(FactorPropagationTest, CreateShardingStopsAfterPartialFactor) {
  // [ij] with i=4 sharded by "a" only (2 < 4): j's axes cannot follow.
  OpShardingRuleAttr r = rule("([i, j])->([ij]) {i=4, j=4}");
  TensorFactorShardings t;
  t.factorIndexToSharding[0].axisRefs = {axis("a")};
  t.factorIndexToSharding[1].axisRefs = {axis("b")};
  t.factorIndexToSharding[1].isMinorMost = true;
  EXPECT_EQ(print(t.createTensorSharding(
                r.getResultMapping(0), r.getFactorSizes(),
                sharding("[{?}]").getMeshOrRef(), m, TensorShardingAttr())),
            print(sharding(R"([{"a", ?}])")));
}

TEST_F(FactorPropagationTest, BasicCommonPrefix) {
  OpShardingRuleAttr r = rule("([i], [i])->([i]) {i=16}");
  ShardingProjection p = ShardingProjection::build(
      {sharding(R"([{"a", "b", ?}])"), sharding(R"([{"a", "c", ?}])")},
      {TensorShardingAttr()}, r, m);
  BasicFactorPropagation basic;
  EXPECT_EQ(basic.getCompatibleMajorShardingAxes(
                p, 0, PropagationDirection::BOTH, 16, m, false),
            SmallVector<AxisRefAttr>({axis("a")}));
}

TEST_F(FactorPropagationTest, BasicSubAxisMergesIntoLonger) {
  OpShardingRuleAttr r = rule("([i], [i])->([i]) {i=16}");
  ShardingProjection p = ShardingProjection::build(
      {sharding(R"([{"c":(1)2, ?}])"), sharding(R"([{"c", ?}])")},
      {TensorShardingAttr()}, r, m);
  BasicFactorPropagation basic;
  EXPECT_EQ(basic.getCompatibleMajorShardingAxes(
                p, 0, PropagationDirection::BOTH, 16, m, false),
            SmallVector<AxisRefAttr>({axis("c")}));
  // Conservatively, a sub-axis result is dropped entirely.
  ShardingProjection q = ShardingProjection::build(
      {sharding(R"([{"c":(1)2, ?}])")}, {TensorShardingAttr()},
      rule("([i])->([i]) {i=16}"), m);
  EXPECT_TRUE(basic
                  .getCompatibleMajorShardingAxes(
                      q, 0, PropagationDirection::BOTH, 16, m, true)
                  .empty());
}

TEST_F(FactorPropagationTest, BasicDivisibilityCutsToSubAxis) {
  // A non-minor factor of size 2 can take only "c":(1)2 of "c" (4).
  OpShardingRuleAttr r = rule("([ij])->([i, j]) {i=2, j=8}");
  ShardingProjection p = ShardingProjection::build(
      {TensorShardingAttr()}, {sharding(R"([{"c", ?}, {?}])")}, r, m);
  BasicFactorPropagation basic;
  // The operand's i is not minor-most: only the part that divides 2.
  EXPECT_EQ(basic.getCompatibleMajorShardingAxes(
                p, 0, PropagationDirection::BOTH, 2, m, false),
            SmallVector<AxisRefAttr>({sub("c", 1, 2)}));
}

TEST_F(FactorPropagationTest, DirectionForwardDoesNotTakeFromResults) {
  OpShardingRuleAttr r = rule("([i])->([i]) {i=16}");
  ShardingProjection p = ShardingProjection::build(
      {TensorShardingAttr()}, {sharding(R"([{"a", ?}])")}, r, m);
  BasicFactorPropagation basic;
  EXPECT_TRUE(basic
                  .getCompatibleMajorShardingAxes(
                      p, 0, PropagationDirection::FORWARD, 16, m, false)
                  .empty());
  EXPECT_EQ(basic.getCompatibleMajorShardingAxes(
                p, 0, PropagationDirection::BACKWARD, 16, m, false),
            SmallVector<AxisRefAttr>({axis("a")}));
}

TEST_F(FactorPropagationTest, AggressiveLargerSourceWins) {
  // i (8) from the lhs and j (32) from the larger rhs both want "a".
  OpShardingRuleAttr r =
      rule("([i, k], [k, j])->([i, j]) {i=8, j=32, k=16} reduction={k}");
  ShardingProjection p = ShardingProjection::build(
      {sharding(R"([{"a"}, {}])"), sharding(R"([{}, {"a"}])")},
      {TensorShardingAttr()}, r, m);
  AggressiveFactorPropagation aggressive;
  UpdateTensorShardings updates = aggressive.propagateFactorShardings(
      p, both, r.getFactorSizes(), m, false, false);
  EXPECT_TRUE(updates.updateResults[0]);
  EXPECT_TRUE(
      p.getResults()[0].factorIndexToSharding.find(0)->second.axisRefs.empty());
  EXPECT_EQ(p.getResults()[0].factorIndexToSharding.find(1)->second.axisRefs,
            SmallVector<AxisRefAttr>({axis("a")}));
}

TEST_F(FactorPropagationTest, BasicBlocksOnCrossFactorConflict) {
  OpShardingRuleAttr r =
      rule("([i, k], [k, j])->([i, j]) {i=8, j=32, k=16} reduction={k}");
  ShardingProjection p = ShardingProjection::build(
      {sharding(R"([{"a"}, {}])"), sharding(R"([{}, {"a"}])")},
      {TensorShardingAttr()}, r, m);
  BasicFactorPropagation basic;
  UpdateTensorShardings updates = basic.propagateFactorShardings(
      p, both, r.getFactorSizes(), m, false, false);
  EXPECT_FALSE(updates.updateResults[0]);
}

} // namespace
