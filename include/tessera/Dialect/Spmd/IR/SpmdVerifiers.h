//===- SpmdVerifiers.h - verification of shardings ------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// A `#spmd.sharding` can only be fully checked against a mesh and a tensor
// type. These entry points are shared by the dialect's attribute hooks (op
// and function attributes) and by every op that carries shardings.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_IR_SPMDVERIFIERS_H
#define TESSERA_DIALECT_SPMD_IR_SPMDVERIFIERS_H

#include "tessera/Dialect/Spmd/IR/SpmdAttrs.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TypeRange.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"

#include <functional>

namespace mlir::tessera::spmd {

/// Emits an error whose message continues with the given text.
using EmitErrorFn = std::function<InFlightDiagnostic(StringRef)>;

/// Axis name -> the op (e.g. an `spmd.manual_computation`) that made it
/// manual for the ops nested inside it.
using ManualAxisToOwner = llvm::SmallDenseMap<StringRef, Operation *>;

/// An EmitErrorFn that reports on `op` (`'dialect.op' op <msg>`).
EmitErrorFn getEmitErrorFn(Operation *op);

/// Wraps `emitError` to name one of `numValues` values: with a single value
/// `- <msg>`, otherwise `<index> - <msg>`.
EmitErrorFn getEmitValueInRangeErrorFn(EmitErrorFn emitError, int64_t numValues,
                                       int64_t index);

/// The manual axes bound by ancestors of `op` (ops with a `manual_axes`
/// attribute of type `#spmd.manual_axes`).
ManualAxisToOwner getParentManualAxes(Operation *op);

/// Verifies `sharding` of a value of type `type` over `mesh`:
/// - maximal meshes and non-shaped types need rank 0 and no
///   replicated/unreduced axes; only ranked tensors can be sharded;
/// - the rank matches; priorities are non-negative and closed empty dims
///   have none; a dimension of size 0 is not sharded;
/// - every axis exists, no axis ref appears twice anywhere, adjacent
///   mergeable sub-axes are merged, sub-axes are valid (pre-size >= 1,
///   size > 1, pre-size*size divides the axis, not the full size), do not
///   overlap and never appear beside their full axis;
/// - replicated and unreduced lists are sorted in mesh order;
/// - with `checkDivisibility`, every static dim is divisible by its sharded
///   size;
/// - no axis is one that an enclosing manual computation already bound.
LogicalResult verifyTensorSharding(TensorShardingAttr sharding, Type type,
                                   MeshAttr mesh, EmitErrorFn emitError,
                                   bool checkDivisibility,
                                   const ManualAxisToOwner &manualAxes);

/// As above, outside any manual computation.
LogicalResult verifyTensorSharding(TensorShardingAttr sharding, Type type,
                                   MeshAttr mesh, EmitErrorFn emitError,
                                   bool checkDivisibility = false);

/// As above, resolving the mesh from `op` (`unknown mesh: @m` if missing;
/// through `symbolTables` when given) and taking the manual axes bound
/// around `op`.
LogicalResult
verifyTensorSharding(TensorShardingAttr sharding, Type type, Operation *op,
                     EmitErrorFn emitError, bool checkDivisibility = false,
                     SymbolTableCollection *symbolTables = nullptr);

/// Verifies one sharding per type (`<kind> [i] - ...` prefixes), and that all
/// shardings use the same mesh (or an empty one).
LogicalResult
verifyTensorShardingPerValue(TensorShardingPerValueAttr attr, TypeRange types,
                             Operation *op, EmitErrorFn emitError,
                             StringRef valueKind = "result",
                             SymbolTableCollection *symbolTables = nullptr);

/// True if verifying `sharding` needs a symbol lookup (its mesh is a
/// reference to an `spmd.mesh`). Such shardings are verified in
/// `verifySymbolUses` hooks, where a `SymbolTableCollection` resolves every
/// mesh of a module with one index, instead of in per-op verifiers, where
/// each lookup would scan the module.
bool needsMeshLookup(TensorShardingAttr sharding);

/// Verifies the discardable `spmd.sharding` and `spmd.out_sharding`
/// attributes of `op` that refer to mesh symbols (the other checks of these
/// attributes run in the dialect's attribute verifier).
LogicalResult verifyOpShardingSymbolUses(Operation *op,
                                         SymbolTableCollection &symbolTables);

/// Verifies the `spmd.sharding` attributes of the arguments and results of
/// `func`, resolving meshes through `symbolTables` (the `verifySymbolUses`
/// hook that registerFunctionShardingVerifierModels attaches).
LogicalResult
verifyFunctionShardingSymbolUses(FunctionOpInterface func,
                                 SymbolTableCollection &symbolTables);

/// Verifies a list of axis refs against `mesh`: known axes, no duplicates
/// (also against `seen`, which is updated), merged sub-axes, valid and
/// non-overlapping sub-axes. With `minorPreSizes` the sub-axes are in the
/// `comm` notation, where `"x":(m)k` is the part of size k after the
/// *minor* parts of product m (the sharding grammar counts the major
/// parts), so two consecutive sub-axes merge when the first is the part
/// just major to the second.
LogicalResult verifyAxisRefList(ArrayRef<AxisRefAttr> axes, MeshAttr mesh,
                                EmitErrorFn emitError,
                                llvm::SmallVectorImpl<AxisRefAttr> &seen,
                                bool minorPreSizes = false);

/// Verifies a complete set of axis refs (e.g. all the refs of a sharding)
/// for overlapping sub-axes and sub-axes used beside their full axis.
LogicalResult verifySubAxes(ArrayRef<AxisRefAttr> allAxes, MeshAttr mesh,
                            EmitErrorFn emitError);

/// Checks that every non-maximal, non-empty mesh of `symbolTableOp` (the
/// `spmd.mesh` symbols and the meshes inlined in shardings of its ops) has
/// the same number of devices, as a program that runs on one set of devices
/// needs. Reports the first mesh that differs (`'spmd.mesh' op has 4 devices
/// but mesh @mesh has 8; ...`) and fails. The dialect itself allows mixed
/// sizes, as Shardy does; passes and tools that assign devices call this.
/// With `inlinedMeshes` false, only the `spmd.mesh` symbols directly in
/// `symbolTableOp` are checked (no walk of its ops).
LogicalResult verifyOneDeviceCount(Operation *symbolTableOp,
                                   bool inlinedMeshes = true);

/// Verifies an op's `spmd.sharding_rule` attribute: an `#spmd.op_sharding_rule`
/// with one mapping per operand and result, matching their ranks and static
/// shapes (see verifyShardingRule in SpmdShardingRule.h).
LogicalResult verifyShardingRuleAttribute(Operation *op, NamedAttribute attr);

} // namespace mlir::tessera::spmd

#endif // TESSERA_DIALECT_SPMD_IR_SPMDVERIFIERS_H
