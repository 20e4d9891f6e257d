//===- CommOps.h - comm operations --------------------------------*- C++
//-*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_COMM_IR_COMMOPS_H
#define TESSERA_DIALECT_COMM_IR_COMMOPS_H

#include "tessera/Dialect/Comm/IR/CommDialect.h"
#include "tessera/Dialect/Spmd/IR/SpmdAttrs.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>

namespace mlir::tessera::comm {

/// The side-effect resource of collectives. A collective reads it and
/// nothing writes it: the effect keeps collectives from being sunk into
/// conditional regions or hoisted out of loops (every device of a group must
/// execute a collective together) while unused ones are still erased and
/// equal ones CSE'd.
struct CollectiveResource
    : public SideEffects::Resource::Base<CollectiveResource> {
  StringRef getName() final { return "comm::Collective"; }
};

} // namespace mlir::tessera::comm

#include "tessera/Dialect/Comm/IR/CommInterfaces.h.inc"

#define GET_OP_CLASSES
#include "tessera/Dialect/Comm/IR/CommOps.h.inc"

namespace mlir::tessera::comm {

/// The number of devices in each group formed by `axes` of `mesh`: the
/// product of the sizes of the axes and sub-axes (1 for no axes). The axes
/// must exist in `mesh`.
int64_t getGroupSize(spmd::MeshAttr mesh, ArrayRef<spmd::AxisRefAttr> axes);

/// Resolves the `spmd.mesh` named `name` from `from` (nearest symbol table
/// upwards), through `symbolTables` when given. Null if there is none.
spmd::MeshAttr lookupMesh(Operation *from, FlatSymbolRefAttr name,
                          SymbolTableCollection *symbolTables = nullptr);

/// Returns `axes` as a canonical set for an order-insensitive use (a
/// reduction): sorted in mesh order, consecutive sub-axes merged, size-1
/// full axes dropped. The axes must be valid and non-overlapping in `mesh`.
SmallVector<spmd::AxisRefAttr>
getCanonicalAxisSet(spmd::MeshAttr mesh, ArrayRef<spmd::AxisRefAttr> axes);

/// True if `kind` can reduce elements of type `elementType` (see
/// `comm.all_reduce`).
bool isSupportedReductionElementType(ReductionKind kind, Type elementType);

} // namespace mlir::tessera::comm

#endif // TESSERA_DIALECT_COMM_IR_COMMOPS_H
