//===- SplitReductions.h - select reductions over sharded dims --*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Dialect/Spmd/Transforms/Partition: the first step of
// spmd-insert-reshards, which splits a select reduction (argmax, argmin:
// a structured op whose results pick their accumulator or an element) over
// a sharded dimension into a reduction of each device's block and a combine
// of the partial results (see SplitReductions.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_PARTITION_SPLITREDUCTIONS_H
#define TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_PARTITION_SPLITREDUCTIONS_H

#include "mlir/IR/Operation.h"

namespace mlir::tessera::spmd::detail {

/// Splits every select reduction under `root` whose reduced dimension an
/// input shards: each device reduces its block into a partial result (a
/// new dimension of the mesh axes' size), and a second reduction, over the
/// gathered partial results in block order, combines them with the op's
/// own body.
void splitSelectReductions(Operation *root);

} // namespace mlir::tessera::spmd::detail

#endif // TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_PARTITION_SPLITREDUCTIONS_H
