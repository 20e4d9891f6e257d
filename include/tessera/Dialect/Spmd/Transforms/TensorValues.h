//===- TensorValues.h - what partitioning knows of values -----*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_TRANSFORMS_TENSORVALUES_H
#define TESSERA_DIALECT_SPMD_TRANSFORMS_TENSORVALUES_H

#include "mlir/IR/Value.h"

namespace mlir::tessera::spmd {

/// True if `value` is all zeros: a zero splat constant or a `linalg.fill`
/// with zero (the identity of a sum, so also its own unreduced form).
bool isZeroSplat(Value value);

} // namespace mlir::tessera::spmd

#endif // TESSERA_DIALECT_SPMD_TRANSFORMS_TENSORVALUES_H
