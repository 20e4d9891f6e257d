//===- ReshardPlan.cpp - the collectives of one reshard -------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Plans the collectives of one reshard on one mesh (see ReshardPlan.h and
// the description of spmd-reshard-to-collectives in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/Transforms/ReshardPlan.h"

#include "tessera/Dialect/Spmd/IR/CollectiveShardings.h"

namespace mlir::tessera::spmd {

ReshardPlanner::ReshardPlanner(TensorShardingAttr current,
                               TensorShardingAttr target, MeshAttr mesh)
    : ctx(target.getContext()), currentSharding(current),
      targetSharding(target), mesh(mesh) {}

LogicalResult ReshardPlanner::fail(const std::string &text) {
  message = text;
  return failure();
}

void ReshardPlanner::add(ReshardStep step) {
  currentSharding = step.out;
  planned.push_back(std::move(step));
}

LogicalResult ReshardPlanner::reduce() {
  TensorShardingAttr current = currentSharding, target = targetSharding;
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
  FailureOr<TensorShardingAttr> out =
      inferAllReduceSharding(current, toReduce, kind, mesh, &error);
  if (failed(out))
    return fail("cannot be lowered to collectives: " + error);
  ReshardStep step(ReshardStep::Kind::AllReduce, current, *out);
  step.axes = std::move(toReduce);
  step.reduction = kind;
  add(std::move(step));
  return success();
}

LogicalResult ReshardPlanner::permute() {
  // Every dimension keeps its number of parts but not its axes: each device
  // sends its block to one other device instead of gathering and slicing.
  // Partial sums move as they are (each to a device with the same
  // coordinates along the unreduced axes), when the target keeps them all.
  TensorShardingAttr current = currentSharding, target = targetSharding;
  if (!current.getUnreducedAxes().empty() &&
      !getAxisSetDiff(current.getUnreducedAxes(), target.getUnreducedAxes(),
                      mesh)
           .empty())
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
  auto out = TensorShardingAttr::get(ctx, current.getMeshOrRef(), dims, {},
                                     current.getUnreducedAxes(),
                                     current.getUnreducedKind(), {});
  add(ReshardStep(ReshardStep::Kind::CollectivePermute, current, out));
  return success();
}

LogicalResult ReshardPlanner::moveAndSlice() {
  TensorShardingAttr target = targetSharding;
  int64_t rank = currentSharding.getRank();
  // Per dimension: the axes that leave and the axes that join, after the
  // longest common prefix.
  SmallVector<SmallVector<AxisRefAttr>> leave(rank), join(rank);
  for (int64_t d = 0; d < rank; ++d) {
    ArrayRef<AxisRefAttr> from = currentSharding.getDimSharding(d).getAxes();
    ArrayRef<AxisRefAttr> to = target.getDimSharding(d).getAxes();
    size_t common = 0;
    while (common < from.size() && common < to.size() &&
           from[common] == to[common])
      ++common;
    leave[d].assign(from.begin() + common, from.end());
    join[d].assign(to.begin() + common, to.end());
    // A sub-axis that is the major part of the target's axis stays; the
    // rest of that axis joins after it (`"x":(1)2` to `"x"` slices
    // `"x":(2)k`).
    if (common < from.size() && common < to.size() &&
        from[common].prefixOf(to[common])) {
      AxisRefAttr major = from[common], whole = to[common];
      int64_t preSize = major.getNextPreSize(mesh);
      AxisRefAttr rest = AxisRefAttr::get(ctx, whole.getName(), preSize,
                                          whole.getNextPreSize(mesh) / preSize);
      leave[d].assign(from.begin() + common + 1, from.end());
      join[d].assign(1, rest);
      join[d].append(to.begin() + common + 1, to.end());
    }
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
    FailureOr<TensorShardingAttr> out =
        inferAllGatherSharding(currentSharding, gathers, mesh, &error);
    if (failed(out))
      return fail("cannot be lowered to collectives: " + error);
    ReshardStep step(ReshardStep::Kind::AllGather, currentSharding, *out);
    step.perDim = std::move(gathers);
    add(std::move(step));
  }
  if (!moves.empty()) {
    FailureOr<TensorShardingAttr> out =
        inferAllToAllSharding(currentSharding, moves, mesh, &error);
    if (failed(out))
      return fail("cannot be lowered to collectives: " + error);
    ReshardStep step(ReshardStep::Kind::AllToAll, currentSharding, *out);
    step.moves = std::move(moves);
    add(std::move(step));
  }
  // Slice what joins.
  SmallVector<AxisRefListAttr> slices;
  bool anySlice = false;
  for (int64_t d = 0; d < rank; ++d) {
    slices.push_back(AxisRefListAttr::get(ctx, join[d]));
    anySlice |= !join[d].empty();
  }
  if (anySlice) {
    FailureOr<TensorShardingAttr> out =
        inferAllSliceSharding(currentSharding, slices, mesh, &error);
    if (failed(out))
      return fail("cannot be lowered to collectives: " + error);
    ReshardStep step(ReshardStep::Kind::AllSlice, currentSharding, *out);
    step.perDim = std::move(slices);
    add(std::move(step));
  }
  return success();
}

LogicalResult ReshardPlanner::introduceUnreduced() {
  SmallVector<AxisRefAttr> introduce =
      getAxisSetDiff(targetSharding.getUnreducedAxes(),
                     currentSharding.getUnreducedAxes(), mesh);
  if (introduce.empty())
    return success();
  if (targetSharding.getUnreducedKind() != ReductionKind::Sum)
    return fail("introduces unreduced axes of a kind other than 'sum'");
  std::string error;
  FailureOr<TensorShardingAttr> out = inferReplicatedToUnreducedSharding(
      currentSharding, introduce, mesh, &error);
  if (failed(out))
    return fail("cannot be lowered to collectives: " + error);
  ReshardStep step(ReshardStep::Kind::ReplicatedToUnreduced, currentSharding,
                   *out);
  step.axes = std::move(introduce);
  add(std::move(step));
  return success();
}

LogicalResult ReshardPlanner::planAll() {
  return success(succeeded(reduce()) && succeeded(permute()) &&
                 succeeded(moveAndSlice()) && succeeded(introduceUnreduced()));
}

} // namespace mlir::tessera::spmd
