//===- Strategies.cpp - candidate shardings of ops and values -------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "Strategies.h"

#include "../Partition/FactorChoice.h"

#include "tessera/Dialect/Spmd/IR/OpShardingRuleBuilder.h"
#include "tessera/Dialect/Spmd/IR/SpmdShardingRule.h"
#include "tessera/Dialect/Spmd/Transforms/ReshardPlan.h"

#include "llvm/Support/raw_ostream.h"

#include <numeric>

namespace mlir::tessera::spmd::autopart {

unsigned PlanMesh::getLargestAxis() const {
  unsigned best = 0;
  for (unsigned a = 1; a < autoAxes.size(); ++a)
    if (autoAxes[a].second > autoAxes[best].second)
      best = a;
  return best;
}

/// The bytes of one element of `type`.
static double getElementBytes(RankedTensorType type) {
  Type element = type.getElementType();
  if (element.isIntOrFloat())
    return std::max<unsigned>(1, (element.getIntOrFloatBitWidth() + 7) / 8);
  if (auto complex = dyn_cast<ComplexType>(element))
    if (complex.getElementType().isIntOrFloat())
      return 2 * ((complex.getElementType().getIntOrFloatBitWidth() + 7) / 8);
  return 8; // index and others
}

double getLocalBytes(RankedTensorType type, TensorShardingAttr sharding,
                     MeshAttr mesh) {
  double elements = 1;
  if (sharding && sharding.getRank() == type.getRank()) {
    for (int64_t size : sharding.getLocalShape(type.getShape(), mesh))
      elements *= static_cast<double>(std::max<int64_t>(size, 0));
  } else {
    for (int64_t size : type.getShape())
      elements *= static_cast<double>(std::max<int64_t>(size, 0));
  }
  return elements * getElementBytes(type);
}

bool haveSameDimAxes(TensorShardingAttr lhs, TensorShardingAttr rhs) {
  auto axesOf = [](TensorShardingAttr sharding, int64_t d) {
    return sharding ? sharding.getDimSharding(d).getAxes()
                    : ArrayRef<AxisRefAttr>();
  };
  int64_t rank = lhs ? lhs.getRank() : (rhs ? rhs.getRank() : 0);
  if (lhs && rhs && lhs.getRank() != rhs.getRank())
    return false;
  for (int64_t d = 0; d < rank; ++d)
    if (axesOf(lhs, d) != axesOf(rhs, d))
      return false;
  return true;
}

/// The factors of `rule` the Auto axes may shard.
static llvm::SmallVector<int64_t> getShardableFactors(Operation *op,
                                                      OpShardingRuleAttr rule) {
  bool reductionOk = false;
  if (op && op->getNumResults() > 0)
    reductionOk = getCollectiveKind(getReductionCombiner(op, 0)).has_value();
  llvm::SmallVector<TensorMappingAttr> mappings(rule.getOperandMappings());
  llvm::append_range(mappings, rule.getResultMappings());
  llvm::SmallVector<int64_t> factors;
  for (int64_t f = 0; f < rule.getNumFactors(); ++f) {
    if (rule.isDynamicFactor(f) || rule.getFactorSize(f) <= 1 ||
        rule.isBlocked(f) || rule.isPermutation(f) || rule.isNeedReplication(f))
      continue;
    if (rule.isReduction(f) && !reductionOk)
      continue;
    // Major in every dimension: the factors before it have size 1.
    bool major = true;
    for (TensorMappingAttr mapping : mappings)
      for (DimMappingAttr dim : mapping.getDimMappings()) {
        for (int64_t g : dim.getFactorIndices()) {
          if (g == f)
            break;
          if (rule.getFactorSize(g) != 1 && dim.contains(f))
            major = false;
        }
      }
    if (major)
      factors.push_back(f);
  }
  return factors;
}

/// The axes of factor `size` given the Auto axes assigned to it (indices
/// into `mesh.autoAxes`, in mesh order), or failure when an axis divides
/// nothing of what is left.
static FailureOr<llvm::SmallVector<AxisRefAttr>>
getFactorAxes(MLIRContext *ctx, int64_t size, ArrayRef<unsigned> axes,
              const PlanMesh &mesh) {
  llvm::SmallVector<AxisRefAttr> refs;
  int64_t left = size;
  for (unsigned a : axes) {
    const auto &[name, axisSize] = mesh.autoAxes[a];
    if (left % axisSize == 0) {
      refs.push_back(AxisRefAttr::get(ctx, name));
      left /= axisSize;
      continue;
    }
    int64_t part = std::gcd(left, axisSize);
    if (part <= 1)
      return failure();
    refs.push_back(AxisRefAttr::get(ctx, name, /*preSize=*/1, part));
    left /= part;
  }
  return refs;
}

/// Fills the shardings and cost of `strategy` (its factor axes set).
static void finishStrategy(Strategy &strategy, Operation *op,
                           OpShardingRuleAttr rule, TypeRange operandTypes,
                           TypeRange resultTypes, const PlanMesh &mesh) {
  MLIRContext *ctx = rule.getContext();
  MeshAttr meshAttr = mesh.mesh;
  double touched = 0;
  for (auto [i, type] : llvm::enumerate(operandTypes)) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor) {
      strategy.operands.push_back({});
      continue;
    }
    TensorShardingAttr sharding =
        detail::buildSharding(ctx, rule.getOperandMapping(i),
                              strategy.factorAxes, mesh.meshRef, meshAttr);
    strategy.operands.push_back(sharding);
    touched += getLocalBytes(tensor, sharding, meshAttr);
  }
  bool isContraction = false;
  for (int64_t f = 0; f < rule.getNumFactors(); ++f)
    if (rule.isReduction(f)) {
      isContraction = true;
      for (AxisRefAttr axis : strategy.factorAxes[f])
        strategy.partialAxes.push_back(axis);
    }
  llvm::SmallVector<std::pair<std::string, int64_t>> partial;
  for (AxisRefAttr axis : strategy.partialAxes)
    partial.emplace_back(axis.getName().str(), axis.getSize(meshAttr));
  for (auto [i, type] : llvm::enumerate(resultTypes)) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    TensorShardingAttr sharding =
        detail::buildSharding(ctx, rule.getResultMapping(i),
                              strategy.factorAxes, mesh.meshRef, meshAttr);
    strategy.results.push_back(sharding);
    if (!tensor)
      continue;
    double bytes = getLocalBytes(tensor, sharding, meshAttr);
    touched += bytes;
    if (!partial.empty()) {
      strategy.cost.comm += mesh.machine->getCollectiveTime(
          Collective::AllReduce, partial, bytes);
      int64_t group = 1;
      for (const auto &axis : partial)
        group *= axis.second;
      strategy.cost.commBytes +=
          getMovedFraction(Collective::AllReduce, group) * bytes;
    }
  }
  double points = 1;
  for (int64_t f = 0; f < rule.getNumFactors(); ++f) {
    int64_t parts = 1;
    for (AxisRefAttr axis : strategy.factorAxes[f])
      parts *= axis.getSize(meshAttr);
    int64_t size = rule.isDynamicFactor(f) ? 1 : rule.getFactorSize(f);
    points *= static_cast<double>((size + parts - 1) / parts);
  }
  strategy.cost.compute = mesh.machine->getComputeTime(
      isContraction ? 2 * points : points, touched, isContraction);
  strategy.cost.workBytes = touched;
}

/// Every assignment of the Auto axes to `factors` (or none), the
/// replicated one first.
static std::vector<Strategy>
enumerateAssignments(Operation *op, OpShardingRuleAttr rule,
                     TypeRange operandTypes, TypeRange resultTypes,
                     ArrayRef<int64_t> factors, const PlanMesh &mesh) {
  MLIRContext *ctx = rule.getContext();
  unsigned numAxes = mesh.autoAxes.size();
  // choice[a] in [0, factors.size()]: factors.size() means no factor.
  llvm::SmallVector<unsigned> choice(numAxes, factors.size());
  std::vector<Strategy> strategies;
  while (true) {
    Strategy strategy;
    strategy.factorAxes.resize(rule.getNumFactors());
    bool valid = true;
    for (size_t i = 0; i < factors.size() && valid; ++i) {
      llvm::SmallVector<unsigned> axes;
      for (unsigned a = 0; a < numAxes; ++a)
        if (choice[a] == i)
          axes.push_back(a);
      FailureOr<llvm::SmallVector<AxisRefAttr>> refs =
          getFactorAxes(ctx, rule.getFactorSize(factors[i]), axes, mesh);
      if (failed(refs))
        valid = false;
      else
        strategy.factorAxes[factors[i]] = std::move(*refs);
    }
    if (valid) {
      finishStrategy(strategy, op, rule, operandTypes, resultTypes, mesh);
      strategies.push_back(std::move(strategy));
    }
    // The next assignment: "no factor" first, then factors in order.
    unsigned a = 0;
    for (; a < numAxes; ++a) {
      if (choice[a] == factors.size())
        choice[a] = 0;
      else
        ++choice[a];
      if (choice[a] != factors.size())
        break;
    }
    if (a == numAxes)
      break;
  }
  return strategies;
}

std::vector<Strategy> enumerateOpStrategies(Operation *op,
                                            OpShardingRuleAttr rule,
                                            const PlanMesh &mesh,
                                            unsigned &dataParallel) {
  llvm::SmallVector<int64_t> factors = getShardableFactors(op, rule);
  std::vector<Strategy> strategies = enumerateAssignments(
      op, rule, op->getOperandTypes(), op->getResultTypes(), factors, mesh);
  dataParallel = 0;
  if (mesh.autoAxes.empty() || rule.getNumResults() == 0)
    return strategies;
  // The largest axis alone on the factor of dimension 0 of result 0.
  TensorMappingAttr first = rule.getResultMapping(0);
  if (first.getDimMappings().empty() ||
      first.getDimMappings()[0].getFactorIndices().empty())
    return strategies;
  int64_t batch = first.getDimMappings()[0].getFactorIndices().front();
  StringRef largest = mesh.autoAxes[mesh.getLargestAxis()].first;
  for (auto [index, strategy] : llvm::enumerate(strategies)) {
    bool match = true;
    for (int64_t f = 0; f < rule.getNumFactors() && match; ++f) {
      ArrayRef<AxisRefAttr> axes = strategy.factorAxes[f];
      if (f == batch)
        match = axes.size() == 1 && axes[0].getName() == largest &&
                !axes[0].getSubAxisInfo();
      else
        match = axes.empty();
    }
    if (match) {
      dataParallel = index;
      break;
    }
  }
  return strategies;
}

std::vector<Strategy> enumerateValueStrategies(RankedTensorType type,
                                               const PlanMesh &mesh) {
  MLIRContext *ctx = type.getContext();
  OpShardingRuleBuilder builder(TypeRange{type}, TypeRange{type}, ctx);
  builder.addPointwise(type.getShape());
  OpShardingRuleAttr rule = builder.build();
  llvm::SmallVector<int64_t> factors = getShardableFactors(nullptr, rule);
  std::vector<Strategy> strategies = enumerateAssignments(
      nullptr, rule, TypeRange{type}, TypeRange{type}, factors, mesh);
  for (Strategy &strategy : strategies) {
    double bytes = getLocalBytes(type, strategy.results[0], mesh.mesh);
    strategy.cost = {};
    strategy.cost.persistentBytes = bytes;
  }
  return strategies;
}

std::string describeStrategy(const Strategy &strategy,
                             OpShardingRuleAttr rule) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto printAxes = [&](ArrayRef<AxisRefAttr> axes) {
    if (axes.size() == 1) {
      os << axes[0].toString();
      return;
    }
    os << "(";
    llvm::interleaveComma(axes, os,
                          [&](AxisRefAttr axis) { os << axis.toString(); });
    os << ")";
  };
  if (!rule) {
    TensorShardingAttr sharding = strategy.results[0];
    os << "[";
    llvm::interleaveComma(
        sharding.getDimShardings(), os, [&](DimensionShardingAttr dim) {
          os << "{";
          llvm::interleaveComma(dim.getAxes(), os, [&](AxisRefAttr axis) {
            os << axis.toString();
          });
          os << "}";
        });
    os << "]";
    return text;
  }
  bool any = false;
  os << "{";
  for (auto [f, axes] : llvm::enumerate(strategy.factorAxes)) {
    if (axes.empty())
      continue;
    os << (any ? ", " : "") << factorSymbolString(f) << ": ";
    printAxes(axes);
    any = true;
  }
  os << "}";
  if (!any)
    return "replicated";
  return text;
}

std::pair<double, double> ReshardCoster::get(RankedTensorType type,
                                             TensorShardingAttr from,
                                             TensorShardingAttr to) {
  auto key = std::make_tuple(Type(type), Attribute(from), Attribute(to));
  auto it = cache.find(key);
  if (it != cache.end())
    return it->second;
  std::pair<double, double> cost = compute(type, from, to);
  cache[key] = cost;
  return cost;
}

std::pair<double, double> ReshardCoster::compute(RankedTensorType type,
                                                 TensorShardingAttr from,
                                                 TensorShardingAttr to) {
  MLIRContext *ctx = type.getContext();
  MeshAttr meshAttr = mesh.mesh;
  auto closed = [&](TensorShardingAttr sharding) {
    if (!sharding)
      return TensorShardingAttr::getReplicated(ctx, mesh.meshRef,
                                               type.getRank(), true);
    SmallVector<DimensionShardingAttr> dims;
    for (DimensionShardingAttr dim : sharding.getDimShardings())
      dims.push_back(
          DimensionShardingAttr::get(ctx, dim.getAxes(), /*isClosed=*/true));
    return TensorShardingAttr::get(ctx, mesh.meshRef, dims, {}, {},
                                   ReductionKind::Sum, {});
  };
  // Shardings on another mesh are not this plan's to price.
  if ((from && from.getMeshOrRef() != mesh.meshRef) ||
      (to && to.getMeshOrRef() != mesh.meshRef))
    return {0, 0};
  TensorShardingAttr source = closed(from), target = closed(to);
  if (source.getRank() != type.getRank() || target.getRank() != type.getRank())
    return {kUnplannable, 0};
  if (haveSameDimAxes(source, target))
    return {0, 0};
  ReshardPlanner planner(source, target, meshAttr);
  if (failed(planner.planAll()))
    return {kUnplannable, 0};
  double time = 0, bytes = 0;
  ArrayRef<ReshardStep> steps = planner.steps();
  auto axesOf = [&](ArrayRef<AxisRefAttr> refs) {
    SmallVector<std::pair<std::string, int64_t>> axes;
    for (AxisRefAttr axis : refs)
      axes.emplace_back(axis.getName().str(), axis.getSize(meshAttr));
    return axes;
  };
  auto price = [&](Collective kind, ArrayRef<AxisRefAttr> refs, double buffer) {
    SmallVector<std::pair<std::string, int64_t>> axes = axesOf(refs);
    int64_t group = 1;
    for (const auto &axis : axes)
      group *= axis.second;
    time += mesh.machine->getCollectiveTime(kind, axes, buffer);
    bytes += getMovedFraction(kind, group) * buffer;
  };
  for (size_t s = 0; s < steps.size(); ++s) {
    const ReshardStep &step = steps[s];
    SmallVector<AxisRefAttr> refs;
    for (AxisRefListAttr list : step.perDim)
      llvm::append_range(refs, list.getValue());
    for (AllToAllParamAttr move : step.moves)
      llvm::append_range(refs, move.getAxes());
    llvm::append_range(refs, step.axes);
    switch (step.kind) {
    case ReshardStep::Kind::AllReduce:
      if (s + 1 < steps.size() &&
          steps[s + 1].kind == ReshardStep::Kind::AllSlice) {
        price(Collective::ReduceScatter, refs,
              getLocalBytes(type, step.in, meshAttr));
        ++s;
      } else {
        price(Collective::AllReduce, refs,
              getLocalBytes(type, step.in, meshAttr));
      }
      break;
    case ReshardStep::Kind::AllGather:
      price(Collective::AllGather, refs,
            getLocalBytes(type, step.out, meshAttr));
      break;
    case ReshardStep::Kind::AllToAll:
      price(Collective::AllToAll, refs, getLocalBytes(type, step.in, meshAttr));
      break;
    case ReshardStep::Kind::CollectivePermute: {
      SmallVector<AxisRefAttr> all;
      for (const auto &axis : mesh.autoAxes)
        all.push_back(AxisRefAttr::get(ctx, axis.first));
      price(Collective::Permute, all, getLocalBytes(type, step.in, meshAttr));
      break;
    }
    case ReshardStep::Kind::AllSlice:
    case ReshardStep::Kind::ReplicatedToUnreduced:
      break;
    }
  }
  return {time, bytes};
}

} // namespace mlir::tessera::spmd::autopart
