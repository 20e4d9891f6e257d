//===- my-opt.cpp - a compiler's own opt tool with Tessera inside ---------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// What a compiler team writes to run Tessera's passes next to its own: the
// upstream dialects and passes, then Tessera's (dialects, external models,
// passes and pipelines) through its one registration point.
//
//===----------------------------------------------------------------------===//

#include "tessera/InitAllDialects.h"
#include "tessera/InitAllPasses.h"
#include "tessera/Version.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllPasses();
  mlir::tessera::registerAllDialects(registry);
  mlir::tessera::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "my-opt (with Tessera " TESSERA_VERSION_STRING ")\n",
      registry));
}
