//===- Partitioning.cpp - what spmd-partition offers op hooks -------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/Partitioning.h"

#include "mlir/IR/Operation.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

PartitionContext::~PartitionContext() = default;

void mlir::tessera::spmd::setLocalResultTypes(RewriterBase &rewriter,
                                              Operation *op,
                                              TypeRange resultTypes) {
  rewriter.modifyOpInPlace(op, [&] {
    for (auto [result, type] : llvm::zip_equal(op->getResults(), resultTypes))
      result.setType(type);
  });
}
