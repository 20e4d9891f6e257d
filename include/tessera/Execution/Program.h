//===- Program.h - a global-view program to compile and run -----*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The first step of the execution library: a global-view module parsed from
// source, its entry function, the mesh it runs on and the arrays its entry
// takes and returns. Errors are `llvm::Error`s; those whose diagnostics the
// MLIR context has already reported are `ReportedError`s with no text.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_EXECUTION_PROGRAM_H
#define TESSERA_EXECUTION_PROGRAM_H

#include "tessera/Runtime/HostArray.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class MemoryBuffer;
class SourceMgr;
} // namespace llvm

namespace mlir {
class DialectRegistry;
class MLIRContext;

namespace tessera::exec {
struct Artifact;

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

/// An error whose diagnostics were already reported through the MLIR
/// context's diagnostic handler: a tool prints nothing more for it.
class ReportedError : public llvm::ErrorInfo<ReportedError> {
public:
  static char ID;
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;
};

/// A `ReportedError`.
llvm::Error makeReportedError();

/// An error with `message` (lowercase, no final period).
llvm::Error makeError(const llvm::Twine &message);

/// Prints `error` as `<tool>: error: <message>` on stderr (nothing for a
/// `ReportedError`), after flushing stdout, and consumes it.
void reportError(llvm::Error error, llvm::StringRef tool);

//===----------------------------------------------------------------------===//
// Program
//===----------------------------------------------------------------------===//

/// The mesh a program runs on: the module's single non-maximal mesh (no axes:
/// one device).
struct MeshInfo {
  std::string symbol;
  std::vector<std::string> names;
  std::vector<int64_t> sizes;
  /// The device order; empty for the default (iota) order.
  std::vector<int64_t> deviceIds;

  int64_t getNumDevices() const;
  /// `data=4,model=2`, or `a single device`.
  std::string toString() const;
};

/// An argument of the entry function.
struct ArgInfo {
  /// `x` for `%x` in the source, or empty.
  std::string name;
  RankedTensorType type;
  ::tessera::rt::DType dtype;
};

/// A result of the entry function.
struct ValueInfo {
  RankedTensorType type;
  ::tessera::rt::DType dtype;
};

/// A verified global-view module with the entry to run and its mesh.
struct Program {
  /// Null for an artifact's program until it is compiled (`ensureModule`
  /// in Artifact.h reads it from the artifact).
  OwningOpRef<ModuleOp> module;
  std::string entryName;
  std::vector<ArgInfo> args;
  std::vector<ValueInfo> results;
  MeshInfo mesh;
  /// Identifies the program in the compiled-code cache: a hash of the source
  /// text (with the entry), or the artifact's id.
  std::string cacheId;
  /// The exported artifact the program runs (null for a program from
  /// source), whose module is read in `context` when it is needed.
  std::shared_ptr<const Artifact> artifact;
  MLIRContext *context = nullptr;
  /// For an artifact: the mesh of the calling context, when `--mesh` gives
  /// one (an artifact runs on the mesh it was exported for; the call checks
  /// compare the two).
  std::optional<MeshInfo> callMesh;

  /// `argument 1 (%w)`.
  std::string describeArg(size_t index) const;
  /// Whether any op of the module is a `kernel.call`.
  bool hasKernelCalls() const;
};

/// Adds every dialect a program may use and the LLVM IR translations of the
/// lowered code to `registry`.
void registerExecutionDialects(DialectRegistry &registry);

/// Parses and verifies `buffer` (added to `sourceMgr`, whose diagnostic
/// handler the caller has installed), chooses the entry (`entryName`, else
/// the only public function, else `main`) and checks that its arguments and
/// results are tensors the runtime can pass.
llvm::Expected<Program> loadProgram(MLIRContext &context,
                                    llvm::SourceMgr &sourceMgr,
                                    std::unique_ptr<llvm::MemoryBuffer> buffer,
                                    llvm::StringRef entryName);

/// One item of a `--mesh` option: `name=size`.
struct MeshSizeItem {
  llvm::StringRef item; // the item as written, for messages
  llvm::StringRef name; // trimmed
  int64_t size;
};

/// Parses `--mesh` text (`name=size,...`): no empty item, every size an
/// integer >= 1, no axis named twice. Names are not checked against a mesh.
llvm::Expected<llvm::SmallVector<MeshSizeItem>>
parseMeshSizes(llvm::StringRef text);

/// Applies `text` (`name=size,...`) to the program's meshes: the sizes of
/// the axes it names change in every mesh that has them (resizeMeshes: a
/// mesh keeps its device order when its number of devices does not change),
/// the module is verified again, and the program mesh is chosen again.
llvm::Error overrideMeshSizes(Program &program, llvm::StringRef text);

/// Writes `info`'s sizes and device order into every mesh of `module` with
/// axes.
void setMesh(ModuleOp module, const MeshInfo &info);

/// Gives the axes of every non-maximal mesh of `module` that `sizes` names
/// their new size. A mesh whose number of devices stays the same keeps its
/// device order; one of another number takes the default (iota) order.
void resizeMeshes(ModuleOp module, const llvm::StringMap<int64_t> &sizes);

/// The type as MLIR prints it.
std::string typeToString(Type type);

} // namespace tessera::exec
} // namespace mlir

#endif // TESSERA_EXECUTION_PROGRAM_H
