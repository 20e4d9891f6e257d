//===- TensorWalk.h - walks that skip scalar linalg bodies -------*- C++-*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The partitioning passes visit every op that may carry, read or produce a
// sharded tensor. The bodies of linalg ops compute on scalars and hold half
// the ops of a typical module (a matmul's multiply, add and yield): these
// walks leave them out. `prefetchOp` starts loading the op such a loop
// visits next.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_TRANSFORMS_TENSORWALK_H
#define TESSERA_DIALECT_SPMD_TRANSFORMS_TENSORWALK_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Visitors.h"

namespace mlir::tessera::spmd {

/// Walks the ops nested in `root` (not `root` itself) in `order`, as
/// `Operation::walk` does, without entering the regions of linalg ops (the
/// linalg ops themselves are visited). In pre-order, `callback` may skip an
/// op's regions; in either order it may interrupt the walk. It may erase the
/// op it is given, but no other op; the op after it is known before it is
/// visited, so ops created right after it are not visited.
WalkResult walkTensorOps(Operation *root, WalkOrder order,
                         function_ref<WalkResult(Operation *)> callback);

/// Starts loading `op`'s own fields, the cache lines of its `Operation`
/// object (null: nothing). It reads no offset into `Operation`, whose layout
/// is MLIR's own, and nothing MLIR stores around an op (results, operands,
/// regions). This is the only prefetch of the spmd passes: the ops of a large
/// module are rarely in cache, so the loops of spmd-propagate (its
/// worklist), spmd-insert-reshards and spmd-partition that visit every op
/// call it for the op they visit a few steps later. Without it, `tessera-opt
/// --tessera-partition` on the 10,000-layer MLP / 10,000 transformer blocks
/// of bench/gen-propagation-module.py spends 10% / 12% more time in the
/// partitioning passes (medians of 21 / 11 paired runs) and 18% / 21% more
/// in spmd-propagate (11 / 7 paired runs).
inline void prefetchOp(const Operation *op) {
  if (!op)
    return;
  const char *begin = reinterpret_cast<const char *>(op);
  __builtin_prefetch(begin);
  __builtin_prefetch(begin + sizeof(Operation) - 1);
}

} // namespace mlir::tessera::spmd

#endif // TESSERA_DIALECT_SPMD_TRANSFORMS_TENSORWALK_H
