//===- FactorChoice.cpp - one factor sharding per op ------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The choice spmd-insert-reshards makes for each op with a sharding rule: the
// axes of every factor, chosen greedily from the shardings its operands and
// results have, as Shardy chooses them (see the pass description in
// Passes.td).
//
//===----------------------------------------------------------------------===//

#include "FactorChoice.h"

#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallBitVector.h"

#include <numeric>

namespace mlir::tessera::spmd::detail {

/// The product of the sizes of `axes`.
static int64_t productOf(ArrayRef<AxisRefAttr> axes, MeshAttr mesh) {
  int64_t size = 1;
  for (AxisRefAttr axis : axes)
    size *= axis.getSize(mesh);
  return size;
}

//===----------------------------------------------------------------------===//
// Choosing the factor sharding
//===----------------------------------------------------------------------===//

bool isPaddingSafe(Operation *op) {
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    if (!linalgOp.hasOnlyProjectedPermutations())
      return false;
  } else if (!op->hasTrait<OpTrait::Elementwise>() &&
             !isa<tensor::ExtractSliceOp, tensor::InsertSliceOp, tensor::PadOp,
                  tensor::ConcatOp, tensor::CollapseShapeOp,
                  tensor::ExpandShapeOp>(op)) {
    return false;
  }
  // An op that may trap on some operands (an integer division by a value
  // that could be a padding zero) is not speculatable.
  WalkResult traps = op->walk([](Operation *nested) {
    auto speculation = dyn_cast<ConditionallySpeculatable>(nested);
    if (speculation &&
        speculation.getSpeculatability() == Speculation::NotSpeculatable)
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !traps.wasInterrupted();
}

llvm::BitVector getPaddableFactors(OpShardingRuleAttr rule) {
  llvm::BitVector paddable(rule.getNumFactors());
  paddable.set();
  // A factor of size 1 gains nothing from padding (and one that only an
  // operand has, as in a reshape of unit dimensions, would be dropped).
  for (int64_t f = 0; f < rule.getNumFactors(); ++f)
    if (ShapedType::isDynamic(rule.getFactorSize(f)) ||
        rule.getFactorSize(f) == 1)
      paddable.reset(f);
  for (int64_t t = 0; t < rule.getNumTensors(); ++t)
    for (DimMappingAttr dim : rule.getTensorMapping(t).getDimMappings()) {
      int64_t large = 0;
      for (int64_t f : dim.getFactorIndices())
        if (rule.getFactorSize(f) != 1)
          ++large;
      if (large > 1)
        for (int64_t f : dim.getFactorIndices())
          paddable.reset(f);
    }
  return paddable;
}

SmallVector<SmallVector<AxisRefAttr>>
chooseFactorAxes(OpShardingRuleAttr rule, const ShardingProjection &projection,
                 ArrayRef<int64_t> tensorSizes,
                 const llvm::BitVector &shardable,
                 const llvm::BitVector &paddable, MeshAttr mesh) {
  int64_t numFactors = rule.getNumFactors();
  SmallVector<SmallVector<AxisRefAttr>> chosen(numFactors);
  SmallVector<const TensorFactorShardings *> tensors;
  for (const TensorFactorShardings &t : projection.getOperands())
    tensors.push_back(&t);
  for (const TensorFactorShardings &t : projection.getResults())
    tensors.push_back(&t);

  // The axes tensor `t` has for factor `f` (none when it overflows).
  auto axesOf = [&](int64_t t, int64_t f) -> ArrayRef<AxisRefAttr> {
    auto it = tensors[t]->factorIndexToSharding.find(f);
    if (it == tensors[t]->factorIndexToSharding.end() ||
        !it->second.overflowAxes.empty())
      return {};
    return it->second.axisRefs;
  };

  // A candidate for `factor` cut where it conflicts with the axes of the
  // other factors or stops dividing the factor (unless it may be padded).
  auto truncate = [&](ArrayRef<AxisRefAttr> axes, int64_t factor) {
    SmallVector<AxisRefAttr> used;
    for (int64_t g = 0; g < numFactors; ++g)
      if (g != factor)
        llvm::append_range(used, chosen[g]);
    int64_t factorSize = rule.getFactorSize(factor);
    SmallVector<AxisRefAttr> result;
    int64_t product = 1;
    for (AxisRefAttr axis : axes) {
      std::optional<AxisRefAttr> free =
          getPrefixWithoutOverlap(axis, used, mesh);
      if (!free)
        break;
      int64_t size = free->getSize(mesh);
      if (!paddable.test(factor) && (ShapedType::isDynamic(factorSize) ||
                                     factorSize % (product * size) != 0)) {
        // The largest major part of the axis that still divides.
        if (ShapedType::isDynamic(factorSize) || factorSize % product != 0)
          break;
        int64_t gcd = std::gcd(factorSize / product, size);
        if (gcd > 1)
          result.push_back(AxisRefAttr::get(free->getContext(), free->getName(),
                                            free->getPreSize(), gcd));
        break;
      }
      product *= size;
      result.push_back(*free);
      if (*free != axis)
        break;
    }
    return result;
  };
  // Shardy's precedence of factor types when weights tie.
  auto precedence = [&](int64_t f) {
    switch (rule.getFactorType(f)) {
    case FactorType::PassThrough:
      return 3;
    case FactorType::Reduction:
      return 2;
    case FactorType::Permutation:
      return 1;
    case FactorType::NeedReplication:
      return 0;
    }
    return 0;
  };

  // A factor that follows another in some tensor dimension waits until that
  // one is fully sharded (otherwise the dimension's layout would be
  // strided), as in Shardy.
  SmallVector<SmallVector<int64_t>> before(numFactors);
  for (int64_t t = 0; t < rule.getNumTensors(); ++t)
    for (DimMappingAttr dim : rule.getTensorMapping(t).getDimMappings()) {
      ArrayRef<int64_t> factors = dim.getFactorIndices();
      for (size_t i = 1; i < factors.size(); ++i)
        before[factors[i]].push_back(factors[i - 1]);
    }
  auto isReady = [&](int64_t f) {
    return llvm::all_of(before[f], [&](int64_t g) {
      return productOf(chosen[g], mesh) >= rule.getFactorSize(g);
    });
  };

  // A factor that needs replication may still take axes here; they move
  // to the batching factors below (as Shardy does).
  auto distributable = [&](int64_t f) {
    return rule.isNeedReplication(f) && !rule.isBlocked(f);
  };

  // Greedy, as Shardy: the best candidate (a factor and the axes one of its
  // tensors has for it) is taken, or extends what its factor already has
  // (the factor's axes so far a strict prefix of it). Best means: the
  // heaviest (the total size of the tensors whose axes for the factor start
  // with it), then the factor type's precedence, then the most devices
  // added, then the higher factor index, then the longer list.
  while (true) {
    int64_t bestFactor = -1;
    std::tuple<int64_t, int, int64_t, int64_t, size_t> bestKey;
    SmallVector<AxisRefAttr> bestAxes;
    for (int64_t f = 0; f < numFactors; ++f) {
      if ((!shardable.test(f) && !distributable(f)) || !isReady(f))
        continue;
      SmallVector<int64_t> owners = rule.getTensorsWithFactor(f);
      for (int64_t source : owners) {
        SmallVector<AxisRefAttr> candidate = truncate(axesOf(source, f), f);
        if (candidate.empty() || isAxisListPrefixOf(chosen[f], candidate) !=
                                     PrefixStatus::StrictPrefix)
          continue;
        int64_t weight = 0;
        for (int64_t t : owners)
          if (isAxisListPrefixOf(candidate, axesOf(t, f)) !=
              PrefixStatus::NotAPrefix)
            weight += tensorSizes[t];
        auto key = std::make_tuple(weight, precedence(f),
                                   productOf(candidate, mesh) /
                                       productOf(chosen[f], mesh),
                                   f, candidate.size());
        if (bestFactor < 0 || key > bestKey) {
          bestFactor = f;
          bestKey = key;
          bestAxes = candidate;
        }
      }
    }
    if (bestFactor < 0)
      break;
    chosen[bestFactor] = bestAxes;
  }

  // The axes a factor that needs replication took move, in order, to the
  // batching factors (pass-through factors of every non-scalar tensor) that
  // still have room for them, if that factor is in every non-scalar tensor
  // too; otherwise they are dropped.
  auto inEveryTensor = [&](int64_t f) {
    for (int64_t t = 0; t < rule.getNumTensors(); ++t) {
      TensorMappingAttr mapping = rule.getTensorMapping(t);
      if (!mapping.getDimMappings().empty() && !mapping.containsFactor(f))
        return false;
    }
    return true;
  };
  for (int64_t f = 0; f < numFactors; ++f) {
    if (!rule.isNeedReplication(f) || chosen[f].empty())
      continue;
    SmallVector<AxisRefAttr> axes = std::move(chosen[f]);
    chosen[f].clear();
    if (!inEveryTensor(f))
      continue;
    ArrayRef<AxisRefAttr> left = axes;
    for (int64_t g = 0; g < numFactors && !left.empty(); ++g) {
      if (!rule.isPassThrough(g) || !shardable.test(g) || !inEveryTensor(g))
        continue;
      int64_t size = rule.getFactorSize(g);
      int64_t sharded = productOf(chosen[g], mesh);
      if (size <= 0 || ShapedType::isDynamic(size) || size % sharded != 0)
        continue;
      int64_t capacity = size / sharded;
      while (!left.empty()) {
        int64_t axisSize = left.front().getSize(mesh);
        if (capacity % axisSize != 0)
          break;
        appendAxisOrMerge(chosen[g], left.front(), mesh);
        capacity /= axisSize;
        left = left.drop_front();
      }
    }
  }

  // Every tensor's sharding must stay expressible: in a dimension made of
  // several factors, the factors after one that is only partly sharded
  // stay unsharded.
  bool changed = true;
  while (changed) {
    changed = false;
    for (int64_t t = 0; t < rule.getNumTensors(); ++t) {
      for (DimMappingAttr dim : rule.getTensorMapping(t).getDimMappings()) {
        bool partial = false;
        for (int64_t f : dim.getFactorIndices()) {
          if (partial && !chosen[f].empty()) {
            chosen[f].clear();
            changed = true;
          }
          if (productOf(chosen[f], mesh) != rule.getFactorSize(f))
            partial = true;
        }
      }
    }
  }
  return chosen;
}

//===----------------------------------------------------------------------===//
// Windowed ops
//===----------------------------------------------------------------------===//

/// A term `c * dN` (c >= 1) of an index expression: the loop N and c.
static std::optional<std::pair<unsigned, int64_t>>
getScaledLoop(AffineExpr expr) {
  if (auto dim = dyn_cast<AffineDimExpr>(expr))
    return std::make_pair(dim.getPosition(), int64_t(1));
  auto mul = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!mul || mul.getKind() != AffineExprKind::Mul)
    return std::nullopt;
  auto dim = dyn_cast<AffineDimExpr>(mul.getLHS());
  auto factor = dyn_cast<AffineConstantExpr>(mul.getRHS());
  if (!dim || !factor || factor.getValue() < 1)
    return std::nullopt;
  return std::make_pair(dim.getPosition(), factor.getValue());
}

SmallVector<WindowedDim> getWindowedDims(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics())
    return {};
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  // The loops some init reads (directly; anything else but a constant is
  // not a windowed op).
  llvm::SmallBitVector inInit(op.getNumLoops());
  SmallVector<AffineMap> initMaps;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    AffineMap map = op.getMatchingIndexingMap(&init);
    initMaps.push_back(map);
    for (AffineExpr expr : map.getResults()) {
      if (auto dim = dyn_cast<AffineDimExpr>(expr))
        inInit.set(dim.getPosition());
      else if (!isa<AffineConstantExpr>(expr))
        return {};
    }
  }
  SmallVector<WindowedDim> windowed;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    for (auto [d, expr] : llvm::enumerate(map.getResults())) {
      if (isa<AffineDimExpr, AffineConstantExpr>(expr))
        continue;
      auto add = dyn_cast<AffineBinaryOpExpr>(expr);
      if (!add || add.getKind() != AffineExprKind::Add)
        return {};
      auto out = getScaledLoop(add.getLHS());
      auto window = getScaledLoop(add.getRHS());
      if (!out || !window)
        return {};
      if (iterators[out->first] != utils::IteratorType::parallel)
        std::swap(out, window);
      if (iterators[out->first] != utils::IteratorType::parallel ||
          iterators[window->first] != utils::IteratorType::reduction ||
          inInit.test(window->first))
        return {};
      for (AffineMap initMap : initMaps)
        if (!llvm::is_contained(initMap.getResults(),
                                getAffineDimExpr(out->first, op.getContext())))
          return {};
      windowed.push_back(
          WindowedDim{input->getOperandNumber(), static_cast<int64_t>(d),
                      out->first, window->first, out->second, window->second});
    }
  }
  return windowed;
}

/// The padded dimensions of `pad` under `rule` (the tensor model's: a
/// factor per dimension), when its amounts are static and its padding value
/// constant.
static SmallVector<WindowedDim> getPadHaloDims(tensor::PadOp pad,
                                               OpShardingRuleAttr rule) {
  int64_t rank = pad.getResultType().getRank();
  if (rule.getNumFactors() != rank || !pad.getLow().empty() ||
      !pad.getHigh().empty() || !pad.getConstantPaddingValue())
    return {};
  SmallVector<WindowedDim> dims;
  ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
  for (int64_t d = 0; d < rank; ++d) {
    if (low[d] == 0 && high[d] == 0)
      continue;
    ArrayRef<int64_t> in =
        rule.getOperandMapping(0).getDimMappings()[d].getFactorIndices();
    ArrayRef<int64_t> out =
        rule.getResultMapping(0).getDimMappings()[d].getFactorIndices();
    if (!rule.isPermutation(d) || in.size() != 1 || in[0] != d ||
        out.size() != 1 || out[0] != d)
      return {};
    dims.push_back(
        WindowedDim{0, d, static_cast<unsigned>(d), kNoWindowLoop, 1, 1});
  }
  return dims;
}

SmallVector<WindowedDim> getHaloDims(Operation *op, OpShardingRuleAttr rule) {
  bool permutation = false;
  for (int64_t f = 0; f < rule.getNumFactors(); ++f)
    permutation |= rule.isPermutation(f);
  if (!permutation)
    return {};
  if (auto pad = dyn_cast<tensor::PadOp>(op))
    return getPadHaloDims(pad, rule);
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || op->getNumResults() == 0)
    return {};
  // The rule must be the linalg model's, a factor per loop (not one
  // written by hand).
  SmallVector<int64_t> loopSizes = linalgOp.getStaticLoopRanges();
  if (rule.getNumFactors() != static_cast<int64_t>(loopSizes.size()))
    return {};
  for (auto [f, size] : llvm::enumerate(loopSizes))
    if (rule.getFactorSize(f) != size)
      return {};
  SmallVector<WindowedDim> windowed = getWindowedDims(linalgOp);
  for (const WindowedDim &w : windowed) {
    ArrayRef<int64_t> factors = rule.getOperandMapping(w.operand)
                                    .getDimMappings()[w.dim]
                                    .getFactorIndices();
    if (!rule.isPermutation(w.outLoop) || factors.size() != 1 ||
        factors[0] != w.outLoop)
      return {};
  }
  return windowed;
}

TensorShardingAttr buildSharding(MLIRContext *ctx, TensorMappingAttr mapping,
                                 ArrayRef<SmallVector<AxisRefAttr>> chosen,
                                 Attribute meshRef, MeshAttr mesh) {
  SmallVector<DimensionShardingAttr> dims;
  for (DimMappingAttr dim : mapping.getDimMappings()) {
    SmallVector<AxisRefAttr> axes;
    for (int64_t f : dim.getFactorIndices())
      for (AxisRefAttr axis : chosen[f])
        appendAxisOrMerge(axes, axis, mesh);
    dims.push_back(DimensionShardingAttr::get(ctx, axes, /*isClosed=*/true));
  }
  return TensorShardingAttr::get(ctx, meshRef, dims, {}, {}, ReductionKind::Sum,
                                 {});
}

} // namespace mlir::tessera::spmd::detail
