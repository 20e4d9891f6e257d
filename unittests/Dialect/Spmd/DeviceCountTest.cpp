//===- DeviceCountTest.cpp - one device count per module ------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "SpmdTestBase.h"

#include "tessera/Dialect/Spmd/IR/SpmdVerifiers.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

namespace {

class DeviceCountTest : public SpmdTest {
protected:
  DeviceCountTest() { context.allowUnregisteredDialects(); }

  /// Parses `source` and runs verifyOneDeviceCount on it; returns the first
  /// diagnostic's message (empty on success).
  std::string check(StringRef source, bool inlinedMeshes = true) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module);
    if (!module)
      return "<parse error>";
    std::string message;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      if (message.empty())
        message = diag.str();
      return success();
    });
    bool ok = succeeded(verifyOneDeviceCount(*module, inlinedMeshes));
    EXPECT_EQ(ok, message.empty());
    return message;
  }
};

TEST_F(DeviceCountTest, SameCountAcrossShapesIsAccepted) {
  EXPECT_EQ(check(R"(
    spmd.mesh @a = <["x"=2, "y"=4]>
    spmd.mesh @b = <["z"=8]>
    spmd.mesh @maximal = <[], device_ids=[3]>
    spmd.mesh @empty = <[]>
  )"),
            "");
}

TEST_F(DeviceCountTest, DifferentSymbolMeshIsReported) {
  EXPECT_EQ(check(R"(
    spmd.mesh @a = <["x"=2, "y"=4]>
    spmd.mesh @b = <["z"=4]>
  )"),
            "'spmd.mesh' op has 4 devices but mesh @a has 8; all non-maximal "
            "meshes of a module must have the same number of devices");
}

TEST_F(DeviceCountTest, InlinedMeshIsCheckedToo) {
  EXPECT_EQ(check(R"(
    spmd.mesh @a = <["x"=2]>
    "test.op"() {s = #spmd.sharding<mesh<["q"=4]>, []>} : () -> ()
  )"),
            "'test.op' op has 4 devices but mesh @a has 2; all non-maximal "
            "meshes of a module must have the same number of devices");
  EXPECT_EQ(check(R"(
    "test.op"() {s = #spmd.sharding_per_value<[<mesh<["q"=2]>, []>]>} : () -> ()
    spmd.mesh @a = <["x"=2]>
  )"),
            "");
}

TEST_F(DeviceCountTest, SymbolsOnlySkipsInlinedMeshes) {
  StringRef source = R"(
    spmd.mesh @a = <["x"=2]>
    "test.op"() {s = #spmd.sharding<mesh<["q"=4]>, []>} : () -> ()
  )";
  EXPECT_EQ(check(source, /*inlinedMeshes=*/false), "");
  EXPECT_EQ(check(R"(
    spmd.mesh @a = <["x"=2]>
    spmd.mesh @b = <["z"=4]>
  )",
                  /*inlinedMeshes=*/false),
            "'spmd.mesh' op has 4 devices but mesh @a has 2; all non-maximal "
            "meshes of a module must have the same number of devices");
}

} // namespace
