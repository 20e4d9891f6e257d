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
  for (Block &block : region) {
    // The next op is found before the callback runs (it may erase the op
    // it is given), and loaded while it runs: the ops of a large module
    // are rarely in cache.
    for (Operation *nested = block.empty() ? nullptr : &block.front();
         nested;) {
      Operation *next = nested->getNextNode();
      if (next)
        prefetchOp(next);
      if (walkOp(nested, order, callback).wasInterrupted())
        return WalkResult::interrupt();
      nested = next;
    }
  }
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
