//===- SpmdCanonicalization.cpp - canonicalization of spmd ops ------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Canonicalization patterns of the spmd ops (`--canonicalize`):
// - no-op removal: collectives whose axes are all empty, a collective_permute
//   or reshard to the operand's own layout;
// - reshard(reshard(x)) -> reshard(x);
// - all_slice(all_gather(x, A), A) -> x and all_gather(all_slice(x, A), A) ->
//   x;
// - all_reduce + all_slice -> reduce_scatter (+ all_slice of leftover axes);
// - all_to_all(all_to_all(x)) on disjoint dimensions -> one all_to_all;
// - collective_permute(collective_permute(x)) -> one collective_permute;
// - repeated sharding_group ops and unused manual_computation inputs.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/CollectiveShardings.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"

#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// True if every list of `lists` is empty.
static bool allEmpty(ListOfAxisRefListsAttr lists) {
  return llvm::all_of(lists.getValue(), [](AxisRefListAttr list) {
    return list.getValue().empty();
  });
}

/// True if a reshard from `source` to `target` is a valid unreduced
/// transition (see ReshardOp's verifier): kept unreduced axes keep their
/// kind, new ones are partial sums. A missing source allows anything.
static bool isValidUnreducedTransition(TensorShardingAttr source,
                                       TensorShardingAttr target) {
  if (!source)
    return true;
  for (AxisRefAttr axis : target.getUnreducedAxes()) {
    bool kept = llvm::is_contained(source.getUnreducedAxes(), axis);
    if (kept && source.getUnreducedKind() != target.getUnreducedKind())
      return false;
    if (!kept && target.getUnreducedKind() != ReductionKind::Sum)
      return false;
  }
  return true;
}

/// The `OpTy` op that defines `operand` of `op` if `op` is its only user
/// (then folding the two into one op loses nothing); else a match failure
/// naming `what`.
template <typename OpTy>
static FailureOr<OpTy> getSoleUseProducer(Operation *op, Value operand,
                                          PatternRewriter &rewriter,
                                          StringRef what) {
  auto producer = operand.getDefiningOp<OpTy>();
  if (!producer) {
    (void)rewriter.notifyMatchFailure(
        op, [&](Diagnostic &diag) { diag << "operand is not a " << what; });
    return failure();
  }
  if (!producer->hasOneUse()) {
    (void)rewriter.notifyMatchFailure(op, [&](Diagnostic &diag) {
      diag << "inner " << what << " has other uses";
    });
    return failure();
  }
  return producer;
}

namespace {

/// Replaces an op whose single result equals its first operand by that
/// operand when `isNoop` holds.
template <typename OpTy> struct RemoveNoop : public OpRewritePattern<OpTy> {
  using Predicate = bool (*)(OpTy);
  RemoveNoop(MLIRContext *ctx, Predicate isNoop, StringRef reason)
      : OpRewritePattern<OpTy>(ctx), isNoop(isNoop), reason(reason) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (!isNoop(op))
      return rewriter.notifyMatchFailure(op, reason);
    rewriter.replaceOp(op, op->getOperand(0));
    return success();
  }

  Predicate isNoop;
  StringRef reason;
};

//===----------------------------------------------------------------------===//
// ReshardOp
//===----------------------------------------------------------------------===//

/// reshard(reshard(x, s1), s2) -> reshard(x, s2) when the inner reshard has
/// no other use and the direct transition is valid.
struct ReshardOfReshard : public OpRewritePattern<ReshardOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReshardOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<ReshardOp> producer =
        getSoleUseProducer<ReshardOp>(op, op.getInput(), rewriter, "reshard");
    if (failed(producer))
      return failure();
    ReshardOp inner = *producer;
    if (!isValidUnreducedTransition(getSharding(inner.getInput()),
                                    op.getSharding()))
      return rewriter.notifyMatchFailure(
          op, "the direct reshard would change unreduced axes invalidly");
    rewriter.replaceOpWithNewOp<ReshardOp>(op, inner.getInput(),
                                           op.getSharding());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

/// all_slice(all_gather(x, A), A) -> x.
struct AllSliceOfAllGather : public OpRewritePattern<AllSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AllSliceOp op,
                                PatternRewriter &rewriter) const override {
    auto gather = op.getTensor().getDefiningOp<AllGatherOp>();
    if (!gather)
      return rewriter.notifyMatchFailure(op, "operand is not an all_gather");
    if (gather.getGatheringAxes() != op.getSlicingAxes())
      return rewriter.notifyMatchFailure(op, "axes differ");
    // Gathering on one mesh and slicing on another with a different device
    // order moves blocks between devices.
    if (gather.getOutSharding().getMeshOrRef() !=
        op.getOutSharding().getMeshOrRef())
      return rewriter.notifyMatchFailure(op, "meshes differ");
    rewriter.replaceOp(op, gather.getTensor());
    return success();
  }
};

/// all_gather(all_slice(x, A), A) -> x.
struct AllGatherOfAllSlice : public OpRewritePattern<AllGatherOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AllGatherOp op,
                                PatternRewriter &rewriter) const override {
    auto slice = op.getTensor().getDefiningOp<AllSliceOp>();
    if (!slice)
      return rewriter.notifyMatchFailure(op, "operand is not an all_slice");
    if (slice.getSlicingAxes() != op.getGatheringAxes())
      return rewriter.notifyMatchFailure(op, "axes differ");
    if (slice.getOutSharding().getMeshOrRef() !=
        op.getOutSharding().getMeshOrRef())
      return rewriter.notifyMatchFailure(op, "meshes differ");
    rewriter.replaceOp(op, slice.getTensor());
    return success();
  }
};

/// all_slice(all_reduce(x, R), S) -> all_slice(reduce_scatter(x, P), S - P)
/// where, per dimension, P is the longest prefix of S made of reduction
/// axes. Applies when every use of the all_reduce is an identical all_slice
/// and P covers all of R.
struct ReduceScatterFusion : public OpRewritePattern<AllSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AllSliceOp op,
                                PatternRewriter &rewriter) const override {
    auto allReduce = op.getTensor().getDefiningOp<AllReduceOp>();
    if (!allReduce)
      return rewriter.notifyMatchFailure(op, "operand is not an all_reduce");
    for (Operation *user : allReduce->getUsers()) {
      auto slice = dyn_cast<AllSliceOp>(user);
      if (!slice || slice.getSlicingAxes() != op.getSlicingAxes() ||
          slice.getOutSharding() != op.getOutSharding())
        return rewriter.notifyMatchFailure(
            op, "the all_reduce has a user that is not the same all_slice");
    }
    if (allReduce.getOutSharding().getMeshOrRef() !=
        op.getOutSharding().getMeshOrRef())
      return rewriter.notifyMatchFailure(op, "meshes differ");
    MeshAttr mesh = op.getOutSharding().getMesh(op);
    if (!mesh)
      return rewriter.notifyMatchFailure(op, "unknown mesh");

    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AxisRefAttr> remaining =
        llvm::to_vector(allReduce.getReductionAxes().getValue());
    SmallVector<AxisRefListAttr> scatterAxes, residualAxes;
    bool hasResidual = false;
    for (AxisRefListAttr slicing : op.getSlicingAxes().getValue()) {
      ArrayRef<AxisRefAttr> axes = slicing.getValue();
      size_t prefix = 0;
      while (prefix < axes.size() &&
             llvm::is_contained(remaining, axes[prefix])) {
        llvm::erase(remaining, axes[prefix]);
        ++prefix;
      }
      scatterAxes.push_back(AxisRefListAttr::get(ctx, axes.take_front(prefix)));
      residualAxes.push_back(
          AxisRefListAttr::get(ctx, axes.drop_front(prefix)));
      hasResidual |= prefix != axes.size();
    }
    if (!remaining.empty())
      return rewriter.notifyMatchFailure(
          op, "not every reduction axis leads a dimension's slicing axes");

    // The reduce_scatter's result is what the shared collective algebra
    // derives from the all_reduce's input sharding.
    TensorShardingAttr finalSharding = op.getOutSharding();
    TensorShardingAttr inSharding = allReduce.getInShardingAttr();
    if (!inSharding)
      inSharding = getSharding(allReduce.getTensor());
    if (!inSharding)
      inSharding = TensorShardingAttr::getReplicated(
          ctx, finalSharding.getMeshOrRef(), finalSharding.getRank(),
          /*closed=*/true);
    FailureOr<TensorShardingAttr> scatteredSharding =
        inferReduceScatterSharding(inSharding, scatterAxes,
                                   allReduce.getReductionKind(), mesh);
    if (failed(scatteredSharding))
      return rewriter.notifyMatchFailure(op, "invalid reduce_scatter");
    auto reduceScatter = ReduceScatterOp::create(
        rewriter, allReduce.getLoc(), allReduce.getTensor(),
        ListOfAxisRefListsAttr::get(ctx, scatterAxes), *scatteredSharding,
        allReduce.getInShardingAttr(),
        ReductionKindAttr::get(ctx, allReduce.getReductionKind()));
    Value result = reduceScatter.getResult();
    if (hasResidual)
      result =
          AllSliceOp::create(rewriter, op.getLoc(), result,
                             ListOfAxisRefListsAttr::get(ctx, residualAxes),
                             finalSharding,
                             op.getInShardingAttr() ? *scatteredSharding
                                                    : TensorShardingAttr())
              .getResult();
    for (Operation *user : llvm::make_early_inc_range(allReduce->getUsers()))
      rewriter.replaceOp(user, result);
    rewriter.eraseOp(allReduce);
    return success();
  }
};

/// all_to_all(all_to_all(x, P1), P2) -> all_to_all(x, P1 + P2) when the
/// inner op has a single use and the two parameter lists touch disjoint
/// dimensions (the moves then commute).
struct AllToAllFusion : public OpRewritePattern<AllToAllOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AllToAllOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<AllToAllOp> producer = getSoleUseProducer<AllToAllOp>(
        op, op.getTensor(), rewriter, "all_to_all");
    if (failed(producer))
      return failure();
    AllToAllOp inner = *producer;
    SmallVector<AllToAllParamAttr> params =
        llvm::to_vector(inner.getParams().getValue());
    llvm::append_range(params, op.getParams().getValue());
    llvm::BitVector seen(op.getType().getRank());
    for (AllToAllParamAttr param : params) {
      for (int64_t dim : {param.getSrcDim(), param.getTgtDim()}) {
        if (dim < 0 || dim >= static_cast<int64_t>(seen.size()) ||
            seen.test(dim))
          return rewriter.notifyMatchFailure(op, "dimensions overlap");
        seen.set(dim);
      }
    }
    llvm::sort(params, [](AllToAllParamAttr a, AllToAllParamAttr b) {
      return a.getSrcDim() < b.getSrcDim();
    });
    rewriter.replaceOpWithNewOp<AllToAllOp>(
        op, inner.getTensor(),
        AllToAllParamListAttr::get(rewriter.getContext(), params),
        op.getOutSharding(), inner.getInShardingAttr());
    return success();
  }
};

/// collective_permute(collective_permute(x)) -> one collective_permute from
/// the inner op's input to the outer op's output, when the inner op has a
/// single use and neither moves partial sums. Both keep every dimension's
/// number of parts, so their composition does too (each device's block moves
/// once, possibly to another device order).
struct CollectivePermuteFusion : public OpRewritePattern<CollectivePermuteOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(CollectivePermuteOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<CollectivePermuteOp> producer =
        getSoleUseProducer<CollectivePermuteOp>(op, op.getTensor(), rewriter,
                                                "collective_permute");
    if (failed(producer))
      return failure();
    CollectivePermuteOp inner = *producer;
    TensorShardingAttr source = inner.getInShardingAttr();
    if (!source)
      source = getSharding(inner.getTensor());
    if (!source || !source.getUnreducedAxes().empty() ||
        !op.getOutSharding().getUnreducedAxes().empty())
      return rewriter.notifyMatchFailure(op, "a permute moves partial sums");
    rewriter.replaceOpWithNewOp<CollectivePermuteOp>(
        op, inner.getTensor(), op.getOutSharding(), source);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// ShardingGroupOp / ManualComputationOp
//===----------------------------------------------------------------------===//

/// Erases a sharding_group that repeats an earlier one in the same block
/// (same input, same group).
struct RemoveDuplicateShardingGroup : public OpRewritePattern<ShardingGroupOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ShardingGroupOp op,
                                PatternRewriter &rewriter) const override {
    for (Operation *user : op.getInput().getUsers()) {
      auto other = dyn_cast<ShardingGroupOp>(user);
      if (other && other != op && other.getGroupId() == op.getGroupId() &&
          other->getBlock() == op->getBlock() && other->isBeforeInBlock(op)) {
        rewriter.eraseOp(op);
        return success();
      }
    }
    return rewriter.notifyMatchFailure(op, "no earlier identical op");
  }
};

/// Drops the operands of a manual_computation whose region arguments are
/// unused, with their in_shardings.
struct RemoveUnusedManualComputationInputs
    : public OpRewritePattern<ManualComputationOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ManualComputationOp op,
                                PatternRewriter &rewriter) const override {
    Block &body = op.getBody().front();
    if (body.getNumArguments() != op->getNumOperands() ||
        op.getInShardings().getShardings().size() != op->getNumOperands())
      return rewriter.notifyMatchFailure(op, "malformed op");
    llvm::BitVector unused(op->getNumOperands());
    for (BlockArgument arg : body.getArguments())
      if (arg.use_empty())
        unused.set(arg.getArgNumber());
    if (unused.none())
      return rewriter.notifyMatchFailure(op, "every input is used");
    SmallVector<TensorShardingAttr> inShardings;
    for (auto [i, sharding] :
         llvm::enumerate(op.getInShardings().getShardings()))
      if (!unused.test(i))
        inShardings.push_back(sharding);
    rewriter.modifyOpInPlace(op, [&] {
      op->eraseOperands(unused);
      body.eraseArguments(unused);
      op.setInShardingsAttr(
          TensorShardingPerValueAttr::get(rewriter.getContext(), inShardings));
    });
    return success();
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

void ReshardOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ReshardOfReshard>(context);
  results.add<RemoveNoop<ReshardOp>>(
      context,
      [](ReshardOp op) {
        // Only an identical sharding makes the reshard a no-op: a reshard
        // that closes a dimension, drops a priority or adds explicitly
        // replicated axes changes what propagation may do.
        return spmd::getSharding(op.getInput()) == op.getSharding();
      },
      "the operand does not already have exactly the reshard's sharding");
}

void AllGatherOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<AllGatherOfAllSlice>(context);
  results.add<RemoveNoop<AllGatherOp>>(
      context, [](AllGatherOp op) { return allEmpty(op.getGatheringAxes()); },
      "gathering axes are not empty");
}

void AllSliceOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                             MLIRContext *context) {
  results.add<AllSliceOfAllGather, ReduceScatterFusion>(context);
  results.add<RemoveNoop<AllSliceOp>>(
      context, [](AllSliceOp op) { return allEmpty(op.getSlicingAxes()); },
      "slicing axes are not empty");
}

void AllToAllOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                             MLIRContext *context) {
  results.add<AllToAllFusion>(context);
  results.add<RemoveNoop<AllToAllOp>>(
      context,
      [](AllToAllOp op) {
        return llvm::all_of(
            op.getParams().getValue(),
            [](AllToAllParamAttr param) { return param.getAxes().empty(); });
      },
      "some parameter moves axes");
}

void CollectivePermuteOp::getCanonicalizationPatterns(
    RewritePatternSet &results, MLIRContext *context) {
  results.add<RemoveNoop<CollectivePermuteOp>>(
      context,
      [](CollectivePermuteOp op) {
        TensorShardingAttr input = op.getInShardingAttr();
        if (!input)
          input = getSharding(op.getTensor());
        return isEquivalentLayout(input, op.getOutSharding(), op);
      },
      "the permutation changes the layout");
  results.add<CollectivePermuteFusion>(context);
}

void AllReduceOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<RemoveNoop<AllReduceOp>>(
      context,
      [](AllReduceOp op) { return op.getReductionAxes().getValue().empty(); },
      "reduction axes are not empty");
}

void ReduceScatterOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                  MLIRContext *context) {
  results.add<RemoveNoop<ReduceScatterOp>>(
      context,
      [](ReduceScatterOp op) { return allEmpty(op.getReduceScatterAxes()); },
      "reduce-scatter axes are not empty");
}

void ShardedToUnreducedOp::getCanonicalizationPatterns(
    RewritePatternSet &results, MLIRContext *context) {
  results.add<RemoveNoop<ShardedToUnreducedOp>>(
      context, [](ShardedToUnreducedOp op) { return allEmpty(op.getAxes()); },
      "some dimension moves axes");
}

void ReplicatedToUnreducedOp::getCanonicalizationPatterns(
    RewritePatternSet &results, MLIRContext *context) {
  // Nothing to simplify: the op always has axes.
}

void ShardingGroupOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                  MLIRContext *context) {
  results.add<RemoveDuplicateShardingGroup>(context);
}

void ManualComputationOp::getCanonicalizationPatterns(
    RewritePatternSet &results, MLIRContext *context) {
  results.add<RemoveUnusedManualComputationInputs>(context);
}
