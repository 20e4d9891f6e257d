//===- CollectiveShardings.h - shardings of the collectives ----*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// What each global-view collective does to a sharding: one implementation
// shared by the collectives' verifiers (which check `out_sharding` against
// the input sharding), their builders, and the passes that create
// collectives (the lowering of reshards to collectives).
//
// Every function takes the operand's sharding `input`, valid on its resolved
// mesh `mesh`, and returns the result sharding, or failure with Shardy's
// message in `*error` when given. The result keeps the mesh (symbol or
// inlined) and the replicated axes of `input`, and the open/closed state and
// priority of each dimension (a priority is dropped from a dimension that
// ends up closed and empty, where it is not allowed); only the reducing
// collectives change unreduced axes.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_IR_COLLECTIVESHARDINGS_H
#define TESSERA_DIALECT_SPMD_IR_COLLECTIVESHARDINGS_H

#include "tessera/Dialect/Spmd/IR/SpmdAttrs.h"

#include "mlir/Support/LLVM.h"

#include <string>

namespace mlir::tessera::spmd {

/// `all_gather`: removes `gatheringAxes[d]` from the end of the axes of
/// dimension d (a sub-axis may be gathered out of a larger one, leaving its
/// major part). Fails with `can't apply gathering axis "x" to operand
/// sharding on dimension 1` when the axes are not such a suffix.
FailureOr<TensorShardingAttr>
inferAllGatherSharding(TensorShardingAttr input,
                       ArrayRef<AxisRefListAttr> gatheringAxes, MeshAttr mesh,
                       std::string *error = nullptr);

/// `all_slice`: appends `slicingAxes[d]` to the axes of dimension d, merging
/// consecutive sub-axes. A slicing axis that the input already uses is not
/// rejected: it then appears twice, and the result is not a valid sharding
/// (builders check it; verifiers report the mismatch with `out_sharding`).
FailureOr<TensorShardingAttr>
inferAllSliceSharding(TensorShardingAttr input,
                      ArrayRef<AxisRefListAttr> slicingAxes, MeshAttr mesh,
                      std::string *error = nullptr);

/// `all_to_all`: for each parameter, removes its axes from the end of
/// dimension `src` (as `all_gather`) and appends them to dimension `tgt` (as
/// `all_slice`). Fails on an empty, out-of-range, equal (`src == tgt`),
/// overlapping or unsorted parameter list, and on axes that are not a suffix
/// of `src`.
FailureOr<TensorShardingAttr>
inferAllToAllSharding(TensorShardingAttr input,
                      ArrayRef<AllToAllParamAttr> params, MeshAttr mesh,
                      std::string *error = nullptr);

/// `all_reduce` with `kind` over `reductionAxes`: the dimensions are kept;
/// reduced unreduced axes are removed from `unreduced`. Fails when a
/// reduction axis overlaps a dimension sharding or a replicated axis,
/// partially overlaps an unreduced axis, or reduces unreduced axes of
/// another kind.
FailureOr<TensorShardingAttr>
inferAllReduceSharding(TensorShardingAttr input,
                       ArrayRef<AxisRefAttr> reductionAxes, ReductionKind kind,
                       MeshAttr mesh, std::string *error = nullptr);

/// `reduce_scatter` with `kind`: an `all_reduce` over every axis of `axes`,
/// then an `all_slice` of `axes[d]` along each dimension d.
FailureOr<TensorShardingAttr>
inferReduceScatterSharding(TensorShardingAttr input,
                           ArrayRef<AxisRefListAttr> axes, ReductionKind kind,
                           MeshAttr mesh, std::string *error = nullptr);

/// `collective_permute` from `input` on `inputMesh` to `output` on
/// `outputMesh`: the meshes have the same axes, every dimension keeps its
/// sharded size, and the unreduced axes and their kind are unchanged.
LogicalResult verifyCollectivePermuteSharding(TensorShardingAttr input,
                                              MeshAttr inputMesh,
                                              TensorShardingAttr output,
                                              MeshAttr outputMesh,
                                              std::string *error = nullptr);

/// Checks that a collective's `output` sharding is the `expected` one: the
/// same axes in every dimension (`result sharding doesn't match expected
/// sharding ["x"] on dimension 0`) and the same unreduced axes and kind.
/// Open/closed dimensions, priorities and replicated axes may differ.
LogicalResult verifyCollectiveResultSharding(TensorShardingAttr expected,
                                             TensorShardingAttr output,
                                             std::string *error = nullptr);

/// Checks how `target` (the sharding of a reshard or sharding constraint)
/// changes the unreduced axes of `source` (its operand's): an axis that stays
/// unreduced keeps its reduction kind, and new unreduced axes are `sum`.
LogicalResult verifyUnreducedTransition(TensorShardingAttr source,
                                        TensorShardingAttr target,
                                        std::string *error = nullptr);

} // namespace mlir::tessera::spmd

#endif // TESSERA_DIALECT_SPMD_IR_COLLECTIVESHARDINGS_H
