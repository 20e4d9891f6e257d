//===- BytecodeVersionTest.cpp - the dialects' bytecode versions ----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Tests the bytecode versioning of Tessera's dialects (BytecodeVersion.h):
// every dialect writes its current version and reads its range back, a
// version outside the range is refused with a message naming it, and an
// older version in the range goes through the dialect's upgrade (shown on a
// test dialect whose range has two versions).
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/BytecodeVersion.h"
#include "tessera/Dialect/Comm/IR/CommBytecode.h"
#include "tessera/Dialect/Kernel/IR/KernelBytecode.h"
#include "tessera/Dialect/Poly/IR/PolyBytecode.h"
#include "tessera/Dialect/Spmd/IR/SpmdBytecode.h"
#include "tessera/InitAllDialects.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/MemoryBufferRef.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tessera;

namespace {

/// A module with an op or attribute of each Tessera dialect.
constexpr const char *kAllDialects = R"mlir(
module attributes {kernel.target = #kernel.target<"v5e">} {
  spmd.mesh @mesh = <["x"=2]>
  func.func @f(%a: tensor<?x4xf32> {poly.shape = #poly.shape<"b, 4">,
                                    spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
      -> tensor<?x4xf32> {
    %n = comm.axis_size over @mesh {"x"} : index
    return %a : tensor<?x4xf32>
  }
}
)mlir";

/// A dialect without ops (its ops are unregistered), whose bytecode has
/// versions 2 (current) and 1 (read and upgraded): the upgrade marks each of
/// its ops with the version it came from.
class VersionTestDialect : public Dialect {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(VersionTestDialect)
  explicit VersionTestDialect(MLIRContext *context)
      : Dialect(getDialectNamespace(), context,
                TypeID::get<VersionTestDialect>()) {
    allowUnknownOperations();
    addInterface<VersionedBytecodeInterface>(
        DialectVersionRange{"vtest", 2, 1}, [](Operation *top, uint64_t from) {
          top->walk([&](Operation *op) {
            if (op->getName().getStringRef() == "vtest.op")
              op->setAttr("vtest.upgraded_from",
                          IntegerAttr::get(
                              IntegerType::get(op->getContext(), 64), from));
          });
          return success();
        });
  }
  static StringRef getDialectNamespace() { return "vtest"; }
};

class BytecodeVersionTest : public ::testing::Test {
protected:
  BytecodeVersionTest() : context(makeRegistry()) {
    context.allowUnregisteredDialects();
    context.getOrLoadDialect<VersionTestDialect>();
  }

  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registerAllDialects(registry);
    return registry;
  }

  /// `text` as bytecode, with `versions` written instead of the current
  /// ones.
  std::string write(llvm::StringRef text,
                    const std::map<std::string, uint64_t> &versions = {}) {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    EXPECT_TRUE(module);
    BytecodeWriterConfig config;
    for (const auto &[dialect, version] : versions)
      config.setDialectVersion(
          dialect, std::make_unique<TesseraDialectVersion>(version));
    std::string bytes;
    llvm::raw_string_ostream os(bytes);
    EXPECT_TRUE(succeeded(writeBytecodeToFile(*module, os, config)));
    return bytes;
  }

  /// Reads `bytes`; on failure the module is null and `error` the message.
  OwningOpRef<Operation *> read(llvm::StringRef bytes, std::string &error) {
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
      if (error.empty())
        error = d.str();
      return success();
    });
    Block block;
    ParserConfig config(&context);
    if (failed(readBytecodeFile(llvm::MemoryBufferRef(bytes, "test"), &block,
                                config)))
      return nullptr;
    Operation *op = &block.front();
    op->remove();
    return OwningOpRef<Operation *>(op);
  }

  MLIRContext context;
};

/// The version ranges of Tessera's dialects.
constexpr DialectVersionRange kRanges[] = {
    comm::kBytecodeVersions, kernel::kBytecodeVersions, poly::kBytecodeVersions,
    spmd::kBytecodeVersions};

/// Every Tessera dialect writes its current version and reads it back.
TEST_F(BytecodeVersionTest, EveryDialectRoundTripsItsCurrentVersion) {
  std::string error;
  OwningOpRef<Operation *> module = read(write(kAllDialects), error);
  ASSERT_TRUE(module) << error;
  auto func = cast<ModuleOp>(*module).lookupSymbol("f");
  ASSERT_TRUE(func);
}

/// A version newer than the reader's, or older than its oldest, is refused
/// with a message naming the dialect, the version and the range.
TEST_F(BytecodeVersionTest, VersionsOutsideTheRangeAreRefused) {
  for (const DialectVersionRange &info : kRanges) {
    std::string dialect = info.dialect;
    std::string error;
    OwningOpRef<Operation *> module =
        read(write(kAllDialects, {{dialect, info.current + 1}}), error);
    EXPECT_FALSE(module) << dialect;
    std::string range = "(versions " + std::to_string(info.oldest) + " to " +
                        std::to_string(info.current) + ")";
    EXPECT_NE(error.find("the '" + dialect + "' dialect's bytecode version " +
                         std::to_string(info.current + 1) +
                         " is newer than this build of Tessera reads " + range),
              std::string::npos)
        << error;
    error.clear();
    module = read(write(kAllDialects, {{dialect, info.oldest - 1}}), error);
    EXPECT_FALSE(module) << dialect;
    EXPECT_NE(error.find("is older than this build of Tessera reads " + range),
              std::string::npos)
        << error;
  }
}

/// An older version in the range is upgraded once read; the current one is
/// not; one below the range is refused.
TEST_F(BytecodeVersionTest, OlderVersionsInTheRangeAreUpgraded) {
  const char *text = R"mlir(
module {
  "vtest.op"() : () -> ()
}
)mlir";
  std::string error;
  OwningOpRef<Operation *> upgraded = read(write(text, {{"vtest", 1}}), error);
  ASSERT_TRUE(upgraded) << error;
  Operation *op = &cast<ModuleOp>(*upgraded).getBody()->front();
  auto from = op->getAttrOfType<IntegerAttr>("vtest.upgraded_from");
  ASSERT_TRUE(from);
  EXPECT_EQ(from.getInt(), 1);

  OwningOpRef<Operation *> current = read(write(text), error);
  ASSERT_TRUE(current) << error;
  EXPECT_FALSE(cast<ModuleOp>(*current).getBody()->front().hasAttr(
      "vtest.upgraded_from"));

  OwningOpRef<Operation *> old = read(write(text, {{"vtest", 0}}), error);
  EXPECT_FALSE(old);
  EXPECT_NE(error.find("the 'vtest' dialect's bytecode version 0 is older"),
            std::string::npos)
      << error;
}

} // namespace
