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

/// Appends the ops of `block` to `ops` in order. The ops of a large module
/// are rarely in cache and a block is a linked list: each op's address is
/// known only once the op before it is loaded. The list is followed from
/// both ends at once, so that two loads are under way at a time.
static void collectOps(Block &block, SmallVectorImpl<Operation *> &ops) {
  if (block.empty())
    return;
  SmallVector<Operation *> tail;
  Operation *front = &block.front();
  Operation *back = &block.back();
  while (true) {
    ops.push_back(front);
    if (front == back)
      break;
    tail.push_back(back);
    Operation *nextFront = front->getNextNode();
    if (nextFront == back)
      break;
    Operation *previousBack = back->getPrevNode();
    front = nextFront;
    back = previousBack;
  }
  ops.append(tail.rbegin(), tail.rend());
}

/// Visits the ops of `region`'s blocks and what they nest.
static WalkResult walkBlocks(Region &region, WalkOrder order,
                             function_ref<WalkResult(Operation *)> callback) {
  SmallVector<Operation *> ops;
  for (Block &block : region) {
    ops.clear();
    collectOps(block, ops);
    for (size_t i = 0, e = ops.size(); i < e; ++i) {
      // (Loaded while the ops before it are visited.)
      prefetchOp(ops, i + 4);
      if (walkOp(ops[i], order, callback).wasInterrupted())
        return WalkResult::interrupt();
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
