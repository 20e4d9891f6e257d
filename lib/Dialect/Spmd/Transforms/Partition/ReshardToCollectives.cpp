//===- ReshardToCollectives.cpp - spmd.reshard as collectives -------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Each `spmd.reshard` becomes the global-view collectives that move its
// input from the input's sharding to the reshard's: reduce what the target
// no longer leaves unreduced, permute blocks when every dimension keeps its
// number of parts, otherwise keep each dimension's common prefix, move axes
// between dimensions with all-to-all, gather the rest of what leaves and
// slice what joins (see the pass description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/CollectiveShardings.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"
#include "tessera/Dialect/Spmd/Transforms/Passes.h"
#include "tessera/Dialect/Spmd/Transforms/TensorWalk.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tessera::spmd {
#define GEN_PASS_DEF_SPMDRESHARDTOCOLLECTIVESPASS
#include "tessera/Dialect/Spmd/Transforms/Passes.h.inc"

namespace {

/// Builds the chain of collectives of one reshard.
class ReshardLowering {
public:
  ReshardLowering(ReshardOp op, MeshResolver &meshes)
      : op(op), ctx(op.getContext()), builder(op), meshes(meshes) {}

  FailureOr<Value> lower();

private:
  /// Fails with `message` on the reshard.
  LogicalResult fail(const Twine &message) { return op.emitOpError(message); }

  /// Checks an infer function's result and records it as the current
  /// sharding.
  FailureOr<TensorShardingAttr> check(FailureOr<TensorShardingAttr> result,
                                      const std::string &error) {
    if (failed(result)) {
      (void)fail("cannot be lowered to collectives: " + error);
      return failure();
    }
    return result;
  }

  LogicalResult reduce();
  LogicalResult gatherAll();
  LogicalResult permute();
  LogicalResult moveAndSlice();

  ReshardOp op;
  MLIRContext *ctx;
  OpBuilder builder;
  MeshResolver &meshes;
  MeshAttr mesh;
  Value value;
  TensorShardingAttr current;
  TensorShardingAttr target;
};

LogicalResult ReshardLowering::reduce() {
  SmallVector<AxisRefAttr> toReduce = getAxisSetDiff(
      current.getUnreducedAxes(), target.getUnreducedAxes(), mesh);
  if (!target.getUnreducedAxes().empty() &&
      !current.getUnreducedAxes().empty() &&
      target.getUnreducedKind() != current.getUnreducedKind() &&
      toReduce.size() != current.getUnreducedAxes().size())
    return fail("changes the reduction kind of unreduced axes");
  if (toReduce.empty())
    return success();
  ReductionKind kind = current.getUnreducedKind();
  std::string error;
  auto out = check(
      inferAllReduceSharding(current, toReduce, kind, mesh, &error), error);
  if (failed(out))
    return failure();
  value = AllReduceOp::create(builder, op.getLoc(), value,
                              AxisRefListAttr::get(ctx, toReduce), *out,
                              current, kind);
  current = *out;
  return success();
}

LogicalResult ReshardLowering::gatherAll() {
  SmallVector<AxisRefListAttr> lists;
  bool any = false;
  for (DimensionShardingAttr dim : current.getDimShardings()) {
    lists.push_back(AxisRefListAttr::get(ctx, dim.getAxes()));
    any |= !dim.getAxes().empty();
  }
  if (!any)
    return success();
  std::string error;
  auto out = check(inferAllGatherSharding(current, lists, mesh, &error), error);
  if (failed(out))
    return failure();
  value = AllGatherOp::create(builder, op.getLoc(), value,
                              ListOfAxisRefListsAttr::get(ctx, lists), *out,
                              current);
  current = *out;
  return success();
}

LogicalResult ReshardLowering::permute() {
  // Every dimension keeps its number of parts but not its axes: each device
  // sends its block to one other device instead of gathering and slicing.
  // Partial sums cannot move between devices.
  if (!current.getUnreducedAxes().empty())
    return success();
  bool same = true;
  for (int64_t d = 0; d < current.getRank(); ++d) {
    ArrayRef<AxisRefAttr> from = current.getDimSharding(d).getAxes();
    ArrayRef<AxisRefAttr> to = target.getDimSharding(d).getAxes();
    int64_t fromParts = 1, toParts = 1;
    for (AxisRefAttr axis : from)
      fromParts *= axis.getSize(mesh);
    for (AxisRefAttr axis : to)
      toParts *= axis.getSize(mesh);
    if (fromParts != toParts)
      return success();
    same &= from == to;
  }
  if (same)
    return success();
  SmallVector<DimensionShardingAttr> dims;
  for (DimensionShardingAttr dim : target.getDimShardings())
    dims.push_back(DimensionShardingAttr::get(ctx, dim.getAxes(),
                                              /*isClosed=*/true));
  auto out = TensorShardingAttr::get(ctx, current.getMeshOrRef(), dims, {}, {},
                                     ReductionKind::Sum);
  value =
      CollectivePermuteOp::create(builder, op.getLoc(), value, out, current);
  current = out;
  return success();
}

LogicalResult ReshardLowering::moveAndSlice() {
  int64_t rank = current.getRank();
  // Per dimension: the axes that leave and the axes that join, after the
  // longest common prefix.
  SmallVector<SmallVector<AxisRefAttr>> leave(rank), join(rank);
  for (int64_t d = 0; d < rank; ++d) {
    ArrayRef<AxisRefAttr> from = current.getDimSharding(d).getAxes();
    ArrayRef<AxisRefAttr> to = target.getDimSharding(d).getAxes();
    size_t common = 0;
    while (common < from.size() && common < to.size() &&
           from[common] == to[common])
      ++common;
    leave[d].assign(from.begin() + common, from.end());
    join[d].assign(to.begin() + common, to.end());
  }
  // Whole lists that move from one dimension to another: all-to-all.
  SmallVector<AllToAllParamAttr> moves;
  for (int64_t src = 0; src < rank; ++src) {
    if (leave[src].empty() || !join[src].empty())
      continue;
    for (int64_t tgt = 0; tgt < rank; ++tgt) {
      if (tgt == src || !leave[tgt].empty() || join[tgt] != leave[src])
        continue;
      moves.push_back(AllToAllParamAttr::get(ctx, leave[src], src, tgt));
      leave[src].clear();
      join[tgt].clear();
      break;
    }
  }
  std::string error;
  // Gather what leaves.
  SmallVector<AxisRefListAttr> gathers;
  bool anyGather = false;
  for (int64_t d = 0; d < rank; ++d) {
    gathers.push_back(AxisRefListAttr::get(ctx, leave[d]));
    anyGather |= !leave[d].empty();
  }
  if (anyGather) {
    auto out =
        check(inferAllGatherSharding(current, gathers, mesh, &error), error);
    if (failed(out))
      return failure();
    value = AllGatherOp::create(builder, op.getLoc(), value,
                                ListOfAxisRefListsAttr::get(ctx, gathers), *out,
                                current);
    current = *out;
  }
  if (!moves.empty()) {
    auto out =
        check(inferAllToAllSharding(current, moves, mesh, &error), error);
    if (failed(out))
      return failure();
    value = AllToAllOp::create(builder, op.getLoc(), value,
                               AllToAllParamListAttr::get(ctx, moves), *out,
                               current);
    current = *out;
  }
  // Slice what joins.
  SmallVector<AxisRefListAttr> slices;
  bool anySlice = false;
  for (int64_t d = 0; d < rank; ++d) {
    slices.push_back(AxisRefListAttr::get(ctx, join[d]));
    anySlice |= !join[d].empty();
  }
  if (anySlice) {
    auto out =
        check(inferAllSliceSharding(current, slices, mesh, &error), error);
    if (failed(out))
      return failure();
    value = AllSliceOp::create(builder, op.getLoc(), value,
                               ListOfAxisRefListsAttr::get(ctx, slices), *out,
                               current);
    current = *out;
  }
  return success();
}

FailureOr<Value> ReshardLowering::lower() {
  value = op.getInput();
  target = op.getSharding();
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return fail("needs a ranked tensor");
  mesh = meshes.get(target, op);
  if (!mesh)
    return fail("has a sharding whose mesh cannot be resolved");
  current = getSharding(value);
  // Explicitly replicated axes only guide propagation; the data is the
  // same either way, and the target may shard along them.
  if (current && !current.getReplicatedAxes().empty())
    current = TensorShardingAttr::get(
        ctx, current.getMeshOrRef(), current.getDimShardings(), {},
        current.getUnreducedAxes(), current.getUnreducedKind());
  if (!current)
    current = TensorShardingAttr::getReplicated(ctx, target.getMeshOrRef(),
                                                type.getRank(), true);
  MeshAttr sourceMesh = meshes.get(current, op);
  if (!sourceMesh)
    return fail("has an input whose mesh cannot be resolved");
  if (sourceMesh != mesh) {
    // Another device order of the same axes: one collective_permute moves
    // each device's block to the device of the target mesh that holds it.
    // Partial sums are reduced on the source mesh first. The permute comes
    // where the blocks are smaller: after the layout changes on the source
    // mesh when the target is sharded into as many parts or more, else
    // first, the layout then changing on the target mesh.
    if (!sourceMesh.hasSameAxes(mesh))
      return fail("moves a tensor between meshes with different axes, "
                  "which is not supported");
    MeshAttr targetMesh = mesh;
    TensorShardingAttr finalTarget = target;
    mesh = sourceMesh;
    auto closedDims = [&](TensorShardingAttr sharding) {
      SmallVector<DimensionShardingAttr> dims;
      for (DimensionShardingAttr dim : sharding.getDimShardings())
        dims.push_back(DimensionShardingAttr::get(ctx, dim.getAxes(),
                                                  /*isClosed=*/true));
      return dims;
    };
    auto partsOf = [&](TensorShardingAttr sharding) {
      int64_t parts = 1;
      for (DimensionShardingAttr dim : sharding.getDimShardings())
        for (AxisRefAttr axis : dim.getAxes())
          parts *= axis.getSize(sourceMesh);
      return parts;
    };
    target = TensorShardingAttr::get(ctx, current.getMeshOrRef(),
                                     closedDims(finalTarget), {}, {},
                                     ReductionKind::Sum);
    if (failed(reduce()))
      return failure();
    if (partsOf(current) <= partsOf(target) &&
        (failed(permute()) || failed(moveAndSlice())))
      return failure();
    auto moved = TensorShardingAttr::get(ctx, finalTarget.getMeshOrRef(),
                                         closedDims(current), {}, {},
                                         ReductionKind::Sum);
    value = CollectivePermuteOp::create(builder, op.getLoc(), value, moved,
                                        current);
    current = moved;
    mesh = targetMesh;
    target = finalTarget;
  }
  // Unreduced axes the target keeps stay; the others are reduced first.
  if (failed(reduce()) || failed(permute()) || failed(moveAndSlice()))
    return failure();
  // New unreduced axes.
  SmallVector<AxisRefAttr> introduce = getAxisSetDiff(
      target.getUnreducedAxes(), current.getUnreducedAxes(), mesh);
  if (!introduce.empty()) {
    if (target.getUnreducedKind() != ReductionKind::Sum)
      return fail("introduces unreduced axes of a kind other than 'sum'");
    std::string error;
    auto out = check(
        inferReplicatedToUnreducedSharding(current, introduce, mesh, &error),
        error);
    if (failed(out))
      return failure();
    value = ReplicatedToUnreducedOp::create(
        builder, op.getLoc(), value, AxisRefListAttr::get(ctx, introduce), *out,
        current);
    current = *out;
  }
  return value;
}

struct SpmdReshardToCollectivesPass
    : public impl::SpmdReshardToCollectivesPassBase<
          SpmdReshardToCollectivesPass> {
  void runOnOperation() override {
    MeshResolver meshes;
    SmallVector<ReshardOp> reshards;
    // The ops the canonicalization below starts from: the collectives
    // already there and those the reshards become.
    SmallVector<Operation *> collectives;
    auto isCollective = [](Operation *op) {
      return isa<AllGatherOp, AllSliceOp, AllToAllOp, AllReduceOp,
                 ReduceScatterOp, ReplicatedToUnreducedOp, CollectivePermuteOp>(
          op);
    };
    walkTensorOps(getOperation(), WalkOrder::PostOrder, [&](Operation *op) {
      if (auto reshard = dyn_cast<ReshardOp>(op))
        reshards.push_back(reshard);
      else if (isCollective(op))
        collectives.push_back(op);
      return WalkResult::advance();
    });
    for (ReshardOp op : reshards) {
      ReshardLowering lowering(op, meshes);
      FailureOr<Value> value = lowering.lower();
      if (failed(value))
        return signalPassFailure();
      // The chain of collectives from the reshard's input to `value`.
      for (Operation *def = value->getDefiningOp();
           def && *value != op.getInput() && isCollective(def);
           def = def->getOperand(0).getDefiningOp()) {
        collectives.push_back(def);
        if (def->getOperand(0) == op.getInput())
          break;
      }
      op.replaceAllUsesWith(*value);
      op.erase();
    }
    // The collectives' own canonicalization: no-ops go, gather/slice pairs
    // cancel, an all_reduce followed by an all_slice of the same axes
    // becomes a reduce_scatter, and adjacent all-to-alls and permutes
    // merge.
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    AllGatherOp::getCanonicalizationPatterns(patterns, ctx);
    AllSliceOp::getCanonicalizationPatterns(patterns, ctx);
    AllToAllOp::getCanonicalizationPatterns(patterns, ctx);
    AllReduceOp::getCanonicalizationPatterns(patterns, ctx);
    ReduceScatterOp::getCanonicalizationPatterns(patterns, ctx);
    ReplicatedToUnreducedOp::getCanonicalizationPatterns(patterns, ctx);
    CollectivePermuteOp::getCanonicalizationPatterns(patterns, ctx);
    GreedyRewriteConfig config;
    config.enableFolding(false);
    // Constants carry their own shardings: equal values are not merged.
    config.enableConstantCSE(false);
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    if (failed(
            applyOpPatternsGreedily(collectives, std::move(patterns), config)))
      return signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tessera::spmd
