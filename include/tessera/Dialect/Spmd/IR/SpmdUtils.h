//===- SpmdUtils.h - queries over shardings in the IR -------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_IR_SPMDUTILS_H
#define TESSERA_DIALECT_SPMD_IR_SPMDUTILS_H

#include "tessera/Dialect/Spmd/IR/SpmdAttrs.h"

#include "mlir/IR/Value.h"

namespace mlir::tessera::spmd {

/// The sharding of `value`, or null if it has none:
/// - a function argument: its `spmd.sharding` argument attribute;
/// - a result of an op implementing ResultShardingOpInterface: what the op
///   says;
/// - any other op result: the matching entry of the op's `spmd.sharding`
///   (`#spmd.sharding_per_value`), else of its `spmd.out_sharding`.
TensorShardingAttr getSharding(Value value);

/// The sharding of result `index` of a function (its `spmd.sharding`
/// result attribute), or null.
TensorShardingAttr getFuncResultSharding(Operation *funcOp, unsigned index);

/// Resolves the mesh of `sharding` from the IR around `value`, or null.
MeshAttr getMesh(TensorShardingAttr sharding, Value value);

} // namespace mlir::tessera::spmd

#endif // TESSERA_DIALECT_SPMD_IR_SPMDUTILS_H
