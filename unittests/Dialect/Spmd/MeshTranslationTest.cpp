//===- MeshTranslationTest.cpp - shardings between meshes of other axes ---===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "SpmdTestBase.h"

#include "tessera/Dialect/Spmd/IR/CollectiveShardings.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

namespace {

class MeshTranslationTest : public SpmdTest {
protected:
  /// A sharding on the inlined mesh `meshBody` (`<["x"=2]>`) with `body`.
  TensorShardingAttr sharding(const std::string &meshBody,
                              const std::string &body) {
    return parse<TensorShardingAttr>("#spmd.sharding<mesh" + meshBody + ", " +
                                     body + ">");
  }
  /// translateShardingToMesh from `fromBody` to `toBody`.
  FailureOr<TensorShardingAttr> translate(const std::string &fromBody,
                                          const std::string &body,
                                          const std::string &toBody) {
    MeshAttr to = mesh(toBody);
    return translateShardingToMesh(sharding(fromBody, body), mesh(fromBody), to,
                                   to);
  }
};

TEST_F(MeshTranslationTest, TwoAxesToTheirOneDimensionalView) {
  // "x" is the major factor 2 of the 8 positions, "y" the minor 4.
  FailureOr<TensorShardingAttr> result =
      translate(R"(<["x"=2, "y"=4]>)", R"([{"x", "y"}, {}])", R"(<["z"=8]>)");
  ASSERT_TRUE(succeeded(result));
  EXPECT_EQ(*result, sharding(R"(<["z"=8]>)", R"([{"z"}, {}])"));

  result =
      translate(R"(<["x"=2, "y"=4]>)", R"([{"y"}, {"x"}])", R"(<["z"=8]>)");
  ASSERT_TRUE(succeeded(result));
  EXPECT_EQ(*result, sharding(R"(<["z"=8]>)", R"([{"z":(2)4}, {"z":(1)2}])"));
}

TEST_F(MeshTranslationTest, OneDimensionalViewBackToTwoAxes) {
  FailureOr<TensorShardingAttr> result =
      translate(R"(<["z"=8]>)", R"([{"z":(1)4}, {}], unreduced={"z":(4)2})",
                R"(<["x"=2, "y"=4]>)");
  ASSERT_TRUE(succeeded(result));
  EXPECT_EQ(*result,
            sharding(R"(<["x"=2, "y"=4]>)",
                     R"([{"x", "y":(1)2}, {}], unreduced={"y":(2)2})"));
}

TEST_F(MeshTranslationTest, RegroupedAxes) {
  // 2x2x2 to 4x2: "a" and "b" are the two factors of "p".
  FailureOr<TensorShardingAttr> result =
      translate(R"(<["a"=2, "b"=2, "c"=2]>)", R"([{"b"}, {"c", "a"}])",
                R"(<["p"=4, "q"=2]>)");
  ASSERT_TRUE(succeeded(result));
  EXPECT_EQ(*result, sharding(R"(<["p"=4, "q"=2]>)",
                              R"([{"p":(2)2}, {"q", "p":(1)2}])"));
}

TEST_F(MeshTranslationTest, UnalignedDigitsFail) {
  // "x"=2 of a 2x3 mesh covers positions 3 apart, which no sub-axis of a
  // 3x2 mesh does.
  EXPECT_TRUE(failed(
      translate(R"(<["x"=2, "y"=3]>)", R"([{"x"}])", R"(<["a"=3, "b"=2]>)")));
  EXPECT_TRUE(
      failed(translate(R"(<["x"=2, "y"=4]>)", R"([{"x"}])", R"(<["z"=4]>)")));
}

TEST_F(MeshTranslationTest, ReplicatedAxesDropped) {
  FailureOr<TensorShardingAttr> result = translate(
      R"(<["x"=2, "y"=2]>)", R"([{"x", ?}], replicated={"y"})", R"(<["z"=4]>)");
  ASSERT_TRUE(succeeded(result));
  EXPECT_EQ(*result, sharding(R"(<["z"=4]>)", R"([{"z":(1)2, ?}])"));
}

} // namespace
