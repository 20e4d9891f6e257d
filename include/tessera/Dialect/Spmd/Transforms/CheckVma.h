//===- CheckVma.h - JAX's check_vma for one manual computation --*- C++-*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The check of `spmd-check-vma` for one `spmd.manual_computation`, for the
// passes that run it as they reach each computation (spmd-insert-reshards
// with `check-vma=true`).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_TRANSFORMS_CHECKVMA_H
#define TESSERA_DIALECT_SPMD_TRANSFORMS_CHECKVMA_H

#include "tessera/Dialect/Spmd/IR/SpmdOps.h"

namespace mlir::tessera::spmd {

/// Fails with JAX's message (and a note at the value's definition) when a
/// result of `op` is declared replicated over a manual axis it may vary
/// along. Succeeds without looking when `op` has `spmd.check_vma = false`.
/// The manual computations nested in `op` are not checked.
LogicalResult checkVma(ManualComputationOp op);

} // namespace mlir::tessera::spmd

#endif // TESSERA_DIALECT_SPMD_TRANSFORMS_CHECKVMA_H
