//===- ShardingAttrTest.cpp - meshes and tensor shardings -----------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "SpmdTestBase.h"

#include "tessera/Dialect/Spmd/IR/SpmdVerifiers.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

namespace {

using MeshAttrTest = SpmdTest;
using ShardingAttrTest = SpmdTest;

TEST_F(MeshAttrTest, Queries) {
  MeshAttr m = mesh("<[\"x\"=2, \"y\"=4], axis_types=[explicit, manual]>");
  ASSERT_TRUE(m);
  EXPECT_EQ(m.getTotalSize(), 8);
  EXPECT_TRUE(m.hasAxis("y"));
  EXPECT_FALSE(m.hasAxis("z"));
  EXPECT_EQ(m.getAxisIndex("y"), 1u);
  EXPECT_EQ(m.getAxisType("x"), AxisType::Explicit);
  EXPECT_EQ(m.getAxisType("y"), AxisType::Manual);
  EXPECT_TRUE(m.hasAxisOfType(AxisType::Manual));
  EXPECT_FALSE(m.hasAxisOfType(AxisType::Auto));
  EXPECT_EQ(m.getDeviceIdsOrIota(),
            (SmallVector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_FALSE(m.isMaximal());
  EXPECT_FALSE(m.empty());
}

TEST_F(MeshAttrTest, MaximalAndEmpty) {
  MeshAttr maximal = mesh("<[], device_ids=[3]>");
  ASSERT_TRUE(maximal);
  EXPECT_TRUE(maximal.isMaximal());
  EXPECT_EQ(maximal.getMaximalDeviceId(), 3);
  MeshAttr empty = mesh("<[]>");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty.empty());
  EXPECT_FALSE(empty.isMaximal());
}

TEST_F(MeshAttrTest, CanonicalFormDropsIotaAndAllAuto) {
  MeshAttr m =
      mesh("<[\"x\"=2, \"y\"=2], device_ids=[0, 1, 2, 3], axis_types=[auto, "
           "auto]>");
  ASSERT_TRUE(m);
  EXPECT_TRUE(m.getDeviceIds().empty());
  EXPECT_TRUE(m.getAxisTypes().empty());
  EXPECT_EQ(print(m), "#spmd.mesh<[\"x\"=2, \"y\"=2]>");
  EXPECT_EQ(m, mesh("<[\"x\"=2, \"y\"=2]>"));
}

TEST_F(MeshAttrTest, WithAxisTypes) {
  MeshAttr m = mesh("<[\"x\"=2, \"y\"=2]>");
  ASSERT_TRUE(m);
  MeshAttr explicitX = m.withAxisTypes({"x"}, AxisType::Explicit);
  EXPECT_EQ(explicitX.getAxisType("x"), AxisType::Explicit);
  EXPECT_EQ(explicitX.getAxisType("y"), AxisType::Auto);
  EXPECT_TRUE(explicitX.hasSameAxes(m));
  EXPECT_EQ(explicitX.withAxisTypes({"x"}, AxisType::Auto), m);
}

TEST_F(MeshAttrTest, InvalidMeshesAreRejected) {
  // The parser reports and returns null for every broken invariant.
  ScopedDiagnosticHandler silence(&context,
                                  [](Diagnostic &) { return success(); });
  EXPECT_FALSE(mesh("<[\"x\"=2, \"x\"=2]>"));
  EXPECT_FALSE(mesh("<[\"x\"=0]>"));
  EXPECT_FALSE(mesh("<[\"x\"=2], device_ids=[0, 1, 2]>"));
  EXPECT_FALSE(mesh("<[\"x\"=2], device_ids=[0, 2]>"));
  EXPECT_FALSE(mesh("<[], device_ids=[0, 1]>"));
  EXPECT_FALSE(mesh("<[\"x\"=2], axis_types=[auto, auto]>"));
}

TEST_F(ShardingAttrTest, RoundTrip) {
  for (const char *text : {
           "#spmd.sharding<@mesh, [{\"x\"}, {\"y\", ?}p1, {}]>",
           "#spmd.sharding<@mesh, [{?}, {\"x\":(1)2}], replicated={\"z\"}>",
           "#spmd.sharding<@mesh, [{}], unreduced={\"a\", \"b\"}>",
           "#spmd.sharding<@mesh, [{}], unreduced=max{\"a\"}>",
           "#spmd.sharding<@mesh, [{}], replicated={\"b\"}, "
           "unreduced=min{\"a\"}>",
           "#spmd.sharding<mesh<[\"x\"=2]>, [{\"x\"}, {}]>",
           "#spmd.sharding<@mesh, []>",
       }) {
    Attribute attr = parseAttribute(text, &context);
    ASSERT_TRUE(attr) << text;
    EXPECT_EQ(print(attr), text);
  }
  // An explicit `sum` kind is the default and is not printed.
  EXPECT_EQ(print(parse<TensorShardingAttr>(
                "#spmd.sharding<@mesh, [{}], unreduced=sum{\"a\"}>")),
            "#spmd.sharding<@mesh, [{}], unreduced={\"a\"}>");
}

TEST_F(ShardingAttrTest, Queries) {
  auto s = parse<TensorShardingAttr>(
      "#spmd.sharding<mesh<[\"x\"=2, \"y\"=4]>, [{\"x\", \"y\":(1)2}, {?}], "
      "replicated={\"y\":(2)2}>");
  ASSERT_TRUE(s);
  MeshAttr m = s.getMesh(nullptr);
  ASSERT_TRUE(m);
  EXPECT_EQ(s.getRank(), 2);
  EXPECT_EQ(s.getDimSharding(0).getShardedSize(m), 4);
  EXPECT_TRUE(s.getDimSharding(1).isOpen());
  EXPECT_FALSE(s.isFullyReplicated());
  EXPECT_FALSE(s.isFullyClosed());
  EXPECT_EQ(s.getAllAxisRefs().size(), 3u);
  EXPECT_EQ(s.getLocalShape({8, 5}, m), (SmallVector<int64_t>{2, 5}));
  EXPECT_EQ(s.getLocalShape({6, 5}, m), (SmallVector<int64_t>{2, 5}));
  EXPECT_EQ(s.getLocalShape({ShapedType::kDynamic, 5}, m),
            (SmallVector<int64_t>{ShapedType::kDynamic, 5}));
}

/// Runs the in-context verifier and returns the first error message, or ""
/// when the sharding is valid.
static std::string verifyMessage(MLIRContext &ctx, TensorShardingAttr s,
                                 Type type, bool divisibility = false) {
  std::string message;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    if (message.empty())
      message = diag.str();
    return success();
  });
  EmitErrorFn emitError = [&](StringRef msg) {
    return mlir::emitError(UnknownLoc::get(&ctx)) << msg;
  };
  (void)verifyTensorSharding(s, type, s.getMesh(nullptr), emitError,
                             divisibility);
  return message;
}

TEST_F(ShardingAttrTest, VerifierCatchesAxisAlgebraErrors) {
  Type t2 = RankedTensorType::get({8, 8}, Float32Type::get(&context));
  auto check = [&](const std::string &dims, const std::string &extra = "") {
    auto s = parse<TensorShardingAttr>(
        "#spmd.sharding<mesh<[\"x\"=8, \"y\"=2]>, " + dims + extra + ">");
    EXPECT_TRUE(s) << dims;
    return s ? verifyMessage(context, s, t2) : std::string("parse failed");
  };
  EXPECT_EQ(check("[{\"x\"}, {\"y\"}]"), "");
  EXPECT_EQ(check("[{\"x\":(1)2}, {\"x\":(2)4}]"), "");
  EXPECT_EQ(check("[{\"x\":(1)2, \"x\":(2)4}, {}]"),
            "two consecutive sub-axes can be merged: \"x\":(1)2, \"x\":(2)4");
  EXPECT_EQ(check("[{\"x\":(1)4}, {\"x\":(2)2}]"),
            "overlapping sub-axes: \"x\":(1)4, \"x\":(2)2");
  EXPECT_EQ(check("[{\"x\"}, {\"x\":(2)2}]"),
            "both sub-axis and full-axis are used for axis name: \"x\"");
  EXPECT_EQ(check("[{\"x\":(1)8}, {}]"),
            "sub-axis size is equal to the full axis size: \"x\":(1)8");
  EXPECT_EQ(check("[{\"x\":(1)3}, {}]"),
            "sub-axis next pre-size 3 doesn't divide the size of the full "
            "axis 8: \"x\":(1)3");
  EXPECT_EQ(check("[{\"x\":(1)1}, {}]"),
            "sub-axis sizes must be greater than 1: \"x\":(1)1");
  EXPECT_EQ(check("[{\"x\":(0)2}, {}]"),
            "sub-axis pre-size must be at least 1: \"x\":(0)2");
  EXPECT_EQ(check("[{\"x\"}, {\"x\"}]"), "duplicate axis ref: \"x\"");
  EXPECT_EQ(check("[{\"z\"}, {}]"), "unknown axis name: \"z\"");
  EXPECT_EQ(check("[{}, {}]", ", replicated={\"y\", \"x\"}"),
            "replicated axes are not ordered w.r.t. mesh");
  EXPECT_EQ(check("[{}, {}]", ", unreduced={\"y\", \"x\"}"),
            "unreduced axes are not ordered w.r.t. mesh");
  EXPECT_EQ(check("[{}p1, {}]"),
            "dim 0 is empty and closed but has a priority");
  EXPECT_EQ(check("[{}]"), "sharding doesn't match tensor rank: 1 != 2");
}

TEST_F(ShardingAttrTest, DivisibilityIsOptional) {
  Type t = RankedTensorType::get({6}, Float32Type::get(&context));
  auto s =
      parse<TensorShardingAttr>("#spmd.sharding<mesh<[\"x\"=4]>, [{\"x\"}]>");
  ASSERT_TRUE(s);
  EXPECT_EQ(verifyMessage(context, s, t), "");
  EXPECT_EQ(verifyMessage(context, s, t, /*divisibility=*/true),
            "dim 0 with size 6 is not divisible by its sharded size 4");
}

} // namespace
