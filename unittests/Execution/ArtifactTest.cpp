//===- ArtifactTest.cpp - exported artifacts ------------------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Tests the artifact library (Artifact.h): an exported artifact reads back
// to its metadata and module; every flipped byte and every truncation of an
// artifact is refused with a one-line message; the metadata round-trips
// through its JSON; the checks of Exported.call come in JAX's order; and an
// artifact is called on arrays.
//
//===----------------------------------------------------------------------===//

#include "tessera/Execution/Artifact.h"

#include "tessera/Execution/Execution.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tessera::exec;
using ::tessera::rt::DType;
using ::tessera::rt::HostArray;

namespace {

/// A doubling of a (2*b, 3) batch sharded over 2 devices, with a constraint.
constexpr const char *kDoubleProgram = R"mlir(
spmd.mesh @mesh = <["x"=2]>
func.func @double(%a: tensor<?x3xi32> {poly.shape = #poly.shape<"2*b, 3">,
                                       spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
                  %n: tensor<?xi32> {poly.shape = #poly.shape<"c">})
    -> tensor<?x3xi32> attributes {poly.constraints = ["c >= b"]} {
  %0 = arith.addi %a, %a : tensor<?x3xi32>
  return %0 : tensor<?x3xi32>
}
)mlir";

class ArtifactTest : public ::testing::Test {
protected:
  ArtifactTest() : context(makeRegistry()), handler(sourceMgr, &context) {
    context.printOpOnDiagnostic(false);
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  }

  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registerExecutionDialects(registry);
    return registry;
  }

  /// The artifact of `kDoubleProgram`.
  std::string exportProgram() {
    llvm::Expected<Program> program = loadProgram(
        context, sourceMgr,
        llvm::MemoryBuffer::getMemBufferCopy(kDoubleProgram, "double.mlir"),
        "");
    EXPECT_TRUE(static_cast<bool>(program));
    if (!program) {
      llvm::consumeError(program.takeError());
      return "";
    }
    ExportOptions options;
    options.source = "double.mlir";
    llvm::Expected<std::string> bytes =
        mlir::tessera::exec::exportProgram(*program, options);
    EXPECT_TRUE(static_cast<bool>(bytes));
    if (!bytes) {
      llvm::consumeError(bytes.takeError());
      return "";
    }
    return *bytes;
  }

  /// The message of `error`, consumed; `success` for none.
  static std::string message(llvm::Error error) {
    if (!error)
      return "success";
    return llvm::toString(std::move(error));
  }

  MLIRContext context;
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler;
};

/// The exported metadata is JAX's Exported, plus the constraints.
TEST_F(ArtifactTest, ExportRecordsTheSignatureAndReadsBack) {
  std::string bytes = exportProgram();
  llvm::Expected<Artifact> artifact = readArtifact(bytes);
  ASSERT_TRUE(static_cast<bool>(artifact)) << message(artifact.takeError());
  const ArtifactMetadata &m = artifact->metadata;
  EXPECT_EQ(m.functionName, "double");
  ASSERT_EQ(m.inAvals.size(), 2u);
  EXPECT_EQ(m.inAvals[0].shape, (std::vector<std::string>{"2*b", "3"}));
  EXPECT_EQ(m.inAvals[0].dtype, "int32");
  EXPECT_EQ(m.inAvals[0].sharding, "#spmd.sharding<@mesh, [{\"x\"}, {}]>");
  EXPECT_EQ(m.inAvals[0].name, "a");
  EXPECT_EQ(m.inAvals[1].sharding, "");
  ASSERT_EQ(m.outAvals.size(), 1u);
  EXPECT_EQ(m.outAvals[0].shape, (std::vector<std::string>{"2*b", "3"}));
  EXPECT_EQ(m.numDevices, 2);
  EXPECT_EQ(m.dimVars, (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(m.constraints, (std::vector<std::string>{"c >= b"}));
  EXPECT_EQ(m.dialectVersions.count("spmd"), 1u);
  EXPECT_EQ(m.dialectVersions.count("poly"), 1u);
  EXPECT_EQ(m.dialectVersions.count("kernel"), 0u);
  EXPECT_EQ(artifact->container.header.formatVersion, kArtifactFormatVersion);
  EXPECT_EQ(artifact->container.header.compressionLevel,
            kDefaultCompressionLevel);

  llvm::Expected<OwningOpRef<ModuleOp>> module =
      readArtifactModule(*artifact, context);
  ASSERT_TRUE(static_cast<bool>(module)) << message(module.takeError());
  auto entry = (*module)->lookupSymbol<func::FuncOp>("double");
  ASSERT_TRUE(entry);
  // Shape assertions were inserted, and propagation ran.
  EXPECT_TRUE(entry->hasAttr("poly.assertions_inserted"));

  // Writing the sections back gives the same bytes.
  llvm::Expected<std::string> again = writeArtifactContainer(
      artifact->container.metadataJson, artifact->container.bytecode,
      artifact->container.header.compressionLevel, artifact->container.header);
  ASSERT_TRUE(static_cast<bool>(again));
  EXPECT_EQ(*again, bytes);
}

/// Every single flipped byte and every truncation is refused, each with a
/// message of one line.
TEST_F(ArtifactTest, EveryFlippedByteAndTruncationIsRefused) {
  std::string bytes = exportProgram();
  ASSERT_FALSE(bytes.empty());
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (unsigned char bit : {0x01, 0x80}) {
      std::string damaged = bytes;
      damaged[i] = static_cast<char>(damaged[i] ^ bit);
      llvm::Expected<Artifact> artifact = readArtifact(damaged);
      ASSERT_FALSE(static_cast<bool>(artifact)) << "byte " << i;
      std::string text = message(artifact.takeError());
      EXPECT_FALSE(text.empty()) << "byte " << i;
      EXPECT_EQ(text.find('\n'), std::string::npos) << text;
    }
  }
  for (size_t size = 0; size < bytes.size(); ++size) {
    llvm::Expected<Artifact> artifact =
        readArtifact(llvm::StringRef(bytes).take_front(size));
    ASSERT_FALSE(static_cast<bool>(artifact)) << "size " << size;
    std::string text = message(artifact.takeError());
    EXPECT_EQ(text.find('\n'), std::string::npos) << text;
  }
}

/// The metadata round-trips through its JSON; fields of the wrong type are
/// named.
TEST_F(ArtifactTest, MetadataRoundTripsThroughJson) {
  ArtifactMetadata m;
  m.functionName = "f";
  m.inAvals = {
      {{"b", "2*d"}, "float32", "f32", "#spmd.sharding<@m, [{}, {}]>", "x"}};
  m.outAvals = {{{"mod(b, 4)"}, "int64", "index", "", ""}};
  m.mesh = {"m", {{"x", 2, "explicit"}, {"y", 3, "auto"}}, {5, 4, 3, 2, 1, 0}};
  m.numDevices = 6;
  m.kernelTarget = "v6e";
  m.hasKernelCalls = true;
  m.dimVars = {"b", "d"};
  m.constraints = {"b >= 2*d"};
  m.dialectVersions = {{"spmd", 1}};
  m.source = "f.mlir";
  llvm::Expected<ArtifactMetadata> back = parseMetadataJson(metadataToJson(m));
  ASSERT_TRUE(static_cast<bool>(back)) << message(back.takeError());
  EXPECT_EQ(back->functionName, "f");
  EXPECT_EQ(back->inAvals[0].shape, m.inAvals[0].shape);
  EXPECT_EQ(back->inAvals[0].sharding, m.inAvals[0].sharding);
  EXPECT_EQ(back->outAvals[0].elementType, "index");
  EXPECT_EQ(back->mesh.axes[1].type, "auto");
  EXPECT_EQ(back->mesh.deviceIds, m.mesh.deviceIds);
  EXPECT_EQ(back->kernelTarget, "v6e");
  EXPECT_TRUE(back->hasKernelCalls);
  EXPECT_EQ(back->constraints, m.constraints);
  EXPECT_EQ(back->platforms, (std::vector<std::string>{"cpu"}));

  EXPECT_EQ(message(parseMetadataJson("[1]").takeError()),
            "malformed metadata: 'the metadata' must be an object");
  m.mesh.axes[0].type = "diagonal";
  EXPECT_EQ(message(parseMetadataJson(metadataToJson(m)).takeError()),
            "malformed metadata: 'mesh.axes[0].type' must be auto, explicit "
            "or manual");
  m.mesh.axes[0].type = "auto";
  m.dialectVersions["spmd"] = 7;
  EXPECT_EQ(message(parseMetadataJson(metadataToJson(m)).takeError()),
            "the artifact's 'spmd' dialect bytecode version 7 is newer than "
            "this build of Tessera reads (versions 1 to 2)");
}

/// The compression level is bounded, and the header's Tessera version fits.
TEST_F(ArtifactTest, WritingChecksItsOptions) {
  EXPECT_EQ(message(writeArtifactContainer("{}", "", 0).takeError()),
            "the compression level must be 1 to 19, got 0");
  ArtifactHeader header;
  header.tesseraVersion = std::string(30, '9');
  EXPECT_NE(message(writeArtifactContainer("{}", "", 3, header).takeError())
                .find("does not fit the header"),
            std::string::npos);
  llvm::Expected<std::string> bytes = writeArtifactContainer("{}", "bc", 3);
  ASSERT_TRUE(static_cast<bool>(bytes));
  EXPECT_TRUE(looksLikeArtifact(*bytes));
  llvm::Expected<ArtifactContainer> container = readArtifactContainer(*bytes);
  ASSERT_TRUE(static_cast<bool>(container));
  EXPECT_EQ(container->metadataJson, "{}");
  EXPECT_EQ(container->bytecode, "bc");
  // The container reads, the metadata does not.
  EXPECT_EQ(message(readArtifact(*bytes).takeError()),
            "malformed metadata: 'function' is missing");
}

/// Exported.call's checks: rank, dtype and constants argument by argument,
/// then the solution (with the constraint), then the devices.
TEST_F(ArtifactTest, CallChecksComeInJaxOrder) {
  auto artifact =
      std::make_shared<Artifact>(std::move(*readArtifact(exportProgram())));
  llvm::Expected<Program> program = loadArtifactProgram(context, artifact, "");
  ASSERT_TRUE(static_cast<bool>(program)) << message(program.takeError());
  EXPECT_FALSE(program->module);
  EXPECT_EQ(program->args[0].type.getShape()[0], ShapedType::kDynamic);
  auto check = [&](std::vector<std::vector<int64_t>> shapes,
                   std::vector<DType> dtypes) {
    return message(checkArtifactCall(*program, shapes, dtypes));
  };
  DType i32 = DType::I32, f32 = DType::F32;
  EXPECT_EQ(check({{4, 3}, {2}}, {i32, i32}), "success");
  EXPECT_EQ(
      check({{4}, {2}}, {f32, i32}),
      "Rank mismatch for args[0]: expected (2*b, 3) and called with (4,)");
  EXPECT_EQ(check({{4, 4}, {2}}, {f32, i32}),
            "Dtype mismatch for args[0]: expected int32 and called with "
            "float32");
  EXPECT_EQ(check({{4, 4}, {2, 1}}, {i32, i32}),
            "Shape mismatch for args[0].shape[1] (expected same constant): "
            "expected (2*b, 3) and called with (4, 4)");
  // The second argument's rank before the first's remainder.
  EXPECT_EQ(check({{5, 3}, {2, 1}}, {i32, i32}),
            "Rank mismatch for args[1]: expected (c,) and called with (2, 1)");
  EXPECT_NE(check({{5, 3}, {2}}, {i32, i32})
                .find("Division had remainder 1 when computing the value of "
                      "'b'."),
            std::string::npos);
  EXPECT_NE(check({{8, 3}, {2}}, {i32, i32})
                .find("Input shapes do not match the symbolic shape constraint "
                      "c >= b. Expected 'c - b' to be greater or equal to 0, "
                      "but found -2."),
            std::string::npos);
  // The calling context: --mesh x=1.
  ASSERT_FALSE(static_cast<bool>(overrideMeshSizes(*program, "x=1")));
  EXPECT_EQ(check({{4, 3}, {2}}, {i32, i32}),
            "Function double was exported for 2 devices and is called in a "
            "context with 1 devices, which is not allowed.");
  // The shape errors still come first.
  EXPECT_NE(check({{5, 3}, {2}}, {i32, i32}).find("Division had remainder"),
            std::string::npos);
}

/// An artifact is called on arrays (Exported.call) and gives twice its
/// input, at two batch sizes; the module is read once.
TEST_F(ArtifactTest, CallRunsTheArtifactOnArrays) {
  auto artifact =
      std::make_shared<Artifact>(std::move(*readArtifact(exportProgram())));
  llvm::Expected<Program> program =
      loadArtifactProgram(context, artifact, "double");
  ASSERT_TRUE(static_cast<bool>(program)) << message(program.takeError());
  CallOptions options;
  options.compile.optLevel = 1;
  options.cache.enabled = false;
  for (int64_t rows : {2, 6}) {
    HostArray a(DType::I32, {rows, 3}), n(DType::I32, {rows});
    for (int64_t i = 0; i < rows * 3; ++i)
      a.setFromDouble(i, static_cast<double>(i - 4));
    llvm::Expected<std::vector<HostArray>> results =
        callProgram(*program, {a, n}, options);
    ASSERT_TRUE(static_cast<bool>(results)) << message(results.takeError());
    ASSERT_EQ(results->size(), 1u);
    EXPECT_EQ((*results)[0].getShape(), (std::vector<int64_t>{rows, 3}));
    for (int64_t i = 0; i < rows * 3; ++i)
      EXPECT_EQ((*results)[0].getAsDouble(i), 2.0 * (i - 4)) << i;
  }
  EXPECT_TRUE(program->module);
  HostArray wrong(DType::F32, {2, 3}), n(DType::I32, {2});
  EXPECT_EQ(message(callProgram(*program, {wrong, n}, options).takeError()),
            "Dtype mismatch for args[0]: expected int32 and called with "
            "float32");
}

/// The dimensions of a `poly.shape` spec, split outside parentheses.
TEST_F(ArtifactTest, ShapeSpecsSplitIntoDimensions) {
  auto split = [](llvm::StringRef spec) {
    llvm::Expected<std::vector<std::string>> dims = splitShapeSpec(spec);
    return dims ? llvm::join(*dims, "|") : message(dims.takeError());
  };
  EXPECT_EQ(split("b, 2*d"), "b|2*d");
  EXPECT_EQ(split("(b, 2*d)"), "b|2*d");
  EXPECT_EQ(split("mod(b, 4), max(a, b + 1)"), "mod(b, 4)|max(a, b + 1)");
  EXPECT_EQ(split("b,"), "b");
  EXPECT_EQ(split(""), "");
  EXPECT_EQ(split("mod(b, 4"),
            "unbalanced parentheses in the shape 'mod(b, 4'");
  EXPECT_EQ(split("b,,c"), "an empty dimension in the shape 'b,,c'");
}

} // namespace
