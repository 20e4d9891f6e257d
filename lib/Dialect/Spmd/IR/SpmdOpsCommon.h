//===- SpmdOpsCommon.h - helpers shared by the spmd op files ----*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Dialect/Spmd/IR: what the files of the op families
// (SpmdShardingOps.cpp, SpmdRegionOps.cpp, SpmdCollectiveOps.cpp) share.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_DIALECT_SPMD_IR_SPMDOPSCOMMON_H
#define TESSERA_LIB_DIALECT_SPMD_IR_SPMDOPSCOMMON_H

#include "tessera/Dialect/Spmd/IR/CollectiveShardings.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"

#include "mlir/IR/SymbolTable.h"

#include <optional>
#include <string>

namespace mlir::tessera::spmd::detail {

/// Checks the unreduced axes from `source` (the input sharding, may be null)
/// to `target` on `mesh` (see spmd::verifyUnreducedAxesTransition).
inline LogicalResult
verifyUnreducedChange(Operation *op, TensorShardingAttr source,
                      TensorShardingAttr target, MeshAttr mesh,
                      std::optional<ReductionKind> introducedKind,
                      std::optional<ReductionKind> removedKind) {
  std::string error;
  if (failed(verifyUnreducedAxesTransition(source, target, mesh, introducedKind,
                                           removedKind, &error)))
    return op->emitOpError(error);
  return success();
}

} // namespace mlir::tessera::spmd::detail

#endif // TESSERA_LIB_DIALECT_SPMD_IR_SPMDOPSCOMMON_H
