//===- ArtifactFormat.cpp - the bytes of an exported artifact -------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The header, the zstd-compressed payload with its sections, the XXH64
// checksums (libxxhash) and the metadata JSON. Every read is bounded by the
// bytes at hand, and every error is one line naming the problem.
//
//===----------------------------------------------------------------------===//

#include "tessera/Execution/Artifact.h"

#include "LittleEndian.h"

#include "tessera/Dialect/Comm/IR/CommBytecode.h"
#include "tessera/Dialect/Kernel/IR/KernelBytecode.h"
#include "tessera/Dialect/Poly/IR/PolyBytecode.h"
#include "tessera/Dialect/Spmd/IR/SpmdBytecode.h"
#include "tessera/Version.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <xxhash.h>
#include <zstd.h>

#include <cstring>

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::exec;
namespace json = llvm::json;

/// The magic bytes: not ASCII text, then `TSX`, then bytes that a text-mode
/// transfer or a truncation at the first line would change (as PNG's).
static constexpr char kMagic[8] = {'\x89', 'T',  'S',    'X',
                                   '\r',   '\n', '\x1a', '\n'};
/// The largest uncompressed payload a reader accepts (it is allocated).
static constexpr uint64_t kMaxPayloadBytes = uint64_t(2) << 30;
/// The field of the Tessera version in the header.
static constexpr size_t kVersionField = 24;

/// The kinds of the payload's sections, in the order they are written.
enum SectionKind : uint32_t { kMetadataSection = 1, kBytecodeSection = 2 };

llvm::ArrayRef<DialectVersionInfo> mlir::tessera::exec::getDialectVersions() {
  static const std::vector<DialectVersionInfo> versions = [] {
    std::vector<DialectVersionInfo> list;
    for (const DialectVersionRange &range :
         {comm::kBytecodeVersions, kernel::kBytecodeVersions,
          poly::kBytecodeVersions, spmd::kBytecodeVersions})
      list.push_back({range.dialect, range.current, range.oldest});
    return list;
  }();
  return versions;
}

std::string Artifact::getId() const {
  return llvm::formatv("{0:x16}-{1}-{2}", container.header.payloadChecksum,
                       container.header.payloadSize,
                       container.header.uncompressedSize)
      .str();
}

//===----------------------------------------------------------------------===//
// Metadata JSON
//===----------------------------------------------------------------------===//

static json::Array toJsonArray(const std::vector<std::string> &strings) {
  json::Array array;
  for (const std::string &s : strings)
    array.push_back(s);
  return array;
}

static json::Value avalToJson(const ArtifactAval &aval) {
  json::Object object{{"shape", toJsonArray(aval.shape)},
                      {"dtype", aval.dtype},
                      {"element_type", aval.elementType}};
  object["sharding"] =
      aval.sharding.empty() ? json::Value(nullptr) : json::Value(aval.sharding);
  object["name"] = aval.name;
  return object;
}

std::string
mlir::tessera::exec::metadataToJson(const ArtifactMetadata &metadata) {
  json::Array inAvals, outAvals, axes, deviceIds;
  for (const ArtifactAval &aval : metadata.inAvals)
    inAvals.push_back(avalToJson(aval));
  for (const ArtifactAval &aval : metadata.outAvals)
    outAvals.push_back(avalToJson(aval));
  for (const ArtifactMeshAxis &axis : metadata.mesh.axes)
    axes.push_back(json::Object{
        {"name", axis.name}, {"size", axis.size}, {"type", axis.type}});
  for (int64_t id : metadata.mesh.deviceIds)
    deviceIds.push_back(id);
  json::Object versions;
  for (const auto &[dialect, version] : metadata.dialectVersions)
    versions[dialect] = static_cast<int64_t>(version);
  json::Object object{
      {"function", metadata.functionName},
      {"in_avals", std::move(inAvals)},
      {"out_avals", std::move(outAvals)},
      {"mesh", json::Object{{"symbol", metadata.mesh.symbol},
                            {"axes", std::move(axes)},
                            {"device_ids", std::move(deviceIds)}}},
      {"nr_devices", metadata.numDevices},
      {"platforms", toJsonArray(metadata.platforms)},
      {"has_kernel_calls", metadata.hasKernelCalls},
      {"dim_vars", toJsonArray(metadata.dimVars)},
      {"constraints", toJsonArray(metadata.constraints)},
      {"dialect_versions", std::move(versions)},
      {"source", metadata.source}};
  object["kernel_target"] = metadata.kernelTarget.empty()
                                ? json::Value(nullptr)
                                : json::Value(metadata.kernelTarget);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << json::Value(std::move(object));
  return text;
}

namespace {
/// Reads the fields of the metadata, each with a path for messages
/// (`in_avals[0].shape`).
class MetadataReader {
public:
  llvm::Error error(const llvm::Twine &path, const llvm::Twine &what) {
    return makeError("malformed metadata: '" + path + "' " + what);
  }

  llvm::Error getObject(const json::Value &value, const llvm::Twine &path,
                        const json::Object *&out) {
    out = value.getAsObject();
    return out ? llvm::Error::success() : error(path, "must be an object");
  }

  /// The member `key` of `object` (at `path`), which must exist.
  llvm::Error getMember(const json::Object &object, llvm::StringRef path,
                        llvm::StringRef key, const json::Value *&out) {
    out = object.get(key);
    std::string full = path.empty() ? key.str() : (path + "." + key).str();
    return out ? llvm::Error::success() : error(full, "is missing");
  }

  llvm::Error getString(const json::Object &object, llvm::StringRef path,
                        llvm::StringRef key, std::string &out,
                        bool nullable = false) {
    const json::Value *value;
    if (llvm::Error e = getMember(object, path, key, value))
      return e;
    if (nullable && value->getAsNull()) {
      out.clear();
      return llvm::Error::success();
    }
    std::optional<llvm::StringRef> s = value->getAsString();
    if (!s)
      return error(join(path, key),
                   nullable ? "must be a string or null" : "must be a string");
    out = s->str();
    return llvm::Error::success();
  }

  llvm::Error getInteger(const json::Object &object, llvm::StringRef path,
                         llvm::StringRef key, int64_t &out, int64_t min) {
    const json::Value *value;
    if (llvm::Error e = getMember(object, path, key, value))
      return e;
    std::optional<int64_t> i = value->getAsInteger();
    if (!i || *i < min)
      return error(join(path, key),
                   "must be an integer >= " + llvm::Twine(min));
    out = *i;
    return llvm::Error::success();
  }

  llvm::Error getBool(const json::Object &object, llvm::StringRef key,
                      bool &out) {
    const json::Value *value;
    if (llvm::Error e = getMember(object, "", key, value))
      return e;
    std::optional<bool> b = value->getAsBoolean();
    if (!b)
      return error(key, "must be true or false");
    out = *b;
    return llvm::Error::success();
  }

  llvm::Error getArray(const json::Object &object, llvm::StringRef path,
                       llvm::StringRef key, const json::Array *&out) {
    const json::Value *value;
    if (llvm::Error e = getMember(object, path, key, value))
      return e;
    out = value->getAsArray();
    return out ? llvm::Error::success()
               : error(join(path, key), "must be a list");
  }

  llvm::Error getStrings(const json::Object &object, llvm::StringRef path,
                         llvm::StringRef key, std::vector<std::string> &out) {
    const json::Array *array;
    if (llvm::Error e = getArray(object, path, key, array))
      return e;
    out.clear();
    for (const json::Value &item : *array) {
      std::optional<llvm::StringRef> s = item.getAsString();
      if (!s)
        return error(join(path, key), "must be a list of strings");
      out.push_back(s->str());
    }
    return llvm::Error::success();
  }

  llvm::Error getAval(const json::Value &value, const std::string &path,
                      ArtifactAval &aval) {
    const json::Object *object;
    if (llvm::Error e = getObject(value, path, object))
      return e;
    if (llvm::Error e = getStrings(*object, path, "shape", aval.shape))
      return e;
    for (const std::string &dim : aval.shape)
      if (llvm::StringRef(dim).trim().empty())
        return error(path + ".shape", "has an empty dimension");
    if (llvm::Error e = getString(*object, path, "dtype", aval.dtype))
      return e;
    if (llvm::Error e =
            getString(*object, path, "element_type", aval.elementType))
      return e;
    if (llvm::Error e = getString(*object, path, "sharding", aval.sharding,
                                  /*nullable=*/true))
      return e;
    return getString(*object, path, "name", aval.name);
  }

  llvm::Error getAvals(const json::Object &object, llvm::StringRef key,
                       std::vector<ArtifactAval> &out) {
    const json::Array *array;
    if (llvm::Error e = getArray(object, "", key, array))
      return e;
    for (auto [i, item] : llvm::enumerate(*array)) {
      out.emplace_back();
      if (llvm::Error e = getAval(
              item, (key + "[" + llvm::Twine(i) + "]").str(), out.back()))
        return e;
    }
    return llvm::Error::success();
  }

  llvm::Error getMesh(const json::Object &top, ArtifactMesh &mesh) {
    const json::Value *value;
    const json::Object *object;
    if (llvm::Error e = getMember(top, "", "mesh", value))
      return e;
    if (llvm::Error e = getObject(*value, "mesh", object))
      return e;
    if (llvm::Error e = getString(*object, "mesh", "symbol", mesh.symbol))
      return e;
    const json::Array *axes, *ids;
    if (llvm::Error e = getArray(*object, "mesh", "axes", axes))
      return e;
    for (auto [i, item] : llvm::enumerate(*axes)) {
      std::string path = ("mesh.axes[" + llvm::Twine(i) + "]").str();
      const json::Object *axisObject;
      if (llvm::Error e = getObject(item, path, axisObject))
        return e;
      ArtifactMeshAxis axis;
      if (llvm::Error e = getString(*axisObject, path, "name", axis.name))
        return e;
      if (llvm::Error e = getInteger(*axisObject, path, "size", axis.size, 1))
        return e;
      if (llvm::Error e = getString(*axisObject, path, "type", axis.type))
        return e;
      if (axis.type != "auto" && axis.type != "explicit" &&
          axis.type != "manual")
        return error(path + ".type", "must be auto, explicit or manual");
      mesh.axes.push_back(std::move(axis));
    }
    if (llvm::Error e = getArray(*object, "mesh", "device_ids", ids))
      return e;
    for (const json::Value &item : *ids) {
      std::optional<int64_t> id = item.getAsInteger();
      if (!id || *id < 0)
        return error("mesh.device_ids", "must be a list of integers >= 0");
      mesh.deviceIds.push_back(*id);
    }
    return llvm::Error::success();
  }

private:
  static std::string join(llvm::StringRef path, llvm::StringRef key) {
    return path.empty() ? key.str() : (path + "." + key).str();
  }
};
} // namespace

/// Checks that the dialect versions are ones this build reads.
static llvm::Error checkDialectVersions(const ArtifactMetadata &metadata) {
  for (const auto &[dialect, version] : metadata.dialectVersions) {
    const DialectVersionInfo *info = nullptr;
    for (const DialectVersionInfo &known : getDialectVersions())
      if (known.dialect == dialect)
        info = &known;
    if (!info)
      return makeError("the artifact records a bytecode version of the "
                       "dialect '" +
                       dialect +
                       "', which is not a dialect of this build of Tessera");
    if (version > info->current || version < info->oldest)
      return makeError("the artifact's '" + dialect +
                       "' dialect bytecode version " + llvm::Twine(version) +
                       " is " + (version > info->current ? "newer" : "older") +
                       " than this build of Tessera reads (versions " +
                       llvm::Twine(info->oldest) + " to " +
                       llvm::Twine(info->current) + ")");
  }
  return llvm::Error::success();
}

llvm::Expected<ArtifactMetadata>
mlir::tessera::exec::parseMetadataJson(llvm::StringRef text) {
  llvm::Expected<json::Value> parsed = json::parse(text);
  if (!parsed)
    return makeError("malformed metadata: " +
                     llvm::toString(parsed.takeError()));
  MetadataReader reader;
  const json::Object *top;
  if (llvm::Error e = reader.getObject(*parsed, "the metadata", top))
    return std::move(e);
  ArtifactMetadata metadata;
  metadata.platforms.clear();
  if (llvm::Error e =
          reader.getString(*top, "", "function", metadata.functionName))
    return std::move(e);
  if (metadata.functionName.empty())
    return reader.error("function", "must not be empty");
  if (llvm::Error e = reader.getAvals(*top, "in_avals", metadata.inAvals))
    return std::move(e);
  if (llvm::Error e = reader.getAvals(*top, "out_avals", metadata.outAvals))
    return std::move(e);
  if (llvm::Error e = reader.getMesh(*top, metadata.mesh))
    return std::move(e);
  if (llvm::Error e =
          reader.getInteger(*top, "", "nr_devices", metadata.numDevices, 1))
    return std::move(e);
  if (llvm::Error e =
          reader.getStrings(*top, "", "platforms", metadata.platforms))
    return std::move(e);
  if (llvm::Error e = reader.getString(*top, "", "kernel_target",
                                       metadata.kernelTarget, true))
    return std::move(e);
  if (llvm::Error e =
          reader.getBool(*top, "has_kernel_calls", metadata.hasKernelCalls))
    return std::move(e);
  if (llvm::Error e = reader.getStrings(*top, "", "dim_vars", metadata.dimVars))
    return std::move(e);
  if (llvm::Error e =
          reader.getStrings(*top, "", "constraints", metadata.constraints))
    return std::move(e);
  if (llvm::Error e = reader.getString(*top, "", "source", metadata.source))
    return std::move(e);
  const json::Value *versions;
  if (llvm::Error e = reader.getMember(*top, "", "dialect_versions", versions))
    return std::move(e);
  const json::Object *versionObject;
  if (llvm::Error e =
          reader.getObject(*versions, "dialect_versions", versionObject))
    return std::move(e);
  for (const auto &[dialect, value] : *versionObject) {
    std::optional<int64_t> version = value.getAsInteger();
    if (!version || *version < 0)
      return reader.error("dialect_versions." + dialect.str(),
                          "must be an integer >= 0");
    metadata.dialectVersions[dialect.str()] = *version;
  }
  // The mesh and the device count agree.
  int64_t devices = 1;
  for (const ArtifactMeshAxis &axis : metadata.mesh.axes)
    if (llvm::MulOverflow(devices, axis.size, devices))
      return reader.error("mesh.axes", "has too many devices");
  if (devices != metadata.numDevices)
    return reader.error("nr_devices", "is " + llvm::Twine(metadata.numDevices) +
                                          " but the mesh has " +
                                          llvm::Twine(devices) + " devices");
  if (!metadata.mesh.deviceIds.empty() &&
      static_cast<int64_t>(metadata.mesh.deviceIds.size()) != devices)
    return reader.error("mesh.device_ids", "must list every device once");
  if (llvm::Error e = checkDialectVersions(metadata))
    return std::move(e);
  return metadata;
}

//===----------------------------------------------------------------------===//
// The container
//===----------------------------------------------------------------------===//

static void appendSection(std::string &out, SectionKind kind,
                          llvm::StringRef data) {
  appendLittleEndian<uint32_t>(out, kind);
  appendLittleEndian<uint32_t>(out, 0);
  appendLittleEndian<uint64_t>(out, data.size());
  out.append(data.data(), data.size());
}

llvm::Expected<std::string>
mlir::tessera::exec::writeArtifactContainer(llvm::StringRef metadataJson,
                                            llvm::StringRef bytecode, int level,
                                            ArtifactHeader header) {
  if (level < kMinCompressionLevel || level > kMaxCompressionLevel)
    return makeError("the compression level must be " +
                     llvm::Twine(kMinCompressionLevel) + " to " +
                     llvm::Twine(kMaxCompressionLevel) + ", got " +
                     llvm::Twine(level));
  if (header.tesseraVersion.empty())
    header.tesseraVersion = TESSERA_VERSION_STRING;
  if (header.tesseraVersion.size() >= kVersionField)
    return makeError("the Tessera version '" + header.tesseraVersion +
                     "' does not fit the header");
  std::string payload;
  appendLittleEndian<uint32_t>(payload, 2);
  appendSection(payload, kMetadataSection, metadataJson);
  appendSection(payload, kBytecodeSection, bytecode);
  if (payload.size() > kMaxPayloadBytes)
    return makeError("the artifact's payload has " +
                     llvm::Twine(payload.size()) + " bytes; at most " +
                     llvm::Twine(kMaxPayloadBytes) + " are supported");

  std::string compressed(ZSTD_compressBound(payload.size()), '\0');
  size_t size = ZSTD_compress(compressed.data(), compressed.size(),
                              payload.data(), payload.size(), level);
  if (ZSTD_isError(size))
    return makeError(llvm::Twine("zstd compression failed: ") +
                     ZSTD_getErrorName(size));
  compressed.resize(size);

  header.flags = ArtifactHeader::kFlagZstd;
  header.compressionLevel = level;
  header.payloadSize = compressed.size();
  header.uncompressedSize = payload.size();
  header.payloadChecksum = XXH64(compressed.data(), compressed.size(), 0);
  std::string out(kMagic, sizeof(kMagic));
  appendLittleEndian<uint32_t>(out, header.formatVersion);
  appendLittleEndian<uint32_t>(out, header.callingConventionVersion);
  appendLittleEndian<uint32_t>(out, header.flags);
  appendLittleEndian<int32_t>(out, header.compressionLevel);
  std::string version = header.tesseraVersion;
  version.resize(kVersionField, '\0');
  out += version;
  appendLittleEndian<uint64_t>(out, header.payloadSize);
  appendLittleEndian<uint64_t>(out, header.uncompressedSize);
  appendLittleEndian<uint64_t>(out, header.payloadChecksum);
  appendLittleEndian<uint64_t>(out, XXH64(out.data(), out.size(), 0));
  assert(out.size() == ArtifactHeader::kSize && "header size");
  out += compressed;
  return out;
}

bool mlir::tessera::exec::looksLikeArtifact(llvm::StringRef bytes) {
  return bytes.starts_with(llvm::StringRef(kMagic, sizeof(kMagic)));
}

/// `what` of a version field outside `[oldest, current]`.
static llvm::Error versionError(llvm::StringRef what, uint32_t version,
                                uint32_t oldest, uint32_t current) {
  return makeError(
      "the artifact's " + what + " version " + llvm::Twine(version) + " is " +
      (version > current ? "newer" : "older") +
      " than this build of Tessera reads (versions " + llvm::Twine(oldest) +
      " to " + llvm::Twine(current) + ")" +
      (version > current ? ": run it with a newer Tessera"
                         : ": it is outside the compatibility window; "
                           "export it again"));
}

llvm::Expected<ArtifactContainer>
mlir::tessera::exec::readArtifactContainer(llvm::StringRef bytes) {
  ArtifactContainer container;
  container.fileSize = bytes.size();
  if (bytes.empty())
    return makeError("the file is empty (0 bytes), not a Tessera artifact");
  llvm::StringRef magic(kMagic, sizeof(kMagic));
  if (!magic.starts_with(bytes.take_front(magic.size())))
    return makeError("not a Tessera artifact (wrong magic bytes)");
  if (bytes.size() < ArtifactHeader::kSize)
    return makeError("the artifact is truncated: " + llvm::Twine(bytes.size()) +
                     " bytes, less than its " +
                     llvm::Twine(ArtifactHeader::kSize) + "-byte header");
  ArtifactHeader &header = container.header;
  header.formatVersion = readLittleEndian<uint32_t>(bytes, 8);
  // A newer format may lay out the rest of the header differently.
  if (header.formatVersion > kArtifactFormatVersion ||
      header.formatVersion < kOldestArtifactFormatVersion)
    return versionError("format", header.formatVersion,
                        kOldestArtifactFormatVersion, kArtifactFormatVersion);
  constexpr size_t kChecked = ArtifactHeader::kSize - sizeof(uint64_t);
  if (XXH64(bytes.data(), kChecked, 0) !=
      readLittleEndian<uint64_t>(bytes, kChecked))
    return makeError("the artifact's header is corrupted (its checksum does "
                     "not match)");
  header.callingConventionVersion = readLittleEndian<uint32_t>(bytes, 12);
  header.flags = readLittleEndian<uint32_t>(bytes, 16);
  header.compressionLevel = readLittleEndian<int32_t>(bytes, 20);
  llvm::StringRef version = bytes.substr(24, kVersionField);
  header.tesseraVersion = version.take_until([](char c) { return !c; }).str();
  header.payloadSize = readLittleEndian<uint64_t>(bytes, 48);
  header.uncompressedSize = readLittleEndian<uint64_t>(bytes, 56);
  header.payloadChecksum = readLittleEndian<uint64_t>(bytes, 64);
  if (header.callingConventionVersion > kCallingConventionVersion ||
      header.callingConventionVersion < kOldestCallingConventionVersion)
    return versionError("calling-convention", header.callingConventionVersion,
                        kOldestCallingConventionVersion,
                        kCallingConventionVersion);
  if (header.flags != ArtifactHeader::kFlagZstd)
    return makeError("the artifact has unknown flags 0x" +
                     llvm::utohexstr(header.flags) +
                     " (this build of Tessera reads zstd-compressed "
                     "payloads, flags 0x1)");
  uint64_t available = bytes.size() - ArtifactHeader::kSize;
  if (available < header.payloadSize)
    return makeError("the artifact is truncated: its payload has " +
                     llvm::Twine(available) + " of its " +
                     llvm::Twine(header.payloadSize) + " bytes");
  if (available > header.payloadSize)
    return makeError("the artifact has " +
                     llvm::Twine(available - header.payloadSize) +
                     " unexpected bytes after its payload");
  llvm::StringRef payload = bytes.drop_front(ArtifactHeader::kSize);
  uint64_t checksum = XXH64(payload.data(), payload.size(), 0);
  if (checksum != header.payloadChecksum)
    return makeError(llvm::formatv("the artifact's payload is corrupted (its "
                                   "checksum is {0:x16}, the header says "
                                   "{1:x16})",
                                   checksum, header.payloadChecksum)
                         .str());
  if (header.uncompressedSize > kMaxPayloadBytes)
    return makeError("the artifact's payload would have " +
                     llvm::Twine(header.uncompressedSize) +
                     " bytes uncompressed; at most " +
                     llvm::Twine(kMaxPayloadBytes) + " are supported");
  unsigned long long frameSize =
      ZSTD_getFrameContentSize(payload.data(), payload.size());
  if (frameSize != header.uncompressedSize)
    return makeError("the artifact's payload is not a zstd frame of the "
                     "size its header gives");
  std::string data(header.uncompressedSize, '\0');
  size_t size =
      ZSTD_decompress(data.data(), data.size(), payload.data(), payload.size());
  if (ZSTD_isError(size))
    return makeError(llvm::Twine("cannot decompress the artifact's payload: ") +
                     ZSTD_getErrorName(size));
  if (size != data.size())
    return makeError("the artifact's payload decompresses to " +
                     llvm::Twine(size) + " bytes, not " +
                     llvm::Twine(data.size()));

  // The sections: the metadata, then the module.
  llvm::StringRef rest(data);
  auto malformed = [](const llvm::Twine &what) {
    return makeError("the artifact's payload is malformed: " + what);
  };
  if (rest.size() < 4 || readLittleEndian<uint32_t>(rest, 0) != 2)
    return malformed("expected 2 sections");
  rest = rest.drop_front(4);
  for (SectionKind kind : {kMetadataSection, kBytecodeSection}) {
    if (rest.size() < 16)
      return malformed("a section header is cut off");
    uint32_t found = readLittleEndian<uint32_t>(rest, 0);
    uint64_t length = readLittleEndian<uint64_t>(rest, 8);
    if (found != kind)
      return malformed("section kind " + llvm::Twine(found) + " where " +
                       (kind == kMetadataSection ? "the metadata (1)"
                                                 : "the module bytecode (2)") +
                       " belongs");
    if (readLittleEndian<uint32_t>(rest, 4) != 0)
      return malformed("a reserved field is not zero");
    rest = rest.drop_front(16);
    if (length > rest.size())
      return malformed("a section is longer than the payload");
    (kind == kMetadataSection ? container.metadataJson : container.bytecode) =
        rest.take_front(length).str();
    rest = rest.drop_front(length);
  }
  if (!rest.empty())
    return malformed(llvm::Twine(rest.size()) +
                     " bytes after the last section");
  return container;
}

llvm::Expected<Artifact>
mlir::tessera::exec::readArtifact(llvm::StringRef bytes) {
  llvm::Expected<ArtifactContainer> container = readArtifactContainer(bytes);
  if (!container)
    return container.takeError();
  llvm::Expected<ArtifactMetadata> metadata =
      parseMetadataJson(container->metadataJson);
  if (!metadata)
    return metadata.takeError();
  Artifact artifact;
  artifact.container = std::move(*container);
  artifact.metadata = std::move(*metadata);
  return artifact;
}

llvm::Expected<Artifact>
mlir::tessera::exec::readArtifactFile(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError(path +
                     ": cannot read the file: " + buffer.getError().message());
  llvm::Expected<Artifact> artifact = readArtifact((*buffer)->getBuffer());
  if (!artifact)
    return makeError(path + ": " + llvm::toString(artifact.takeError()));
  return artifact;
}
