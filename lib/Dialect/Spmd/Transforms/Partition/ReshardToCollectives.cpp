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
  /// Moves the planner's current value from `sourceMesh` to the target's
  /// mesh `mesh` with the same axes in another device order.
  LogicalResult moveToDeviceOrder(ReshardPlanner &planner, MeshAttr sourceMesh,
                                  MeshAttr mesh, TensorShardingAttr target);
  /// Moves it from `sourceMesh` to `mesh` of other axes (as many devices).
  LogicalResult moveToOtherAxes(ReshardPlanner &planner, MeshAttr sourceMesh,
                                MeshAttr mesh, TensorShardingAttr target);
  /// Builds a collective_permute of `value` from the planner's current
  /// sharding to `moved` and makes it the current one.
  void permuteTo(ReshardPlanner &planner, TensorShardingAttr moved);

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

/// The sharding of `sharding`'s dimensions (closed) on `meshRef`, with the
/// unreduced axes `unreduced` of kind `kind`.
static TensorShardingAttr withClosedDims(TensorShardingAttr sharding,
                                         Attribute meshRef,
                                         ArrayRef<AxisRefAttr> unreduced,
                                         ReductionKind kind) {
  MLIRContext *ctx = sharding.getContext();
  SmallVector<DimensionShardingAttr> dims;
  for (DimensionShardingAttr dim : sharding.getDimShardings())
    dims.push_back(
        DimensionShardingAttr::get(ctx, dim.getAxes(), /*isClosed=*/true));
  return TensorShardingAttr::get(ctx, meshRef, dims, {}, unreduced, kind, {});
}

/// The number of blocks `sharding` cuts a tensor into on `mesh`.
static int64_t getNumParts(TensorShardingAttr sharding, MeshAttr mesh) {
  int64_t parts = 1;
  for (DimensionShardingAttr dim : sharding.getDimShardings())
    for (AxisRefAttr axis : dim.getAxes())
      parts *= axis.getSize(mesh);
  return parts;
}

void ReshardLowering::permuteTo(ReshardPlanner &planner,
                                TensorShardingAttr moved) {
  value = CollectivePermuteOp::create(builder, op.getLoc(), value, moved,
                                      planner.current());
  planner.setCurrent(moved);
}

LogicalResult ReshardLowering::moveToDeviceOrder(ReshardPlanner &planner,
                                                 MeshAttr sourceMesh,
                                                 MeshAttr mesh,
                                                 TensorShardingAttr target) {
  // One collective_permute moves each device's block to the device of the
  // target mesh that holds it. It comes where the blocks are smaller: after
  // the layout changes on the source mesh when the target is sharded into
  // as many parts or more, else first, the layout then changing on the
  // target mesh. Partial sums the target keeps unreduced move as they are
  // (reducing them and making them partial again would cost an all-reduce
  // for nothing); the others are reduced on the source mesh first, where
  // the reduction and a slice after it become one reduce_scatter.
  TensorShardingAttr current = planner.current();
  SmallVector<AxisRefAttr> kept;
  if (current.getUnreducedKind() == target.getUnreducedKind())
    for (AxisRefAttr axis : current.getUnreducedAxes())
      if (llvm::is_contained(target.getUnreducedAxes(), axis))
        kept.push_back(axis);
  TensorShardingAttr onSource = withClosedDims(
      target, current.getMeshOrRef(), kept, current.getUnreducedKind());
  planner.setMesh(sourceMesh);
  planner.setTarget(onSource);
  if (failed(run(planner, &ReshardPlanner::reduce)))
    return failure();
  if (getNumParts(planner.current(), sourceMesh) <=
          getNumParts(onSource, sourceMesh) &&
      (failed(run(planner, &ReshardPlanner::permute)) ||
       failed(run(planner, &ReshardPlanner::moveAndSlice))))
    return failure();
  current = planner.current();
  permuteTo(planner, withClosedDims(current, target.getMeshOrRef(),
                                    current.getUnreducedAxes(),
                                    current.getUnreducedKind()));
  planner.setMesh(mesh);
  planner.setTarget(target);
  return success();
}

LogicalResult ReshardLowering::moveToOtherAxes(ReshardPlanner &planner,
                                               MeshAttr sourceMesh,
                                               MeshAttr mesh,
                                               TensorShardingAttr target) {
  // Meshes of other axes over as many devices (a 2x4 mesh and its 8-device
  // 1-D view): the input's layout spelled in the target mesh's axes
  // (translateShardingToMesh) is reached by one collective_permute, which
  // moves nothing when the two meshes order the devices alike; the layout
  // then changes on the target mesh. When the target mesh's axes cannot
  // spell the layout, the input is reduced and gathered on its own mesh:
  // replicated data is the same on every mesh.
  if (sourceMesh.getTotalSize() != mesh.getTotalSize())
    return fail("moves a tensor between meshes of " +
                Twine(sourceMesh.getTotalSize()) + " and " +
                Twine(mesh.getTotalSize()) +
                " devices, which is not supported");
  TensorShardingAttr current = planner.current();
  FailureOr<TensorShardingAttr> translated =
      translateShardingToMesh(current, sourceMesh, target.getMeshOrRef(), mesh);
  if (succeeded(translated)) {
    translated = withClosedDims(*translated, target.getMeshOrRef(),
                                translated->getUnreducedAxes(),
                                translated->getUnreducedKind());
  } else {
    planner.setMesh(sourceMesh);
    TensorShardingAttr replicated = TensorShardingAttr::getReplicated(
        ctx, current.getMeshOrRef(), current.getRank(), true);
    planner.setTarget(replicated);
    if (failed(run(planner, &ReshardPlanner::reduce)) ||
        failed(run(planner, &ReshardPlanner::moveAndSlice)))
      return failure();
    translated = TensorShardingAttr::getReplicated(ctx, target.getMeshOrRef(),
                                                   current.getRank(), true);
  }
  permuteTo(planner, *translated);
  planner.setMesh(mesh);
  planner.setTarget(target);
  return success();
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
        current.getUnreducedAxes(), current.getUnreducedKind(), {});
  if (!current)
    current = TensorShardingAttr::getReplicated(ctx, target.getMeshOrRef(),
                                                type.getRank(), true);
  MeshAttr sourceMesh = meshes.get(current, op);
  if (!sourceMesh)
    return fail("has an input whose mesh cannot be resolved");
  // Every device holds a value on a maximal (single-device) mesh whole
  // (spmd-insert-reshards): to or from one, the value is replicated on the
  // other mesh.
  bool fromOne = sourceMesh.isMaximal() || sourceMesh.empty();
  bool toOne = mesh.isMaximal() || mesh.empty();
  if (fromOne && toOne)
    return value;
  if (toOne) {
    target = TensorShardingAttr::getReplicated(ctx, current.getMeshOrRef(),
                                               type.getRank(), true);
    mesh = sourceMesh;
  } else if (fromOne) {
    current = TensorShardingAttr::getReplicated(ctx, target.getMeshOrRef(),
                                                type.getRank(), true);
    sourceMesh = mesh;
  }
  ReshardPlanner planner(current, target, mesh);
  if (sourceMesh != mesh &&
      failed(sourceMesh.hasSameAxes(mesh)
                 ? moveToDeviceOrder(planner, sourceMesh, mesh, target)
                 : moveToOtherAxes(planner, sourceMesh, mesh, target)))
    return failure();
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
