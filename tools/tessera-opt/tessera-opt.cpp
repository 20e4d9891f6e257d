//===- tessera-opt.cpp - mlir-opt with Tessera's dialects and passes ------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/InitAllDialects.h"
#include "tessera/InitAllPasses.h"
#include "tessera/Version.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

// The passes that only tests use (test/lib), registered here alone, as
// mlir-opt registers upstream MLIR's test passes.
namespace mlir::tessera::test {
void registerTestDataFlowEdgesPass();
} // namespace mlir::tessera::test

int main(int argc, char **argv) {
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "Tessera version " TESSERA_VERSION_STRING "\n";
  });
  mlir::tessera::registerAllPasses();
  mlir::tessera::test::registerTestDataFlowEdgesPass();
  mlir::DialectRegistry registry;
  mlir::tessera::registerAllDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Tessera optimizer driver\n", registry));
}
