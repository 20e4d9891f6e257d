//===- CollectiveShardingsTest.cpp - result shardings of collectives ------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "SpmdTestBase.h"

#include "tessera/Dialect/Spmd/IR/CollectiveShardings.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

namespace {

class CollectiveShardingsTest : public SpmdTest {
protected:
  MeshAttr m = mesh(R"(<["a"=2, "b"=2, "c"=4]>)");

  /// A sharding on the inlined mesh `m`, from its body
  /// (`[{"a"}, {}], unreduced={"b"}`).
  TensorShardingAttr sharding(const std::string &body) {
    return parse<TensorShardingAttr>("#spmd.sharding<mesh<[\"a\"=2, \"b\"=2, "
                                     "\"c\"=4]>, " +
                                     body + ">");
  }
  SmallVector<AxisRefListAttr>
  lists(std::initializer_list<SmallVector<AxisRefAttr>> axes) {
    return llvm::map_to_vector(axes, [&](const SmallVector<AxisRefAttr> &l) {
      return AxisRefListAttr::get(&context, l);
    });
  }
};

TEST_F(CollectiveShardingsTest, AllGatherRemovesSuffixKeepsDimState) {
  FailureOr<TensorShardingAttr> result =
      inferAllGatherSharding(sharding(R"([{"a", "c"}, {"b", ?}p1])"),
                             lists({{axis("c")}, {axis("b")}}), m);
  ASSERT_TRUE(succeeded(result));
  EXPECT_EQ(*result, sharding(R"([{"a"}, {?}p1])"));
}

TEST_F(CollectiveShardingsTest, AllGatherSubAxisOutOfFullAxis) {
  FailureOr<TensorShardingAttr> result = inferAllGatherSharding(
      sharding(R"([{"c"}])"), lists({{sub("c", 2, 2)}}), m);
  ASSERT_TRUE(succeeded(result));
  EXPECT_EQ(*result, sharding(R"([{"c":(1)2}])"));
}

TEST_F(CollectiveShardingsTest, AllGatherNotASuffixFails) {
  std::string error;
  EXPECT_TRUE(failed(inferAllGatherSharding(sharding(R"([{"a", "b"}])"),
                                            lists({{axis("a")}}), m, &error)));
  EXPECT_EQ(error, "can't apply gathering axis \"a\" to operand sharding on "
                   "dimension 0");
}

TEST_F(CollectiveShardingsTest, AllSliceAppendsAndMerges) {
  FailureOr<TensorShardingAttr> result =
      inferAllSliceSharding(sharding(R"([{"c":(1)2}, {}])"),
                            lists({{sub("c", 2, 2)}, {axis("a")}}), m);
  ASSERT_TRUE(succeeded(result));
  EXPECT_EQ(*result, sharding(R"([{"c"}, {"a"}])"));
}

TEST_F(CollectiveShardingsTest, AllSliceRankMismatchFails) {
  std::string error;
  EXPECT_TRUE(failed(
      inferAllSliceSharding(sharding(R"([{}, {}])"), lists({{}}), m, &error)));
  EXPECT_EQ(error,
            "operand sharding has rank 2 but collective axes has rank 1");
}

TEST_F(CollectiveShardingsTest, AllToAllMovesAxes) {
  auto param = [&](SmallVector<AxisRefAttr> axes, int64_t src, int64_t tgt) {
    return AllToAllParamAttr::get(&context, axes, src, tgt);
  };
  FailureOr<TensorShardingAttr> result = inferAllToAllSharding(
      sharding(R"([{"a", "b"}, {"c"}, {}, {}])"),
      {param({axis("b")}, 0, 2), param({axis("c")}, 1, 3)}, m);
  ASSERT_TRUE(succeeded(result));
  EXPECT_EQ(*result, sharding(R"([{"a"}, {}, {"b"}, {"c"}])"));

  std::string error;
  EXPECT_TRUE(failed(inferAllToAllSharding(
      sharding(R"([{"a"}, {}])"), {param({axis("a")}, 0, 0)}, m, &error)));
  EXPECT_EQ(error,
            "overlapping source/target dimensions in all-to-all params: 0");
  EXPECT_TRUE(
      failed(inferAllToAllSharding(sharding(R"([{"a"}, {}])"), {}, m, &error)));
  EXPECT_EQ(error, "parameter list is empty");
}

TEST_F(CollectiveShardingsTest, AllReduceRemovesReducedUnreducedAxes) {
  FailureOr<TensorShardingAttr> result =
      inferAllReduceSharding(sharding(R"([{"a"}], unreduced={"b", "c"})"),
                             {axis("b")}, ReductionKind::Sum, m);
  ASSERT_TRUE(succeeded(result));
  EXPECT_EQ(*result, sharding(R"([{"a"}], unreduced={"c"})"));
}

TEST_F(CollectiveShardingsTest, AllReduceRejectsShardedAxisAndWrongKind) {
  std::string error;
  EXPECT_TRUE(failed(inferAllReduceSharding(sharding(R"([{"a"}])"), {axis("a")},
                                            ReductionKind::Sum, m, &error)));
  EXPECT_EQ(error, "reduction axis \"a\" overlaps with operand dimension "
                   "sharding or replicated axes");
  EXPECT_TRUE(failed(
      inferAllReduceSharding(sharding(R"([{}], unreduced=max{"b"})"),
                             {axis("b")}, ReductionKind::Sum, m, &error)));
  EXPECT_EQ(error, "cannot reduce 'max' unreduced axes. Expected 'sum'.");
}

TEST_F(CollectiveShardingsTest, ReduceScatterReducesThenSlices) {
  FailureOr<TensorShardingAttr> result = inferReduceScatterSharding(
      sharding(R"([{"a"}, {}], unreduced={"b"})"), lists({{}, {axis("b")}}),
      ReductionKind::Sum, m);
  ASSERT_TRUE(succeeded(result));
  EXPECT_EQ(*result, sharding(R"([{"a"}, {"b"}])"));
}

TEST_F(CollectiveShardingsTest, PermuteKeepsShardedSizes) {
  EXPECT_TRUE(succeeded(verifyCollectivePermuteSharding(
      sharding(R"([{"a", "b"}, {}])"), m, sharding(R"([{"c"}, {}])"), m)));
  std::string error;
  EXPECT_TRUE(failed(verifyCollectivePermuteSharding(
      sharding(R"([{"a"}, {}])"), m, sharding(R"([{"c"}, {}])"), m, &error)));
  EXPECT_EQ(error,
            "sharded size of result doesn't match operand on dimension 0: "
            "4 != 2");
}

TEST_F(CollectiveShardingsTest, ResultCheckIgnoresOpenClosedAndPriority) {
  EXPECT_TRUE(succeeded(verifyCollectiveResultSharding(
      sharding(R"([{"a", ?}p2, {}])"), sharding(R"([{"a"}, {?}])"))));
  std::string error;
  EXPECT_TRUE(failed(verifyCollectiveResultSharding(
      sharding(R"([{"a"}, {}])"), sharding(R"([{}, {}])"), &error)));
  EXPECT_EQ(error, "result sharding doesn't match expected sharding [\"a\"] "
                   "on dimension 0");
}

} // namespace
