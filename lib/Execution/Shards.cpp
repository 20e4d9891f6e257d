//===- Shards.cpp - arrays stored as one .npy file per block --------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Execution/Shards.h"

#include "tessera/Execution/Program.h"
#include "tessera/Runtime/DistributedArray.h"
#include "tessera/Runtime/NpyReader.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlir;
using namespace mlir::tessera::exec;
using ::tessera::rt::BlockIndex;
using ::tessera::rt::DType;
using ::tessera::rt::HostArray;
namespace rt = ::tessera::rt;

/// The version of the index this code writes and reads.
static constexpr int64_t kShardFormatVersion = 1;

bool mlir::tessera::exec::isDirectory(llvm::StringRef path) {
  return llvm::sys::fs::is_directory(path);
}

std::string mlir::tessera::exec::getShardFileName(const BlockIndex &index) {
  std::string name;
  for (size_t d = 0; d < index.start.size(); ++d)
    name += (d ? "_" : "") + std::to_string(index.start[d]) + "-" +
            std::to_string(index.stop[d]);
  return (name.empty() ? "scalar" : name) + ".npy";
}

/// The dtype named `name` (as getDTypeName prints it).
static std::optional<DType> parseDType(llvm::StringRef name) {
  for (int code = 0; code <= static_cast<int>(DType::U64); ++code)
    if (name == rt::getDTypeName(static_cast<DType>(code)))
      return static_cast<DType>(code);
  return std::nullopt;
}

/// Reads a JSON array of integers.
static bool readInts(const llvm::json::Value *value,
                     std::vector<int64_t> &out) {
  const llvm::json::Array *array = value ? value->getAsArray() : nullptr;
  if (!array)
    return false;
  out.clear();
  for (const llvm::json::Value &item : *array) {
    std::optional<int64_t> number = item.getAsInteger();
    if (!number)
      return false;
    out.push_back(*number);
  }
  return true;
}

static int64_t getVolume(const std::vector<int64_t> &shape) {
  int64_t volume = 1;
  for (int64_t d : shape)
    volume *= d;
  return volume;
}

/// The intersection of `a` and `b`, or nothing if it is empty.
static std::optional<BlockIndex> intersect(const BlockIndex &a,
                                           const BlockIndex &b) {
  BlockIndex result;
  for (size_t d = 0; d < a.start.size(); ++d) {
    int64_t lo = std::max(a.start[d], b.start[d]);
    int64_t hi = std::min(a.stop[d], b.stop[d]);
    if (lo >= hi)
      return std::nullopt;
    result.start.push_back(lo);
    result.stop.push_back(hi);
  }
  return result;
}

llvm::Expected<ShardIndex>
mlir::tessera::exec::readShardIndex(llvm::StringRef dir) {
  llvm::SmallString<128> path(dir);
  llvm::sys::path::append(path, "index.json");
  auto fail = [&](const llvm::Twine &message) {
    return makeError(path + ": " + message);
  };
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return makeError(dir + ": a directory of shards needs an index.json (" +
                     buffer.getError().message() + ")");
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return fail("not valid JSON: " + llvm::toString(json.takeError()));
  const llvm::json::Object *root = json->getAsObject();
  if (!root || root->getString("format") != "tessera-shards")
    return fail("not a tessera-shards index (its \"format\" must be "
                "\"tessera-shards\")");
  std::optional<int64_t> version = root->getInteger("version");
  if (version != kShardFormatVersion)
    return fail("unsupported version " +
                (version ? std::to_string(*version) : std::string("(none)")) +
                " (this build reads version " +
                std::to_string(kShardFormatVersion) + ")");
  ShardIndex index;
  index.dir = dir.str();
  std::optional<llvm::StringRef> dtype = root->getString("dtype");
  std::optional<DType> parsed = dtype ? parseDType(*dtype) : std::nullopt;
  if (!parsed)
    return fail("unknown dtype" +
                (dtype ? " '" + dtype->str() + "'" : std::string()));
  index.dtype = *parsed;
  if (!readInts(root->get("shape"), index.shape) ||
      llvm::any_of(index.shape, [](int64_t d) { return d < 0; }))
    return fail("\"shape\" must be a list of sizes >= 0");
  const llvm::json::Array *shards = root->getArray("shards");
  if (!shards)
    return fail("\"shards\" must be a list");
  for (const llvm::json::Value &item : *shards) {
    const llvm::json::Object *object = item.getAsObject();
    ShardIndex::Shard shard;
    std::optional<llvm::StringRef> file =
        object ? object->getString("file") : std::nullopt;
    if (!object || !file ||
        !readInts(object->get("start"), shard.index.start) ||
        !readInts(object->get("stop"), shard.index.stop))
      return fail("every shard needs \"start\", \"stop\" and \"file\"");
    shard.file = file->str();
    if (shard.file.empty() || shard.file.find('/') != std::string::npos ||
        shard.file == "." || shard.file == "..")
      return fail("shard file '" + shard.file +
                  "' must be a file name in the directory");
    size_t rank = index.shape.size();
    bool inside =
        shard.index.start.size() == rank && shard.index.stop.size() == rank;
    for (size_t d = 0; inside && d < rank; ++d)
      inside = shard.index.start[d] >= 0 &&
               shard.index.start[d] <= shard.index.stop[d] &&
               shard.index.stop[d] <= index.shape[d];
    if (!inside)
      return fail("shard '" + shard.file + "' [" + shard.index.toString() +
                  "] is not inside the array of shape " +
                  rt::formatShape(index.shape));
    for (const ShardIndex::Shard &other : index.shards)
      if (intersect(other.index, shard.index))
        return fail("shards '" + other.file + "' and '" + shard.file +
                    "' overlap");
    index.shards.push_back(std::move(shard));
  }
  return std::move(index);
}

/// Copies the elements of the intersection of `dstBox` and `srcBox` from
/// `src` (which holds the elements of `srcBox`) to `dst` (those of
/// `dstBox`), one memcpy per row.
static void copyOverlap(HostArray &dst, const BlockIndex &dstBox,
                        const HostArray &src, const BlockIndex &srcBox) {
  if (dstBox.start.empty()) {
    std::memcpy(dst.data(), src.data(), rt::getDTypeBytes(dst.getDType()));
    return;
  }
  std::optional<BlockIndex> part = intersect(dstBox, srcBox);
  if (!part)
    return;
  std::vector<int64_t> srcStart, dstStart;
  for (size_t d = 0; d < part->start.size(); ++d) {
    srcStart.push_back(part->start[d] - srcBox.start[d]);
    dstStart.push_back(part->start[d] - dstBox.start[d]);
  }
  rt::copyRegion(src, srcStart, dst, dstStart, part->getShape());
}

/// The box of every element of `array`.
static BlockIndex getWhole(const HostArray &array) {
  BlockIndex whole;
  whole.start.assign(array.getShape().size(), 0);
  whole.stop = array.getShape();
  return whole;
}

void mlir::tessera::exec::placeBlockData(HostArray &global,
                                         const BlockIndex &index,
                                         const HostArray &data) {
  copyOverlap(global, getWhole(global), data, index);
}

HostArray mlir::tessera::exec::getRegion(const HostArray &global,
                                         const BlockIndex &index) {
  HostArray region(global.getDType(), index.getShape());
  copyOverlap(region, index, global, getWhole(global));
  return region;
}

HostArray mlir::tessera::exec::getBlockData(const HostArray &block,
                                            const BlockIndex &index) {
  if (block.getShape() == index.getShape())
    return block;
  // The data lie in the block's corner.
  BlockIndex corner;
  corner.start.assign(index.start.size(), 0);
  corner.stop = index.getShape();
  return getRegion(block, corner);
}

llvm::Error mlir::tessera::exec::readShardBox(const ShardIndex &index,
                                              const BlockIndex &box,
                                              HostArray &out,
                                              int64_t &bytesRead) {
  std::string error;
  HostArray result;
  if (!HostArray::create(index.dtype, box.getShape(), result, error))
    return makeError(index.dir + ": " + error);
  if (getVolume(box.getShape()) == 0 && !box.start.empty()) {
    out = std::move(result);
    return llvm::Error::success();
  }
  int64_t covered = 0;
  for (const ShardIndex::Shard &shard : index.shards) {
    std::optional<BlockIndex> part = intersect(shard.index, box);
    if (!part)
      continue;
    llvm::SmallString<128> path(index.dir);
    llvm::sys::path::append(path, shard.file);
    std::unique_ptr<rt::NpyReader> reader =
        rt::NpyReader::open(path.str().str(), error);
    if (!reader)
      return makeError(error);
    const rt::NpyHeader &header = reader->getHeader();
    if (header.dtype != index.dtype || header.shape != shard.index.getShape())
      return makeError(
          path + ": " + rt::getDTypeName(header.dtype) + " of shape " +
          rt::formatShape(header.shape) + ", but the index says the shard [" +
          shard.index.toString() + "] holds " + rt::getDTypeName(index.dtype) +
          " of shape " + rt::formatShape(shard.index.getShape()));
    // The part, in the shard's own indices.
    std::vector<int64_t> start, stop;
    for (size_t d = 0; d < part->start.size(); ++d) {
      start.push_back(part->start[d] - shard.index.start[d]);
      stop.push_back(part->stop[d] - shard.index.start[d]);
    }
    HostArray data;
    if (!reader->readBox(start, stop, data, error))
      return makeError(error);
    bytesRead += reader->getBytesRead();
    copyOverlap(result, box, data, *part);
    covered += getVolume(part->getShape());
  }
  if (covered != getVolume(box.getShape()))
    return makeError(index.dir + ": the shards do not cover the block [" +
                     box.toString() + "] of the array");
  out = std::move(result);
  return llvm::Error::success();
}

llvm::Error mlir::tessera::exec::writeShardFile(llvm::StringRef dir,
                                                const BlockIndex &index,
                                                const HostArray &data) {
  llvm::SmallString<128> path(dir);
  llvm::sys::path::append(path, getShardFileName(index));
  std::string error;
  if (!rt::writeNpy(path.str().str(), data, error))
    return makeError("--output-shards: " + error);
  return llvm::Error::success();
}

llvm::Error
mlir::tessera::exec::writeShardIndex(llvm::StringRef dir, DType dtype,
                                     const std::vector<int64_t> &shape,
                                     const std::vector<BlockIndex> &blocks) {
  // JSON, one shard per line.
  auto list = [](const std::vector<int64_t> &values) {
    return llvm::formatv("{0}", llvm::json::Value(llvm::json::Array(values)))
        .str();
  };
  std::string text = "{\n  \"format\": \"tessera-shards\",\n  \"version\": " +
                     std::to_string(kShardFormatVersion) +
                     ",\n  \"dtype\": \"" + rt::getDTypeName(dtype) +
                     "\",\n  \"shape\": " + list(shape) + ",\n  \"shards\": [";
  for (size_t i = 0; i < blocks.size(); ++i)
    text += std::string(i ? "," : "") +
            "\n    {\"start\": " + list(blocks[i].start) +
            ", \"stop\": " + list(blocks[i].stop) + ", \"file\": \"" +
            getShardFileName(blocks[i]) + "\"}";
  text += "\n  ]\n}\n";
  llvm::SmallString<128> path(dir);
  llvm::sys::path::append(path, "index.json");
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return makeError("--output-shards: cannot write '" + path +
                     "': " + ec.message());
  os << text;
  os.close();
  if (os.has_error())
    return makeError("--output-shards: cannot write '" + path +
                     "': " + os.error().message());
  return llvm::Error::success();
}
