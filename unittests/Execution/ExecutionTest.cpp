//===- ExecutionTest.cpp - the execution library --------------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Tests the execution library's stages on programs given as text: loading and
// choosing the entry, pruning to the entry's call graph, and a sharded
// program compiled, run on the emulated mesh and compared with its
// single-device reference.
//
//===----------------------------------------------------------------------===//

#include "tessera/Execution/Execution.h"

#include "tessera/Runtime/DistributedArray.h"
#include "tessera/Runtime/Mesh.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace mlir;
using namespace mlir::tessera::exec;
using ::tessera::rt::DType;
using ::tessera::rt::HostArray;

namespace {

/// A doubled, row-sharded input summed with its transpose-free copy through a
/// private callee; `@unused` is reached by nothing.
constexpr const char *kProgram = R"mlir(
spmd.mesh @mesh = <["x"=4]>
func.func @main(%a: tensor<8x4xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x4xi32> {
  %0 = call @twice(%a) : (tensor<8x4xi32>) -> tensor<8x4xi32>
  %1 = arith.addi %0, %a : tensor<8x4xi32>
  return %1 : tensor<8x4xi32>
}
func.func private @twice(%a: tensor<8x4xi32>) -> tensor<8x4xi32> {
  %0 = arith.addi %a, %a : tensor<8x4xi32>
  return %0 : tensor<8x4xi32>
}
func.func @unused(%a: tensor<2xi32>) -> tensor<2xi32> {
  return %a : tensor<2xi32>
}
)mlir";

class ExecutionTest : public ::testing::Test {
protected:
  ExecutionTest() : context(makeRegistry()), handler(sourceMgr, &context) {
    context.loadAllAvailableDialects();
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  }

  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registerExecutionDialects(registry);
    return registry;
  }

  llvm::Expected<Program> load(llvm::StringRef text, llvm::StringRef entry) {
    return loadProgram(context, sourceMgr,
                       llvm::MemoryBuffer::getMemBufferCopy(text, "test.mlir"),
                       entry);
  }

  /// The message of `error`, consumed.
  static std::string message(llvm::Error error) {
    return llvm::toString(std::move(error));
  }

  MLIRContext context;
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler;
};

TEST_F(ExecutionTest, LoadsTheEntryItsArgumentsAndTheMesh) {
  llvm::Expected<Program> program = load(kProgram, "main");
  ASSERT_TRUE(static_cast<bool>(program)) << message(program.takeError());
  EXPECT_EQ(program->entryName, "main");
  ASSERT_EQ(program->args.size(), 1u);
  EXPECT_EQ(program->args[0].name, "a");
  EXPECT_EQ(program->args[0].dtype, DType::I32);
  EXPECT_EQ(program->describeArg(0), "argument 0 (%a)");
  EXPECT_EQ(program->mesh.toString(), "x=4");
  EXPECT_EQ(program->mesh.getNumDevices(), 4);
}

TEST_F(ExecutionTest, AnUnknownEntryNamesTheFunctionsTheModuleDefines) {
  llvm::Expected<Program> program = load(kProgram, "nope");
  ASSERT_FALSE(static_cast<bool>(program));
  EXPECT_EQ(message(program.takeError()),
            "unknown entry function 'nope' (the module defines: main, twice, "
            "unused)");
}

TEST_F(ExecutionTest, SeveralPublicFunctionsWithoutMainNeedAnEntry) {
  llvm::Expected<Program> program =
      load("func.func @f() { return }\nfunc.func @g() { return }", "");
  ASSERT_FALSE(static_cast<bool>(program));
  EXPECT_EQ(message(program.takeError()),
            "the module has several public functions and none is named "
            "'main': choose one with --entry");
}

TEST_F(ExecutionTest, MeshSizesAreOverriddenAndCheckedByName) {
  llvm::Expected<Program> program = load(kProgram, "main");
  ASSERT_TRUE(static_cast<bool>(program)) << message(program.takeError());
  EXPECT_FALSE(static_cast<bool>(overrideMeshSizes(*program, "x=2")));
  EXPECT_EQ(program->mesh.toString(), "x=2");
  EXPECT_EQ(message(overrideMeshSizes(*program, "y=2")),
            "--mesh names axis 'y', which the mesh does not have (its axes "
            "are x)");
  EXPECT_EQ(message(overrideMeshSizes(*program, "x=0")),
            "bad --mesh item 'x=0': expected name=size with size >= 1");
}

TEST_F(ExecutionTest, PruningKeepsExactlyWhatTheEntryReaches) {
  llvm::Expected<Program> program = load(kProgram, "main");
  ASSERT_TRUE(static_cast<bool>(program)) << message(program.takeError());
  ModuleOp module = *program->module;
  pruneUnreachableFunctions(module, "main");
  EXPECT_TRUE(module.lookupSymbol<func::FuncOp>("main"));
  EXPECT_TRUE(module.lookupSymbol<func::FuncOp>("twice"));
  EXPECT_FALSE(module.lookupSymbol<func::FuncOp>("unused"));
  // The mesh is not a function: it stays.
  EXPECT_TRUE(module.lookupSymbol("mesh"));
}

TEST_F(ExecutionTest, InputsAreCheckedAgainstTheEntry) {
  llvm::Expected<Program> program = load(kProgram, "main");
  ASSERT_TRUE(static_cast<bool>(program)) << message(program.takeError());
  InputOptions inputs;
  EXPECT_EQ(message(loadInputs(*program, inputs).takeError()),
            "missing input for argument 0 (%a) of type tensor<8x4xi32>: give "
            "--input 0=file.npy or --random-inputs");
  inputs.files = {"b=x.npy"};
  EXPECT_EQ(message(loadInputs(*program, inputs).takeError()),
            "--input names argument 'b', which the entry does not have "
            "(arguments: 0 (%a))");
  inputs.files.clear();
  inputs.random = true;
  inputs.seed = 7;
  auto generated = loadInputs(*program, inputs);
  ASSERT_TRUE(static_cast<bool>(generated));
  llvm::Expected<HostArray> made = makeRandomArray(DType::I32, {8, 4}, 7, 0);
  ASSERT_TRUE(static_cast<bool>(made));
  const HostArray &expected = *made;
  ASSERT_EQ((*generated)[0].getNumBytes(), expected.getNumBytes());
  EXPECT_EQ(std::memcmp((*generated)[0].data(), expected.data(),
                        expected.getNumBytes()),
            0);
}

/// The sharded program and its single-device reference, each compiled and
/// run by the library's stages, give 3 * a.
TEST_F(ExecutionTest, AShardedProgramRunsAndMatchesThreeTimesItsInput) {
  llvm::Expected<Program> program = load(kProgram, "main");
  ASSERT_TRUE(static_cast<bool>(program)) << message(program.takeError());
  llvm::Expected<HostArray> made = makeRandomArray(DType::I32, {8, 4}, 1, 0);
  ASSERT_TRUE(static_cast<bool>(made));
  HostArray input = std::move(*made);
  std::vector<HostArray> inputs = {input};
  CompileOptions options;
  options.optLevel = 1;

  OwningOpRef<ModuleOp> device = cast<ModuleOp>((*program->module)->clone());
  ASSERT_FALSE(static_cast<bool>(
      prepareGlobalView(*device, "main", {input.getShape()})));
  llvm::Expected<EntryLayouts> layouts =
      lowerToDevice(*device, "main", options);
  ASSERT_TRUE(static_cast<bool>(layouts)) << message(layouts.takeError());
  EXPECT_TRUE(layouts->perDevice);
  // Only what the entry reaches was compiled.
  EXPECT_FALSE(device->lookupSymbol("unused"));
  llvm::Expected<CompiledProgram> compiled = jitCompile(
      *device, "main", program->results, std::move(*layouts), options);
  ASSERT_TRUE(static_cast<bool>(compiled)) << message(compiled.takeError());

  std::string error;
  auto mesh = ::tessera::rt::Mesh::create({{"x"}, {4}, {}}, error);
  ASSERT_TRUE(mesh) << error;
  llvm::Expected<RunResult> run = runOnMesh(*mesh, *compiled, inputs, 1, false);
  ASSERT_TRUE(static_cast<bool>(run)) << message(run.takeError());
  ASSERT_EQ(run->perDevice.size(), 4u);
  // Each device holds a (2, 4) block.
  EXPECT_EQ(run->perDevice[0][0].getShape(), (std::vector<int64_t>{2, 4}));
  auto results = gatherResults(*run, compiled->layouts, *mesh);
  ASSERT_TRUE(static_cast<bool>(results)) << message(results.takeError());
  const HostArray &result = (*results)[0];
  ASSERT_EQ(result.getShape(), (std::vector<int64_t>{8, 4}));
  for (int64_t i = 0; i < 32; ++i)
    EXPECT_EQ(result.getAsDouble(i), 3 * input.getAsDouble(i)) << i;

  // The reference runs on one device.
  MeshInfo single;
  OwningOpRef<ModuleOp> reference = buildReferenceModule(*program, single);
  EXPECT_EQ(single.toString(), "x=1");
  EXPECT_EQ(single.getNumDevices(), 1);
}

TEST_F(ExecutionTest, GeneratedInputsTooLargeForTheHostAreAnError) {
  llvm::Expected<HostArray> huge =
      makeRandomArray(DType::F32, {1000000, 1000000}, 0, 0);
  ASSERT_FALSE(static_cast<bool>(huge));
  EXPECT_NE(message(huge.takeError()).find("needs 3.64 TiB, more than the"),
            std::string::npos);
  llvm::Expected<HostArray> overflow =
      makeRandomArray(DType::F32, {int64_t(1) << 32, int64_t(1) << 32}, 0, 0);
  ASSERT_FALSE(static_cast<bool>(overflow));
  EXPECT_NE(message(overflow.takeError()).find("overflows"), std::string::npos);
}

TEST_F(ExecutionTest, FunctionsAreNamedByTheirCodeAddresses) {
  CompiledProgram compiled;
  compiled.functions = {{0x1000, "main"}, {0x2000, "callee"}};
  EXPECT_EQ(compiled.getFunctionAt(0x0fff), "");
  EXPECT_EQ(compiled.getFunctionAt(0x1000), "@main");
  EXPECT_EQ(compiled.getFunctionAt(0x1fff), "@main");
  EXPECT_EQ(compiled.getFunctionAt(0x2abc), "@callee");
}

TEST_F(ExecutionTest, RunOptionsAreValidated) {
  RunOptions options;
  options.backend = "gpu";
  EXPECT_EQ(message(validateRunOptions(options)),
            "unknown --backend 'gpu' (expected threads or mpi)");
  options.backend = "threads";
  options.compile.optLevel = 4;
  EXPECT_EQ(message(validateRunOptions(options)),
            "--opt-level must be 0, 1, 2 or 3, got '4'");
  options.compile.optLevel = 0;
  options.repeat = 0;
  EXPECT_EQ(message(validateRunOptions(options)),
            "--repeat must be at least 1");
  options.repeat = 1;
  options.devicesPerProcess = 2;
  EXPECT_EQ(message(validateRunOptions(options)),
            "--devices-per-process applies to --backend=mpi");
  options.backend = "mpi";
  options.devicesPerProcess = 0;
  EXPECT_EQ(message(validateRunOptions(options)),
            "--devices-per-process must be at least 1, got '0'");
  options.devicesPerProcess.reset();
  options.outputShards = true;
  EXPECT_EQ(message(validateRunOptions(options)),
            "--output-shards needs --output-dir (where the shards are "
            "written)");
}

/// The C++ form of distributed loading: the argument of the compiled
/// program built with rt::makeArrayFromCallback, the callback asked once per
/// distinct block of the argument's layout (4 row blocks), then run.
TEST_F(ExecutionTest, AnArgumentBuiltFromACallbackRuns) {
  llvm::Expected<Program> program = load(kProgram, "main");
  ASSERT_TRUE(static_cast<bool>(program)) << message(program.takeError());
  CompileOptions options;
  options.optLevel = 1;
  OwningOpRef<ModuleOp> device = cast<ModuleOp>((*program->module)->clone());
  ASSERT_FALSE(static_cast<bool>(prepareGlobalView(*device, "main", {{8, 4}})));
  llvm::Expected<EntryLayouts> layouts =
      lowerToDevice(*device, "main", options);
  ASSERT_TRUE(static_cast<bool>(layouts)) << message(layouts.takeError());
  llvm::Expected<CompiledProgram> compiled = jitCompile(
      *device, "main", program->results, std::move(*layouts), options);
  ASSERT_TRUE(static_cast<bool>(compiled)) << message(compiled.takeError());

  std::string error;
  auto mesh = ::tessera::rt::Mesh::create({{"x"}, {4}, {}}, error);
  ASSERT_TRUE(mesh) << error;
  // Element (r, c) of the argument is 10 * r + c.
  std::vector<std::string> asked;
  ::tessera::rt::BlockCallback fill =
      [&](const ::tessera::rt::BlockIndex &index, HostArray &data,
          std::string &) {
        asked.push_back(index.toString());
        std::vector<int64_t> shape = index.getShape();
        for (int64_t r = 0; r < shape[0]; ++r)
          for (int64_t c = 0; c < shape[1]; ++c)
            data.setFromDouble(r * shape[1] + c,
                               10.0 * (index.start[0] + r) + c);
        return true;
      };
  std::vector<::tessera::rt::DistributedArray> arrays(1);
  ASSERT_TRUE(::tessera::rt::makeArrayFromCallback(*mesh, DType::I32, {8, 4},
                                                   compiled->layouts.args[0],
                                                   fill, arrays[0], error))
      << error;
  EXPECT_EQ(asked, (std::vector<std::string>{"0:2, 0:4", "2:4, 0:4", "4:6, 0:4",
                                             "6:8, 0:4"}));
  DeviceInputs inputs = makeDeviceInputs(*mesh, compiled->layouts, arrays);
  llvm::Expected<RunResult> run =
      runOnDevices(*mesh, *compiled, inputs, 1, false);
  ASSERT_TRUE(static_cast<bool>(run)) << message(run.takeError());
  auto results = gatherResults(*run, compiled->layouts, *mesh);
  ASSERT_TRUE(static_cast<bool>(results)) << message(results.takeError());
  for (int64_t r = 0; r < 8; ++r)
    for (int64_t c = 0; c < 4; ++c)
      EXPECT_EQ((*results)[0].getAsDouble(r * 4 + c), 3 * (10.0 * r + c));
}

} // namespace
