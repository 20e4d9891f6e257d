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

#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"
#include "tessera/Dialect/Spmd/Transforms/Passes.h"
#include "tessera/Dialect/Spmd/Transforms/ReshardPlan.h"
#include "tessera/Dialect/Spmd/Transforms/TensorWalk.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tessera::spmd {
#define GEN_PASS_DEF_SPMDRESHARDTOCOLLECTIVESPASS
#include "tessera/Dialect/Spmd/Transforms/Passes.h.inc"

namespace {

/// Builds the chain of collectives of one reshard: the steps a
/// ReshardPlanner plans, one op each.
class ReshardLowering {
public:
  ReshardLowering(ReshardOp op, MeshResolver &meshes)
      : op(op), ctx(op.getContext()), builder(op), meshes(meshes) {}

  FailureOr<Value> lower();

private:
  /// Fails with `message` on the reshard.
  LogicalResult fail(const Twine &message) { return op.emitOpError(message); }

  /// Runs one phase of `planner` and builds the ops of its new steps.
  LogicalResult run(ReshardPlanner &planner,
                    LogicalResult (ReshardPlanner::*phase)());
  /// Builds the op of one step on `value`.
  void build(const ReshardStep &step);

  ReshardOp op;
  MLIRContext *ctx;
  OpBuilder builder;
  MeshResolver &meshes;
  Value value;
};

LogicalResult ReshardLowering::run(ReshardPlanner &planner,
                                   LogicalResult (ReshardPlanner::*phase)()) {
  size_t before = planner.steps().size();
  if (failed((planner.*phase)()))
    return fail(planner.error());
  for (const ReshardStep &step : planner.steps().drop_front(before))
    build(step);
  return success();
}

void ReshardLowering::build(const ReshardStep &step) {
  Location loc = op.getLoc();
  switch (step.kind) {
  case ReshardStep::Kind::AllReduce:
    value = AllReduceOp::create(builder, loc, value,
                                AxisRefListAttr::get(ctx, step.axes), step.out,
                                step.in, step.reduction);
    return;
  case ReshardStep::Kind::CollectivePermute:
    value = CollectivePermuteOp::create(builder, loc, value, step.out, step.in);
    return;
  case ReshardStep::Kind::AllGather:
    value = AllGatherOp::create(builder, loc, value,
                                ListOfAxisRefListsAttr::get(ctx, step.perDim),
                                step.out, step.in);
    return;
  case ReshardStep::Kind::AllToAll:
    value = AllToAllOp::create(builder, loc, value,
                               AllToAllParamListAttr::get(ctx, step.moves),
                               step.out, step.in);
    return;
  case ReshardStep::Kind::AllSlice:
    value = AllSliceOp::create(builder, loc, value,
                               ListOfAxisRefListsAttr::get(ctx, step.perDim),
                               step.out, step.in);
    return;
  case ReshardStep::Kind::ReplicatedToUnreduced:
    value = ReplicatedToUnreducedOp::create(
        builder, loc, value, AxisRefListAttr::get(ctx, step.axes), step.out,
        step.in);
    return;
  }
}

FailureOr<Value> ReshardLowering::lower() {
  value = op.getInput();
  TensorShardingAttr target = op.getSharding();
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return fail("needs a ranked tensor");
  MeshAttr mesh = meshes.get(target, op);
  if (!mesh)
    return fail("has a sharding whose mesh cannot be resolved");
  TensorShardingAttr current = getSharding(value);
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
  ReshardPlanner planner(current, target, mesh);
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
    planner.setMesh(sourceMesh);
    TensorShardingAttr onSource =
        TensorShardingAttr::get(ctx, current.getMeshOrRef(), closedDims(target),
                                {}, {}, ReductionKind::Sum);
    planner.setTarget(onSource);
    if (failed(run(planner, &ReshardPlanner::reduce)))
      return failure();
    if (partsOf(planner.current()) <= partsOf(onSource) &&
        (failed(run(planner, &ReshardPlanner::permute)) ||
         failed(run(planner, &ReshardPlanner::moveAndSlice))))
      return failure();
    auto moved = TensorShardingAttr::get(ctx, target.getMeshOrRef(),
                                         closedDims(planner.current()), {}, {},
                                         ReductionKind::Sum);
    value = CollectivePermuteOp::create(builder, op.getLoc(), value, moved,
                                        planner.current());
    planner.setCurrent(moved);
    planner.setMesh(mesh);
    planner.setTarget(target);
  }
  // Unreduced axes the target keeps stay; the others are reduced first;
  // then new unreduced axes.
  if (failed(run(planner, &ReshardPlanner::reduce)) ||
      failed(run(planner, &ReshardPlanner::permute)) ||
      failed(run(planner, &ReshardPlanner::moveAndSlice)) ||
      failed(run(planner, &ReshardPlanner::introduceUnreduced)))
    return failure();
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
