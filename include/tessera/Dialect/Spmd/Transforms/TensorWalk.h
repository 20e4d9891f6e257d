//===- TensorWalk.h - walks that skip scalar linalg bodies -------*- C++-*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The partitioning passes visit every op that may carry, read or produce a
// sharded tensor. The bodies of linalg ops compute on scalars and hold half
// the ops of a typical module (a matmul's multiply, add and yield): these
// walks leave them out.
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
/// op it is given, but no other op (each block's ops are listed before they
/// are visited), and the ops it creates are not visited.
WalkResult walkTensorOps(Operation *root, WalkOrder order,
                         function_ref<WalkResult(Operation *)> callback);

/// Starts loading `op` into the cache: its results (stored before it), its
/// fields and its first operands. The ops of a large module span hundreds
/// of MB; loops over them prefetch the op they visit a few steps later.
inline void prefetchOp(const Operation *op) {
  const char *at = reinterpret_cast<const char *>(op);
  __builtin_prefetch(at - 64);
  __builtin_prefetch(at);
  __builtin_prefetch(at + 64);
}

/// Starts loading the values `op` reads (a function argument, or a result
/// of an op far back, is rarely in cache). `op` itself should be loaded.
inline void prefetchOperands(Operation *op) {
  for (Value value : op->getOperands())
    __builtin_prefetch(value.getAsOpaquePointer());
}

/// prefetchOp(ops[i]) if there is such an op.
inline void prefetchOp(ArrayRef<Operation *> ops, size_t i) {
  if (i < ops.size())
    prefetchOp(ops[i]);
}

} // namespace mlir::tessera::spmd

#endif // TESSERA_DIALECT_SPMD_TRANSFORMS_TENSORWALK_H
