//===- CacheTest.cpp - the compiled-code cache ----------------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Tests the store of the compiled-code cache (Cache.h): entries round-trip,
// every flipped byte and truncation of an entry is detected, a corrupted
// entry is removed, the directory comes from the environment as documented,
// and eviction removes the least recently used entries first; and a program
// compiled through the cache runs the same from a hit.
//
//===----------------------------------------------------------------------===//

#include "tessera/Execution/Cache.h"

#include "tessera/Execution/Execution.h"
#include "tessera/Runtime/Mesh.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <fstream>
#include <thread>
#include <utime.h>

using namespace mlir;
using namespace mlir::tessera::exec;
using ::tessera::rt::DType;
using ::tessera::rt::HostArray;

namespace {

/// A fresh directory, removed with its files at the end.
class TemporaryDirectory {
public:
  TemporaryDirectory() {
    llvm::SmallString<128> dir;
    EXPECT_FALSE(
        llvm::sys::fs::createUniqueDirectory("tessera-cache-test", dir));
    path = dir.str().str();
  }
  ~TemporaryDirectory() { llvm::sys::fs::remove_directories(path); }
  std::string path;
};

/// Sets an environment variable for the life of the object.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name(name) {
    if (const char *old = std::getenv(name))
      previous = old;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (previous)
      setenv(name, previous->c_str(), 1);
    else
      unsetenv(name);
  }

private:
  const char *name;
  std::optional<std::string> previous;
};

static std::string errorText(llvm::Error error) {
  return llvm::toString(std::move(error));
}

/// `(a, b)` and `(a + b)` hash differently; equal parts hash equally.
TEST(CacheTest, HashesSeparateTheirParts) {
  EXPECT_EQ(hashBytes({"ab", "c"}), hashBytes({"ab", "c"}));
  EXPECT_NE(hashBytes({"ab", "c"}), hashBytes({"a", "bc"}));
  EXPECT_NE(hashBytes({"abc"}), hashBytes({"ab", "c"}));
  EXPECT_EQ(hashBytes({"x"}).size(), 32u);
}

/// An entry decodes to its data for its key only; every flipped byte and
/// every truncation is detected.
TEST(CacheTest, EntriesAreChecked) {
  std::string data(5000, '\0');
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<char>(i * 7 % 251);
  std::string entry = CompileCache::encodeEntry("key", data);
  llvm::Expected<std::string> decoded = CompileCache::decodeEntry(entry, "key");
  ASSERT_TRUE(static_cast<bool>(decoded)) << errorText(decoded.takeError());
  EXPECT_EQ(*decoded, data);
  EXPECT_EQ(errorText(CompileCache::decodeEntry(entry, "other").takeError()),
            "the entry belongs to another key");
  for (size_t i = 0; i < entry.size(); ++i) {
    std::string damaged = entry;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x10);
    EXPECT_FALSE(static_cast<bool>(CompileCache::decodeEntry(damaged, "key")))
        << "byte " << i;
  }
  for (size_t size = 0; size < entry.size(); ++size) {
    llvm::Expected<std::string> cut = CompileCache::decodeEntry(
        llvm::StringRef(entry).take_front(size), "key");
    EXPECT_FALSE(static_cast<bool>(cut)) << "size " << size;
    if (!cut)
      llvm::consumeError(cut.takeError());
  }
}

/// A stored entry is a hit; a damaged one is reported corrupted once and
/// removed.
TEST(CacheTest, LookupsFindEntriesAndRemoveCorruptedOnes) {
  TemporaryDirectory dir;
  CacheOptions options;
  options.directory = dir.path;
  options.maxBytes = 1 << 20;
  llvm::Expected<CompileCache> cache = CompileCache::open(options);
  ASSERT_TRUE(static_cast<bool>(cache)) << errorText(cache.takeError());
  EXPECT_EQ(cache->lookup("a").status, CompileCache::Status::Miss);
  llvm::Expected<uint64_t> stored = cache->store("a", "the data of a");
  ASSERT_TRUE(static_cast<bool>(stored));
  CompileCache::Lookup hit = cache->lookup("a");
  EXPECT_EQ(hit.status, CompileCache::Status::Hit);
  EXPECT_EQ(hit.data, "the data of a");
  EXPECT_EQ(hit.bytes, *stored);

  std::string path = cache->getEntryPath("a");
  {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(-3, std::ios::end);
    file.put('!');
  }
  CompileCache::Lookup corrupted = cache->lookup("a");
  EXPECT_EQ(corrupted.status, CompileCache::Status::Corrupted);
  EXPECT_NE(corrupted.problem.find("checksum"), std::string::npos);
  EXPECT_FALSE(llvm::sys::fs::exists(path));
  EXPECT_EQ(cache->lookup("a").status, CompileCache::Status::Miss);
}

/// The bound: an entry larger than it is not stored; over it, the entries
/// used longest ago go first.
TEST(CacheTest, EvictionRemovesTheLeastRecentlyUsed) {
  TemporaryDirectory dir;
  std::string data(1000, 'x');
  uint64_t entryBytes = CompileCache::encodeEntry("k0", data).size();
  CacheOptions options;
  options.directory = dir.path;
  options.maxBytes = 3 * entryBytes;
  llvm::Expected<CompileCache> cache = CompileCache::open(options);
  ASSERT_TRUE(static_cast<bool>(cache));
  // Entries k0..k2, used at increasing times.
  for (int i = 0; i < 3; ++i) {
    std::string key = "k" + std::to_string(i);
    ASSERT_TRUE(static_cast<bool>(cache->store(key, data)));
    struct utimbuf times = {1000 + i, 1000 + i};
    ::utime(cache->getEntryPath(key).c_str(), &times);
  }
  // k0 is used again (now): k1 is the least recently used.
  EXPECT_EQ(cache->lookup("k0").status, CompileCache::Status::Hit);
  ASSERT_TRUE(static_cast<bool>(cache->store("k3", data)));
  EXPECT_EQ(cache->lookup("k1").status, CompileCache::Status::Miss);
  EXPECT_EQ(cache->lookup("k2").status, CompileCache::Status::Hit);
  EXPECT_EQ(cache->lookup("k0").status, CompileCache::Status::Hit);
  EXPECT_EQ(cache->lookup("k3").status, CompileCache::Status::Hit);

  options.maxBytes = entryBytes - 1;
  llvm::Expected<CompileCache> small = CompileCache::open(options);
  ASSERT_TRUE(static_cast<bool>(small));
  EXPECT_NE(errorText(small->store("k4", data).takeError())
                .find("is larger than the cache's bound"),
            std::string::npos);
}

/// $TESSERA_CACHE_DIR, else $XDG_CACHE_HOME/tessera, else
/// $HOME/.cache/tessera; the bound from $TESSERA_CACHE_MAX_BYTES.
TEST(CacheTest, TheDirectoryAndBoundComeFromTheEnvironment) {
  {
    ScopedEnv dir("TESSERA_CACHE_DIR", "/some/dir");
    EXPECT_EQ(*getDefaultCacheDirectory(), "/some/dir");
  }
  ScopedEnv noDir("TESSERA_CACHE_DIR", nullptr);
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(*getDefaultCacheDirectory(), "/xdg/tessera");
  }
  ScopedEnv noXdg("XDG_CACHE_HOME", nullptr);
  {
    ScopedEnv home("HOME", "/home/someone");
    EXPECT_EQ(*getDefaultCacheDirectory(), "/home/someone/.cache/tessera");
  }
  {
    ScopedEnv noHome("HOME", nullptr);
    EXPECT_NE(errorText(getDefaultCacheDirectory().takeError())
                  .find("no directory for the compiled-code cache"),
              std::string::npos);
  }
  {
    ScopedEnv bound("TESSERA_CACHE_MAX_BYTES", nullptr);
    EXPECT_EQ(*getDefaultCacheMaxBytes(), uint64_t(1) << 30);
  }
  {
    ScopedEnv bound("TESSERA_CACHE_MAX_BYTES", "12345");
    EXPECT_EQ(*getDefaultCacheMaxBytes(), 12345u);
  }
  for (const char *bad : {"0", "-5", "1e9", "lots"}) {
    ScopedEnv bound("TESSERA_CACHE_MAX_BYTES", bad);
    EXPECT_EQ(errorText(getDefaultCacheMaxBytes().takeError()),
              "TESSERA_CACHE_MAX_BYTES must be a positive integer (bytes), "
              "got '" +
                  std::string(bad) + "'");
  }
}

/// A program compiled through the cache, then loaded from it, runs the
/// same; the key separates the compile options.
TEST(CacheTest, AProgramFromAHitRunsTheSame) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  DialectRegistry registry;
  registerExecutionDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  const char *text = R"mlir(
spmd.mesh @mesh = <["x"=2]>
func.func @main(%a: tensor<4x2xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<4x2xi32> {
  %0 = arith.muli %a, %a : tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
}
)mlir";
  llvm::Expected<Program> program =
      loadProgram(context, sourceMgr,
                  llvm::MemoryBuffer::getMemBufferCopy(text, "sq.mlir"), "");
  ASSERT_TRUE(static_cast<bool>(program));
  TemporaryDirectory dir;
  CacheOptions cache;
  cache.directory = dir.path;
  CompileOptions options;
  options.optLevel = 1;
  HostArray input(DType::I32, {4, 2});
  for (int64_t i = 0; i < 8; ++i)
    input.setFromDouble(i, static_cast<double>(i - 3));
  std::vector<double> firstValues;
  for (int attempt = 0; attempt < 2; ++attempt) {
    llvm::Expected<CompiledRun> built = compileForRun(
        *program, {{4, 2}}, options, cache, CompileTarget::Program, true);
    ASSERT_TRUE(static_cast<bool>(built)) << errorText(built.takeError());
    EXPECT_TRUE(built->report.cacheUsed);
    EXPECT_EQ(built->report.hit, attempt == 1);
    // The sharding views are kept in the entry.
    EXPECT_EQ(built->views.size(), 2u);
    EXPECT_TRUE(built->compiled.layouts.perDevice);
    std::string error;
    auto mesh = ::tessera::rt::Mesh::create({{"x"}, {2}, {}}, error);
    llvm::Expected<RunResult> run =
        runOnMesh(*mesh, built->compiled, {input}, 1, false);
    ASSERT_TRUE(static_cast<bool>(run)) << errorText(run.takeError());
    auto results = gatherResults(*run, built->compiled.layouts, *mesh);
    ASSERT_TRUE(static_cast<bool>(results));
    for (int64_t i = 0; i < 8; ++i)
      EXPECT_EQ((*results)[0].getAsDouble(i), double((i - 3) * (i - 3)));
    // The function names survive the cache (the fault symbolizer).
    EXPECT_FALSE(built->compiled.functions.empty());
  }
  options.optLevel = 2;
  llvm::Expected<CompiledRun> other = compileForRun(
      *program, {{4, 2}}, options, cache, CompileTarget::Program, false);
  ASSERT_TRUE(static_cast<bool>(other));
  EXPECT_FALSE(other->report.hit);
  EXPECT_TRUE(other->views.empty());
}

} // namespace
