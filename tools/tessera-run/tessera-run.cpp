//===- tessera-run.cpp - compile and run a program on the emulated mesh ---===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// `tessera-run FILE.mlir` compiles a global-view program for the mesh of its
// module, JIT-compiles it and runs it with one thread per emulated device;
// `--check` also runs the unpartitioned program on one device and compares.
// See docs/Running.md.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include "tessera/InitAllDialects.h"
#include "tessera/InitAllPasses.h"
#include "tessera/Version.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/TargetSelect.h"

using namespace llvm;

int main(int argc, char **argv) {
  InitLLVM initLLVM(argc, argv);
  cl::AddExtraVersionPrinter([](raw_ostream &os) {
    os << "Tessera version " TESSERA_VERSION_STRING "\n";
  });
  mlir::tessera::run::registerOptions();
  mlir::tessera::run::takeStatsFlag(argc, argv);
  cl::ParseCommandLineOptions(
      argc, argv,
      "tessera-run: compile a global-view program for a mesh of emulated "
      "devices and run it\n\n"
      "  --stats  print per device peak memory, collective calls and "
      "bytes\n");
  InitializeNativeTarget();
  InitializeNativeTargetAsmPrinter();
  InitializeNativeTargetAsmParser();
  return mlir::tessera::run::runMain();
}
