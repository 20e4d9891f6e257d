//===- Cache.h - the compiled-code cache ------------------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Compiling a program for a run goes through object code: the per-device
// program is lowered, compiled for the host CPU to an object file and loaded
// into a JIT. The object code and what running it needs (the entry's
// layouts, result types, function names) are kept on disk, keyed by the
// program (the hash of its source or the artifact's id), the concrete input
// shapes, the mesh, the compile options, the host CPU and its features, and
// the Tessera version and build. A later run with the same key loads the
// object without running the compiler.
//
// The cache is a directory ($TESSERA_CACHE_DIR, else $XDG_CACHE_HOME/tessera,
// else ~/.cache/tessera) of zstd-compressed entries, each with an XXH64
// checksum: an entry that is corrupted or truncated is detected, removed and
// compiled again. Entries are written to a temporary file and renamed into
// place, so concurrent runs never see a torn entry. The directory is bounded
// in size ($TESSERA_CACHE_MAX_BYTES, default 1 GiB): after a write, the
// entries used longest ago are evicted first.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_EXECUTION_CACHE_H
#define TESSERA_EXECUTION_CACHE_H

#include "tessera/Execution/Compile.h"
#include "tessera/Execution/Program.h"
#include "tessera/Execution/Report.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tessera::exec {

//===----------------------------------------------------------------------===//
// The store
//===----------------------------------------------------------------------===//

/// Whether and where the cache is used.
struct CacheOptions {
  bool enabled = true;
  /// The directory; empty: the default (`getDefaultCacheDirectory`).
  std::string directory;
  /// The most bytes the entries may take; unset: $TESSERA_CACHE_MAX_BYTES,
  /// else 1 GiB.
  std::optional<uint64_t> maxBytes;
};

/// $TESSERA_CACHE_DIR, else $XDG_CACHE_HOME/tessera, else
/// $HOME/.cache/tessera; an error if none of them is set.
llvm::Expected<std::string> getDefaultCacheDirectory();

/// The size bound: $TESSERA_CACHE_MAX_BYTES (a positive integer), else
/// 1 GiB.
llvm::Expected<uint64_t> getDefaultCacheMaxBytes();

/// A hash of `parts` (XXH3, 128 bits) as 32 hex digits.
std::string hashBytes(llvm::ArrayRef<llvm::StringRef> parts);

/// A directory of checksummed, compressed entries, each holding a key (its
/// file name is the key's hash) and data.
class CompileCache {
public:
  /// Opens (creating it if needed) the cache `options` describe.
  static llvm::Expected<CompileCache> open(const CacheOptions &options);

  /// What a lookup found.
  enum class Status {
    /// The entry for the key, checked.
    Hit,
    /// No entry for the key.
    Miss,
    /// An entry that failed its checks (it is removed).
    Corrupted,
  };
  struct Lookup {
    Status status = Status::Miss;
    std::string data;
    /// For `Corrupted`: what was wrong.
    std::string problem;
    /// The entry file's size.
    uint64_t bytes = 0;
  };

  /// The entry of `key`. A hit marks the entry as used now (eviction goes
  /// by last use).
  Lookup lookup(llvm::StringRef key) const;

  /// Writes the entry of `key` atomically, then evicts the entries used
  /// longest ago until the directory holds at most `maxBytes`. An entry
  /// larger than the bound is not stored. Returns the entry's size.
  llvm::Expected<uint64_t> store(llvm::StringRef key,
                                 llvm::StringRef data) const;

  const std::string &getDirectory() const { return directory; }
  uint64_t getMaxBytes() const { return maxBytes; }
  /// The file of `key`'s entry.
  std::string getEntryPath(llvm::StringRef key) const;

  /// Checks an entry file's bytes and returns its data (`key` must match).
  static llvm::Expected<std::string> decodeEntry(llvm::StringRef bytes,
                                                 llvm::StringRef key);
  /// The bytes of an entry file.
  static std::string encodeEntry(llvm::StringRef key, llvm::StringRef data);

private:
  CompileCache(std::string directory, uint64_t maxBytes)
      : directory(std::move(directory)), maxBytes(maxBytes) {}
  void evict() const;

  std::string directory;
  uint64_t maxBytes;
};

//===----------------------------------------------------------------------===//
// Compiling for a run
//===----------------------------------------------------------------------===//

/// What is compiled: the program, or its single-device reference (`--check`).
enum class CompileTarget { Program, Reference };

/// How a compilation went, for `--stats` and `--timing`.
struct CompileReport {
  /// Whether the cache was consulted.
  bool cacheUsed = false;
  bool hit = false;
  /// Why the cache was not used, or what was wrong with an entry.
  std::string note;
  /// The time to the loaded program (compiling or loading).
  double seconds = 0;
  /// The entry's file and size.
  std::string entryPath;
  uint64_t entryBytes = 0;
};

/// A compiled program ready to run and what went with it.
struct CompiledRun {
  CompiledProgram compiled;
  /// The mesh it runs on (for the reference: one device, or the manual axes).
  MeshInfo mesh;
  /// The entry's shardings (with `wantViews`).
  std::vector<ShardingView> views;
  CompileReport report;
};

/// The per-device program of `program` for inputs of `shapes`, lowered to
/// the LLVM dialect: the global view specialized to the shapes (and, for a
/// program from source, propagated; an artifact's shardings are fixed), then
/// `lowerToDevice`. Reads an artifact's module first.
struct LoweredProgram {
  OwningOpRef<ModuleOp> module;
  std::vector<ValueInfo> results;
  EntryLayouts layouts;
  std::vector<ShardingView> views;
};
llvm::Expected<LoweredProgram>
lowerProgram(Program &program, llvm::ArrayRef<std::vector<int64_t>> shapes,
             const CompileOptions &options, bool wantViews);

/// Compiles `target` of `program` for `shapes`, or loads it from the cache.
/// Errors of the compilation are the compiler's; cache problems never fail
/// the compilation (they are in the report).
llvm::Expected<CompiledRun>
compileForRun(Program &program, llvm::ArrayRef<std::vector<int64_t>> shapes,
              const CompileOptions &options, const CacheOptions &cache,
              CompileTarget target, bool wantViews);

/// Compiles the lowered `module` to an object file for the host CPU, with
/// an entry point `_mlir__mlir_ciface_<entryName>(void **)` that takes its
/// arguments packed (as ExecutionEngine's packed functions do).
llvm::Expected<std::string> compileToObject(ModuleOp module,
                                            llvm::StringRef entryName,
                                            const CompileOptions &options);

/// Loads `object` into a JIT with the runtime's symbols and returns the
/// program: its packed entry and the addresses of `functionNames`.
llvm::Expected<CompiledProgram>
loadObjectCode(llvm::StringRef object, llvm::StringRef entryName,
               llvm::ArrayRef<std::string> functionNames);

/// The key text of the host: the target triple, the CPU and its features.
std::string getHostDescription();

/// The Tessera version and an identifier of this build of the compiler
/// (the GNU build ID of the binary holding it, or a hash of its file).
std::string getBuildDescription();

} // namespace mlir::tessera::exec

#endif // TESSERA_EXECUTION_CACHE_H
