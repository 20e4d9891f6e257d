//===- FuzzerUtils.cpp - shared set-up of Tessera's fuzz targets ----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "FuzzerUtils.h"

#include "tessera/InitAllDialects.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"

#include <memory>

using namespace mlir;

/// How many inputs share one context. MLIR interns every attribute and type
/// for the life of its context (and the dialects' verifier caches grow with
/// them), so a fuzzing process that keeps one context for millions of inputs
/// runs out of memory; a fresh context every so often keeps it bounded.
static constexpr unsigned kInputsPerContext = 20000;

static std::unique_ptr<MLIRContext> makeContext() {
  DialectRegistry registry;
  tessera::registerAllDialects(registry);
  auto ctx =
      std::make_unique<MLIRContext>(registry, MLIRContext::Threading::DISABLED);
  ctx->loadAllAvailableDialects();
  ctx->getDiagEngine().registerHandler([](Diagnostic &) { return success(); });
  return ctx;
}

MLIRContext &mlir::tessera::fuzz::getContext() {
  static std::unique_ptr<MLIRContext> context;
  static unsigned uses = 0;
  if (!context || ++uses % kInputsPerContext == 0)
    context = makeContext();
  return *context;
}
