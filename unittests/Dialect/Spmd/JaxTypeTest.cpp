//===- JaxTypeTest.cpp - JAX-style type and PartitionSpec strings ---------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "SpmdTestBase.h"

#include "tessera/Dialect/Spmd/IR/JaxType.h"
#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

namespace {

class JaxTypeTest : public SpmdTest {
protected:
  Type type(const std::string &text) { return parseType(text, &context); }

  TensorShardingAttr sharding(const std::string &body) {
    TensorShardingAttr attr =
        parse<TensorShardingAttr>("#spmd.sharding" + body);
    EXPECT_TRUE(attr) << body;
    return attr;
  }

  /// The type string of `typeText` sharded by `#spmd.sharding<@m, ...>`
  /// (`shardingBody` is the part after `@m, `) over `meshAttr`.
  std::string str(const std::string &typeText, const std::string &shardingBody,
                  MeshAttr meshAttr, JaxTypeOptions options = {},
                  ArrayRef<StringRef> symbolicDims = {}) {
    TensorShardingAttr s;
    if (!shardingBody.empty())
      s = sharding("<@m, " + shardingBody + ">");
    return getJaxTypeString(type(typeText), s, meshAttr, options, symbolicDims);
  }

  /// The type string of an unsharded value of type `typeText`.
  std::string unsharded(const std::string &typeText,
                        JaxTypeOptions options = {}) {
    return getJaxTypeString(type(typeText), {}, {}, options);
  }

  std::string dtype(const std::string &typeText, bool shortDtypes = true) {
    std::string result;
    llvm::raw_string_ostream os(result);
    printJaxDtype(os, type(typeText), shortDtypes);
    return result;
  }

  std::string spec(const std::string &shardingBody, MeshAttr meshAttr,
                   JaxTypeOptions options = {}) {
    return getPartitionSpecString(sharding("<@m, " + shardingBody + ">"),
                                  meshAttr, options);
  }

  std::string tuple(const std::string &shardingBody, MeshAttr meshAttr,
                    JaxTypeOptions options = {}) {
    std::string result;
    llvm::raw_string_ostream os(result);
    printPartitionTuple(os, sharding("<@m, " + shardingBody + ">"), meshAttr,
                        options);
    return result;
  }

  MeshAttr explicitXY() {
    return mesh("<[\"x\"=2, \"y\"=4], axis_types=[explicit, explicit]>");
  }
  MeshAttr explicitXYZ() {
    return mesh("<[\"x\"=2, \"y\"=2, \"z\"=2], axis_types=[explicit, "
                "explicit, explicit]>");
  }
  MeshAttr explicitAuto() {
    return mesh("<[\"x\"=2, \"y\"=2], axis_types=[explicit, auto]>");
  }

  static JaxTypeOptions allAxes() {
    JaxTypeOptions options;
    options.allAxes = true;
    return options;
  }
  static JaxTypeOptions longDtypes() {
    JaxTypeOptions options;
    options.shortDtypes = false;
    return options;
  }
};

//===----------------------------------------------------------------------===//
// Dtypes
//===----------------------------------------------------------------------===//

TEST_F(JaxTypeTest, ShortDtypeNames) {
  EXPECT_EQ(dtype("f16"), "f16");
  EXPECT_EQ(dtype("bf16"), "bf16");
  EXPECT_EQ(dtype("f32"), "f32");
  EXPECT_EQ(dtype("f64"), "f64");
  EXPECT_EQ(dtype("i1"), "bool");
  EXPECT_EQ(dtype("i8"), "i8");
  EXPECT_EQ(dtype("i16"), "i16");
  EXPECT_EQ(dtype("i32"), "i32");
  EXPECT_EQ(dtype("i64"), "i64");
  EXPECT_EQ(dtype("si32"), "i32");
  EXPECT_EQ(dtype("ui8"), "u8");
  EXPECT_EQ(dtype("ui16"), "u16");
  EXPECT_EQ(dtype("ui32"), "u32");
  EXPECT_EQ(dtype("ui64"), "u64");
  EXPECT_EQ(dtype("i4"), "i4");
  EXPECT_EQ(dtype("ui4"), "u4");
  EXPECT_EQ(dtype("complex<f32>"), "c64");
  EXPECT_EQ(dtype("complex<f64>"), "c128");
}

TEST_F(JaxTypeTest, Float8AndNarrowFloatNames) {
  // ml_dtypes' names with `float` shortened to `f`, as JAX's
  // short_dtype_name does.
  EXPECT_EQ(dtype("f8E4M3FN"), "f8_e4m3fn");
  EXPECT_EQ(dtype("f8E5M2"), "f8_e5m2");
  EXPECT_EQ(dtype("f8E4M3"), "f8_e4m3");
  EXPECT_EQ(dtype("f8E4M3FNUZ"), "f8_e4m3fnuz");
  EXPECT_EQ(dtype("f8E5M2FNUZ"), "f8_e5m2fnuz");
  EXPECT_EQ(dtype("f8E4M3B11FNUZ"), "f8_e4m3b11fnuz");
  EXPECT_EQ(dtype("f8E3M4"), "f8_e3m4");
  EXPECT_EQ(dtype("f8E8M0FNU"), "f8_e8m0fnu");
  EXPECT_EQ(dtype("f6E2M3FN"), "f6_e2m3fn");
  EXPECT_EQ(dtype("f6E3M2FN"), "f6_e3m2fn");
  EXPECT_EQ(dtype("f4E2M1FN"), "f4_e2m1fn");
}

TEST_F(JaxTypeTest, DtypesWithoutJaxName) {
  EXPECT_EQ(dtype("index"), "index");
  EXPECT_EQ(dtype("tf32"), "tf32");
  EXPECT_EQ(dtype("f80"), "f80");
  EXPECT_EQ(dtype("f128"), "f128");
  EXPECT_EQ(dtype("i7"), "i7");
  EXPECT_EQ(dtype("ui7"), "u7");
  EXPECT_EQ(dtype("si1"), "i1");
  EXPECT_EQ(dtype("ui1"), "u1");
  EXPECT_EQ(dtype("complex<bf16>"), "complex<bf16>");
  EXPECT_EQ(dtype("complex<i32>"), "complex<i32>");
  EXPECT_EQ(dtype("none"), "none");
}

TEST_F(JaxTypeTest, LongDtypeNames) {
  // `float32` -> `f32` is JAX's short form; the long form is NumPy's name.
  EXPECT_EQ(dtype("f32", false), "float32");
  EXPECT_EQ(dtype("bf16", false), "bfloat16");
  EXPECT_EQ(dtype("i32", false), "int32");
  EXPECT_EQ(dtype("ui32", false), "uint32");
  EXPECT_EQ(dtype("i1", false), "bool");
  EXPECT_EQ(dtype("complex<f32>", false), "complex64");
  EXPECT_EQ(dtype("complex<f64>", false), "complex128");
  EXPECT_EQ(dtype("f8E4M3FN", false), "float8_e4m3fn");
  EXPECT_EQ(dtype("f4E2M1FN", false), "float4_e2m1fn");
  // JAX's reshape error quotes the operand with its full dtype name.
  EXPECT_EQ(
      str("tensor<4x6x8xf32>", "[{\"x\"}, {}, {}]", explicitXY(), longDtypes()),
      "float32[4@x,6,8]");
  EXPECT_EQ(str("tensor<2x8xi32>", "[{\"x\"}, {}]", explicitXY(), longDtypes()),
            "int32[2@x,8]");
}

//===----------------------------------------------------------------------===//
// Unsharded and non-tensor types
//===----------------------------------------------------------------------===//

TEST_F(JaxTypeTest, UnshardedTypes) {
  EXPECT_EQ(unsharded("tensor<8x4xf32>"), "f32[8,4]");
  EXPECT_EQ(unsharded("tensor<128x64xbf16>"), "bf16[128,64]");
  EXPECT_EQ(unsharded("tensor<3xi1>"), "bool[3]");
  EXPECT_EQ(unsharded("tensor<0x4xf32>"), "f32[0,4]");
  EXPECT_EQ(unsharded("tensor<f32>"), "f32[]");
  EXPECT_EQ(unsharded("tensor<8x4xf32>", longDtypes()), "float32[8,4]");
}

TEST_F(JaxTypeTest, ScalarsAreRankZeroArrays) {
  EXPECT_EQ(unsharded("f32"), "f32[]");
  EXPECT_EQ(unsharded("i1"), "bool[]");
  EXPECT_EQ(unsharded("index"), "index[]");
  EXPECT_EQ(unsharded("complex<f32>"), "c64[]");
  EXPECT_EQ(unsharded("i64"), unsharded("tensor<i64>"));
}

TEST_F(JaxTypeTest, OtherTypes) {
  EXPECT_EQ(unsharded("tensor<*xf32>"), "f32[*]");
  EXPECT_EQ(unsharded("vector<4xf32>"), "vector<4xf32>");
  EXPECT_EQ(unsharded("memref<8xf32>"), "memref<8xf32>");
  EXPECT_EQ(unsharded("none"), "none");
  EXPECT_EQ(unsharded("tuple<f32, i32>"), "tuple<f32, i32>");
}

TEST_F(JaxTypeTest, DynamicDimsWithoutNames) {
  EXPECT_EQ(unsharded("tensor<?x4xf32>"), "f32[?,4]");
  EXPECT_EQ(unsharded("tensor<?x?xi32>"), "i32[?,?]");
}

//===----------------------------------------------------------------------===//
// Sharded dimensions
//===----------------------------------------------------------------------===//

TEST_F(JaxTypeTest, ExamplesFromTheSharpBitsDoc) {
  MeshAttr m = mesh("<[\"X\"=4, \"Y\"=2], axis_types=[explicit, explicit]>");
  // f32[4@X,1] + f32[1,8@Y] gives f32[4@X,8@Y].
  EXPECT_EQ(str("tensor<4x1xf32>", "[{\"X\"}, {}]", m), "f32[4@X,1]");
  EXPECT_EQ(str("tensor<1x8xf32>", "[{}, {\"Y\"}]", m), "f32[1,8@Y]");
  EXPECT_EQ(str("tensor<4x8xf32>", "[{\"X\"}, {\"Y\"}]", m), "f32[4@X,8@Y]");
}

TEST_F(JaxTypeTest, SingleAxisDims) {
  MeshAttr m = explicitXYZ();
  EXPECT_EQ(str("tensor<8x2xi32>", "[{\"x\"}, {}]", m), "i32[8@x,2]");
  EXPECT_EQ(str("tensor<2x8xi32>", "[{}, {\"x\"}]", m), "i32[2,8@x]");
  // The "illegally sharded result" message prints a duplicate as given.
  EXPECT_EQ(str("tensor<8x8xi32>", "[{\"x\"}, {\"x\"}]", m), "i32[8@x,8@x]");
  EXPECT_EQ(str("tensor<4x2x2xi32>", "[{\"x\"}, {\"y\"}, {\"z\"}]", m),
            "i32[4@x,2@y,2@z]");
  EXPECT_EQ(str("tensor<1x8x2xf32>", "[{}, {\"x\"}, {\"y\"}]", m),
            "f32[1,8@x,2@y]");
  EXPECT_EQ(str("tensor<16x128x8xf32>", "[{\"x\"}, {\"y\"}, {}]", m),
            "f32[16@x,128@y,8]");
}

TEST_F(JaxTypeTest, MultiAxisDimsAreMajorToMinor) {
  MeshAttr m = explicitXYZ();
  EXPECT_EQ(str("tensor<8x2xf32>", "[{\"x\", \"y\"}, {}]", m),
            "f32[8@(x,y),2]");
  EXPECT_EQ(str("tensor<8x2xf32>", "[{\"y\", \"x\"}, {}]", m),
            "f32[8@(y,x),2]");
  EXPECT_EQ(str("tensor<8x2xf32>", "[{\"x\", \"y\", \"z\"}, {}]", m),
            "f32[8@(x,y,z),2]");
  EXPECT_EQ(str("tensor<8x2xf32>", "[{}, {\"z\", \"x\"}]", m),
            "f32[8,2@(z,x)]");
}

TEST_F(JaxTypeTest, RankZeroSharded) {
  EXPECT_EQ(str("tensor<f32>", "[]", explicitXY()), "f32[]");
  EXPECT_EQ(str("f32", "[]", explicitXY()), "f32[]");
}

TEST_F(JaxTypeTest, ReplicatedOpenAndPriorityAreNotShown) {
  MeshAttr m = explicitXYZ();
  EXPECT_EQ(str("tensor<8x4xf32>", "[{\"x\"}, {}], replicated={\"y\"}", m),
            "f32[8@x,4]");
  EXPECT_EQ(str("tensor<8x4xf32>", "[{\"x\", ?}p1, {?}]", m), "f32[8@x,4]");
  EXPECT_EQ(str("tensor<8x4xf32>", "[{}, {}], replicated={\"x\", \"y\"}", m),
            "f32[8,4]");
}

//===----------------------------------------------------------------------===//
// Unreduced axes
//===----------------------------------------------------------------------===//

TEST_F(JaxTypeTest, UnreducedKinds) {
  MeshAttr m = explicitXYZ();
  EXPECT_EQ(str("tensor<2x2xf32>", "[{}, {}], unreduced={\"x\"}", m),
            "f32[2,2]{U:x}");
  EXPECT_EQ(str("tensor<2x2xf32>", "[{}, {}], unreduced=sum{\"x\"}", m),
            "f32[2,2]{U:x}");
  EXPECT_EQ(str("tensor<2x2xf32>", "[{}, {}], unreduced=max{\"x\"}", m),
            "f32[2,2]{U_max:x}");
  EXPECT_EQ(str("tensor<2x2xf32>", "[{}, {}], unreduced=min{\"x\"}", m),
            "f32[2,2]{U_min:x}");
}

TEST_F(JaxTypeTest, SeveralUnreducedAxesInMeshOrder) {
  MeshAttr m = explicitXYZ();
  EXPECT_EQ(
      str("tensor<8x2xf32>", "[{\"z\"}, {}], unreduced={\"x\", \"y\"}", m),
      "f32[8@z,2]{U:(x,y)}");
  // Out-of-order lists (which the verifier rejects) still print in mesh
  // order.
  EXPECT_EQ(str("tensor<8x2xf32>", "[{}, {}], unreduced={\"z\", \"x\"}", m),
            "f32[8,2]{U:(x,z)}");
  EXPECT_EQ(str("tensor<f32>", "[], unreduced=max{\"y\", \"z\"}", m),
            "f32[]{U_max:(y,z)}");
}

//===----------------------------------------------------------------------===//
// Explicit-only filtering
//===----------------------------------------------------------------------===//

TEST_F(JaxTypeTest, AutoAxesAreErasedOnAMixedMesh) {
  MeshAttr m = explicitAuto();
  EXPECT_EQ(str("tensor<8x4xf32>", "[{\"x\"}, {\"y\"}]", m), "f32[8@x,4]");
  EXPECT_EQ(str("tensor<8x4xf32>", "[{\"y\"}, {\"x\"}]", m), "f32[8,4@x]");
  // Inside a multi-axis dimension only the explicit names are kept, and one
  // name left is printed bare.
  EXPECT_EQ(str("tensor<8x4xf32>", "[{\"x\", \"y\"}, {}]", m), "f32[8@x,4]");
  EXPECT_EQ(str("tensor<8x4xf32>", "[{\"y\", \"x\"}, {}]", m), "f32[8@x,4]");
  EXPECT_EQ(str("tensor<8x4xf32>", "[{}, {}], unreduced={\"y\"}", m),
            "f32[8,4]");
  EXPECT_EQ(str("tensor<8x4xf32>", "[{}, {}], unreduced={\"x\", \"y\"}", m),
            "f32[8,4]{U:x}");
}

TEST_F(JaxTypeTest, AllAxesOptionShowsAutoAndManualAxes) {
  MeshAttr m = explicitAuto();
  EXPECT_EQ(str("tensor<8x4xf32>", "[{\"x\"}, {\"y\"}]", m, allAxes()),
            "f32[8@x,4@y]");
  EXPECT_EQ(str("tensor<8x4xf32>", "[{\"y\", \"x\"}, {}]", m, allAxes()),
            "f32[8@(y,x),4]");
  EXPECT_EQ(str("tensor<8x4xf32>", "[{}, {}], unreduced={\"x\", \"y\"}", m,
                allAxes()),
            "f32[8,4]{U:(x,y)}");
  MeshAttr manual = mesh("<[\"x\"=2, \"y\"=2], axis_types=[manual, explicit]>");
  EXPECT_EQ(str("tensor<8x4xf32>", "[{\"x\"}, {\"y\"}]", manual), "f32[8,4@y]");
  EXPECT_EQ(str("tensor<8x4xf32>", "[{\"x\"}, {\"y\"}]", manual, allAxes()),
            "f32[8@x,4@y]");
}

TEST_F(JaxTypeTest, FullyAutoMeshPrintsReplicated) {
  // JAX's test_only_auto: with only Auto axes every type is unsharded.
  MeshAttr m = mesh("<[\"x\"=2, \"y\"=2]>");
  EXPECT_EQ(str("tensor<8x4xf32>", "[{\"x\"}, {\"y\"}]", m), "f32[8,4]");
  EXPECT_EQ(str("tensor<8x4xf32>", "[{\"x\"}, {\"y\"}]", m, allAxes()),
            "f32[8@x,4@y]");
}

TEST_F(JaxTypeTest, UnknownMeshOrAxisCountsAsAuto) {
  EXPECT_EQ(str("tensor<8x4xf32>", "[{\"x\"}, {}], unreduced={\"y\"}", {}),
            "f32[8,4]");
  EXPECT_EQ(
      str("tensor<8x4xf32>", "[{\"x\"}, {}], unreduced={\"y\"}", {}, allAxes()),
      "f32[8@x,4]{U:y}");
  EXPECT_EQ(str("tensor<8x4xf32>", "[{\"w\"}, {\"x\"}]", explicitXY()),
            "f32[8,4@x]");
}

TEST_F(JaxTypeTest, MismatchedRankDoesNotCrash) {
  MeshAttr m = explicitXY();
  EXPECT_EQ(str("tensor<8x4xf32>", "[{\"x\"}]", m), "f32[8@x,4]");
  EXPECT_EQ(str("tensor<8xf32>", "[{}, {\"x\"}, {\"y\"}]", m), "f32[8]");
  EXPECT_EQ(str("vector<8xf32>", "[{\"x\"}]", m), "vector<8xf32>");
  EXPECT_EQ(str("tensor<*xf32>", "[{\"x\"}], unreduced={\"y\"}", m),
            "f32[*]{U:y}");
}

//===----------------------------------------------------------------------===//
// Sub-axes
//===----------------------------------------------------------------------===//

TEST_F(JaxTypeTest, SubAxes) {
  MeshAttr m = mesh("<[\"x\"=4, \"y\"=2], axis_types=[explicit, explicit]>");
  EXPECT_EQ(str("tensor<8x4xf32>", "[{\"x\":(1)2}, {\"x\":(2)2}]", m),
            "f32[8@x:(1)2,4@x:(2)2]");
  EXPECT_EQ(str("tensor<8x4xf32>", "[{\"y\", \"x\":(2)2}, {}]", m),
            "f32[8@(y,x:(2)2),4]");
  EXPECT_EQ(
      str("tensor<8x4xf32>", "[{\"x\":(2)2}, {}], unreduced={\"x\":(1)2}", m),
      "f32[8@x:(2)2,4]{U:x:(1)2}");
  // A sub-axis has the type of its full axis.
  MeshAttr mixed = mesh("<[\"x\"=4, \"y\"=2], axis_types=[auto, explicit]>");
  EXPECT_EQ(str("tensor<8x4xf32>", "[{\"y\", \"x\":(2)2}, {}]", mixed),
            "f32[8@y,4]");
}

//===----------------------------------------------------------------------===//
// Symbolic dimensions
//===----------------------------------------------------------------------===//

TEST_F(JaxTypeTest, SymbolicDims) {
  MeshAttr m = explicitXY();
  StringRef b[] = {"b", ""};
  EXPECT_EQ(str("tensor<?x4xf32>", "[{\"x\"}, {}]", m, {}, b), "f32[b@x,4]");
  EXPECT_EQ(str("tensor<?x4xf32>", "[{\"x\"}, {}]", m), "f32[?@x,4]");
  StringRef exprs[] = {"2*d", "b + 1"};
  EXPECT_EQ(str("tensor<?x?xf32>", "", {}, {}, exprs), "f32[2*d,b + 1]");
  // Missing or empty names leave `?`; static dims always print their size.
  StringRef partial[] = {""};
  EXPECT_EQ(str("tensor<?x?xf32>", "[{}, {\"y\"}]", m, {}, partial),
            "f32[?,?@y]");
  StringRef ignored[] = {"a", "k"};
  EXPECT_EQ(str("tensor<?x4xf32>", "", {}, {}, ignored), "f32[a,4]");
}

//===----------------------------------------------------------------------===//
// PartitionSpecs
//===----------------------------------------------------------------------===//

TEST_F(JaxTypeTest, PartitionSpecs) {
  MeshAttr m = explicitXYZ();
  EXPECT_EQ(spec("[{\"x\"}, {}]", m), "P('x', None)");
  EXPECT_EQ(spec("[{\"x\", \"y\"}, {}]", m), "P(('x', 'y'), None)");
  EXPECT_EQ(spec("[{}, {\"y\", \"x\", \"z\"}]", m), "P(None, ('y', 'x', 'z'))");
  EXPECT_EQ(spec("[{}, {}]", m), "P(None, None)");
  EXPECT_EQ(spec("[]", m), "P()");
  // A rank-1 spec keeps Python's trailing comma.
  EXPECT_EQ(spec("[{\"z\"}]", m), "P('z',)");
  EXPECT_EQ(spec("[{}]", m), "P(None,)");
}

TEST_F(JaxTypeTest, PartitionSpecsWithUnreduced) {
  MeshAttr m = explicitXYZ();
  EXPECT_EQ(spec("[{\"x\"}], unreduced={\"y\"}", m), "P('x', unreduced={'y'})");
  EXPECT_EQ(spec("[{\"x\"}, {}], unreduced={\"y\"}", m),
            "P('x', None, unreduced={'y'})");
  EXPECT_EQ(spec("[], unreduced={\"x\", \"y\"}", m), "P(unreduced={'x', 'y'})");
  EXPECT_EQ(spec("[{}], unreduced={\"z\", \"x\"}", m),
            "P(None, unreduced={'x', 'z'})");
  EXPECT_EQ(spec("[], unreduced=max{\"x\"}", m),
            "P(unreduced={'x'}, unreduced_kind=max)");
  EXPECT_EQ(spec("[{}, {}], unreduced=min{\"x\"}", m),
            "P(None, None, unreduced={'x'}, unreduced_kind=min)");
}

TEST_F(JaxTypeTest, PartitionSpecsShowExplicitAxesByDefault) {
  MeshAttr m = explicitAuto();
  EXPECT_EQ(spec("[{\"x\"}, {\"y\"}]", m), "P('x', None)");
  EXPECT_EQ(spec("[{\"y\", \"x\"}, {}]", m), "P('x', None)");
  EXPECT_EQ(spec("[{}, {}], unreduced={\"y\"}", m), "P(None, None)");
  EXPECT_EQ(spec("[{\"x\"}, {\"y\"}]", m, allAxes()), "P('x', 'y')");
  EXPECT_EQ(spec("[{\"y\", \"x\"}, {}]", m, allAxes()), "P(('y', 'x'), None)");
}

TEST_F(JaxTypeTest, PartitionSpecsWithSubAxes) {
  MeshAttr m = mesh("<[\"x\"=4, \"y\"=2], axis_types=[explicit, explicit]>");
  EXPECT_EQ(spec("[{\"x\":(1)2}, {\"y\", \"x\":(2)2}]", m),
            "P('x:(1)2', ('y', 'x:(2)2'))");
}

TEST_F(JaxTypeTest, PartitionTuples) {
  MeshAttr m = explicitXYZ();
  EXPECT_EQ(tuple("[{\"x\"}, {}]", m), "('x', None)");
  EXPECT_EQ(tuple("[{\"x\", \"y\"}, {}]", m), "(('x', 'y'), None)");
  EXPECT_EQ(tuple("[{\"y\"}]", m), "('y',)");
  EXPECT_EQ(tuple("[]", m), "()");
  // Unreduced axes are not part of the partitions.
  EXPECT_EQ(tuple("[{\"x\"}], unreduced={\"y\"}", m), "('x',)");
}

TEST_F(JaxTypeTest, PartitionEntries) {
  MeshAttr m = explicitAuto();
  auto entry = [&](ArrayRef<AxisRefAttr> axes, JaxTypeOptions options = {}) {
    std::string result;
    llvm::raw_string_ostream os(result);
    printPartitionEntry(os, axes, m, options);
    return result;
  };
  EXPECT_EQ(entry({}), "None");
  EXPECT_EQ(entry({axis("x")}), "'x'");
  EXPECT_EQ(entry({axis("y")}), "None");
  EXPECT_EQ(entry({axis("y"), axis("x")}), "'x'");
  EXPECT_EQ(entry({axis("y"), axis("x")}, allAxes()), "('y', 'x')");
}

TEST_F(JaxTypeTest, AxisNamesQuotedAsPython) {
  MeshAttr m = mesh("<[\"it's\"=2, \"a\\\"b\"=2, \"c'd\\\"\"=2], axis_types=["
                    "explicit, explicit, explicit]>");
  ASSERT_TRUE(m);
  TensorShardingAttr s = TensorShardingAttr::get(
      &context, "m",
      {DimensionShardingAttr::get(&context, {axis("it's")}, true),
       DimensionShardingAttr::get(&context, {axis("a\"b")}, true),
       DimensionShardingAttr::get(&context, {axis("c'd\"")}, true)});
  EXPECT_EQ(getPartitionSpecString(s, m), "P(\"it's\", 'a\"b', 'c\\'d\"')");
}

//===----------------------------------------------------------------------===//
// Values in IR
//===----------------------------------------------------------------------===//

/// Reads the names of the dimensions of a function argument from its
/// `test.dims` argument attribute, as the poly dialect will from
/// `poly.shape`.
struct TestSymbolicDims : public SymbolicDimsDialectInterface {
  using SymbolicDimsDialectInterface::SymbolicDimsDialectInterface;
  bool getSymbolicDims(Value value,
                       SmallVectorImpl<StringRef> &dims) const override {
    auto arg = dyn_cast<BlockArgument>(value);
    if (!arg)
      return false;
    auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    auto names =
        func ? func.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(), "test.dims")
             : ArrayAttr();
    if (!names)
      return false;
    for (Attribute name : names)
      dims.push_back(cast<StringAttr>(name).getValue());
    return true;
  }
};

class JaxTypeIRTest : public JaxTypeTest {
protected:
  JaxTypeIRTest() {
    context.loadDialect<func::FuncDialect, arith::ArithDialect>();
  }

  OwningOpRef<ModuleOp> parseModule(const char *text) {
    return parseSourceString<ModuleOp>(text, &context);
  }

  static func::FuncOp getFunc(ModuleOp module) {
    return *module.getOps<func::FuncOp>().begin();
  }
};

static const char *kModule = R"mlir(
  spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, auto]>
  func.func @f(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>},
               %b: tensor<?x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>, test.dims = ["b", ""]},
               %c: tensor<?x4xf32>) -> tensor<8x4xf32> {
    %0 = arith.negf %a : tensor<8x4xf32>
    %1 = arith.addf %0, %a {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"x"}], unreduced={"y"}>]>} : tensor<8x4xf32>
    %2 = arith.mulf %1, %1 {spmd.out_sharding = #spmd.sharding<mesh<["z"=2], axis_types=[explicit]>, [{"z"}, {}]>} : tensor<8x4xf32>
    return %2 : tensor<8x4xf32>
  }
)mlir";

TEST_F(JaxTypeIRTest, ValuesTakeTheirShardingFromTheIR) {
  OwningOpRef<ModuleOp> module = parseModule(kModule);
  ASSERT_TRUE(module);
  func::FuncOp func = getFunc(*module);
  Block &body = func.getBody().front();
  auto ops = llvm::to_vector(llvm::map_range(
      body.without_terminator(), [](Operation &op) { return &op; }));
  ASSERT_EQ(ops.size(), 3u);

  JaxTypePrinter printer(&context);
  EXPECT_EQ(printer.getString(body.getArgument(0)), "f32[8@x,4]");
  EXPECT_EQ(printer.getString(body.getArgument(1)), "f32[?@x,4]");
  EXPECT_EQ(printer.getString(body.getArgument(2)), "f32[?,4]");
  EXPECT_EQ(printer.getString(ops[0]->getResult(0)), "f32[8,4]");
  EXPECT_EQ(printer.getString(ops[1]->getResult(0)), "f32[8,4@x]");
  EXPECT_EQ(printer.getString(ops[2]->getResult(0)), "f32[8@z,4]");

  JaxTypePrinter all(&context, allAxes());
  EXPECT_EQ(all.getString(body.getArgument(0)), "f32[8@x,4@y]");
  EXPECT_EQ(all.getString(ops[1]->getResult(0)), "f32[8,4@x]{U:y}");

  // The one-off helper agrees with the printer.
  EXPECT_EQ(getJaxTypeString(body.getArgument(0)), "f32[8@x,4]");
  EXPECT_EQ(getJaxTypeString(ops[1]->getResult(0), allAxes()),
            "f32[8,4@x]{U:y}");
  EXPECT_EQ(
      printer.getMesh(getSharding(body.getArgument(0)), body.getArgument(0)),
      explicitAuto());
}

TEST_F(JaxTypeIRTest, AxisTypesComeFromTheContext) {
  OwningOpRef<ModuleOp> module = parseModule(R"mlir(
    spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>
    func.func @f(%a: tensor<8x4xf32>) -> tensor<8x4xf32> {
      %0 = spmd.auto_axes(%a) axes={"x"} out_shardings=[<@mesh, [{"x"}, {}]>] (%arg: tensor<8x4xf32>) {
        %1 = arith.negf %arg {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>} : tensor<8x4xf32>
        spmd.return %1 : tensor<8x4xf32>
      } : (tensor<8x4xf32>) -> tensor<8x4xf32>
      return %0 : tensor<8x4xf32>
    })mlir");
  ASSERT_TRUE(module);
  Operation *autoAxes = &getFunc(*module).getBody().front().front();
  Value outer = autoAxes->getResult(0);
  Value inner = autoAxes->getRegion(0).front().front().getResult(0);

  // "x" is Auto inside the region and Explicit again outside.
  JaxTypePrinter printer(&context);
  EXPECT_EQ(printer.getString(inner), "f32[8,4@y]");
  EXPECT_EQ(printer.getString(outer), "f32[8@x,4]");
  EXPECT_EQ(getJaxTypeString(inner), "f32[8,4@y]");
  EXPECT_EQ(getJaxTypeString(outer), "f32[8@x,4]");
  EXPECT_EQ(printer.getMesh(getSharding(inner), inner).getAxisType("x"),
            AxisType::Auto);
  JaxTypePrinter all(&context, allAxes());
  EXPECT_EQ(all.getString(inner), "f32[8@x,4@y]");
}

TEST_F(JaxTypeIRTest, SymbolicDimsFromACallback) {
  OwningOpRef<ModuleOp> module = parseModule(kModule);
  ASSERT_TRUE(module);
  Block &body = getFunc(*module).getBody().front();
  Value c = body.getArgument(2);
  JaxTypePrinter printer(&context, {},
                         [&](Value value, SmallVectorImpl<StringRef> &dims) {
                           if (value != c)
                             return false;
                           dims.append({"2*d", ""});
                           return true;
                         });
  EXPECT_EQ(printer.getString(c), "f32[2*d,4]");
  // The callback knows nothing of %b: it prints `?`.
  EXPECT_EQ(printer.getString(body.getArgument(1)), "f32[?@x,4]");
}

TEST_F(JaxTypeIRTest, SymbolicDimsFromADialectInterface) {
  DialectRegistry registry;
  registry.addExtension(+[](MLIRContext *, func::FuncDialect *dialect) {
    dialect->addInterfaces<TestSymbolicDims>();
  });
  context.appendDialectRegistry(registry);

  OwningOpRef<ModuleOp> module = parseModule(kModule);
  ASSERT_TRUE(module);
  Block &body = getFunc(*module).getBody().front();
  JaxTypePrinter printer(&context);
  EXPECT_EQ(printer.getString(body.getArgument(1)), "f32[b@x,4]");
  EXPECT_EQ(printer.getString(body.getArgument(2)), "f32[?,4]");
  // A callback that knows the value wins over the interface.
  JaxTypePrinter overridden(&context, {},
                            [](Value, SmallVectorImpl<StringRef> &dims) {
                              dims.append({"n", ""});
                              return true;
                            });
  EXPECT_EQ(overridden.getString(body.getArgument(1)), "f32[n@x,4]");
}

TEST_F(JaxTypeIRTest, UnresolvedMeshDoesNotCrash) {
  // Parsing without verification keeps a sharding whose mesh is missing.
  ParserConfig config(&context, /*verifyAfterParse=*/false);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      R"mlir(
      func.func @f(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@missing, [{"x"}, {}], unreduced={"y"}>}) {
        return
      })mlir",
      config);
  ASSERT_TRUE(module);
  Value a = getFunc(*module).getArgument(0);
  JaxTypePrinter printer(&context);
  EXPECT_FALSE(printer.getMesh(getSharding(a), a));
  EXPECT_EQ(printer.getString(a), "f32[8,4]");
  JaxTypePrinter all(&context, allAxes());
  EXPECT_EQ(all.getString(a), "f32[8@x,4]{U:y}");
}

} // namespace
