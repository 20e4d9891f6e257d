//===- TensorWalk.cpp - walks that skip scalar linalg bodies --------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/Transforms/TensorWalk.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::tessera::spmd {

static WalkResult walkOp(Operation *op, WalkOrder order,
                         function_ref<WalkResult(Operation *)> callback);

/// Visits the ops of `region`'s blocks and what they nest.
static WalkResult walkBlocks(Region &region, WalkOrder order,
                             function_ref<WalkResult(Operation *)> callback) {
  for (Block &block : region)
    for (Operation &op : llvm::make_early_inc_range(block))
      if (walkOp(&op, order, callback).wasInterrupted())
        return WalkResult::interrupt();
  return WalkResult::advance();
}

/// Visits `op` and what it nests (`walkTensorOps` for one op).
static WalkResult walkOp(Operation *op, WalkOrder order,
                         function_ref<WalkResult(Operation *)> callback) {
  if (order == WalkOrder::PreOrder) {
    WalkResult result = callback(op);
    if (result.wasInterrupted() || result.wasSkipped())
      return result.wasInterrupted() ? result : WalkResult::advance();
  }
  if (op->getNumRegions() != 0 && !isa<linalg::LinalgOp>(op))
    for (Region &region : op->getRegions())
      if (walkBlocks(region, order, callback).wasInterrupted())
        return WalkResult::interrupt();
  if (order == WalkOrder::PostOrder)
    return callback(op);
  return WalkResult::advance();
}

WalkResult walkTensorOps(Operation *root, WalkOrder order,
                         function_ref<WalkResult(Operation *)> callback) {
  for (Region &region : root->getRegions())
    if (walkBlocks(region, order, callback).wasInterrupted())
      return WalkResult::interrupt();
  return WalkResult::advance();
}

} // namespace mlir::tessera::spmd
