//===- Cache.cpp - the on-disk store of the compiled-code cache -----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// An entry file is a 48-byte header (magic, entry format version, sizes, an
// XXH64 checksum of the compressed data and one of the header) followed by
// the zstd-compressed key and data. Entries are written to a temporary file
// in the directory and renamed into place (atomic on POSIX file systems);
// eviction removes the least recently used entries first.
//
//===----------------------------------------------------------------------===//

#include "tessera/Execution/Cache.h"

#include "LittleEndian.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <xxhash.h>
#include <zstd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <utime.h>

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::exec;
namespace fs = llvm::sys::fs;

static constexpr char kEntryMagic[8] = {'T', 'S', 'X', 'C', 'A', 'C', 'H', 'E'};
static constexpr uint32_t kEntryVersion = 1;
static constexpr size_t kEntryHeaderSize = 48;
static constexpr llvm::StringLiteral kEntrySuffix = ".tce";
/// The level entries are compressed with (fast: they are written on every
/// miss).
static constexpr int kEntryLevel = 1;
/// Temporary files older than this are left over from runs that died.
static constexpr std::chrono::minutes kStaleTemporary(10);

std::string
mlir::tessera::exec::hashBytes(llvm::ArrayRef<llvm::StringRef> parts) {
  XXH3_state_t *state = XXH3_createState();
  XXH3_128bits_reset(state);
  for (llvm::StringRef part : parts) {
    // Each part with its length, so that ("ab", "c") != ("a", "bc").
    uint64_t size = part.size();
    XXH3_128bits_update(state, &size, sizeof(size));
    XXH3_128bits_update(state, part.data(), part.size());
  }
  XXH128_hash_t hash = XXH3_128bits_digest(state);
  XXH3_freeState(state);
  return llvm::formatv("{0:x-16}{1:x-16}", hash.high64, hash.low64).str();
}

llvm::Expected<std::string> mlir::tessera::exec::getDefaultCacheDirectory() {
  auto get = [](const char *name) -> std::string {
    const char *value = std::getenv(name);
    return value ? value : "";
  };
  if (std::string dir = get("TESSERA_CACHE_DIR"); !dir.empty())
    return dir;
  llvm::SmallString<128> path;
  if (std::string xdg = get("XDG_CACHE_HOME"); !xdg.empty()) {
    path = xdg;
  } else if (std::string home = get("HOME"); !home.empty()) {
    path = home;
    llvm::sys::path::append(path, ".cache");
  } else {
    return makeError("no directory for the compiled-code cache: set "
                     "$TESSERA_CACHE_DIR (or $XDG_CACHE_HOME or $HOME), or "
                     "run with --no-cache");
  }
  llvm::sys::path::append(path, "tessera");
  return path.str().str();
}

llvm::Expected<uint64_t> mlir::tessera::exec::getDefaultCacheMaxBytes() {
  const char *value = std::getenv("TESSERA_CACHE_MAX_BYTES");
  if (!value || !*value)
    return uint64_t(1) << 30;
  uint64_t bytes;
  if (llvm::StringRef(value).trim().getAsInteger(10, bytes) || bytes == 0)
    return makeError("TESSERA_CACHE_MAX_BYTES must be a positive integer "
                     "(bytes), got '" +
                     llvm::Twine(value) + "'");
  return bytes;
}

llvm::Expected<CompileCache> CompileCache::open(const CacheOptions &options) {
  std::string directory = options.directory;
  if (directory.empty()) {
    llvm::Expected<std::string> dir = getDefaultCacheDirectory();
    if (!dir)
      return dir.takeError();
    directory = std::move(*dir);
  }
  uint64_t maxBytes;
  if (options.maxBytes) {
    maxBytes = *options.maxBytes;
  } else {
    llvm::Expected<uint64_t> bytes = getDefaultCacheMaxBytes();
    if (!bytes)
      return bytes.takeError();
    maxBytes = *bytes;
  }
  if (std::error_code ec = fs::create_directories(directory))
    return makeError("cannot create the cache directory '" + directory +
                     "': " + ec.message());
  if (!fs::is_directory(directory))
    return makeError("the cache directory '" + directory +
                     "' is not a directory");
  return CompileCache(std::move(directory), maxBytes);
}

std::string CompileCache::getEntryPath(llvm::StringRef key) const {
  llvm::SmallString<128> path(directory);
  llvm::sys::path::append(path, hashBytes({key}) + kEntrySuffix.str());
  return path.str().str();
}

std::string CompileCache::encodeEntry(llvm::StringRef key,
                                      llvm::StringRef data) {
  std::string plain;
  appendLittleEndian<uint64_t>(plain, key.size());
  plain += key;
  plain += data;
  std::string compressed(ZSTD_compressBound(plain.size()), '\0');
  size_t size = ZSTD_compress(compressed.data(), compressed.size(),
                              plain.data(), plain.size(), kEntryLevel);
  // Compressing into a buffer of ZSTD_compressBound bytes cannot fail.
  compressed.resize(ZSTD_isError(size) ? 0 : size);
  std::string out(kEntryMagic, sizeof(kEntryMagic));
  appendLittleEndian<uint32_t>(out, kEntryVersion);
  appendLittleEndian<uint32_t>(out, 0);
  appendLittleEndian<uint64_t>(out, compressed.size());
  appendLittleEndian<uint64_t>(out, plain.size());
  appendLittleEndian<uint64_t>(out,
                               XXH64(compressed.data(), compressed.size(), 0));
  appendLittleEndian<uint64_t>(out, XXH64(out.data(), out.size(), 0));
  return out + compressed;
}

llvm::Expected<std::string> CompileCache::decodeEntry(llvm::StringRef bytes,
                                                      llvm::StringRef key) {
  if (bytes.size() < kEntryHeaderSize)
    return makeError("the entry is truncated (" + llvm::Twine(bytes.size()) +
                     " bytes)");
  if (!bytes.starts_with(llvm::StringRef(kEntryMagic, sizeof(kEntryMagic))))
    return makeError("the entry has the wrong magic bytes");
  if (XXH64(bytes.data(), 40, 0) != readLittleEndian<uint64_t>(bytes, 40))
    return makeError("the entry's header checksum does not match");
  if (readLittleEndian<uint32_t>(bytes, 8) != kEntryVersion)
    return makeError("the entry has format version " +
                     llvm::Twine(readLittleEndian<uint32_t>(bytes, 8)));
  uint64_t compressedSize = readLittleEndian<uint64_t>(bytes, 16);
  uint64_t plainSize = readLittleEndian<uint64_t>(bytes, 24);
  llvm::StringRef compressed = bytes.drop_front(kEntryHeaderSize);
  if (compressed.size() != compressedSize)
    return makeError("the entry is truncated (" +
                     llvm::Twine(compressed.size()) + " of " +
                     llvm::Twine(compressedSize) + " bytes)");
  if (XXH64(compressed.data(), compressed.size(), 0) !=
      readLittleEndian<uint64_t>(bytes, 32))
    return makeError("the entry's checksum does not match");
  if (ZSTD_getFrameContentSize(compressed.data(), compressed.size()) !=
      plainSize)
    return makeError("the entry is not a zstd frame of its size");
  std::string plain(plainSize, '\0');
  size_t size = ZSTD_decompress(plain.data(), plain.size(), compressed.data(),
                                compressed.size());
  if (ZSTD_isError(size) || size != plainSize)
    return makeError("the entry does not decompress");
  llvm::StringRef rest(plain);
  if (rest.size() < 8 || readLittleEndian<uint64_t>(rest, 0) > rest.size() - 8)
    return makeError("the entry's key is malformed");
  uint64_t keySize = readLittleEndian<uint64_t>(rest, 0);
  if (rest.substr(8, keySize) != key)
    return makeError("the entry belongs to another key");
  return rest.drop_front(8 + keySize).str();
}

CompileCache::Lookup CompileCache::lookup(llvm::StringRef key) const {
  Lookup result;
  std::string path = getEntryPath(key);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return result; // A miss (no entry, or one that cannot be read).
  result.bytes = (*buffer)->getBufferSize();
  llvm::Expected<std::string> data = decodeEntry((*buffer)->getBuffer(), key);
  if (!data) {
    result.status = Status::Corrupted;
    result.problem = llvm::toString(data.takeError());
    // Never trusted again; a concurrent run may have replaced it already.
    fs::remove(path);
    return result;
  }
  result.status = Status::Hit;
  result.data = std::move(*data);
  ::utime(path.c_str(), nullptr); // Used now.
  return result;
}

llvm::Expected<uint64_t> CompileCache::store(llvm::StringRef key,
                                             llvm::StringRef data) const {
  std::string bytes = encodeEntry(key, data);
  if (bytes.size() > maxBytes)
    return makeError("the entry (" + formatBytes(bytes.size()) +
                     ") is larger than the cache's bound (" +
                     formatBytes(maxBytes) + ")");
  llvm::SmallString<128> model(directory);
  llvm::sys::path::append(model, ".tmp-%%%%%%%%%%%%%%%%" + kEntrySuffix.str());
  int fd;
  llvm::SmallString<128> temporary;
  if (std::error_code ec = fs::createUniqueFile(model, fd, temporary))
    return makeError("cannot create a file in the cache directory '" +
                     directory + "': " + ec.message());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << bytes;
    os.close();
    if (os.has_error()) {
      os.clear_error();
      fs::remove(temporary);
      return makeError("cannot write the cache entry '" + temporary + "'");
    }
  }
  std::string path = getEntryPath(key);
  if (std::error_code ec = fs::rename(temporary, path)) {
    fs::remove(temporary);
    return makeError("cannot rename the cache entry to '" + path +
                     "': " + ec.message());
  }
  evict();
  return bytes.size();
}

void CompileCache::evict() const {
  struct Entry {
    std::string path;
    uint64_t size;
    llvm::sys::TimePoint<> used;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  auto now = std::chrono::system_clock::now();
  std::error_code ec;
  for (fs::directory_iterator it(directory, ec), end; !ec && it != end;
       it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    if (!name.ends_with(kEntrySuffix))
      continue;
    fs::file_status status;
    if (fs::status(it->path(), status) || !fs::is_regular_file(status))
      continue;
    if (name.starts_with(".tmp-")) {
      // Left over by a run that died while writing.
      if (now - status.getLastModificationTime() > kStaleTemporary)
        fs::remove(it->path());
      continue;
    }
    entries.push_back(
        {it->path(), status.getSize(), status.getLastModificationTime()});
    total += status.getSize();
  }
  if (total <= maxBytes)
    return;
  llvm::sort(entries, [](const Entry &a, const Entry &b) {
    return a.used < b.used || (a.used == b.used && a.path < b.path);
  });
  for (const Entry &entry : entries) {
    if (total <= maxBytes)
      break;
    // A concurrent run may have removed it already.
    fs::remove(entry.path);
    total -= entry.size;
  }
}
