//===- ArtifactInspect.cpp - what tessera-export inspect prints -----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Execution/Artifact.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::exec;
namespace json = llvm::json;

/// A Python tuple of `items`: `()`, `(a,)`, `(a, b)`.
static std::string pyTuple(llvm::ArrayRef<std::string> items) {
  return "(" + llvm::join(items, ", ") + (items.size() == 1 ? ",)" : ")");
}

/// Python's repr of a string (the names JAX prints quoted).
static std::string pyString(llvm::StringRef s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "'";
}

static std::string capitalize(llvm::StringRef s) {
  std::string out = s.str();
  if (!out.empty())
    out[0] = llvm::toUpper(out[0]);
  return out;
}

/// JAX's `ShapedArray(float32[b,2*d])`.
static std::string formatAval(const ArtifactAval &aval) {
  return "ShapedArray(" + aval.dtype + "[" + llvm::join(aval.shape, ",") + "])";
}

/// JAX's repr of the abstract mesh, with the device order.
static std::string formatMesh(const ArtifactMesh &mesh) {
  std::vector<std::string> axes, types;
  for (const ArtifactMeshAxis &axis : mesh.axes) {
    axes.push_back(pyString(axis.name) + ": " + std::to_string(axis.size));
    types.push_back(capitalize(axis.type));
  }
  std::string ids =
      mesh.deviceIds.empty()
          ? "iota"
          : "[" +
                llvm::join(llvm::map_range(
                               mesh.deviceIds,
                               [](int64_t id) { return std::to_string(id); }),
                           ", ") +
                "]";
  return "AbstractMesh(" + llvm::join(axes, ", ") + (axes.empty() ? "" : ", ") +
         "axis_types=" + pyTuple(types) + ", device_ids=" + ids + ")";
}

template <typename F>
static std::vector<std::string> mapAvals(const std::vector<ArtifactAval> &avals,
                                         F f) {
  std::vector<std::string> out;
  for (const ArtifactAval &aval : avals)
    out.push_back(f(aval));
  return out;
}

static std::vector<std::string>
quoteAll(const std::vector<std::string> &names) {
  std::vector<std::string> out;
  for (const std::string &name : names)
    out.push_back(pyString(name));
  return out;
}

void mlir::tessera::exec::printArtifact(const Artifact &artifact,
                                        llvm::StringRef name,
                                        llvm::raw_ostream &os, bool json) {
  const ArtifactHeader &header = artifact.container.header;
  const ArtifactMetadata &m = artifact.metadata;
  uint64_t metadataBytes = artifact.container.metadataJson.size();
  uint64_t bytecodeBytes = artifact.container.bytecode.size();
  std::string checksum = llvm::formatv("{0:x16}", header.payloadChecksum);
  if (json) {
    llvm::Expected<json::Value> metadata =
        json::parse(artifact.container.metadataJson);
    // The versions this build reads.
    json::Object dialects;
    for (const DialectVersionInfo &info : getDialectVersions())
      dialects[info.dialect] = json::Array{static_cast<int64_t>(info.oldest),
                                           static_cast<int64_t>(info.current)};
    json::Object reader{
        {"format_versions",
         json::Array{kOldestArtifactFormatVersion, kArtifactFormatVersion}},
        {"calling_convention_versions",
         json::Array{kOldestCallingConventionVersion,
                     kCallingConventionVersion}},
        {"dialect_versions", std::move(dialects)}};
    json::Object object{
        {"file", name},
        {"file_size", static_cast<int64_t>(artifact.container.fileSize)},
        {"header",
         json::Object{
             {"size", static_cast<int64_t>(ArtifactHeader::kSize)},
             {"format_version", header.formatVersion},
             {"calling_convention_version", header.callingConventionVersion},
             {"tessera_version", header.tesseraVersion},
             {"flags", header.flags},
             {"compression", "zstd"},
             {"compression_level", header.compressionLevel},
             {"payload_size", static_cast<int64_t>(header.payloadSize)},
             {"uncompressed_size",
              static_cast<int64_t>(header.uncompressedSize)},
             {"payload_checksum_xxh64", checksum}}},
        {"sections",
         json::Object{{"metadata", static_cast<int64_t>(metadataBytes)},
                      {"bytecode", static_cast<int64_t>(bytecodeBytes)}}},
        {"reader", std::move(reader)}};
    if (metadata)
      object["metadata"] = std::move(*metadata);
    else
      llvm::consumeError(metadata.takeError());
    os << llvm::formatv("{0:2}", json::Value(std::move(object))) << "\n";
    return;
  }
  std::vector<std::string> dialects;
  for (const auto &[dialect, version] : m.dialectVersions)
    dialects.push_back(dialect + " " + std::to_string(version));
  double ratio = header.payloadSize
                     ? double(header.uncompressedSize) / header.payloadSize
                     : 0;
  os << "artifact: " << name << "\n";
  os << "format: version " << header.formatVersion << ", calling convention "
     << header.callingConventionVersion << ", written by Tessera "
     << header.tesseraVersion << " (this build reads formats "
     << kOldestArtifactFormatVersion << " to " << kArtifactFormatVersion
     << ")\n";
  os << "dialects: "
     << (dialects.empty() ? std::string("none") : llvm::join(dialects, ", "))
     << "\n";
  os << "size: " << artifact.container.fileSize
     << " bytes = " << ArtifactHeader::kSize << "-byte header + "
     << header.payloadSize << "-byte payload (zstd level "
     << header.compressionLevel << ", xxh64 " << checksum << ")\n";
  os << "uncompressed: " << header.uncompressedSize << " bytes = metadata "
     << metadataBytes << " + module bytecode " << bytecodeBytes
     << llvm::formatv(" (ratio {0:f2})", ratio) << "\n";
  os << "fun_name: " << m.functionName << "\n";
  os << "in_avals: " << pyTuple(mapAvals(m.inAvals, formatAval)) << "\n";
  os << "out_avals: " << pyTuple(mapAvals(m.outAvals, formatAval)) << "\n";
  auto shape = [](const ArtifactAval &aval) { return pyTuple(aval.shape); };
  os << "in_shapes: " << pyTuple(mapAvals(m.inAvals, shape)) << "\n";
  os << "out_shapes: " << pyTuple(mapAvals(m.outAvals, shape)) << "\n";
  auto sharding = [](const ArtifactAval &aval) {
    return aval.sharding.empty() ? std::string("None") : aval.sharding;
  };
  os << "in_shardings: " << pyTuple(mapAvals(m.inAvals, sharding)) << "\n";
  os << "out_shardings: " << pyTuple(mapAvals(m.outAvals, sharding)) << "\n";
  os << "in_names: "
     << pyTuple(mapAvals(m.inAvals,
                         [](const ArtifactAval &aval) {
                           return aval.name.empty() ? std::string("None")
                                                    : pyString(aval.name);
                         }))
     << "\n";
  os << "abstract_mesh: " << formatMesh(m.mesh) << "\n";
  os << "nr_devices: " << m.numDevices << "\n";
  os << "platforms: " << pyTuple(quoteAll(m.platforms)) << "\n";
  os << "kernel_target: "
     << (m.kernelTarget.empty() ? std::string("None")
                                : pyString(m.kernelTarget))
     << "\n";
  os << "dim_vars: " << pyTuple(quoteAll(m.dimVars)) << "\n";
  os << "constraints: " << pyTuple(quoteAll(m.constraints)) << "\n";
  os << "source: " << m.source << "\n";
}
