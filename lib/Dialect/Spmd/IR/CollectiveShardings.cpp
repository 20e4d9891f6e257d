//===- CollectiveShardings.cpp - shardings of the collectives -------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/CollectiveShardings.h"
#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Writes the concatenation of `parts` into `*error` (when given) and fails.
template <typename... Parts>
static LogicalResult fail(std::string *error, const Parts &...parts) {
  if (error) {
    error->clear();
    llvm::raw_string_ostream os(*error);
    (os << ... << parts);
  }
  return failure();
}

/// The axes of every dimension of `sharding`.
static SmallVector<SmallVector<AxisRefAttr>>
getDimAxes(TensorShardingAttr sharding) {
  return llvm::map_to_vector(
      sharding.getDimShardings(),
      [](DimensionShardingAttr dim) { return llvm::to_vector(dim.getAxes()); });
}

/// `input` with new dimension axes and unreduced axes; see the header for
/// what is kept.
static TensorShardingAttr rebuild(TensorShardingAttr input,
                                  ArrayRef<SmallVector<AxisRefAttr>> dimAxes,
                                  ArrayRef<AxisRefAttr> unreduced,
                                  ReductionKind kind) {
  MLIRContext *ctx = input.getContext();
  SmallVector<DimensionShardingAttr> dims;
  for (auto [dim, axes] : llvm::zip_equal(input.getDimShardings(), dimAxes)) {
    std::optional<int64_t> priority = dim.getPriority();
    if (dim.getIsClosed() && axes.empty())
      priority = std::nullopt;
    dims.push_back(
        DimensionShardingAttr::get(ctx, axes, dim.getIsClosed(), priority));
  }
  return TensorShardingAttr::get(
      ctx, input.getMeshOrRef(), dims, input.getReplicatedAxes(), unreduced,
      unreduced.empty() ? ReductionKind::Sum : kind, input.getReducedAxes());
}

/// Checks that there is one axis list per dimension of `input`.
static LogicalResult verifyRank(TensorShardingAttr input, size_t numLists,
                                std::string *error) {
  if (static_cast<size_t>(input.getRank()) == numLists)
    return success();
  return fail(error, "operand sharding has rank ", input.getRank(),
              " but collective axes has rank ", numLists);
}

/// Removes `axes` from the end of `dimAxes` (dimension `dim`), or fails with
/// `can't apply <kind> axis ...`.
static LogicalResult gatherAlongDim(SmallVectorImpl<AxisRefAttr> &dimAxes,
                                    ArrayRef<AxisRefAttr> axes, int64_t dim,
                                    MeshAttr mesh, StringRef kind,
                                    std::string *error) {
  AxisRefAttr failedRef;
  if (succeeded(removeAxesSuffix(dimAxes, axes, mesh, &failedRef)))
    return success();
  return fail(error, "can't apply ", kind, " axis ", failedRef.toString(),
              " to operand sharding on dimension ", dim);
}

/// Appends `axes` to `dimAxes`, merging consecutive sub-axes. Axes that the
/// sharding already uses elsewhere are not rejected here: the result then
/// lists them twice and differs from any valid `out_sharding`, which is
/// how Shardy reports it too (`result sharding doesn't match expected
/// sharding ...`). Callers that build shardings verify the result.
static void sliceAlongDim(SmallVectorImpl<AxisRefAttr> &dimAxes,
                          ArrayRef<AxisRefAttr> axes, MeshAttr mesh) {
  for (AxisRefAttr ref : axes)
    appendAxisOrMerge(dimAxes, ref, mesh);
}

//===----------------------------------------------------------------------===//
// all_gather / all_slice / all_to_all
//===----------------------------------------------------------------------===//

FailureOr<TensorShardingAttr> mlir::tessera::spmd::inferAllGatherSharding(
    TensorShardingAttr input, ArrayRef<AxisRefListAttr> gatheringAxes,
    MeshAttr mesh, std::string *error) {
  if (failed(verifyRank(input, gatheringAxes.size(), error)))
    return failure();
  SmallVector<SmallVector<AxisRefAttr>> dims = getDimAxes(input);
  for (auto [dim, axes] : llvm::enumerate(gatheringAxes))
    if (failed(gatherAlongDim(dims[dim], axes.getValue(), dim, mesh,
                              "gathering", error)))
      return failure();
  return rebuild(input, dims, input.getUnreducedAxes(),
                 input.getUnreducedKind());
}

FailureOr<TensorShardingAttr> mlir::tessera::spmd::inferAllSliceSharding(
    TensorShardingAttr input, ArrayRef<AxisRefListAttr> slicingAxes,
    MeshAttr mesh, std::string *error) {
  if (failed(verifyRank(input, slicingAxes.size(), error)))
    return failure();
  SmallVector<SmallVector<AxisRefAttr>> dims = getDimAxes(input);
  for (auto [dim, axes] : llvm::enumerate(slicingAxes))
    sliceAlongDim(dims[dim], axes.getValue(), mesh);
  return rebuild(input, dims, input.getUnreducedAxes(),
                 input.getUnreducedKind());
}

FailureOr<TensorShardingAttr>
mlir::tessera::spmd::inferAllToAllSharding(TensorShardingAttr input,
                                           ArrayRef<AllToAllParamAttr> params,
                                           MeshAttr mesh, std::string *error) {
  if (params.empty())
    return fail(error, "parameter list is empty");
  int64_t rank = input.getRank();
  llvm::BitVector seenDims(rank);
  int64_t prevSrcDim = -1;
  for (AllToAllParamAttr param : params) {
    int64_t srcDim = param.getSrcDim(), tgtDim = param.getTgtDim();
    for (auto [dim, name] :
         {std::pair<int64_t, StringRef>{srcDim, "source"}, {tgtDim, "target"}})
      if (dim < 0 || dim >= rank)
        return fail(error, name, " dimension ", dim, " is out of range [0, ",
                    rank, ")");
    for (int64_t dim : {srcDim, tgtDim}) {
      if (seenDims.test(dim))
        return fail(error,
                    "overlapping source/target dimensions in all-to-all "
                    "params: ",
                    dim);
      seenDims.set(dim);
    }
    if (prevSrcDim >= srcDim)
      return fail(error,
                  "source dimensions are not sorted in ascending order: ",
                  srcDim, " appears after ", prevSrcDim);
    prevSrcDim = srcDim;
  }

  // The parameters touch disjoint dimensions: gather every moved axis out of
  // its source first, then slice it into its target.
  SmallVector<SmallVector<AxisRefAttr>> dims = getDimAxes(input);
  for (AllToAllParamAttr param : params)
    if (failed(gatherAlongDim(dims[param.getSrcDim()], param.getAxes(),
                              param.getSrcDim(), mesh, "all-to-all", error)))
      return failure();
  for (AllToAllParamAttr param : params)
    sliceAlongDim(dims[param.getTgtDim()], param.getAxes(), mesh);
  return rebuild(input, dims, input.getUnreducedAxes(),
                 input.getUnreducedKind());
}

//===----------------------------------------------------------------------===//
// Unreduced axes
//===----------------------------------------------------------------------===//

SmallVector<AxisRefAttr>
mlir::tessera::spmd::getAxisSetDiff(ArrayRef<AxisRefAttr> lhs,
                                    ArrayRef<AxisRefAttr> rhs, MeshAttr mesh) {
  // Each ref covers the range [pre-size, next pre-size) of its axis's
  // mixed-radix digits; subtract the ranges of `rhs` from those of `lhs`.
  SmallVector<AxisRefAttr> result;
  for (AxisRefAttr ref : lhs) {
    StringRef name = ref.getName();
    int64_t axisSize = mesh.getAxisSize(name);
    SmallVector<std::pair<int64_t, int64_t>> pieces = {
        {ref.getPreSize(), ref.getNextPreSize(mesh)}};
    for (AxisRefAttr other : rhs) {
      if (other.getName() != name)
        continue;
      // A full axis covers every part of it (also an axis of size 1, whose
      // range is empty).
      if (!other.getSubAxisInfo()) {
        pieces.clear();
        break;
      }
      int64_t lo = other.getPreSize(), hi = other.getNextPreSize(mesh);
      SmallVector<std::pair<int64_t, int64_t>> next;
      for (auto [begin, end] : pieces) {
        if (hi <= begin || end <= lo) {
          next.push_back({begin, end});
          continue;
        }
        if (begin < lo)
          next.push_back({begin, lo});
        if (hi < end)
          next.push_back({hi, end});
      }
      pieces = std::move(next);
    }
    for (auto [begin, end] : pieces) {
      if (begin == 1 && end == axisSize)
        result.push_back(AxisRefAttr::get(ref.getContext(), name));
      else if (end / begin > 1)
        result.push_back(
            AxisRefAttr::get(ref.getContext(), name, begin, end / begin));
    }
  }
  return result;
}

void mlir::tessera::spmd::sortAndMergeAxes(SmallVectorImpl<AxisRefAttr> &axes,
                                           MeshAttr mesh) {
  llvm::sort(axes, [&](AxisRefAttr a, AxisRefAttr b) {
    return AxisRefAttr::lessInMesh(mesh, a, b);
  });
  SmallVector<AxisRefAttr> merged;
  for (AxisRefAttr ref : axes)
    appendAxisOrMerge(merged, ref, mesh);
  axes.assign(merged.begin(), merged.end());
}

LogicalResult mlir::tessera::spmd::verifyUnreducedAxesTransition(
    TensorShardingAttr source, TensorShardingAttr target, MeshAttr mesh,
    std::optional<ReductionKind> introducedKind,
    std::optional<ReductionKind> removedKind, std::string *error) {
  ArrayRef<AxisRefAttr> sourceAxes =
      source ? source.getUnreducedAxes() : ArrayRef<AxisRefAttr>();
  ArrayRef<AxisRefAttr> targetAxes =
      target ? target.getUnreducedAxes() : ArrayRef<AxisRefAttr>();
  SmallVector<AxisRefAttr> introduced =
      getAxisSetDiff(targetAxes, sourceAxes, mesh);
  SmallVector<AxisRefAttr> removed =
      getAxisSetDiff(sourceAxes, targetAxes, mesh);
  if (!introduced.empty()) {
    if (!introducedKind)
      return fail(error, "cannot add new unreduced axis '",
                  introduced.front().getName(), "'.");
    if (target.getUnreducedKind() != *introducedKind)
      return fail(error, "cannot introduce '",
                  stringifyReductionKind(target.getUnreducedKind()),
                  "' unreduced axes. Expected '",
                  stringifyReductionKind(*introducedKind), "'.");
  }
  if (!removed.empty()) {
    if (!removedKind)
      return fail(error, "dropped unreduced axis '", removed.front().getName(),
                  "' without a blessed operation (e.g., spmd.reshard). This "
                  "is an invalid transition from unreduced to reduced.");
    if (source.getUnreducedKind() != *removedKind)
      return fail(error, "cannot reduce '",
                  stringifyReductionKind(source.getUnreducedKind()),
                  "' unreduced axes. Expected '",
                  stringifyReductionKind(*removedKind), "'.");
  }
  for (AxisRefAttr targetAxis : targetAxes)
    for (AxisRefAttr sourceAxis : sourceAxes)
      if (sourceAxis.overlaps(targetAxis) &&
          source.getUnreducedKind() != target.getUnreducedKind())
        return fail(error,
                    "cannot change the reduction operator of kept unreduced "
                    "axes from ",
                    stringifyReductionKind(source.getUnreducedKind()), " to ",
                    stringifyReductionKind(target.getUnreducedKind()), ".");
  return success();
}

//===----------------------------------------------------------------------===//
// all_reduce / reduce_scatter / sharded_to_unreduced / replicated_to_unreduced
//===----------------------------------------------------------------------===//

/// The unreduced axes of `input` once `reductionAxes` are reduced with
/// `kind`: those axes are removed, which needs `kind` to be the kind they
/// were left unreduced with.
static FailureOr<SmallVector<AxisRefAttr>>
reduceUnreduced(TensorShardingAttr input, ArrayRef<AxisRefAttr> reductionAxes,
                ReductionKind kind, MeshAttr mesh, std::string *error) {
  SmallVector<AxisRefAttr> remaining =
      getAxisSetDiff(input.getUnreducedAxes(), reductionAxes, mesh);
  bool reducesUnreduced = remaining.size() != input.getUnreducedAxes().size() ||
                          ArrayRef(remaining) != input.getUnreducedAxes();
  if (reducesUnreduced && input.getUnreducedKind() != kind)
    return fail(error, "cannot reduce '",
                stringifyReductionKind(input.getUnreducedKind()),
                "' unreduced axes. Expected '", stringifyReductionKind(kind),
                "'.");
  return remaining;
}

FailureOr<TensorShardingAttr> mlir::tessera::spmd::inferAllReduceSharding(
    TensorShardingAttr input, ArrayRef<AxisRefAttr> reductionAxes,
    ReductionKind kind, MeshAttr mesh, std::string *error) {
  SmallVector<AxisRefAttr> shardedOrReplicated;
  for (DimensionShardingAttr dim : input.getDimShardings())
    llvm::append_range(shardedOrReplicated, dim.getAxes());
  llvm::append_range(shardedOrReplicated, input.getReplicatedAxes());
  for (AxisRefAttr axis : reductionAxes)
    if (llvm::any_of(shardedOrReplicated,
                     [&](AxisRefAttr other) { return other.overlaps(axis); }))
      return fail(error, "reduction axis ", axis.toString(),
                  " overlaps with operand dimension sharding or replicated "
                  "axes");
  FailureOr<SmallVector<AxisRefAttr>> unreduced =
      reduceUnreduced(input, reductionAxes, kind, mesh, error);
  if (failed(unreduced))
    return failure();
  return rebuild(input, getDimAxes(input), *unreduced,
                 input.getUnreducedKind());
}

FailureOr<TensorShardingAttr> mlir::tessera::spmd::inferReduceScatterSharding(
    TensorShardingAttr input, ArrayRef<AxisRefListAttr> axes,
    ReductionKind kind, MeshAttr mesh, std::string *error) {
  if (failed(verifyRank(input, axes.size(), error)))
    return failure();
  SmallVector<AxisRefAttr> allAxes;
  for (AxisRefListAttr list : axes)
    llvm::append_range(allAxes, list.getValue());
  FailureOr<SmallVector<AxisRefAttr>> unreduced =
      reduceUnreduced(input, allAxes, kind, mesh, error);
  if (failed(unreduced))
    return failure();
  SmallVector<SmallVector<AxisRefAttr>> dims = getDimAxes(input);
  for (auto [dim, list] : llvm::enumerate(axes))
    sliceAlongDim(dims[dim], list.getValue(), mesh);
  return rebuild(input, dims, *unreduced, input.getUnreducedKind());
}

FailureOr<TensorShardingAttr>
mlir::tessera::spmd::inferShardedToUnreducedSharding(
    TensorShardingAttr input, ArrayRef<AxisRefListAttr> axes, MeshAttr mesh,
    std::string *error) {
  if (failed(verifyRank(input, axes.size(), error)))
    return failure();
  if (!input.getUnreducedAxes().empty() &&
      input.getUnreducedKind() != ReductionKind::Sum)
    return fail(error, "cannot introduce 'sum' unreduced axes beside '",
                stringifyReductionKind(input.getUnreducedKind()),
                "' unreduced axes");
  SmallVector<SmallVector<AxisRefAttr>> dims = getDimAxes(input);
  SmallVector<AxisRefAttr> unreduced =
      llvm::to_vector(input.getUnreducedAxes());
  for (auto [dim, list] : llvm::enumerate(axes)) {
    if (failed(gatherAlongDim(dims[dim], list.getValue(), dim, mesh,
                              "shard-to-unreduce", error)))
      return failure();
    llvm::append_range(unreduced, list.getValue());
  }
  sortAndMergeAxes(unreduced, mesh);
  return rebuild(input, dims, unreduced, ReductionKind::Sum);
}

FailureOr<TensorShardingAttr>
mlir::tessera::spmd::inferReplicatedToUnreducedSharding(
    TensorShardingAttr input, ArrayRef<AxisRefAttr> axes, MeshAttr mesh,
    std::string *error) {
  if (axes.empty())
    return fail(error, "r2u axes must not be empty");
  for (AxisRefAttr axis : axes) {
    auto overlapsAxis = [&](AxisRefAttr other) { return other.overlaps(axis); };
    if (llvm::any_of(input.getDimShardings(), [&](DimensionShardingAttr dim) {
          return llvm::any_of(dim.getAxes(), overlapsAxis);
        }))
      return fail(error, "r2u axis ", axis.toString(),
                  " overlaps with operand dimension sharding");
    if (llvm::any_of(input.getUnreducedAxes(), overlapsAxis))
      return fail(error, "r2u axis ", axis.toString(),
                  " overlaps with operand unreduced axes");
  }
  if (!input.getUnreducedAxes().empty() &&
      input.getUnreducedKind() != ReductionKind::Sum)
    return fail(error, "cannot introduce 'sum' unreduced axes beside '",
                stringifyReductionKind(input.getUnreducedKind()),
                "' unreduced axes");
  SmallVector<AxisRefAttr> unreduced =
      llvm::to_vector(input.getUnreducedAxes());
  llvm::append_range(unreduced, axes);
  sortAndMergeAxes(unreduced, mesh);
  // The axes stop being replicated: drop them from `replicated`.
  SmallVector<AxisRefAttr> replicated =
      getAxisSetDiff(input.getReplicatedAxes(), axes, mesh);
  MLIRContext *ctx = input.getContext();
  return TensorShardingAttr::get(
      ctx, input.getMeshOrRef(), input.getDimShardings(), replicated, unreduced,
      ReductionKind::Sum, getAxisSetDiff(input.getReducedAxes(), axes, mesh));
}

//===----------------------------------------------------------------------===//
// Translation between meshes of other axes
//===----------------------------------------------------------------------===//

/// The refs of `to` that cover the digits of `ref` (an axis or sub-axis of
/// `from`) in the mixed radix of a device's position, major to minor.
static FailureOr<SmallVector<AxisRefAttr>>
translateAxisRef(AxisRefAttr ref, MeshAttr from, MeshAttr to) {
  std::optional<unsigned> index = from.getAxisIndex(ref.getName());
  if (!index)
    return failure();
  // The digits of `ref` are the position's values in [lo, hi): the product
  // of the sizes of the axes more minor than it is its stride.
  int64_t stride = 1;
  for (MeshAxisAttr axis : from.getAxes().drop_front(*index + 1))
    stride *= axis.getSize();
  int64_t axisSize = from.getAxes()[*index].getSize();
  int64_t preSize = ref.getPreSize();
  int64_t size = ref.getSize(from);
  int64_t lo = stride * (axisSize / (preSize * size));
  int64_t hi = stride * (axisSize / preSize);
  SmallVector<AxisRefAttr> refs;
  MLIRContext *ctx = ref.getContext();
  int64_t below = to.getTotalSize();
  for (MeshAxisAttr axis : to.getAxes()) {
    int64_t axisLo = below / axis.getSize(), axisHi = below;
    below = axisLo;
    int64_t lower = std::max(lo, axisLo), upper = std::min(hi, axisHi);
    if (lower >= upper)
      continue;
    // The overlap must be a whole sub-axis: its bounds on digit boundaries
    // of this axis.
    if (lower % axisLo != 0 || axisHi % upper != 0 || upper % lower != 0)
      return failure();
    int64_t subSize = upper / lower;
    if (subSize == axis.getSize())
      refs.push_back(AxisRefAttr::get(ctx, axis.getName()));
    else
      refs.push_back(
          AxisRefAttr::get(ctx, axis.getName(), axisHi / upper, subSize));
  }
  return refs;
}

FailureOr<SmallVector<AxisRefAttr>>
mlir::tessera::spmd::translateAxisRefsToMesh(ArrayRef<AxisRefAttr> refs,
                                             MeshAttr from, MeshAttr to) {
  if (from.getTotalSize() != to.getTotalSize())
    return failure();
  SmallVector<AxisRefAttr> translated;
  for (AxisRefAttr ref : refs) {
    FailureOr<SmallVector<AxisRefAttr>> parts = translateAxisRef(ref, from, to);
    if (failed(parts))
      return failure();
    for (AxisRefAttr part : *parts)
      appendAxisOrMerge(translated, part, to);
  }
  return translated;
}

/// `refs` with every sub-axis's pre-size counted from the other end of its
/// axis (the sharding grammar's major parts <-> comm's minor parts).
static SmallVector<AxisRefAttr> flipPreSizes(ArrayRef<AxisRefAttr> refs,
                                             MeshAttr mesh) {
  SmallVector<AxisRefAttr> flipped;
  for (AxisRefAttr ref : refs) {
    if (!ref.getSubAxisInfo() || !mesh.getAxisIndex(ref.getName())) {
      flipped.push_back(ref);
      continue;
    }
    int64_t size = ref.getSize(mesh);
    flipped.push_back(AxisRefAttr::get(
        ref.getContext(), ref.getName(),
        mesh.getAxisSize(ref.getName()) / (ref.getPreSize() * size), size));
  }
  return flipped;
}

FailureOr<SmallVector<AxisRefAttr>>
mlir::tessera::spmd::translateCommAxisRefsToMesh(ArrayRef<AxisRefAttr> refs,
                                                 MeshAttr from, MeshAttr to) {
  FailureOr<SmallVector<AxisRefAttr>> translated =
      translateAxisRefsToMesh(flipPreSizes(refs, from), from, to);
  if (failed(translated))
    return failure();
  return flipPreSizes(*translated, to);
}

FailureOr<TensorShardingAttr> mlir::tessera::spmd::translateShardingToMesh(
    TensorShardingAttr input, MeshAttr from, Attribute toRef, MeshAttr to) {
  if (from.getTotalSize() != to.getTotalSize())
    return failure();
  MLIRContext *ctx = input.getContext();
  SmallVector<DimensionShardingAttr> dims;
  for (DimensionShardingAttr dim : input.getDimShardings()) {
    FailureOr<SmallVector<AxisRefAttr>> axes =
        translateAxisRefsToMesh(dim.getAxes(), from, to);
    if (failed(axes))
      return failure();
    dims.push_back(DimensionShardingAttr::get(ctx, *axes, dim.getIsClosed(),
                                              dim.getPriority()));
  }
  FailureOr<SmallVector<AxisRefAttr>> unreduced =
      translateAxisRefsToMesh(input.getUnreducedAxes(), from, to);
  if (failed(unreduced))
    return failure();
  sortAndMergeAxes(*unreduced, to);
  return TensorShardingAttr::get(ctx, toRef, dims, {}, *unreduced,
                                 input.getUnreducedKind(), {});
}

//===----------------------------------------------------------------------===//
// collective_permute and result checks
//===----------------------------------------------------------------------===//

LogicalResult mlir::tessera::spmd::verifyCollectivePermuteSharding(
    TensorShardingAttr input, MeshAttr inputMesh, TensorShardingAttr output,
    MeshAttr outputMesh, std::string *error) {
  if (outputMesh.getTotalSize() != inputMesh.getTotalSize())
    return fail(error,
                "result mesh has a different number of devices than "
                "operand mesh: ",
                outputMesh.getTotalSize(), " != ", inputMesh.getTotalSize());
  if (input.getRank() != output.getRank())
    return fail(error, "result sharding has rank ", output.getRank(),
                " but operand sharding has rank ", input.getRank());
  for (auto [dim, dims] : llvm::enumerate(llvm::zip_equal(
           input.getDimShardings(), output.getDimShardings()))) {
    auto [inDim, outDim] = dims;
    if (inDim.getAxes() == outDim.getAxes())
      continue;
    int64_t inSize = inDim.getShardedSize(inputMesh);
    int64_t outSize = outDim.getShardedSize(outputMesh);
    if (inSize != outSize)
      return fail(error,
                  "sharded size of result doesn't match operand on "
                  "dimension ",
                  dim, ": ", outSize, " != ", inSize);
  }
  return success();
}

LogicalResult
mlir::tessera::spmd::verifyCollectiveResultSharding(TensorShardingAttr expected,
                                                    TensorShardingAttr output,
                                                    std::string *error) {
  if (expected.getRank() != output.getRank())
    return fail(error, "result sharding has rank ", output.getRank(),
                " but operand sharding has rank ", expected.getRank());
  for (auto [dim, dims] : llvm::enumerate(llvm::zip_equal(
           expected.getDimShardings(), output.getDimShardings()))) {
    auto [expectedDim, outputDim] = dims;
    if (expectedDim.getAxes() != outputDim.getAxes())
      return fail(error, "result sharding doesn't match expected sharding ",
                  formatAxisList(expectedDim.getAxes()), " on dimension ", dim);
  }
  return success();
}
