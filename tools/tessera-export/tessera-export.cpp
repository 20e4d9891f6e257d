//===- tessera-export.cpp - export a function as a versioned artifact -----===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// `tessera-export FILE.mlir --entry f -o f.tsx` writes an artifact of one
// function (jax.export for Tessera); `tessera-export inspect f.tsx [--json]`
// prints one. The tool is its options: the work is the execution library's
// (tessera/Execution/Artifact.h). See docs/Tools/tessera-export.md.
//
//===----------------------------------------------------------------------===//

#include "tessera/Execution/Artifact.h"
#include "tessera/InitAllPasses.h"
#include "tessera/Version.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace llvm;
namespace exec = mlir::tessera::exec;

namespace {
cl::OptionCategory category("tessera-export options");
cl::SubCommand inspectCommand("inspect",
                              "Print an artifact's versions, sizes and "
                              "metadata");

/// tessera-export's command line.
struct Options {
  cl::opt<std::string> inputFile{cl::Positional, cl::desc("<input.mlir>"),
                                 cl::cat(category),
                                 cl::sub(cl::SubCommand::getTopLevel())};
  cl::opt<std::string> entry{
      "entry",
      cl::desc("The function to export (default: the only public function, "
               "else `main`)"),
      cl::value_desc("name"), cl::cat(category),
      cl::sub(cl::SubCommand::getTopLevel())};
  cl::opt<std::string> outputFile{"o", cl::desc("The artifact to write"),
                                  cl::value_desc("file.tsx"), cl::cat(category),
                                  cl::sub(cl::SubCommand::getTopLevel())};
  cl::opt<int> level{"compression-level",
                     cl::desc("The zstd level of the payload, 1 to 19"),
                     cl::init(exec::kDefaultCompressionLevel),
                     cl::cat(category), cl::sub(cl::SubCommand::getTopLevel())};
  cl::list<std::string> testingVersions{
      "testing-dialect-version",
      cl::desc("Record DIALECT=N as the dialect's bytecode version (tests of "
               "the reader's version checks)"),
      cl::Hidden, cl::cat(category), cl::sub(cl::SubCommand::getTopLevel())};

  cl::opt<std::string> artifact{cl::Positional, cl::desc("<artifact.tsx>"),
                                cl::Required, cl::cat(category),
                                cl::sub(inspectCommand)};
  cl::opt<bool> json{"json", cl::desc("Print one JSON object"),
                     cl::cat(category), cl::sub(inspectCommand)};
  cl::opt<bool> verify{"verify",
                       cl::desc("Also read the module and check it against "
                                "the metadata"),
                       cl::cat(category), cl::sub(inspectCommand)};
};
} // namespace

static int fail(Error error) {
  exec::reportError(std::move(error), "tessera-export");
  return 1;
}

/// A context with every dialect an exported program may use.
static std::unique_ptr<mlir::MLIRContext> createContext() {
  mlir::DialectRegistry registry;
  exec::registerExecutionDialects(registry);
  auto context = std::make_unique<mlir::MLIRContext>(registry);
  context->printOpOnDiagnostic(false);
  return context;
}

static int inspect(const Options &options) {
  Expected<exec::Artifact> artifact = exec::readArtifactFile(options.artifact);
  if (!artifact)
    return fail(artifact.takeError());
  if (options.verify) {
    std::unique_ptr<mlir::MLIRContext> context = createContext();
    auto module = exec::readArtifactModule(*artifact, *context);
    if (!module)
      return fail(exec::makeError(options.artifact + ": " +
                                  llvm::toString(module.takeError())));
  }
  exec::printArtifact(*artifact, options.artifact, llvm::outs(), options.json);
  if (options.verify && !options.json)
    llvm::outs() << "module: read and checked against the metadata\n";
  return 0;
}

/// Parses `--testing-dialect-version DIALECT=N` items.
static Expected<std::map<std::string, uint64_t>>
parseVersions(ArrayRef<std::string> items) {
  std::map<std::string, uint64_t> versions;
  for (StringRef item : items) {
    auto [dialect, value] = item.split('=');
    uint64_t version;
    if (dialect.empty() || value.getAsInteger(10, version))
      return exec::makeError("bad --testing-dialect-version '" + item +
                             "' (expected DIALECT=N)");
    versions[dialect.str()] = version;
  }
  return versions;
}

int main(int argc, char **argv) {
  InitLLVM initLLVM(argc, argv);
  cl::AddExtraVersionPrinter([](raw_ostream &os) {
    os << "Tessera version " TESSERA_VERSION_STRING "\n";
  });
  Options options;
  mlir::tessera::registerAllPasses();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  mlir::registerAsmPrinterCLOptions();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "tessera-export: export a function as a versioned artifact\n\n"
      "  tessera-export FILE.mlir [--entry f] -o f.tsx\n"
      "  tessera-export inspect f.tsx [--json] [--verify]\n");
  if (inspectCommand)
    return inspect(options);
  if (options.inputFile.empty())
    return fail(exec::makeError("no input file (tessera-export FILE.mlir "
                                "-o FILE.tsx, or tessera-export inspect "
                                "FILE.tsx)"));
  if (options.outputFile.empty())
    return fail(exec::makeError("no output file: give -o FILE.tsx"));

  exec::ExportOptions exportOptions;
  exportOptions.compressionLevel = options.level;
  exportOptions.source = sys::path::filename(options.inputFile).str();
  exportOptions.configurePassManager = [](mlir::PassManager &pm) {
    if (mlir::failed(mlir::applyPassManagerCLOptions(pm)))
      return mlir::failure();
    mlir::applyDefaultTimingPassManagerCLOptions(pm);
    return mlir::success();
  };
  Expected<std::map<std::string, uint64_t>> versions =
      parseVersions(options.testingVersions);
  if (!versions)
    return fail(versions.takeError());
  exportOptions.dialectVersions = std::move(*versions);

  std::unique_ptr<mlir::MLIRContext> context = createContext();
  std::string message;
  std::unique_ptr<MemoryBuffer> file =
      mlir::openInputFile(options.inputFile, &message);
  if (!file)
    return fail(exec::makeError(message));
  SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, context.get());
  Expected<exec::Program> program =
      exec::loadProgram(*context, sourceMgr, std::move(file), options.entry);
  if (!program)
    return fail(program.takeError());
  Expected<std::string> bytes = exec::exportProgram(*program, exportOptions);
  if (!bytes)
    return fail(bytes.takeError());
  auto output = mlir::openOutputFile(options.outputFile, &message);
  if (!output)
    return fail(exec::makeError(message));
  output->os() << *bytes;
  output->os().flush();
  if (output->os().has_error())
    return fail(exec::makeError("cannot write '" + options.outputFile + "'"));
  output->keep();
  return 0;
}
