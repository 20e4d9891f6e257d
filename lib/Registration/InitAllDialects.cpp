//===- InitAllDialects.cpp - register every dialect Tessera uses ----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/InitAllDialects.h"

#include "tessera/Dialect/Comm/IR/CommDialect.h"
#include "tessera/Dialect/Kernel/IR/KernelDialect.h"
#include "tessera/Dialect/Poly/Extensions/SymbolicShapeExternalModels.h"
#include "tessera/Dialect/Poly/IR/PolyDialect.h"
#include "tessera/Dialect/Spmd/Extensions/FuncExtension.h"
#include "tessera/Dialect/Spmd/Extensions/ShardingRuleExternalModels.h"
#include "tessera/Dialect/Spmd/IR/SpmdDialect.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"

void mlir::tessera::registerAllDialects(DialectRegistry &registry) {
  // Upstream dialects: compute ops are always upstream MLIR.
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // Tessera's own dialects.
  registry.insert<spmd::SpmdDialect>();
  registry.insert<comm::CommDialect>();
  registry.insert<poly::PolyDialect>();
  registry.insert<kernel::KernelDialect>();
  poly::registerSymbolicShapeExternalModels(registry);
  spmd::registerShardingRuleExternalModels(registry);
  spmd::registerFunctionShardingVerifierModels(registry);
}

void mlir::tessera::registerAllDialects(MLIRContext &context) {
  DialectRegistry registry;
  mlir::tessera::registerAllDialects(registry);
  context.appendDialectRegistry(registry);
}
