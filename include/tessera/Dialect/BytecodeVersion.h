//===- BytecodeVersion.h - bytecode versions of the dialects ----*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Every Tessera dialect (spmd, comm, poly, kernel) versions its MLIR
// bytecode: the writer records the dialect's version, the reader accepts the
// range the dialect documents and rewrites IR of an older version to the
// current form (MLIR's `BytecodeDialectInterface` `writeVersion`,
// `readVersion` and `upgradeFromVersion`). Exported artifacts record the
// versions too; docs/Tools/tessera-export.md states the compatibility
// promise.
//
// A version is one number. It goes up whenever the dialect's ops,
// attributes or types change so that an older reader would misread the
// bytecode; the oldest version still read goes up only when an upgrade is
// dropped, as the compatibility window allows.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_BYTECODEVERSION_H
#define TESSERA_DIALECT_BYTECODEVERSION_H

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Bytecode/BytecodeImplementation.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <functional>

namespace mlir::tessera {

/// The bytecode version of a Tessera dialect, as read from or written to
/// bytecode.
class TesseraDialectVersion : public DialectVersion {
public:
  explicit TesseraDialectVersion(uint64_t value) : value(value) {}
  uint64_t getValue() const { return value; }

private:
  uint64_t value;
};

/// The versions of one dialect's bytecode this build handles: it writes
/// `current` and reads `oldest` to `current`.
struct DialectVersionRange {
  const char *dialect;
  uint64_t current;
  uint64_t oldest;
};

/// Rewrites the IR under `top`, read from bytecode of version `from` (older
/// than the current one), into the current form.
using DialectUpgradeFn =
    std::function<LogicalResult(Operation *top, uint64_t from)>;

/// The bytecode interface every Tessera dialect registers. Attributes and
/// types are encoded as their text (their syntax is part of the versioned
/// format) through the dialect, so that a reader reads the dialect's version
/// before any of them, even in a module that uses only the dialect's
/// attributes (MLIR's own textual fallback bypasses the dialect). The
/// version written is the current one, unless the writer's configuration
/// asks for another (`BytecodeWriterConfig::setDialectVersion` with a
/// `TesseraDialectVersion`, which tests use to write the bytecode of other
/// versions).
class VersionedBytecodeInterface : public BytecodeDialectInterface {
public:
  VersionedBytecodeInterface(Dialect *dialect, DialectVersionRange range,
                             DialectUpgradeFn upgrade = nullptr)
      : BytecodeDialectInterface(dialect), range(range),
        upgrade(std::move(upgrade)) {}

  /// The versions this interface handles.
  const DialectVersionRange &getRange() const { return range; }

  LogicalResult writeAttribute(Attribute attr,
                               DialectBytecodeWriter &writer) const override {
    std::string text;
    llvm::raw_string_ostream os(text);
    attr.print(os);
    writeText(text, writer);
    return success();
  }

  LogicalResult writeType(Type type,
                          DialectBytecodeWriter &writer) const override {
    std::string text;
    llvm::raw_string_ostream os(text);
    type.print(os);
    writeText(text, writer);
    return success();
  }

  Attribute readAttribute(DialectBytecodeReader &reader) const override {
    StringRef text;
    if (failed(reader.readString(text)))
      return Attribute();
    size_t read = 0;
    Attribute attr = parseAttribute(text, getContext(), Type(), &read,
                                    /*isKnownNullTerminated=*/false);
    if (!attr || read != text.size() || &attr.getDialect() != getDialect()) {
      reader.emitError() << "malformed '" << range.dialect
                         << "' attribute in bytecode: " << text;
      return Attribute();
    }
    return attr;
  }

  Type readType(DialectBytecodeReader &reader) const override {
    StringRef text;
    if (failed(reader.readString(text)))
      return Type();
    size_t read = 0;
    Type type = parseType(text, getContext(), &read,
                          /*isKnownNullTerminated=*/false);
    if (!type || read != text.size() || &type.getDialect() != getDialect()) {
      reader.emitError() << "malformed '" << range.dialect
                         << "' type in bytecode: " << text;
      return Type();
    }
    return type;
  }

  void writeVersion(DialectBytecodeWriter &writer) const override {
    uint64_t version = range.current;
    FailureOr<const DialectVersion *> requested =
        writer.getDialectVersion(range.dialect);
    if (succeeded(requested) && *requested)
      version =
          static_cast<const TesseraDialectVersion *>(*requested)->getValue();
    writer.writeVarInt(version);
  }

  std::unique_ptr<DialectVersion>
  readVersion(DialectBytecodeReader &reader) const override {
    uint64_t version;
    if (failed(reader.readVarInt(version)))
      return nullptr;
    if (version > range.current || version < range.oldest) {
      reader.emitError() << "the '" << range.dialect
                         << "' dialect's bytecode version " << version << " is "
                         << (version > range.current ? "newer" : "older")
                         << " than this build of Tessera reads (versions "
                         << range.oldest << " to " << range.current << ")";
      return nullptr;
    }
    return std::make_unique<TesseraDialectVersion>(version);
  }

  LogicalResult
  upgradeFromVersion(Operation *top,
                     const DialectVersion &version) const override {
    uint64_t from =
        static_cast<const TesseraDialectVersion &>(version).getValue();
    if (from == range.current || !upgrade)
      return success();
    return upgrade(top, from);
  }

private:
  /// Writes `text`, kept alive until the writer is done by the context's
  /// string storage (the writer only refers to it).
  void writeText(llvm::StringRef text, DialectBytecodeWriter &writer) const {
    writer.writeOwnedString(StringAttr::get(getContext(), text).getValue());
  }

  DialectVersionRange range;
  DialectUpgradeFn upgrade;
};

} // namespace mlir::tessera

#endif // TESSERA_DIALECT_BYTECODEVERSION_H
