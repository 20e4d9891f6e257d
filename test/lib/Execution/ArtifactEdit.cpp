//===- ArtifactEdit.cpp - rewrite an artifact for tests of its reader -----===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// `tessera-artifact-edit IN.tsx -o OUT.tsx [edits]` reads an artifact's
// container (header and sections, checksums checked) and writes it again
// with valid checksums after the edits, so that tests can reach the checks
// behind the checksums: metadata that disagrees with the module or is
// malformed, other format or calling-convention versions, another module.
// Only tests use it; it is neither installed nor documented for users.
//
//   --set KEY=JSON     set a metadata field (`in_avals[0].dtype="int32"`)
//   --remove KEY       remove a metadata field
//   --metadata-text S  replace the metadata by the text S
//   --bytecode FILE    replace the module bytecode by FILE's bytes
//   --format-version N, --calling-convention N, --tessera-version S
//   --dump-sections P  also write the sections as P.json and P.mlirbc
//
//===----------------------------------------------------------------------===//

#include "tessera/Execution/Artifact.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
namespace exec = mlir::tessera::exec;

static cl::opt<std::string> input(cl::Positional, cl::Required,
                                  cl::desc("<in.tsx>"));
static cl::opt<std::string> output("o", cl::Required, cl::desc("out.tsx"));
static cl::list<std::string> sets("set", cl::desc("KEY=JSON"));
static cl::list<std::string> removes("remove", cl::desc("KEY"));
static cl::opt<std::string> metadataText("metadata-text",
                                         cl::desc("the metadata's text"));
static cl::opt<std::string> bytecodeFile("bytecode",
                                         cl::desc("the module bytecode file"));
static cl::opt<unsigned> formatVersion("format-version");
static cl::opt<unsigned> callingConvention("calling-convention");
static cl::opt<std::string> tesseraVersion("tessera-version");
static cl::opt<std::string> dumpSections("dump-sections",
                                         cl::desc("write P.json, P.mlirbc"));

static int fail(const Twine &message) {
  errs() << "tessera-artifact-edit: error: " << message << "\n";
  return 1;
}

/// The value at `path` (`a.b[2].c`) in `root`, creating nothing; with
/// `parent`, the object holding the last key and the key.
static json::Value *lookup(json::Value &root, StringRef path,
                           json::Object **parent, std::string &last) {
  json::Value *current = &root;
  while (!path.empty()) {
    size_t end = path.find_first_of(".[");
    StringRef key = path.take_front(end);
    path = path.drop_front(key.size());
    if (!key.empty()) {
      json::Object *object = current->getAsObject();
      if (!object)
        return nullptr;
      *parent = object;
      last = key.str();
      current = object->get(key);
      if (!current)
        return nullptr; // The caller may create it in `*parent`.
    }
    if (path.consume_front("[")) {
      size_t index;
      StringRef digits = path.take_until([](char c) { return c == ']'; });
      path = path.drop_front(digits.size()).drop_front(1);
      json::Array *array = current->getAsArray();
      if (!array || digits.getAsInteger(10, index) || index >= array->size())
        return nullptr;
      *parent = nullptr;
      current = &(*array)[index];
    }
    path.consume_front(".");
  }
  return current;
}

int main(int argc, char **argv) {
  InitLLVM initLLVM(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "rewrite an artifact for tests\n");
  auto buffer = MemoryBuffer::getFile(input, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fail("cannot read '" + input + "'");
  Expected<exec::ArtifactContainer> container =
      exec::readArtifactContainer((*buffer)->getBuffer());
  if (!container)
    return fail(toString(container.takeError()));
  std::string metadata = container->metadataJson;
  if (!sets.empty() || !removes.empty()) {
    Expected<json::Value> root = json::parse(metadata);
    if (!root)
      return fail(toString(root.takeError()));
    for (StringRef item : sets) {
      auto [path, text] = item.split('=');
      Expected<json::Value> value = json::parse(text);
      if (!value)
        return fail("--set " + item + ": " + toString(value.takeError()));
      json::Object *parent = nullptr;
      std::string key;
      json::Value *target = lookup(*root, path, &parent, key);
      if (target)
        *target = std::move(*value);
      else if (parent)
        (*parent)[key] = std::move(*value);
      else
        return fail("--set: no field '" + path + "'");
    }
    for (StringRef path : removes) {
      json::Object *parent = nullptr;
      std::string key;
      if (!lookup(*root, path, &parent, key) || !parent)
        return fail("--remove: no field '" + path + "'");
      parent->erase(key);
    }
    metadata.clear();
    raw_string_ostream os(metadata);
    os << *root;
  }
  if (metadataText.getNumOccurrences())
    metadata = metadataText;
  std::string bytecode = container->bytecode;
  if (!bytecodeFile.empty()) {
    auto file = MemoryBuffer::getFile(bytecodeFile, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
    if (!file)
      return fail("cannot read '" + bytecodeFile + "'");
    bytecode = (*file)->getBuffer().str();
  }
  exec::ArtifactHeader header = container->header;
  if (formatVersion.getNumOccurrences())
    header.formatVersion = formatVersion;
  if (callingConvention.getNumOccurrences())
    header.callingConventionVersion = callingConvention;
  if (tesseraVersion.getNumOccurrences())
    header.tesseraVersion = tesseraVersion;
  Expected<std::string> bytes = exec::writeArtifactContainer(
      metadata, bytecode, header.compressionLevel, header);
  if (!bytes)
    return fail(toString(bytes.takeError()));
  std::error_code ec;
  if (!dumpSections.empty()) {
    for (auto [suffix, data] :
         {std::pair<const char *, std::string *>{".json", &metadata},
          {".mlirbc", &bytecode}}) {
      raw_fd_ostream file(dumpSections + suffix, ec);
      if (ec)
        return fail("cannot write '" + dumpSections + suffix +
                    "': " + ec.message());
      file << *data;
    }
  }
  raw_fd_ostream os(output, ec);
  if (ec)
    return fail("cannot write '" + output + "': " + ec.message());
  os << *bytes;
  return 0;
}
