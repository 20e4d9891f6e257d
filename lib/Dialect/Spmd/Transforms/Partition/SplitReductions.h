//===- SplitReductions.h - select reductions over sharded dims --*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Dialect/Spmd/Transforms/Partition: a step of
// spmd-insert-reshards, which splits a select reduction (argmax, argmin:
// a structured op whose results pick their accumulator or an element) over
// a sharded dimension into a reduction of each device's block and a combine
// of the partial results (see SplitReductions.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_PARTITION_SPLITREDUCTIONS_H
#define TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_PARTITION_SPLITREDUCTIONS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::tessera::spmd::detail {

/// Splits `op` if it is a select reduction whose reduced dimension an input
/// shards: each device reduces its block into a partial result (a new
/// dimension of the mesh axes' size), and a second reduction, over the
/// gathered partial results in block order, combines them with the op's
/// own body. The new ops land before `op`, which is erased; returns whether
/// it was split. (The combine reduces over the sharded block dimension:
/// the caller must not split it again.)
bool splitSelectReduction(linalg::LinalgOp op);

} // namespace mlir::tessera::spmd::detail

#endif // TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_PARTITION_SPLITREDUCTIONS_H
