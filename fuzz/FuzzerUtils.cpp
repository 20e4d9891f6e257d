//===- FuzzerUtils.cpp - shared set-up of Tessera's fuzz targets ----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "FuzzerUtils.h"

#include "tessera/InitAllDialects.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;

MLIRContext &mlir::tessera::fuzz::getContext() {
  static MLIRContext *context = [] {
    DialectRegistry registry;
    tessera::registerAllDialects(registry);
    auto *ctx = new MLIRContext(registry, MLIRContext::Threading::DISABLED);
    ctx->loadAllAvailableDialects();
    ctx->getDiagEngine().registerHandler(
        [](Diagnostic &) { return success(); });
    return ctx;
  }();
  return *context;
}
