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
// Every infer function takes the input sharding `input`, valid on its
// resolved mesh `mesh`, and returns the result sharding, or failure with
// Shardy's message in `*error` when given. The result keeps the mesh (symbol
// or inlined) and the replicated axes of `input`, and the open/closed state
// and priority of each dimension (a priority is dropped from a dimension that
// ends up closed and empty, where it is not allowed); only the reducing and
// `*_to_unreduced` collectives change unreduced axes.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_IR_COLLECTIVESHARDINGS_H
#define TESSERA_DIALECT_SPMD_IR_COLLECTIVESHARDINGS_H

#include "tessera/Dialect/Spmd/IR/SpmdAttrs.h"

#include "mlir/Support/LLVM.h"

#include <optional>
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
/// `all_slice`). Fails on an empty, out-of-range, overlapping (`src == tgt`
/// included) or unsorted parameter list, and on axes that are not a suffix
/// of `src`.
FailureOr<TensorShardingAttr>
inferAllToAllSharding(TensorShardingAttr input,
                      ArrayRef<AllToAllParamAttr> params, MeshAttr mesh,
                      std::string *error = nullptr);

/// `all_reduce` with `kind` over `reductionAxes`: the dimensions are kept;
/// the reduced axes are removed from `unreduced` (sub-axes split as needed).
/// Fails when a reduction axis overlaps a dimension sharding or a replicated
/// axis, or removes unreduced axes that were left unreduced with another
/// kind.
FailureOr<TensorShardingAttr>
inferAllReduceSharding(TensorShardingAttr input,
                       ArrayRef<AxisRefAttr> reductionAxes, ReductionKind kind,
                       MeshAttr mesh, std::string *error = nullptr);

/// `reduce_scatter` with `kind`: the unreduced axes among `axes` are reduced
/// as by `all_reduce`, then `axes[d]` are appended to dimension d as by
/// `all_slice`.
FailureOr<TensorShardingAttr>
inferReduceScatterSharding(TensorShardingAttr input,
                           ArrayRef<AxisRefListAttr> axes, ReductionKind kind,
                           MeshAttr mesh, std::string *error = nullptr);

/// `sharded_to_unreduced`: removes `axes[d]` from the end of dimension d (as
/// `all_gather`) and adds them to the `sum`-unreduced axes (sorted, merged).
FailureOr<TensorShardingAttr>
inferShardedToUnreducedSharding(TensorShardingAttr input,
                                ArrayRef<AxisRefListAttr> axes, MeshAttr mesh,
                                std::string *error = nullptr);

/// `replicated_to_unreduced`: `axes` (not empty; replicated in `input`, that
/// is, in no dimension sharding and not unreduced) become `sum`-unreduced and
/// leave `replicated`.
FailureOr<TensorShardingAttr>
inferReplicatedToUnreducedSharding(TensorShardingAttr input,
                                   ArrayRef<AxisRefAttr> axes, MeshAttr mesh,
                                   std::string *error = nullptr);

/// `collective_permute` from `input` on `inputMesh` to `output` on
/// `outputMesh`: the meshes have the same axes and every dimension keeps its
/// sharded size.
LogicalResult verifyCollectivePermuteSharding(TensorShardingAttr input,
                                              MeshAttr inputMesh,
                                              TensorShardingAttr output,
                                              MeshAttr outputMesh,
                                              std::string *error = nullptr);

/// The axes and sub-axes of `to` that cover the digits of a device's
/// position (in the mixed radix of the mesh's axis sizes) that `refs`, axes
/// of `from`, cover, in order, consecutive sub-axes merged; failure when a
/// ref does not fall on whole sub-axes of `to` or the meshes have different
/// numbers of devices (see translateShardingToMesh).
FailureOr<SmallVector<AxisRefAttr>>
translateAxisRefsToMesh(ArrayRef<AxisRefAttr> refs, MeshAttr from, MeshAttr to);

/// translateAxisRefsToMesh for axis refs in `comm`'s convention, which names
/// a sub-axis `"x":(m)k` by the product m of the parts *minor* to it.
FailureOr<SmallVector<AxisRefAttr>>
translateCommAxisRefsToMesh(ArrayRef<AxisRefAttr> refs, MeshAttr from,
                            MeshAttr to);

/// The sharding on mesh `to` (its symbol or inlined mesh `toRef`) that gives
/// the device at every position (linear index) of `to` the block the device
/// at the same position of `from` holds under `input`, when `from` and `to`
/// have the same number of devices but other axes: each axis (or sub-axis)
/// of `input` covers a range of the digits of the position in `from`'s
/// mixed radix, which becomes the sub-axes of `to` covering that range
/// (`"x"` and `"y"` of a 2x4 mesh are `"z":(1)2` and `"z":(2)4` of its
/// 8-device 1-D view `"z"`, and `[{"x", "y"}]` is `[{"z"}]`). Unreduced axes
/// translate the same way; explicitly replicated axes are dropped. Fails when
/// a range does not fall on whole sub-axes of `to` (`"x"=2` of a 2x3 mesh on
/// a 3x2 one). With the same device ids on both meshes the translated
/// sharding is the same data layout, so no data moves.
FailureOr<TensorShardingAttr> translateShardingToMesh(TensorShardingAttr input,
                                                      MeshAttr from,
                                                      Attribute toRef,
                                                      MeshAttr to);

/// Checks that a collective's `output` sharding has the dimension axes of
/// `expected` (`result sharding doesn't match expected sharding ["x"] on
/// dimension 0`). Open/closed dimensions, priorities, replicated and
/// unreduced axes are not compared (see verifyUnreducedAxesTransition).
LogicalResult verifyCollectiveResultSharding(TensorShardingAttr expected,
                                             TensorShardingAttr output,
                                             std::string *error = nullptr);

/// The parts of the axes `lhs` that no axis of `rhs` covers (a sub-axis of
/// `lhs` partly covered by `rhs` leaves its uncovered major and minor parts).
SmallVector<AxisRefAttr> getAxisSetDiff(ArrayRef<AxisRefAttr> lhs,
                                        ArrayRef<AxisRefAttr> rhs,
                                        MeshAttr mesh);

/// Sorts `axes` in mesh order and merges consecutive sub-axes.
void sortAndMergeAxes(SmallVectorImpl<AxisRefAttr> &axes, MeshAttr mesh);

/// Checks how the unreduced axes change from `source` (an op's input
/// sharding, may be null) to `target` (its result sharding), as Shardy does:
/// - axes only in `target` are introduced: allowed only with
///   `introducedKind`, and `target` must leave them unreduced with it
///   (`cannot add new unreduced axis 'x'.`, `cannot introduce 'max'
///   unreduced axes. Expected 'sum'.`);
/// - axes only in `source` are removed (reduced): allowed only with
///   `removedKind`, which must be the kind `source` left them with
///   (`dropped unreduced axis 'x' without a blessed operation ...`,
///   `cannot reduce 'max' unreduced axes. Expected 'sum'.`);
/// - axes in both keep their kind (`cannot change the reduction operator of
///   kept unreduced axes from max to sum.`).
LogicalResult verifyUnreducedAxesTransition(
    TensorShardingAttr source, TensorShardingAttr target, MeshAttr mesh,
    std::optional<ReductionKind> introducedKind,
    std::optional<ReductionKind> removedKind, std::string *error = nullptr);

} // namespace mlir::tessera::spmd

#endif // TESSERA_DIALECT_SPMD_IR_COLLECTIVESHARDINGS_H
