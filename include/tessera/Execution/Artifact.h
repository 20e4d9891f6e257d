//===- Artifact.h - exported artifacts (jax.export for Tessera) -*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// An exported artifact (`tessera-export FILE.mlir --entry f -o f.tsx`) is one
// function and what it calls, compiled once to the point where its
// shardings are fixed, and run later with concrete shapes, as JAX's
// `jax.export` `Exported` is:
//
//   header   fixed size: magic bytes, the artifact format version, the
//            calling-convention version, the Tessera version that wrote it,
//            flags, the zstd level, the payload's sizes, an XXH64 checksum of
//            the payload and one of the header itself;
//   payload  zstd-compressed sections: the metadata (JSON: the function
//            name, flat input and output avals with symbolic shapes as JAX
//            prints them, dtypes and shardings, the abstract mesh, the number
//            of devices, the kernels' TPU target, the dimension variables,
//            the user's symbolic constraints, the dialects' bytecode
//            versions) and the module as MLIR bytecode after explicit
//            inference and propagation, with shape assertions inserted.
//
// Reading checks everything before it is used: a zero-length or truncated
// file, a wrong magic, a format, calling-convention or dialect version
// outside the range this build reads, a flipped byte (the checksums),
// malformed metadata and metadata that disagrees with the module are each a
// one-line error. docs/Tools/tessera-export.md documents the format and the
// compatibility promise.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_EXECUTION_ARTIFACT_H
#define TESSERA_EXECUTION_ARTIFACT_H

#include "tessera/Execution/Cache.h"
#include "tessera/Execution/Compile.h"
#include "tessera/Execution/Program.h"
#include "tessera/Runtime/DType.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mlir::tessera::exec {

//===----------------------------------------------------------------------===//
// Versions
//===----------------------------------------------------------------------===//

/// The artifact format this build writes, and the oldest it reads.
inline constexpr uint32_t kArtifactFormatVersion = 1;
inline constexpr uint32_t kOldestArtifactFormatVersion = 1;
/// How an artifact's function is called (flat arguments in order, each a
/// global array whose blocks the devices get by its sharding, the dimension
/// variables solved from the argument shapes; results likewise): the
/// version this build writes, and the oldest it calls.
inline constexpr uint32_t kCallingConventionVersion = 1;
inline constexpr uint32_t kOldestCallingConventionVersion = 1;

/// The bytecode versions of one Tessera dialect: the version this build
/// writes and the oldest it reads.
struct DialectVersionInfo {
  std::string dialect;
  uint64_t current;
  uint64_t oldest;
};

/// The bytecode versions of Tessera's dialects (comm, kernel, poly, spmd).
llvm::ArrayRef<DialectVersionInfo> getDialectVersions();

//===----------------------------------------------------------------------===//
// The artifact in memory
//===----------------------------------------------------------------------===//

/// The fixed-size header.
struct ArtifactHeader {
  /// The bytes of the header in a file.
  static constexpr size_t kSize = 80;
  /// Flag bit: the payload is zstd-compressed (always set by this build).
  static constexpr uint32_t kFlagZstd = 1;

  uint32_t formatVersion = kArtifactFormatVersion;
  uint32_t callingConventionVersion = kCallingConventionVersion;
  uint32_t flags = kFlagZstd;
  int32_t compressionLevel = 0;
  /// The Tessera version that wrote the artifact (at most 23 characters).
  std::string tesseraVersion;
  uint64_t payloadSize = 0;
  uint64_t uncompressedSize = 0;
  /// XXH64 of the payload.
  uint64_t payloadChecksum = 0;
};

/// One flat input or output, as JAX's `Exported.in_avals` / `out_avals`
/// (with its named sharding) have it.
struct ArtifactAval {
  /// Each dimension as JAX prints it: `3`, `b`, `2*d`, `mod(b, 4)`.
  std::vector<std::string> shape;
  /// JAX's dtype name: `float32`, `int32`, `bool`, ...
  std::string dtype;
  /// The MLIR element type: `f32`, `i32`, `index`, ...
  std::string elementType;
  /// The sharding in sdy syntax (`#spmd.sharding<@mesh, [{"x"}, {}]>`), or
  /// empty for none.
  std::string sharding;
  /// Inputs: the argument's name in the source (`x` for `%x`), or empty.
  std::string name;
};

/// One axis of the abstract mesh.
struct ArtifactMeshAxis {
  std::string name;
  int64_t size = 1;
  /// `auto`, `explicit` or `manual`.
  std::string type = "auto";
};

/// The abstract mesh: axes and the device order (empty: iota).
struct ArtifactMesh {
  std::string symbol;
  std::vector<ArtifactMeshAxis> axes;
  std::vector<int64_t> deviceIds;
};

/// What JAX's `Exported` holds besides the module (and, beyond JAX, the
/// user's symbolic constraints).
struct ArtifactMetadata {
  std::string functionName;
  std::vector<ArtifactAval> inAvals, outAvals;
  ArtifactMesh mesh;
  int64_t numDevices = 1;
  /// Where the module runs (`cpu`: the emulated mesh).
  std::vector<std::string> platforms = {"cpu"};
  /// The kernels' TPU target (`v5e`), or empty.
  std::string kernelTarget;
  bool hasKernelCalls = false;
  /// The dimension variables, sorted.
  std::vector<std::string> dimVars;
  /// The user's symbolic constraints, as written (`b >= 16`).
  std::vector<std::string> constraints;
  /// The bytecode version of each dialect of the module.
  std::map<std::string, uint64_t> dialectVersions;
  /// The file the function was exported from.
  std::string source;
};

/// An artifact whose header, checksums and payload structure were checked
/// (`readArtifactContainer`): its sections as bytes.
struct ArtifactContainer {
  ArtifactHeader header;
  std::string metadataJson;
  std::string bytecode;
  /// The size of the file.
  uint64_t fileSize = 0;
};

/// A read artifact: the container with its metadata parsed and checked.
struct Artifact {
  ArtifactContainer container;
  ArtifactMetadata metadata;

  /// A hash that identifies the artifact (of its payload checksum and
  /// sizes), for the compiled-code cache.
  std::string getId() const;
};

//===----------------------------------------------------------------------===//
// Writing and reading
//===----------------------------------------------------------------------===//

/// The zstd levels an artifact may be written with.
inline constexpr int kMinCompressionLevel = 1;
inline constexpr int kMaxCompressionLevel = 19;
inline constexpr int kDefaultCompressionLevel = 3;

/// The metadata as the JSON the payload holds.
std::string metadataToJson(const ArtifactMetadata &metadata);

/// Parses and checks the metadata JSON (every field present, of its type;
/// the dialect versions in the ranges this build reads).
llvm::Expected<ArtifactMetadata> parseMetadataJson(llvm::StringRef json);

/// The bytes of an artifact with these sections, compressed at `level`.
/// `header` gives the versions to record (tests write other versions with
/// it); its sizes, checksum and flags are computed.
llvm::Expected<std::string> writeArtifactContainer(llvm::StringRef metadataJson,
                                                   llvm::StringRef bytecode,
                                                   int level,
                                                   ArtifactHeader header = {});

/// Reads the header and the payload of `bytes`: the magic, the versions, the
/// header's and the payload's checksums, the sizes, decompression and the
/// sections. Errors name the problem (one line, no file name).
llvm::Expected<ArtifactContainer> readArtifactContainer(llvm::StringRef bytes);

/// `readArtifactContainer` and `parseMetadataJson`.
llvm::Expected<Artifact> readArtifact(llvm::StringRef bytes);

/// Reads the artifact in the file `path` (errors start with `path: `).
llvm::Expected<Artifact> readArtifactFile(llvm::StringRef path);

/// Whether `bytes` starts like an artifact (its magic bytes).
bool looksLikeArtifact(llvm::StringRef bytes);

/// Parses the artifact's module bytecode in `context` (every dialect the
/// module uses must be registered in it), verifies it and checks that it
/// agrees with the metadata: the function, its argument and result types,
/// symbolic shapes and shardings, the mesh and the kernel target.
llvm::Expected<OwningOpRef<ModuleOp>>
readArtifactModule(const Artifact &artifact, MLIRContext &context);

//===----------------------------------------------------------------------===//
// Exporting
//===----------------------------------------------------------------------===//

/// How a function is exported.
struct ExportOptions {
  /// The zstd level.
  int compressionLevel = kDefaultCompressionLevel;
  /// Called on every pass manager the export runs (MLIR's command-line
  /// options).
  std::function<LogicalResult(PassManager &)> configurePassManager;
  /// Dialect versions to record instead of the current ones, in the module
  /// bytecode and in the metadata (tests of the reader's version checks).
  std::map<std::string, uint64_t> dialectVersions;
  /// The file the program came from (recorded in the metadata).
  std::string source;
};

/// Exports the entry of `program` (loaded from source): the entry and the
/// functions it reaches, after `poly-infer` and `poly-insert-assertions`
/// (for polymorphic programs), `spmd-lift-inlined-meshes` and
/// `tessera-propagate`. Returns the artifact's bytes.
llvm::Expected<std::string> exportProgram(const Program &program,
                                          const ExportOptions &options);

//===----------------------------------------------------------------------===//
// Inspecting and calling
//===----------------------------------------------------------------------===//

/// Prints what `tessera-export inspect` prints: versions, sizes and the
/// metadata as JAX's `Exported` shows it (`in_avals`, `in_shardings`, ...);
/// with `json`, one JSON object. `name` is the file's name.
void printArtifact(const Artifact &artifact, llvm::StringRef name,
                   llvm::raw_ostream &os, bool json);

/// A program that runs `artifact`: its entry, arguments, results and mesh
/// come from the metadata; the module is read only when the program is
/// compiled (`ensureModule`). `entryName`, if given, must be the
/// artifact's function.
llvm::Expected<Program>
loadArtifactProgram(MLIRContext &context,
                    std::shared_ptr<const Artifact> artifact,
                    llvm::StringRef entryName);

/// Reads the module of an artifact program if it has not been read yet.
llvm::Error ensureModule(Program &program);

/// The checks of JAX's `Exported.call`, in its order and with its messages,
/// on the inputs' shapes and dtypes: for each argument its rank, dtype and
/// constant dimensions; then solving the dimension variables (remainders,
/// `>= 1`, consistency, the constraints); then the device count of the
/// calling context (the program's mesh after `--mesh`).
llvm::Error checkArtifactCall(const Program &program,
                              llvm::ArrayRef<std::vector<int64_t>> shapes,
                              llvm::ArrayRef<::tessera::rt::DType> dtypes);

/// How `callProgram` compiles and runs.
struct CallOptions {
  CompileOptions compile;
  CacheOptions cache;
  /// The calling context's mesh (`name=size,...`); empty: the program's.
  std::string meshSizes;
};

/// JAX's `Exported.call` for an artifact's program (and a plain call for a
/// program from source): checks `inputs` (an artifact's as
/// `checkArtifactCall` does), compiles the program for their shapes or
/// takes it from the cache, runs it on the emulated mesh and returns the
/// global results. Prints nothing.
llvm::Expected<std::vector<::tessera::rt::HostArray>>
callProgram(Program &program, std::vector<::tessera::rt::HostArray> inputs,
            const CallOptions &options);

/// The dimensions of a `poly.shape` spec (`4*b, 128`), each as written:
/// split at the commas outside parentheses.
llvm::Expected<std::vector<std::string>> splitShapeSpec(llvm::StringRef spec);

/// JAX's name of `dtype` (`float32`, `int32`, `bool`, ...).
llvm::StringRef getJaxDTypeName(::tessera::rt::DType dtype);

} // namespace mlir::tessera::exec

#endif // TESSERA_EXECUTION_ARTIFACT_H
