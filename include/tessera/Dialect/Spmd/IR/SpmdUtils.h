//===- SpmdUtils.h - queries over shardings in the IR ---------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_IR_SPMDUTILS_H
#define TESSERA_DIALECT_SPMD_IR_SPMDUTILS_H

#include "tessera/Dialect/Spmd/IR/SpmdAttrs.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::tessera::spmd {

/// The sharding of `value`, or null if it has none:
/// - a function argument: its `spmd.sharding` argument attribute;
/// - a result of an op implementing ResultShardingOpInterface: what the op
///   says;
/// - any other op result: the matching entry of the op's `spmd.sharding`
///   (`#spmd.sharding_per_value`), else of its `spmd.out_sharding`.
TensorShardingAttr getSharding(Value value);

/// Whether `result`'s op gives it an `spmd.out_sharding` (JAX's
/// out_sharding=): the sharding the user asked for, which passes keep.
bool hasOutSharding(OpResult result);

/// The sharding of result `index` of a function (its `spmd.sharding`
/// result attribute), or null.
TensorShardingAttr getFuncResultSharding(Operation *funcOp, unsigned index);

/// Resolves the mesh of `sharding` from the IR around `value`, or null
/// (through `symbolTables` when given; see TensorShardingAttr::getMesh).
MeshAttr getMesh(TensorShardingAttr sharding, Value value,
                 SymbolTableCollection *symbolTables = nullptr);

/// Resolves the meshes of shardings for passes that resolve many: one
/// symbol lookup per mesh reference and parent op (the op's own scope when
/// it is a symbol table). Valid while no op whose children were resolved
/// from is erased (clear it after erasing region ops).
class MeshResolver {
public:
  /// TensorShardingAttr::getMesh(from, ...), cached.
  MeshAttr get(TensorShardingAttr sharding, Operation *from);
  SymbolTableCollection &getSymbolTables() { return symbolTables; }
  void clear() {
    meshes.clear();
    last = {};
  }

private:
  SymbolTableCollection symbolTables;
  llvm::DenseMap<std::pair<Operation *, Attribute>, MeshAttr> meshes;
  /// The last entry asked for (consecutive ops mostly ask for the same).
  std::pair<std::pair<Operation *, Attribute>, MeshAttr> last;
};

//===----------------------------------------------------------------------===//
// Axis types in context
//===----------------------------------------------------------------------===//

/// The type of mesh axis `axisName` as seen by `op`: the innermost strict
/// ancestor of `op` that changes it decides (an `spmd.manual_computation`
/// listing it in `manual_axes` makes it manual, an `spmd.auto_axes` listing
/// it auto, an `spmd.explicit_axes` listing it explicit); without one, the
/// type declared by `mesh`. Axes are matched by name. If `owner` is given,
/// it is set to that ancestor (null when the mesh decides).
AxisType getAxisTypeAt(Operation *op, MeshAttr mesh, StringRef axisName,
                       Operation **owner = nullptr);

/// `mesh` with the type of every axis replaced by `getAxisTypeAt(op, ...)`.
MeshAttr getMeshWithAxisTypesAt(Operation *op, MeshAttr mesh);

//===----------------------------------------------------------------------===//
// Axis-list algebra of the global-view collectives
//===----------------------------------------------------------------------===//

/// Removes `suffix` from the end of `axes` (an all-gather of one dimension).
/// Going from the last ref of `suffix` backwards, each ref must be a minor
/// part of the current last ref of `axes` (the same ref, or a sub-axis that
/// ends where it ends); that part is removed and the major remainder, if
/// any, stays. On failure `axes` is unspecified and `failedRef`, if given,
/// is set to the ref that could not be removed.
LogicalResult removeAxesSuffix(SmallVectorImpl<AxisRefAttr> &axes,
                               ArrayRef<AxisRefAttr> suffix, MeshAttr mesh,
                               AxisRefAttr *failedRef = nullptr);

/// Appends `ref` to `axes` (an all-slice of one dimension), merging it into
/// the last ref when the two are consecutive sub-axes of one axis.
void appendAxisOrMerge(SmallVectorImpl<AxisRefAttr> &axes, AxisRefAttr ref,
                       MeshAttr mesh);

/// True if `lhs` and `rhs` describe the same data layout: the same resolved
/// mesh (axes, device order and axis types), the same axes in every
/// dimension and the same unreduced axes and kind. Open/closed dimensions,
/// priorities and explicitly replicated axes are ignored. Meshes are
/// resolved from `scope` (through `meshes` when given).
bool isEquivalentLayout(TensorShardingAttr lhs, TensorShardingAttr rhs,
                        Operation *scope, MeshResolver *meshes = nullptr);

/// Formats axis refs as `["x", "y":(1)2]` (the form used in diagnostics).
std::string formatAxisList(ArrayRef<AxisRefAttr> axes);

} // namespace mlir::tessera::spmd

#endif // TESSERA_DIALECT_SPMD_IR_SPMDUTILS_H
