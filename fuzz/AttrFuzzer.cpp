//===- AttrFuzzer.cpp - fuzz Tessera's attribute parsers and verifiers ----===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The input's first line is a mesh (`<["x"=8, "y"=2], device_ids=[...]>`,
// the text after `#spmd.mesh`); the rest is any attribute: `#spmd.sharding`,
// `#spmd.sharding_per_value`, `#spmd.op_sharding_rule`, `#poly.shape`, ...
// The attribute is parsed (which runs its verifier), printed and parsed
// again, and must come back as the same attribute. A `#spmd.sharding` is
// also verified against the mesh on a tensor of its rank, with and without
// the divisibility check.
//
//===----------------------------------------------------------------------===//

#include "FuzzerUtils.h"

#include "tessera/Dialect/Spmd/IR/SpmdAttrs.h"
#include "tessera/Dialect/Spmd/IR/SpmdVerifiers.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tessera;

/// Parses all of `text` as one attribute, or returns null.
static Attribute parseWhole(llvm::StringRef text, MLIRContext &ctx) {
  size_t numRead = 0;
  Attribute attr = parseAttribute(text, &ctx, Type(), &numRead);
  if (!attr || !text.drop_front(numRead).trim().empty())
    return Attribute();
  return attr;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &ctx = fuzz::getContext();
  std::string input = fuzz::toText(data, size, 1 << 12);
  auto [meshLine, attrText] = llvm::StringRef(input).split('\n');

  Attribute attr = parseWhole(attrText, ctx);
  if (!attr)
    return 0;

  std::string printed;
  llvm::raw_string_ostream os(printed);
  attr.print(os);
  Attribute reparsed = parseWhole(printed, ctx);
  if (reparsed != attr)
    fuzz::fail("attribute does not round-trip",
               input + "\n---- printed as ----\n" + printed);

  auto sharding = dyn_cast<spmd::TensorShardingAttr>(attr);
  auto mesh = dyn_cast_or_null<spmd::MeshAttr>(
      parseWhole(("#spmd.mesh" + meshLine).str(), ctx));
  if (!sharding || !mesh)
    return 0;
  SmallVector<int64_t> shape(sharding.getRank(), 16);
  auto type = RankedTensorType::get(shape, Float32Type::get(&ctx));
  auto emitError = [&](StringRef) {
    return mlir::emitError(UnknownLoc::get(&ctx));
  };
  for (bool divisibility : {false, true})
    (void)spmd::verifyTensorSharding(sharding, type, mesh, emitError,
                                     divisibility);
  return 0;
}
