//===- ModuleFuzzer.cpp - fuzz module parsing and verification ------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The input is a whole `.mlir` module (seeded from test/Dialect). It is
// parsed and verified with every Tessera dialect; a module that verifies is
// printed in custom and generic form, and each printout must parse and verify
// again (every op and attribute round-trips).
//
//===----------------------------------------------------------------------===//

#include "FuzzerUtils.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

static void checkRoundTrip(ModuleOp module, bool generic,
                           const std::string &input, MLIRContext &ctx) {
  std::string printed;
  llvm::raw_string_ostream os(printed);
  OpPrintingFlags flags;
  if (generic)
    flags.printGenericOpForm();
  module->print(os, flags);
  ParserConfig config(&ctx);
  OwningOpRef<ModuleOp> reparsed = parseSourceString<ModuleOp>(printed, config);
  if (!reparsed || failed(verify(*reparsed)))
    tessera::fuzz::fail(generic ? "generic printout does not parse again"
                                : "printout does not parse again",
                        input + "\n---- printed as ----\n" + printed);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string input = tessera::fuzz::toText(data, size);
  MLIRContext &ctx = tessera::fuzz::getContext();
  ParserConfig config(&ctx);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(input, config);
  if (!module || failed(verify(*module)))
    return 0;
  checkRoundTrip(*module, /*generic=*/false, input, ctx);
  checkRoundTrip(*module, /*generic=*/true, input, ctx);
  return 0;
}
