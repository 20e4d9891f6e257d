//===- CommFolds.cpp - comm folders and canonicalization patterns ---------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Folders:
// - a collective over a group of one device is its operand;
// - `axis_size` is a constant, `axis_index` over a group of one device is 0;
// - a permute that sends every index of the group to itself is its operand;
// - an all_to_all that undoes the all_to_all producing its operand gives
//   back that all_to_all's operand.
//
// Canonicalization patterns:
// - size-1 full axes are dropped from axis lists (they change neither the
//   group nor the linearized index);
// - an all_reduce's axes become a canonical set (mesh order, merged
//   sub-axes), and two nested all_reduces of the same kind over disjoint
//   axes become one;
// - two chained permutes over the same axes compose; a permute without pairs
//   is a zero constant.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Comm/IR/CommOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::comm;

//===----------------------------------------------------------------------===//
// Folders
//===----------------------------------------------------------------------===//

/// The group size of `op`, or nullopt if its mesh cannot be resolved.
static std::optional<int64_t> getGroupSizeOf(Operation *op) {
  return cast<MeshAxesOpInterface>(op).getGroupSize();
}

/// Folds a collective over a single device to its operand, when the types
/// agree (a static result of a dynamic operand cannot fold).
static OpFoldResult foldSingleDeviceGroup(Operation *op, Value operand) {
  if (operand.getType() != op->getResult(0).getType())
    return {};
  std::optional<int64_t> groupSize = getGroupSizeOf(op);
  if (groupSize && *groupSize == 1)
    return operand;
  return {};
}

OpFoldResult AllReduceOp::fold(FoldAdaptor) {
  if (getAxes().getValue().empty())
    return getOperand();
  return foldSingleDeviceGroup(*this, getOperand());
}

OpFoldResult AllGatherOp::fold(FoldAdaptor) {
  return foldSingleDeviceGroup(*this, getOperand());
}

OpFoldResult ReduceScatterOp::fold(FoldAdaptor) {
  return foldSingleDeviceGroup(*this, getOperand());
}

OpFoldResult AllToAllOp::fold(FoldAdaptor) {
  if (OpFoldResult folded = foldSingleDeviceGroup(*this, getOperand()))
    return folded;
  // all_to_all(split b, concat a) of all_to_all(split a, concat b) over the
  // same group sends every block back to where it came from.
  auto producer = getOperand().getDefiningOp<AllToAllOp>();
  if (producer && producer.getMeshAttr() == getMeshAttr() &&
      producer.getAxes() == getAxes() &&
      producer.getSplitDim() == getConcatDim() &&
      producer.getConcatDim() == getSplitDim() &&
      producer.getOperand().getType() == getType())
    return producer.getOperand();
  return {};
}

OpFoldResult PermuteOp::fold(FoldAdaptor) {
  std::optional<int64_t> groupSize = getGroupSizeOf(*this);
  if (groupSize && isIdentity(*groupSize))
    return getOperand();
  return {};
}

OpFoldResult AxisIndexOp::fold(FoldAdaptor) {
  std::optional<int64_t> groupSize = getGroupSizeOf(*this);
  if (groupSize && *groupSize == 1)
    return IntegerAttr::get(getType(), 0);
  return {};
}

OpFoldResult AxisSizeOp::fold(FoldAdaptor) {
  // Meshes have at most INT32_MAX devices, so the size fits every result
  // type.
  std::optional<int64_t> groupSize = getGroupSizeOf(*this);
  if (groupSize)
    return IntegerAttr::get(getType(), *groupSize);
  return {};
}

//===----------------------------------------------------------------------===//
// Canonicalization patterns
//===----------------------------------------------------------------------===//

namespace {

/// Drops full axes of size 1 from the axis list. An op whose list would
/// become empty is left to the single-device folder, since most ops need
/// at least one axis.
template <typename OpTy> struct DropSizeOneAxes : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy concreteOp,
                                PatternRewriter &rewriter) const override {
    auto op = cast<MeshAxesOpInterface>(concreteOp.getOperation());
    spmd::MeshAttr mesh = op.resolveMesh();
    if (!mesh)
      return rewriter.notifyMatchFailure(op, "unknown mesh");
    // The sub-axes a dropped axis separated may become neighbours that
    // form one sub-axis (the list goes from minor to major): they are
    // merged, as the verifier requires.
    SmallVector<spmd::AxisRefAttr> kept;
    bool dropped = false;
    for (spmd::AxisRefAttr ref : op.getAxisRefs()) {
      if (!ref.getSubAxisInfo() && mesh.hasAxis(ref.getName()) &&
          mesh.getAxisSize(ref.getName()) == 1) {
        dropped = true;
        continue;
      }
      if (!kept.empty() && ref.canMerge(kept.back()))
        kept.back() = ref.merge(kept.back(), mesh);
      else
        kept.push_back(ref);
    }
    if (!dropped)
      return rewriter.notifyMatchFailure(op, "no size-1 axis");
    if (kept.empty())
      return rewriter.notifyMatchFailure(op, "every axis has size 1");
    rewriter.modifyOpInPlace(op, [&] {
      op.setAxesAttr(spmd::AxisRefListAttr::get(op->getContext(), kept));
    });
    return success();
  }
};

/// Rewrites an all_reduce's axes into the canonical set (mesh order, merged
/// sub-axes, no size-1 axes): a reduction does not depend on the order of
/// the axes, and equal all_reduces then CSE.
struct CanonicalizeAllReduceAxes : OpRewritePattern<AllReduceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AllReduceOp op,
                                PatternRewriter &rewriter) const override {
    spmd::MeshAttr mesh = lookupMesh(op, op.getMeshAttr());
    if (!mesh)
      return rewriter.notifyMatchFailure(op, "unknown mesh");
    ArrayRef<spmd::AxisRefAttr> axes = op.getAxes().getValue();
    SmallVector<spmd::AxisRefAttr> canonical = getCanonicalAxisSet(mesh, axes);
    if (llvm::equal(canonical, axes))
      return rewriter.notifyMatchFailure(op, "axes already canonical");
    rewriter.modifyOpInPlace(op, [&] {
      op.setAxesAttr(spmd::AxisRefListAttr::get(op.getContext(), canonical));
    });
    return success();
  }
};

/// all_reduce(all_reduce(x, A), B) -> all_reduce(x, A + B) for the same
/// kind and mesh, disjoint A and B, and an inner all_reduce whose only use
/// is the outer one, in the same region (so every merged axis is bound
/// where the new op is).
struct MergeNestedAllReduces : OpRewritePattern<AllReduceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AllReduceOp op,
                                PatternRewriter &rewriter) const override {
    auto producer = op.getOperand().getDefiningOp<AllReduceOp>();
    if (!producer || !producer->hasOneUse() ||
        producer.getKind() != op.getKind() ||
        producer.getMeshAttr() != op.getMeshAttr() ||
        producer->getParentRegion() != op->getParentRegion())
      return rewriter.notifyMatchFailure(op, "no mergeable producer");
    spmd::MeshAttr mesh = lookupMesh(op, op.getMeshAttr());
    if (!mesh)
      return rewriter.notifyMatchFailure(op, "unknown mesh");
    ArrayRef<spmd::AxisRefAttr> inner = producer.getAxes().getValue();
    ArrayRef<spmd::AxisRefAttr> outer = op.getAxes().getValue();
    for (spmd::AxisRefAttr a : inner)
      for (spmd::AxisRefAttr b : outer)
        if (a.overlaps(b))
          return rewriter.notifyMatchFailure(op, "overlapping axes");
    SmallVector<spmd::AxisRefAttr> all(inner);
    llvm::append_range(all, outer);
    rewriter.replaceOpWithNewOp<AllReduceOp>(op, producer.getOperand(),
                                             op.getKind(), op.getMeshAttr(),
                                             getCanonicalAxisSet(mesh, all));
    return success();
  }
};

/// permute(permute(x, P), Q) over the same mesh and axes -> permute(x, Q.P):
/// `s -> t` for every `s -> e` in P and `e -> t` in Q. Devices that would
/// have received zeros from either permute still receive zeros.
struct ComposePermutes : OpRewritePattern<PermuteOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(PermuteOp op,
                                PatternRewriter &rewriter) const override {
    auto producer = op.getOperand().getDefiningOp<PermuteOp>();
    if (!producer || !producer->hasOneUse() ||
        producer.getMeshAttr() != op.getMeshAttr() ||
        producer.getAxes() != op.getAxes())
      return rewriter.notifyMatchFailure(op, "no composable producer");
    llvm::SmallDenseMap<int64_t, int64_t> second;
    for (auto [source, target] : llvm::zip(op.getSources(), op.getTargets()))
      second[source] = target;
    SmallVector<int64_t> sources, targets;
    for (auto [source, middle] :
         llvm::zip(producer.getSources(), producer.getTargets())) {
      auto it = second.find(middle);
      if (it == second.end())
        continue;
      sources.push_back(source);
      targets.push_back(it->second);
    }
    rewriter.replaceOpWithNewOp<PermuteOp>(
        op, producer.getOperand(), op.getMeshAttr(), op.getAxes().getValue(),
        sources, targets);
    return success();
  }
};

/// A permute without pairs sends nothing: every device receives zeros.
struct PermuteWithoutPairsToZeros : OpRewritePattern<PermuteOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(PermuteOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getSources().empty())
      return rewriter.notifyMatchFailure(op, "has pairs");
    RankedTensorType type = op.getType();
    if (!type.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shape");
    auto zero = dyn_cast_or_null<TypedAttr>(rewriter.getZeroAttr(type));
    if (!zero || !arith::ConstantOp::isBuildableWith(zero, type))
      return rewriter.notifyMatchFailure(op, "no zero constant of this type");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, type, zero);
    return success();
  }
};

} // namespace

void AllReduceOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<CanonicalizeAllReduceAxes, MergeNestedAllReduces>(context);
}

void AllGatherOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<DropSizeOneAxes<AllGatherOp>>(context);
}

void ReduceScatterOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                  MLIRContext *context) {
  results.add<DropSizeOneAxes<ReduceScatterOp>>(context);
}

void AllToAllOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                             MLIRContext *context) {
  results.add<DropSizeOneAxes<AllToAllOp>>(context);
}

void PermuteOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<DropSizeOneAxes<PermuteOp>, ComposePermutes,
              PermuteWithoutPairsToZeros>(context);
}

void AxisIndexOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<DropSizeOneAxes<AxisIndexOp>>(context);
}
