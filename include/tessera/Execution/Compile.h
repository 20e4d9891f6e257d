//===- Compile.h - global view to per-device machine code -------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The compile half of the execution library, with one definition of each
// stage: the global-view passes (shape specialization, explicit inference,
// propagation), the partitioning into a per-device program, kernel lowering
// and the CPU pipeline to the LLVM dialect, then JIT compilation or emission
// of LLVM IR and object code. Only the functions the entry reaches are
// compiled.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_EXECUTION_COMPILE_H
#define TESSERA_EXECUTION_COMPILE_H

#include "tessera/Execution/Program.h"
#include "tessera/Execution/Report.h"
#include "tessera/Runtime/HostArray.h"
#include "tessera/Runtime/Mesh.h"

#include "llvm/ExecutionEngine/Orc/CoreContainers.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class Module;
class TargetMachine;
class raw_pwrite_stream;
namespace orc {
class LLJIT;
class MangleAndInterner;
} // namespace orc
} // namespace llvm

namespace mlir {
class ExecutionEngine;
class OpPassManager;
class PassManager;

namespace tessera::exec {

/// How a program is compiled.
struct CompileOptions {
  /// How kernel.calls are lowered: `pipelined` or `interpret`.
  std::string kernelMode = "pipelined";
  /// Tile and vectorize linalg ops (false: scalar loops).
  bool vectorize = true;
  /// LLVM's optimization level, 0 to 3.
  unsigned optLevel = 3;
  /// Guard indexing and integer division with run-time checks
  /// (`tessera-insert-runtime-checks`).
  bool runtimeChecks = false;
  /// Run `spmd-auto-partition` before propagation, with these pass options
  /// (`memory-limit=64MiB report=true`; empty: the defaults). std::nullopt:
  /// don't.
  std::optional<std::string> autoPartition;
  /// Called on every pass manager the compilation runs, e.g. to apply MLIR's
  /// command-line options (`--mlir-timing`, `--mlir-print-ir-after-all`).
  std::function<LogicalResult(PassManager &)> configurePassManager;
};

/// The mesh axis parts a value is unreduced over (JAX's and Shardy's
/// `unreduced`): the devices of a group along them hold partial values that
/// combine into the value.
struct UnreducedLayout {
  enum class Kind { Sum, Max, Min };
  /// Empty: the value is not unreduced.
  std::vector<::tessera::rt::AxisPart> parts;
  Kind kind = Kind::Sum;

  bool empty() const { return parts.empty(); }
  /// Whether the device at `coords` is the first of its group (its
  /// coordinates along every part are 0).
  bool isFirstOfGroup(const std::vector<int64_t> &coords) const;
  /// `coords` moved to the first device of its group.
  std::vector<int64_t> getFirstOfGroup(std::vector<int64_t> coords) const;
};

/// How the entry's inputs and results are laid out over the devices: with
/// `perDevice` the partitioned entry takes and returns local blocks;
/// otherwise (no argument or result is sharded) every device gets and
/// returns whole arrays.
struct EntryLayouts {
  bool perDevice = false;
  std::vector<::tessera::rt::ShardLayout> args, results;
  /// The axes each argument and result is unreduced over (per-device entries
  /// only).
  std::vector<UnreducedLayout> argUnreduced, resultUnreduced;
  /// The shardings as written, for --show-sharding.
  std::vector<std::string> argText, resultText;
  /// The global shapes of the results (a dynamic dimension is -1: the blocks
  /// divide it). Padded blocks are cut to these.
  std::vector<std::vector<int64_t>> resultShapes;
  /// The device groups the program's collectives use, as the lowered code
  /// names them to the runtime (a mesh spread over processes prepares their
  /// channels before it runs: Mesh::prepareGroups).
  std::vector<::tessera::rt::GroupSpec> collectiveGroups;
};

/// A JIT-compiled per-device program.
struct CompiledProgram {
  /// The JIT holding the code: an ExecutionEngine (`jitCompile`) or a JIT
  /// the object code was loaded into (`loadObjectCode` in Cache.h).
  std::unique_ptr<ExecutionEngine> engine;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  /// The packed entry (`_mlir_ciface_<entry>`).
  void (*function)(void **) = nullptr;
  std::vector<ValueInfo> results;
  EntryLayouts layouts;
  /// The start address and name of every compiled function, by address.
  std::vector<std::pair<uint64_t, std::string>> functions;

  /// `@name` of the compiled function whose code contains `pc` (the one
  /// starting last at or before it), or "" outside the compiled code.
  std::string getFunctionAt(uint64_t pc) const;

  CompiledProgram();
  CompiledProgram(CompiledProgram &&);
  CompiledProgram &operator=(CompiledProgram &&);
  ~CompiledProgram();
};

/// `poly-specialize` of `module` to `argShapes` (the concrete shapes of the
/// entry's arguments) when the module is polymorphic; nothing otherwise.
llvm::Error specializeShapes(ModuleOp module, llvm::StringRef entryName,
                             llvm::ArrayRef<std::vector<int64_t>> argShapes,
                             const CompileOptions &options = {});

/// The global-view passes on `module`: `specializeShapes`, then mesh
/// lifting, explicit inference and propagation. The module keeps its global
/// view.
llvm::Error prepareGlobalView(ModuleOp module, llvm::StringRef entryName,
                              llvm::ArrayRef<std::vector<int64_t>> argShapes,
                              const CompileOptions &options = {});

/// Adds the partitioning passes (the global view, already propagated, to the
/// per-device program) to `pm`: the definition `tessera-run` and the
/// execution library use.
void buildPartitionStages(OpPassManager &pm);

/// Erases every `func.func` of `module` that `entryName` does not reach
/// through symbol references (calls, kernel bodies, ...).
void pruneUnreachableFunctions(ModuleOp module, llvm::StringRef entryName);

/// Lowers the propagated global-view `module` to the per-device program in
/// the LLVM dialect: partitioning, pruning to what the entry reaches, kernel
/// lowering as `options.kernelMode` says, and the CPU pipeline. Returns how
/// the entry's arrays are laid out over the devices.
llvm::Expected<EntryLayouts> lowerToDevice(ModuleOp module,
                                           llvm::StringRef entryName,
                                           const CompileOptions &options);

/// JIT-compiles the lowered `module` at `options.optLevel` and binds the
/// runtime's symbols.
llvm::Expected<CompiledProgram> jitCompile(ModuleOp module,
                                           llvm::StringRef entryName,
                                           llvm::ArrayRef<ValueInfo> results,
                                           EntryLayouts layouts,
                                           const CompileOptions &options);

/// A target machine for the host CPU (its features detected, not assumed)
/// at LLVM's optimization level `optLevel`.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createHostTargetMachine(unsigned optLevel);

/// The symbols compiled code calls besides the C library's: the runtime's
/// C ABI, the allocation functions of the memref lowering, `memrefCopy`.
llvm::orc::SymbolMap getRuntimeSymbols(llvm::orc::MangleAndInterner &interner);

/// What `emitModule` writes.
enum class EmitKind { Mlir, Llvm, Object };

/// Writes the lowered `module` to `os`: as the LLVM dialect, as optimized
/// LLVM IR or as an object file for the host. `prepare`, if given, changes
/// the LLVM IR before it is optimized.
llvm::Error
emitModule(ModuleOp module, EmitKind kind, llvm::raw_pwrite_stream &os,
           const CompileOptions &options,
           llvm::function_ref<llvm::Error(llvm::Module &)> prepare = {});

/// The shardings of the entry of the propagated global-view `module` (its
/// arguments, then its results), for `--show-sharding`.
std::vector<ShardingView> getShardingViews(ModuleOp module,
                                           const Program &program);

/// A clone of `program`'s module that runs the unpartitioned program: every
/// mesh axis shrunk to size 1 except the manual axes of manual computations
/// (their bodies are per device by definition), and the sub-axes of shrunk
/// axes dropped. `mesh` receives the mesh it runs on.
OwningOpRef<ModuleOp> buildReferenceModule(const Program &program,
                                           MeshInfo &mesh);

} // namespace tessera::exec
} // namespace mlir

#endif // TESSERA_EXECUTION_COMPILE_H
