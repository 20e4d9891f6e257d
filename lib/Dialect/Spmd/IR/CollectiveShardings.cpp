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

/// Formats unreduced axes as in the sharding syntax: `{"x"}`, `max{"x"}`.
static std::string formatUnreduced(ArrayRef<AxisRefAttr> axes,
                                   ReductionKind kind) {
  std::string result;
  llvm::raw_string_ostream os(result);
  if (!axes.empty() && kind != ReductionKind::Sum)
    os << stringifyReductionKind(kind);
  os << "{";
  llvm::interleaveComma(axes, os,
                        [&](AxisRefAttr ref) { os << ref.toString(); });
  os << "}";
  return result;
}

/// The axes of every dimension of `sharding`.
static SmallVector<SmallVector<AxisRefAttr>>
getDimAxes(TensorShardingAttr sharding) {
  return llvm::map_to_vector(
      sharding.getDimShardings(), [](DimensionShardingAttr dim) {
        return llvm::to_vector(dim.getAxes());
      });
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
  return TensorShardingAttr::get(ctx, input.getMeshOrRef(), dims,
                                 input.getReplicatedAxes(), unreduced,
                                 unreduced.empty() ? ReductionKind::Sum : kind);
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

FailureOr<TensorShardingAttr> mlir::tessera::spmd::inferAllToAllSharding(
    TensorShardingAttr input, ArrayRef<AllToAllParamAttr> params,
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
    if (srcDim == tgtDim)
      return fail(error,
                  "source and target dimensions must be different, got: ",
                  srcDim, "->", tgtDim);
    for (int64_t dim : {srcDim, tgtDim}) {
      if (seenDims.test(dim))
        return fail(error,
                    "overlapping source/target dimensions in all-to-all "
                    "params: ",
                    dim);
      seenDims.set(dim);
    }
    if (prevSrcDim >= srcDim)
      return fail(error, "source dimensions are not sorted in ascending order: ",
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
// all_reduce / reduce_scatter
//===----------------------------------------------------------------------===//

/// The unreduced axes after reducing `reductionAxes` of `input` with `kind`,
/// or failure (see inferAllReduceSharding).
static FailureOr<SmallVector<AxisRefAttr>>
reduceUnreduced(TensorShardingAttr input, ArrayRef<AxisRefAttr> reductionAxes,
                ReductionKind kind, std::string *error) {
  SmallVector<AxisRefAttr> shardedOrReplicated;
  for (DimensionShardingAttr dim : input.getDimShardings())
    llvm::append_range(shardedOrReplicated, dim.getAxes());
  llvm::append_range(shardedOrReplicated, input.getReplicatedAxes());

  ArrayRef<AxisRefAttr> unreduced = input.getUnreducedAxes();
  bool reducesUnreduced = false;
  for (AxisRefAttr axis : reductionAxes) {
    if (llvm::any_of(shardedOrReplicated,
                     [&](AxisRefAttr other) { return other.overlaps(axis); }))
      return fail(error, "reduction axis ", axis.toString(),
                  " overlaps with operand dimension sharding or replicated "
                  "axes");
    for (AxisRefAttr other : unreduced) {
      if (other == axis)
        reducesUnreduced = true;
      else if (other.overlaps(axis))
        return fail(error, "reduction axis ", axis.toString(),
                    " partially overlaps unreduced axis ", other.toString(),
                    " of the operand, which is not supported");
    }
  }
  if (reducesUnreduced && input.getUnreducedKind() != kind)
    return fail(error, "cannot reduce '",
                stringifyReductionKind(input.getUnreducedKind()),
                "' unreduced axes. Expected '", stringifyReductionKind(kind),
                "'.");
  return llvm::to_vector(llvm::make_filter_range(unreduced, [&](AxisRefAttr a) {
    return !llvm::is_contained(reductionAxes, a);
  }));
}

FailureOr<TensorShardingAttr> mlir::tessera::spmd::inferAllReduceSharding(
    TensorShardingAttr input, ArrayRef<AxisRefAttr> reductionAxes,
    ReductionKind kind, MeshAttr mesh, std::string *error) {
  FailureOr<SmallVector<AxisRefAttr>> unreduced =
      reduceUnreduced(input, reductionAxes, kind, error);
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
      reduceUnreduced(input, allAxes, kind, error);
  if (failed(unreduced))
    return failure();
  // The reduced axes are free again: slice along them.
  SmallVector<SmallVector<AxisRefAttr>> dims = getDimAxes(input);
  for (auto [dim, list] : llvm::enumerate(axes))
    sliceAlongDim(dims[dim], list.getValue(), mesh);
  return rebuild(input, dims, *unreduced, input.getUnreducedKind());
}

//===----------------------------------------------------------------------===//
// collective_permute and result checks
//===----------------------------------------------------------------------===//

LogicalResult mlir::tessera::spmd::verifyCollectivePermuteSharding(
    TensorShardingAttr input, MeshAttr inputMesh, TensorShardingAttr output,
    MeshAttr outputMesh, std::string *error) {
  if (!outputMesh.hasSameAxes(inputMesh))
    return fail(error, "result mesh has different axes than operand mesh");
  if (input.getRank() != output.getRank())
    return fail(error, "result sharding has rank ", output.getRank(),
                " but operand sharding has rank ", input.getRank());
  for (auto [dim, dims] : llvm::enumerate(
           llvm::zip_equal(input.getDimShardings(), output.getDimShardings()))) {
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
  TensorShardingAttr expected =
      rebuild(input, getDimAxes(output), input.getUnreducedAxes(),
              input.getUnreducedKind());
  return verifyCollectiveResultSharding(expected, output, error);
}

LogicalResult mlir::tessera::spmd::verifyCollectiveResultSharding(
    TensorShardingAttr expected, TensorShardingAttr output,
    std::string *error) {
  if (expected.getRank() != output.getRank())
    return fail(error, "result sharding has rank ", output.getRank(),
                " but operand sharding has rank ", expected.getRank());
  for (auto [dim, dims] : llvm::enumerate(llvm::zip_equal(
           expected.getDimShardings(), output.getDimShardings()))) {
    auto [expectedDim, outputDim] = dims;
    if (expectedDim.getAxes() != outputDim.getAxes())
      return fail(error, "result sharding doesn't match expected sharding ",
                  formatAxisList(expectedDim.getAxes()), " on dimension ",
                  dim);
  }
  if (expected.getUnreducedAxes() != output.getUnreducedAxes())
    return fail(error, "result unreduced axes ",
                formatUnreduced(output.getUnreducedAxes(),
                                output.getUnreducedKind()),
                " don't match expected unreduced axes ",
                formatUnreduced(expected.getUnreducedAxes(),
                                expected.getUnreducedKind()));
  if (expected.getUnreducedKind() != output.getUnreducedKind())
    return verifyUnreducedTransition(expected, output, error);
  return success();
}

LogicalResult mlir::tessera::spmd::verifyUnreducedTransition(
    TensorShardingAttr source, TensorShardingAttr target, std::string *error) {
  if (!source)
    return success();
  ArrayRef<AxisRefAttr> sourceAxes = source.getUnreducedAxes();
  bool keepsAxes = false, introducesAxes = false;
  for (AxisRefAttr axis : target.getUnreducedAxes()) {
    if (llvm::is_contained(sourceAxes, axis))
      keepsAxes = true;
    else
      introducesAxes = true;
  }
  if (keepsAxes && source.getUnreducedKind() != target.getUnreducedKind())
    return fail(error,
                "cannot change the reduction operator of kept unreduced axes "
                "from ",
                stringifyReductionKind(source.getUnreducedKind()), " to ",
                stringifyReductionKind(target.getUnreducedKind()),
                ". Check source sharding: ", Attribute(source),
                ", target sharding: ", Attribute(target));
  if (introducesAxes && target.getUnreducedKind() != ReductionKind::Sum)
    return fail(error, "cannot introduce '",
                stringifyReductionKind(target.getUnreducedKind()),
                "' unreduced axes. Expected 'sum'.");
  return success();
}
