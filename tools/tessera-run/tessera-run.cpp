//===- tessera-run.cpp - compile and run a program on the emulated mesh ---===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// `tessera-run FILE.mlir` compiles a global-view program for the mesh of its
// module, JIT-compiles it and runs it with one thread per emulated device;
// `--check` also runs the unpartitioned program on one device and compares.
// `tessera-run FILE.tsx` runs an exported artifact the same way. Compiled
// code is kept in the compiled-code cache.
// The tool is its options: the work is the execution library's
// (tessera/Execution). See docs/Tools/tessera-run.md.
//
//===----------------------------------------------------------------------===//

#include "tessera/Execution/Artifact.h"
#include "tessera/Execution/Calibrate.h"
#include "tessera/Execution/Execution.h"
#include "tessera/InitAllPasses.h"
#include "tessera/Version.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"

using namespace llvm;
namespace exec = mlir::tessera::exec;

namespace {
cl::OptionCategory category("tessera-run options");

/// tessera-run's command line.
struct Options {
  cl::opt<std::string> inputFile{cl::Positional,
                                 cl::desc("<input.mlir or artifact.tsx>"),
                                 cl::Optional, cl::cat(category)};
  cl::opt<std::string> entry{"entry",
                             cl::desc("The function to run (default: the "
                                      "only public function, else `main`)"),
                             cl::value_desc("name"), cl::cat(category)};
  cl::opt<std::string> mesh{
      "mesh", cl::desc("Override mesh axis sizes, e.g. \"data=4,model=2\""),
      cl::value_desc("axes"), cl::cat(category)};
  cl::list<std::string> inputs{
      "input",
      cl::desc("An input: NAME_OR_INDEX=path.npy, or a directory of shards "
               "(repeatable)"),
      cl::value_desc("arg=file.npy"), cl::cat(category)};
  cl::list<std::string> processLocalInputs{
      "process-local-input",
      cl::desc("An input from each process's own data: NAME_OR_INDEX=path.npy "
               "holds the part of the argument this process's devices hold "
               "(jax.make_array_from_process_local_data; repeatable)"),
      cl::value_desc("arg=file.npy"), cl::cat(category)};
  cl::list<std::string> inputShapes{
      "input-shape",
      cl::desc("The shape of a random input with dynamic dimensions: "
               "NAME_OR_INDEX=4x8 (repeatable)"),
      cl::value_desc("arg=shape"), cl::cat(category)};
  cl::opt<bool> randomInputs{
      "random-inputs",
      cl::desc("Generate the inputs not given with --input (deterministic "
               "for a --seed)"),
      cl::cat(category)};
  cl::opt<uint64_t> seed{"seed", cl::desc("Seed of --random-inputs"),
                         cl::init(0), cl::cat(category)};
  cl::opt<std::string> outputDir{
      "output-dir", cl::desc("Write the results as result0.npy, ..."),
      cl::value_desc("dir"), cl::cat(category)};
  cl::opt<bool> outputShards{
      "output-shards",
      cl::desc("With --output-dir: write each result as a directory of "
               "shards (one .npy per distinct block and an index.json), each "
               "process its own blocks"),
      cl::cat(category)};
  cl::opt<bool> printResults{"print-results",
                             cl::desc("Print every value of every result"),
                             cl::cat(category)};
  cl::opt<bool> check{
      "check",
      cl::desc("Also run the unpartitioned program on one device "
               "and compare every result (exit 1 on mismatch)"),
      cl::cat(category)};
  cl::opt<double> rtol{"rtol",
                       cl::desc("Relative tolerance of --check for floats "
                                "(default: by dtype)"),
                       cl::cat(category)};
  cl::opt<double> atol{"atol",
                       cl::desc("Absolute tolerance of --check for floats "
                                "(default: by dtype)"),
                       cl::cat(category)};
  cl::opt<bool> showSharding{
      "show-sharding",
      cl::desc("Draw which devices hold which block of every argument and "
               "result"),
      cl::cat(category)};
  cl::opt<unsigned> repeat{"repeat", cl::desc("Run the program N times"),
                           cl::init(1), cl::cat(category)};
  cl::opt<bool> timing{"timing", cl::desc("Print compile time and run times"),
                       cl::cat(category)};
  cl::opt<std::string> trace{
      "trace", cl::desc("Write a Chrome trace of the last run to FILE.json"),
      cl::value_desc("file"), cl::cat(category)};
  cl::opt<std::string> emit{
      "emit",
      cl::desc("Emit the compiled per-device program instead of running it: "
               "mlir (LLVM dialect), llvm (LLVM IR) or obj"),
      cl::value_desc("mlir|llvm|obj"), cl::cat(category)};
  cl::opt<std::string> outputFile{"o", cl::desc("Output file of --emit"),
                                  cl::value_desc("file"), cl::init("-"),
                                  cl::cat(category)};
  cl::opt<std::string> backend{
      "backend",
      cl::desc("threads (the emulated mesh in this process) or mpi (under "
               "mpirun: one process per block of devices)"),
      cl::init("threads"), cl::cat(category)};
  cl::opt<int64_t> devicesPerProcess{
      "devices-per-process",
      cl::desc("With --backend=mpi: the devices each process runs (default: "
               "the mesh's devices divided by the processes)"),
      cl::value_desc("K"), cl::cat(category)};
  cl::opt<std::string> kernelMode{
      "kernel-mode",
      cl::desc("How kernel.calls run: pipelined (double-buffered windows, "
               "the default) or interpret (sequential, with run-time checks); "
               "--check compares a pipelined run with an interpret run"),
      cl::value_desc("pipelined|interpret"), cl::init("pipelined"),
      cl::cat(category)};
  cl::opt<bool> scalarLoops{
      "scalar-loops",
      cl::desc("Lower linalg to scalar loops (no tiling/vectorization)"),
      cl::cat(category)};
  cl::opt<unsigned> optLevel{
      "opt-level",
      cl::desc("LLVM optimization level of the compiled code, 0 to 3"),
      cl::value_desc("N"), cl::init(3), cl::cat(category)};
  cl::opt<double> watchdog{
      "watchdog-seconds",
      cl::desc("Fail when no collective completes for this long (default 30, "
               "or $TESSERA_WATCHDOG_SECONDS)"),
      cl::cat(category)};
  cl::opt<bool> checks{
      "checks",
      cl::desc("Check indexing (tensor.extract/insert, dynamic slices) and "
               "integer division by zero at run time, failing the run with "
               "the op's location (as Pallas's interpret mode and JAX's "
               "checkify do)"),
      cl::cat(category)};
  cl::opt<bool> autoPartition{
      "auto",
      cl::desc("Choose shardings for the Auto mesh axes the program leaves "
               "open (spmd-auto-partition) before propagation"),
      cl::cat(category)};
  cl::opt<std::string> autoOptions{
      "auto-options",
      cl::desc("spmd-auto-partition's options with --auto, e.g. "
               "\"memory-limit=64MiB report=true\""),
      cl::value_desc("options"), cl::cat(category)};
  cl::opt<std::string> calibrate{
      "calibrate", cl::ValueOptional,
      cl::desc("Measure this host's emulated mesh (the program's mesh, or "
               "--mesh \"name=size,...\" without a program) and write a "
               "calibration file for spmd-auto-partition's calibration= to "
               "FILE (default: stdout) instead of running"),
      cl::value_desc("file"), cl::cat(category)};
  cl::opt<std::string> calibrateSizes{
      "calibrate-sizes",
      cl::desc("With --calibrate: the collectives' per-device message sizes "
               "(default 16KiB,64KiB,256KiB,1MiB)"),
      cl::value_desc("bytes,..."), cl::cat(category)};
  cl::opt<unsigned> calibrateRepeats{
      "calibrate-repeats",
      cl::desc("With --calibrate: runs or calls per timing (default 5)"),
      cl::value_desc("N"), cl::init(5), cl::cat(category)};
  cl::opt<int64_t> calibrateMatmul{
      "calibrate-matmul",
      cl::desc("With --calibrate: the size N of the N x N matmul (default "
               "256)"),
      cl::value_desc("N"), cl::init(256), cl::cat(category)};
  cl::opt<std::string> saveInputs{
      "save-inputs",
      cl::desc("Write the inputs as arg0.npy, ... to DIR (to repeat the run "
               "elsewhere with --input)"),
      cl::value_desc("dir"), cl::cat(category)};

  cl::opt<bool> noCache{
      "no-cache",
      cl::desc("Compile without the compiled-code cache (neither read nor "
               "written)"),
      cl::cat(category)};
  cl::opt<std::string> cacheDir{
      "cache-dir",
      cl::desc("The compiled-code cache's directory (default: "
               "$TESSERA_CACHE_DIR, else $XDG_CACHE_HOME/tessera, else "
               "~/.cache/tessera)"),
      cl::value_desc("dir"), cl::cat(category)};
  cl::opt<uint64_t> cacheMaxBytes{
      "cache-max-bytes",
      cl::desc("The most bytes the cache's entries take; the least recently "
               "used go first (default: $TESSERA_CACHE_MAX_BYTES, else 1 "
               "GiB)"),
      cl::value_desc("bytes"), cl::cat(category)};

  exec::RunOptions getRunOptions(bool stats) const {
    exec::RunOptions run;
    run.compile.kernelMode = kernelMode;
    run.compile.vectorize = !scalarLoops;
    run.compile.optLevel = optLevel;
    run.compile.runtimeChecks = checks;
    if (autoPartition)
      run.compile.autoPartition = autoOptions.getValue();
    run.inputs.files.assign(inputs.begin(), inputs.end());
    run.inputs.processLocal.assign(processLocalInputs.begin(),
                                   processLocalInputs.end());
    run.inputs.shapes.assign(inputShapes.begin(), inputShapes.end());
    run.inputs.random = randomInputs;
    run.inputs.seed = seed;
    run.meshSizes = mesh;
    run.backend = backend;
    if (devicesPerProcess.getNumOccurrences())
      run.devicesPerProcess = devicesPerProcess;
    run.emit = emit;
    run.emitFile = outputFile;
    run.repeat = repeat;
    run.printResults = printResults;
    run.showSharding = showSharding;
    run.stats = stats;
    run.timing = timing;
    run.outputDir = outputDir;
    run.outputShards = outputShards;
    run.trace = trace;
    run.check = check;
    auto ifGiven = [](const cl::opt<double> &option) -> std::optional<double> {
      if (option.getNumOccurrences())
        return option.getValue();
      return std::nullopt;
    };
    run.rtol = ifGiven(rtol);
    run.atol = ifGiven(atol);
    run.watchdogSeconds = ifGiven(watchdog);
    run.saveInputsDir = saveInputs;
    run.cache.enabled = !noCache;
    run.cache.directory = cacheDir;
    if (cacheMaxBytes.getNumOccurrences())
      run.cache.maxBytes = cacheMaxBytes.getValue();
    return run;
  }
};

/// The text of one diagnostic (a base of DiagnosticWriter, so that it is
/// built before the handler that prints into it).
struct DiagnosticText {
  std::string text;
  raw_string_ostream stream{text};
};

/// Prints each diagnostic with its notes at its source location, in one
/// write, so that the processes of an mpirun do not interleave their lines.
class DiagnosticWriter : private DiagnosticText,
                         public mlir::SourceMgrDiagnosticHandler {
public:
  DiagnosticWriter(SourceMgr &sourceMgr, mlir::MLIRContext *context)
      : SourceMgrDiagnosticHandler(sourceMgr, context, stream) {
    setHandler([this](mlir::Diagnostic &diag) {
      emitDiagnostic(diag);
      errs() << text;
      errs().flush();
      text.clear();
    });
  }
};
} // namespace

/// Removes `--stats` from argv and returns whether it was there (LLVM's own
/// `-stats` option has the name).
static bool takeStatsFlag(int &argc, char **argv) {
  bool stats = false;
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    StringRef arg = argv[i];
    if (arg == "--") {
      for (; i < argc; ++i)
        argv[out++] = argv[i];
      break;
    }
    if (arg == "--stats" || arg == "-stats") {
      stats = true;
      continue;
    }
    argv[out++] = argv[i];
  }
  argc = out;
  return stats;
}

static int fail(Error error) {
  exec::reportError(std::move(error), "tessera-run");
  return 1;
}

/// Runs the loaded `program` (with --backend=mpi every process agrees first
/// on whether each loaded it) and returns the exit status.
static int runLoaded(Expected<exec::Program> program,
                     const exec::RunOptions &run) {
  if (Error error = exec::agreeAcrossProcesses(
          program ? Error::success() : program.takeError(), run))
    return exec::finishBackend(fail(std::move(error)));
  if (Error error = exec::runProgram(*program, run))
    return exec::finishBackend(fail(std::move(error)));
  return exec::finishBackend(0);
}

/// `--calibrate`: measures the mesh of the program (with --mesh's sizes)
/// or of --mesh alone and writes the calibration file.
static int runCalibrate(const Options &options, const exec::RunOptions &run,
                        mlir::MLIRContext &context) {
  exec::CalibrateOptions calibrate;
  if (!options.calibrateSizes.empty()) {
    Expected<std::vector<int64_t>> sizes =
        exec::parseMessageSizes(options.calibrateSizes);
    if (!sizes)
      return fail(sizes.takeError());
    calibrate.messageBytes = std::move(*sizes);
  }
  calibrate.repeats = options.calibrateRepeats;
  calibrate.matmulSize = options.calibrateMatmul;
  calibrate.compile = run.compile;
  calibrate.compile.autoPartition.reset();
  calibrate.cache = run.cache;
  calibrate.watchdogSeconds = run.watchdogSeconds;
  std::string path = options.calibrate.empty() ? std::string("-")
                                               : options.calibrate.getValue();
  if (Error error = exec::validateCalibrateOptions(calibrate))
    return fail(std::move(error));
  if (Error error = exec::checkCalibrationPath(path))
    return fail(std::move(error));
  context.loadAllAvailableDialects();
  exec::MeshInfo mesh;
  if (options.inputFile.empty()) {
    if (options.mesh.empty())
      return fail(exec::makeError("--calibrate needs a program (its mesh) or "
                                  "--mesh \"name=size,...\""));
    Expected<exec::MeshInfo> parsed = exec::parseMeshAxes(options.mesh);
    if (!parsed)
      return fail(parsed.takeError());
    mesh = std::move(*parsed);
  } else {
    SourceMgr sourceMgr;
    DiagnosticWriter diagnostics(sourceMgr, &context);
    std::string message;
    std::unique_ptr<MemoryBuffer> file =
        mlir::openInputFile(options.inputFile, &message);
    if (!file)
      return fail(exec::makeError(message));
    Expected<exec::Program> program =
        exec::loadProgram(context, sourceMgr, std::move(file), options.entry);
    if (!program)
      return fail(program.takeError());
    if (!options.mesh.empty())
      if (Error error = exec::overrideMeshSizes(*program, options.mesh))
        return fail(std::move(error));
    mesh = program->mesh;
  }
  if (Error error = exec::runCalibration(context, mesh, calibrate, path))
    return fail(std::move(error));
  return 0;
}

/// `--help` lists tessera-run's options and MLIR's (`--mlir-*`); LLVM's
/// code generation options stay accepted but are listed only by
/// `--help-hidden`.
static void hideUnrelatedOptions() {
  for (auto &entry : cl::getRegisteredOptions()) {
    cl::Option *option = entry.second;
    if (llvm::is_contained(option->Categories, &category) ||
        entry.first.starts_with("mlir-") || entry.first == "help" ||
        entry.first == "help-hidden" || entry.first == "version")
      continue;
    option->setHiddenFlag(cl::Hidden);
  }
}

int main(int argc, char **argv) {
  InitLLVM initLLVM(argc, argv);
  cl::AddExtraVersionPrinter([](raw_ostream &os) {
    os << "Tessera version " TESSERA_VERSION_STRING "\n";
  });
  Options options;
  // Passes are named by --mlir-print-ir-after=<pass> and the like.
  mlir::tessera::registerAllPasses();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  mlir::registerAsmPrinterCLOptions();
  hideUnrelatedOptions();
  bool stats = takeStatsFlag(argc, argv);
  // MLIR's options that show or time the compilation (--mlir-timing,
  // --mlir-print-ir-after, ...) need it to run: such runs bypass the cache.
  bool observesCompilation = false;
  for (int i = 1; i < argc; ++i) {
    StringRef arg = argv[i];
    if (arg == "--")
      break;
    observesCompilation |= arg.ltrim('-').starts_with("mlir-");
  }
  cl::ParseCommandLineOptions(
      argc, argv,
      "tessera-run: compile a global-view program for a mesh of emulated "
      "devices and run it\n\n"
      "  --stats  print per device peak memory, collective calls and "
      "bytes\n");
  InitializeNativeTarget();
  InitializeNativeTargetAsmPrinter();
  InitializeNativeTargetAsmParser();

  exec::RunOptions run = options.getRunOptions(stats);
  // MLIR's pass manager options (--mlir-timing, --mlir-print-ir-after-all,
  // ...) apply to every pass manager the compilation runs.
  run.compile.configurePassManager = [](mlir::PassManager &pm) {
    if (mlir::failed(mlir::applyPassManagerCLOptions(pm)))
      return mlir::failure();
    mlir::applyDefaultTimingPassManagerCLOptions(pm);
    return mlir::success();
  };
  if (observesCompilation)
    run.cache.enabled = false;
  if (run.cache.maxBytes && *run.cache.maxBytes == 0)
    return fail(exec::makeError("--cache-max-bytes must be at least 1"));
  if (Error error = exec::validateRunOptions(run))
    return fail(std::move(error));
  if (options.calibrate.getNumOccurrences() && run.backend != "threads")
    return fail(exec::makeError("--calibrate runs on the threads backend"));
  // With --backend=mpi this process joins the job; every step that can fail
  // on one process is agreed on by all (each prints the same error).
  if (Error error = exec::startBackend(run))
    return fail(std::move(error));

  mlir::DialectRegistry registry;
  exec::registerExecutionDialects(registry);
  mlir::MLIRContext context(registry);
  // Diagnostics point at the source; the op dump would only repeat it.
  context.printOpOnDiagnostic(false);

  if (options.calibrate.getNumOccurrences())
    return runCalibrate(options, run, context);
  if (options.inputFile.empty())
    return fail(exec::makeError("no input file (expected <input.mlir or "
                                "artifact.tsx>, or --calibrate)"));

  std::string message;
  std::unique_ptr<MemoryBuffer> file =
      mlir::openInputFile(options.inputFile, &message);
  // An artifact (by its magic bytes, or its name): its module is read only
  // if it has to be compiled.
  if (file && (exec::looksLikeArtifact(file->getBuffer()) ||
               sys::path::extension(options.inputFile) == ".tsx")) {
    Expected<exec::Program> program = [&]() -> Expected<exec::Program> {
      Expected<exec::Artifact> artifact = exec::readArtifact(file->getBuffer());
      if (!artifact)
        return exec::makeError(options.inputFile + ": " +
                               toString(artifact.takeError()));
      return exec::loadArtifactProgram(
          context, std::make_shared<exec::Artifact>(std::move(*artifact)),
          options.entry);
    }();
    return runLoaded(std::move(program), run);
  }
  context.loadAllAvailableDialects();

  SourceMgr sourceMgr;
  DiagnosticWriter diagnostics(sourceMgr, &context);
  Expected<exec::Program> program =
      file ? exec::loadProgram(context, sourceMgr, std::move(file),
                               options.entry)
           : Expected<exec::Program>(exec::makeError(message));
  return runLoaded(std::move(program), run);
}
