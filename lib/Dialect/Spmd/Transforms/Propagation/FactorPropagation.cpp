//===- FactorPropagation.cpp - shardings projected onto factors -----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/Transforms/FactorPropagation.h"

#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"

#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"

#include <numeric>
#include <tuple>

using namespace mlir;
using namespace mlir::tessera::spmd;

//===----------------------------------------------------------------------===//
// Axis-list helpers
//===----------------------------------------------------------------------===//

PrefixStatus
mlir::tessera::spmd::isAxisListPrefixOf(ArrayRef<AxisRefAttr> first,
                                        ArrayRef<AxisRefAttr> second) {
  if (first.empty())
    return second.empty() ? PrefixStatus::Equal : PrefixStatus::StrictPrefix;
  if (first.size() > second.size())
    return PrefixStatus::NotAPrefix;
  size_t last = first.size() - 1;
  for (size_t i = 0; i < last; ++i)
    if (first[i] != second[i])
      return PrefixStatus::NotAPrefix;
  if (first.size() == second.size() && first[last] == second[last])
    return PrefixStatus::Equal;
  return first[last].prefixOf(second[last]) ? PrefixStatus::StrictPrefix
                                            : PrefixStatus::NotAPrefix;
}

std::optional<AxisRefAttr> mlir::tessera::spmd::getPrefixWithoutOverlap(
    AxisRefAttr ref, ArrayRef<AxisRefAttr> others, MeshAttr mesh) {
  AxisRefAttr result = ref;
  for (AxisRefAttr other : others) {
    if (!result.canCoexist(other))
      return std::nullopt;
    if (!result.overlaps(other))
      continue;
    // Only the part major to `other` survives.
    int64_t pre = result.getPreSize(), otherPre = other.getPreSize();
    if (otherPre <= pre)
      return std::nullopt;
    result =
        AxisRefAttr::get(ref.getContext(), ref.getName(), pre, otherPre / pre);
  }
  (void)mesh;
  return result;
}

namespace {

/// The size of `ref` and where it starts, while a dimension's axes are handed
/// out to factors (a full axis may be split into consecutive sub-axes).
struct AxisPiece {
  StringRef name;
  int64_t preSize;
  int64_t size;
  /// Whether the piece is the full axis (not split, not a sub-axis).
  bool isFull;

  AxisRefAttr toRef(MLIRContext *ctx) const {
    if (isFull)
      return AxisRefAttr::get(ctx, name);
    return AxisRefAttr::get(ctx, name, preSize, size);
  }
};

std::optional<AxisPiece> pieceAt(ArrayRef<AxisRefAttr> axes, size_t index,
                                 MeshAttr mesh) {
  if (index >= axes.size())
    return std::nullopt;
  AxisRefAttr ref = axes[index];
  return AxisPiece{ref.getName(), ref.getPreSize(), ref.getSize(mesh),
                   !ref.getSubAxisInfo()};
}

/// Appends `piece` and every axis after `index` to `out`, merging
/// consecutive sub-axes.
template <typename VectorT>
void appendRemaining(VectorT &out, std::optional<AxisPiece> piece,
                     ArrayRef<AxisRefAttr> axes, size_t index, MeshAttr mesh) {
  MLIRContext *ctx = mesh.getContext();
  while (piece) {
    appendAxisOrMerge(out, piece->toRef(ctx), mesh);
    piece = pieceAt(axes, ++index, mesh);
  }
}

/// Appends `axes` to a dimension's axes (merging the first with the last
/// one there) and returns their total size.
int64_t addAxesToDim(SmallVectorImpl<AxisRefAttr> &dim,
                     ArrayRef<AxisRefAttr> axes, MeshAttr mesh) {
  int64_t total = 1;
  for (auto [i, ref] : llvm::enumerate(axes)) {
    total *= ref.getSize(mesh);
    if (i == 0)
      appendAxisOrMerge(dim, ref, mesh);
    else
      dim.push_back(ref);
  }
  return total;
}

} // namespace

//===----------------------------------------------------------------------===//
// Projection
//===----------------------------------------------------------------------===//

bool TensorFactorShardings::expandShardingAxes(int64_t factorIndex,
                                               ArrayRef<AxisRefAttr> newAxes) {
  auto it = factorIndexToSharding.find(factorIndex);
  if (it == factorIndexToSharding.end())
    return false;
  SmallVectorImpl<AxisRefAttr> &oldAxes = it->second.axisRefs;
  if (!isStrictPrefix(oldAxes, newAxes))
    return false;
  oldAxes.assign(newAxes.begin(), newAxes.end());
  return true;
}

TensorShardingAttr TensorFactorShardings::createTensorSharding(
    TensorMappingAttr mapping, ArrayRef<int64_t> factorSizes,
    Attribute meshOrRef, MeshAttr mesh, TensorShardingAttr old) const {
  MLIRContext *ctx = mesh.getContext();
  SmallVector<DimensionShardingAttr> dims;
  for (DimMappingAttr dimMapping : mapping.getDimMappings()) {
    bool isClosed = false;
    SmallVector<AxisRefAttr> axes;
    for (int64_t factor : dimMapping.getFactorIndices()) {
      auto it = factorIndexToSharding.find(factor);
      if (it == factorIndexToSharding.end())
        break;
      const FactorSharding &fs = it->second;
      isClosed |= fs.isClosed;
      int64_t shardedSize = addAxesToDim(axes, fs.axisRefs, mesh);
      if (!fs.overflowAxes.empty()) {
        addAxesToDim(axes, fs.overflowAxes, mesh);
        break;
      }
      // A factor that is not fully sharded hides the factors minor to it
      // (their axes would need a strided view).
      int64_t size = factorSizes[factor];
      if (ShapedType::isDynamic(size) || shardedSize < size)
        break;
    }
    dims.push_back(DimensionShardingAttr::get(ctx, axes, isClosed));
  }
  return TensorShardingAttr::get(
      ctx, meshOrRef, dims, replicatedAxes, unreducedAxes,
      old ? old.getUnreducedKind() : ReductionKind::Sum,
      old ? old.getReducedAxes() : ArrayRef<AxisRefAttr>());
}

TensorFactorShardings ShardingProjection::project(TensorShardingAttr sharding,
                                                  TensorMappingAttr mapping,
                                                  ArrayRef<int64_t> factorSizes,
                                                  MeshAttr mesh) {
  MLIRContext *ctx = mesh.getContext();
  TensorFactorShardings result;
  for (auto [dim, dimMapping] : llvm::enumerate(mapping.getDimMappings())) {
    ArrayRef<AxisRefAttr> axes;
    bool isDimClosed = false;
    if (sharding && static_cast<int64_t>(dim) < sharding.getRank()) {
      axes = sharding.getDimSharding(dim).getAxes();
      isDimClosed = sharding.getDimSharding(dim).getIsClosed();
    }
    size_t axisIndex = 0;
    std::optional<AxisPiece> piece = pieceAt(axes, axisIndex, mesh);
    bool hasOverflow = false;
    ArrayRef<int64_t> factors = dimMapping.getFactorIndices();
    for (auto [position, factor] : llvm::enumerate(factors)) {
      FactorSharding &fs = result.factorIndexToSharding[factor];
      fs.isMinorMost = position + 1 == factors.size();
      if (hasOverflow) {
        // Nothing can be added after axes that did not fit.
        fs.isClosed = true;
        break;
      }
      fs.isClosed = isDimClosed;
      if (fs.isMinorMost) {
        appendRemaining(fs.axisRefs, piece, axes, axisIndex, mesh);
        break;
      }
      int64_t remaining = factorSizes[factor];
      if (ShapedType::isDynamic(remaining))
        remaining = 1; // divisibility of a dynamic factor is not known
      int64_t gcd = 1;
      while (piece && (piece->size == 1 ||
                       (gcd = std::gcd(remaining, piece->size)) > 1)) {
        if (piece->size > gcd && piece->size != 1) {
          // Only the major `gcd` part of the piece fits the factor.
          fs.axisRefs.push_back(
              AxisRefAttr::get(ctx, piece->name, piece->preSize, gcd));
          piece->preSize *= gcd;
          piece->size /= gcd;
          piece->isFull = false;
          remaining /= gcd;
        } else {
          fs.axisRefs.push_back(piece->toRef(ctx));
          remaining /= piece->size;
          piece = pieceAt(axes, ++axisIndex, mesh);
        }
      }
      if (remaining > 1 && piece) {
        hasOverflow = true;
        appendRemaining(fs.overflowAxes, piece, axes, axisIndex, mesh);
      } else if (ShapedType::isDynamic(factorSizes[factor]) && piece) {
        hasOverflow = true;
        appendRemaining(fs.overflowAxes, piece, axes, axisIndex, mesh);
      }
    }
  }
  if (sharding) {
    llvm::append_range(result.replicatedAxes, sharding.getReplicatedAxes());
    llvm::append_range(result.unreducedAxes, sharding.getUnreducedAxes());
  }
  return result;
}

ShardingProjection
ShardingProjection::build(ArrayRef<TensorShardingAttr> operandShardings,
                          ArrayRef<TensorShardingAttr> resultShardings,
                          OpShardingRuleAttr rule, MeshAttr mesh) {
  ShardingProjection projection;
  projection.operands.reserve(operandShardings.size());
  projection.results.reserve(resultShardings.size());
  for (auto [sharding, mapping] :
       llvm::zip_equal(operandShardings, rule.getOperandMappings()))
    projection.operands.push_back(
        project(sharding, mapping, rule.getFactorSizes(), mesh));
  for (auto [sharding, mapping] :
       llvm::zip_equal(resultShardings, rule.getResultMappings()))
    projection.results.push_back(
        project(sharding, mapping, rule.getFactorSizes(), mesh));
  return projection;
}

bool ShardingProjection::operator==(const ShardingProjection &other) const {
  auto equal = [](ArrayRef<TensorFactorShardings> a,
                  ArrayRef<TensorFactorShardings> b) {
    if (a.size() != b.size())
      return false;
    for (auto [x, y] : llvm::zip_equal(a, b)) {
      if (x.replicatedAxes != y.replicatedAxes ||
          x.unreducedAxes != y.unreducedAxes ||
          x.factorIndexToSharding.size() != y.factorIndexToSharding.size())
        return false;
      for (const auto &[factor, fs] : x.factorIndexToSharding) {
        auto it = y.factorIndexToSharding.find(factor);
        if (it == y.factorIndexToSharding.end() || !(it->second == fs))
          return false;
      }
    }
    return true;
  };
  return equal(operands, other.operands) && equal(results, other.results);
}

//===----------------------------------------------------------------------===//
// Basic strategy
//===----------------------------------------------------------------------===//

namespace {

/// Merges `newAxes` into the compatible axes `oldAxes`: the common major
/// prefix, extended by the longer list while `canExpand`. Returns the result
/// and whether later lists may still extend it.
std::pair<SmallVector<AxisRefAttr>, bool>
mergeCompatible(ArrayRef<AxisRefAttr> oldAxes, ArrayRef<AxisRefAttr> newAxes,
                bool canExpand) {
  SmallVector<AxisRefAttr> result;
  while (!oldAxes.empty() && !newAxes.empty()) {
    AxisRefAttr oldRef = oldAxes.front(), newRef = newAxes.front();
    oldAxes = oldAxes.drop_front();
    newAxes = newAxes.drop_front();
    if (oldRef.getName() != newRef.getName())
      return {result, false};
    if (oldRef.getSubAxisInfo() == newRef.getSubAxisInfo()) {
      result.push_back(newRef);
      continue;
    }
    if (newRef.prefixOf(oldRef)) {
      // ["a":(1)4, ...] and ["a":(1)2]: the longer sub-axis wins if nothing
      // follows the shorter one (anything after it would conflict).
      if (!newAxes.empty()) {
        result.push_back(newRef);
        return {result, false};
      }
      result.push_back(oldRef);
    } else if (oldRef.prefixOf(newRef)) {
      if (!canExpand || !oldAxes.empty()) {
        result.push_back(oldRef);
        return {result, false};
      }
      result.push_back(newRef);
    } else {
      return {result, false};
    }
  }
  llvm::append_range(result, oldAxes);
  if (canExpand)
    llvm::append_range(result, newAxes);
  return {result, canExpand};
}

/// Cuts `axes` at the first axis that is not an Auto axis of `mesh`:
/// propagation never moves Explicit or Manual axes.
void truncateAtNonAutoAxis(SmallVector<AxisRefAttr> &axes, MeshAttr mesh) {
  for (auto [i, ref] : llvm::enumerate(axes)) {
    if (!mesh.hasAxis(ref.getName()) ||
        mesh.getAxisType(ref.getName()) != AxisType::Auto) {
      axes.truncate(i);
      return;
    }
  }
}

} // namespace

SmallVector<AxisRefAttr> BasicFactorPropagation::getCompatibleMajorAxes(
    const ShardingProjection &projection, int64_t factorIndex,
    PropagationDirection direction) const {
  if (direction == PropagationDirection::NONE)
    return {};
  ArrayRef<TensorFactorShardings> first = projection.getOperands();
  ArrayRef<TensorFactorShardings> second = projection.getResults();
  if (direction == PropagationDirection::BACKWARD)
    std::swap(first, second);
  SmallVector<AxisRefAttr> axes;
  bool canExpand = true;
  auto update = [&](ArrayRef<TensorFactorShardings> tensors) {
    for (const TensorFactorShardings &tensor : tensors) {
      auto it = tensor.factorIndexToSharding.find(factorIndex);
      if (it != tensor.factorIndexToSharding.end())
        std::tie(axes, canExpand) =
            mergeCompatible(axes, it->second.axisRefs, canExpand);
    }
  };
  update(first);
  // In one direction only, the receiving side can cut the list but not
  // extend it.
  if (direction != PropagationDirection::BOTH)
    canExpand = false;
  update(second);
  return axes;
}

std::optional<AxisRefAttr>
BasicFactorPropagation::prefixNoConflictsAcrossFactors(
    AxisRefAttr ref, const TensorFactorShardings &tensor,
    int64_t factorIndex) const {
  std::optional<AxisRefAttr> result = ref;
  for (const auto &[other, fs] : tensor.factorIndexToSharding) {
    if (other == factorIndex)
      continue;
    result = getPrefixWithoutOverlap(*result, fs.overflowAxes, MeshAttr());
    if (!result)
      return std::nullopt;
    result = getPrefixWithoutOverlap(*result, fs.axisRefs, MeshAttr());
    if (!result)
      return std::nullopt;
  }
  return result;
}

std::optional<AxisRefAttr>
BasicFactorPropagation::prefixNoConflictsWithinFactor(
    AxisRefAttr ref, const TensorFactorShardings &tensor,
    const FactorSharding &factor, int64_t prevShardedSize, int64_t factorSize,
    MeshAttr mesh) const {
  std::optional<AxisRefAttr> result =
      getPrefixWithoutOverlap(ref, tensor.replicatedAxes, mesh);
  if (!result)
    return std::nullopt;
  result = getPrefixWithoutOverlap(*result, tensor.unreducedAxes, mesh);
  if (!result)
    return std::nullopt;
  ArrayRef<AxisRefAttr> factorAxes = factor.axisRefs;
  if (llvm::any_of(factorAxes,
                   [&](AxisRefAttr axis) { return axis.contains(*result); }))
    return result; // already there
  // Adding it needs an open factor without overflow, and a non-minor factor
  // must still be divided by the sharding.
  if (!factor.isClosed && factor.overflowAxes.empty()) {
    if (factor.isMinorMost)
      return result;
    if (!ShapedType::isDynamic(factorSize) &&
        factorSize % prevShardedSize == 0) {
      int64_t axisSize = result->getSize(mesh);
      int64_t gcd = std::gcd(factorSize / prevShardedSize, axisSize);
      if (gcd == axisSize)
        return result;
      if (gcd != 1)
        return AxisRefAttr::get(result->getContext(), result->getName(),
                                result->getPreSize(), gcd);
    }
  }
  // The factor cannot grow; its last axis survives if it is a prefix.
  if (!factorAxes.empty() && factorAxes.back().prefixOf(*result))
    return factorAxes.back();
  return std::nullopt;
}

void BasicFactorPropagation::truncateByConflicts(
    SmallVector<AxisRefAttr> &axes,
    llvm::function_ref<std::optional<AxisRefAttr>(AxisRefAttr, int64_t)>
        removeConflicts,
    MeshAttr mesh, bool conservative) const {
  int64_t prevShardedSize = 1;
  for (size_t i = 0; i < axes.size(); ++i) {
    std::optional<AxisRefAttr> kept = removeConflicts(axes[i], prevShardedSize);
    if (!kept || (conservative && kept->getSubAxisInfo())) {
      axes.truncate(i);
      return;
    }
    if (*kept != axes[i]) {
      axes[i] = *kept;
      axes.truncate(i + 1);
      return;
    }
    prevShardedSize *= kept->getSize(mesh);
  }
}

SmallVector<AxisRefAttr> BasicFactorPropagation::getCompatibleMajorShardingAxes(
    const ShardingProjection &projection, int64_t factorIndex,
    PropagationDirection direction, int64_t factorSize, MeshAttr mesh,
    bool conservative) const {
  SmallVector<AxisRefAttr> axes =
      getCompatibleMajorAxes(projection, factorIndex, direction);
  truncateAtNonAutoAxis(axes, mesh);
  truncateByConflicts(
      axes,
      [&](AxisRefAttr ref,
          int64_t prevShardedSize) -> std::optional<AxisRefAttr> {
        std::optional<AxisRefAttr> result = ref;
        for (const TensorFactorShardings &tensor :
             llvm::concat<const TensorFactorShardings>(
                 projection.getOperands(), projection.getResults())) {
          result = prefixNoConflictsAcrossFactors(*result, tensor, factorIndex);
          if (!result)
            return std::nullopt;
          // A tensor without the factor only conflicts through its other
          // factors.
          auto it = tensor.factorIndexToSharding.find(factorIndex);
          if (it == tensor.factorIndexToSharding.end())
            continue;
          result = prefixNoConflictsWithinFactor(
              *result, tensor, it->second, prevShardedSize, factorSize, mesh);
          if (!result)
            return std::nullopt;
        }
        return result;
      },
      mesh, conservative);
  return axes;
}

UpdateTensorShardings BasicFactorPropagation::propagateFactorShardings(
    ShardingProjection &projection, DirectionAlongFactor directionAlongFactor,
    ArrayRef<int64_t> factorSizes, MeshAttr mesh, bool conservative,
    bool isElementwise) const {
  (void)isElementwise;
  UpdateTensorShardings result(projection.getNumOperands(),
                               projection.getNumResults());
  for (auto [factor, size] : llvm::enumerate(factorSizes)) {
    SmallVector<AxisRefAttr> axes = getCompatibleMajorShardingAxes(
        projection, factor, directionAlongFactor(factor), size, mesh,
        conservative);
    for (auto [i, tensor] : llvm::enumerate(projection.getOperands()))
      if (tensor.expandShardingAxes(factor, axes))
        result.updateOperands.set(i);
    for (auto [i, tensor] : llvm::enumerate(projection.getResults()))
      if (tensor.expandShardingAxes(factor, axes))
        result.updateResults.set(i);
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Aggressive strategy
//===----------------------------------------------------------------------===//

UpdateTensorShardings AggressiveFactorPropagation::propagateFactorShardings(
    ShardingProjection &projection, DirectionAlongFactor directionAlongFactor,
    ArrayRef<int64_t> factorSizes, MeshAttr mesh, bool conservative,
    bool isElementwise) const {
  UpdateTensorShardings result(projection.getNumOperands(),
                               projection.getNumResults());
  int64_t numFactors = factorSizes.size();
  SmallVector<SmallVector<AxisRefAttr>> axesPerFactor;
  bool anyAxes = false;
  for (int64_t f = 0; f < numFactors; ++f) {
    SmallVector<AxisRefAttr> &axes = axesPerFactor.emplace_back(
        getCompatibleMajorAxes(projection, f, directionAlongFactor(f)));
    truncateAtNonAutoAxis(axes, mesh);
    anyAxes |= !axes.empty();
  }
  if (!anyAxes)
    return result;

  // The source of a factor's axes: the largest tensor that already has them.
  struct Source {
    int64_t index = -1;
    int64_t size = -1;
  };
  SmallVector<Source> sources(numFactors);
  for (auto [t, tensor] :
       llvm::enumerate(llvm::concat<const TensorFactorShardings>(
           projection.getOperands(), projection.getResults()))) {
    int64_t tensorSize = 1;
    for (const auto &[f, fs] : tensor.factorIndexToSharding)
      if (!ShapedType::isDynamic(factorSizes[f]))
        tensorSize *= factorSizes[f];
    for (const auto &[f, fs] : tensor.factorIndexToSharding) {
      bool isSource = !axesPerFactor[f].empty() &&
                      isAxisListPrefixOf(axesPerFactor[f], fs.axisRefs) !=
                          PrefixStatus::NotAPrefix;
      if (isSource && tensorSize > sources[f].size)
        sources[f] = {static_cast<int64_t>(t), tensorSize};
    }
  }
  auto totalSize = [&](ArrayRef<AxisRefAttr> axes) {
    int64_t size = 1;
    for (AxisRefAttr ref : axes)
      size *= ref.getSize(mesh);
    return size;
  };
  SmallVector<int64_t> order =
      llvm::to_vector(llvm::seq<int64_t>(0, numFactors));
  llvm::sort(order, [&](int64_t i, int64_t j) {
    int64_t iSize = isElementwise ? totalSize(axesPerFactor[i]) : 0;
    int64_t jSize = isElementwise ? totalSize(axesPerFactor[j]) : 0;
    return std::make_tuple(-sources[i].size, -iSize, sources[i].index, i) <
           std::make_tuple(-sources[j].size, -jSize, sources[j].index, j);
  });

  // Each tensor takes, factor by factor in that order, the prefix it can.
  auto propagatedAxes = [&](const TensorFactorShardings &tensor,
                            int64_t f) -> SmallVector<AxisRefAttr> {
    auto it = tensor.factorIndexToSharding.find(f);
    if (it == tensor.factorIndexToSharding.end())
      return {};
    const FactorSharding &fs = it->second;
    SmallVector<AxisRefAttr> axes = axesPerFactor[f];
    truncateByConflicts(
        axes,
        [&](AxisRefAttr ref, int64_t prevShardedSize) {
          return prefixNoConflictsWithinFactor(ref, tensor, fs, prevShardedSize,
                                               factorSizes[f], mesh);
        },
        mesh, conservative);
    if (!isStrictPrefix(fs.axisRefs, axes))
      return {};
    truncateByConflicts(
        axes,
        [&](AxisRefAttr ref, int64_t) {
          return prefixNoConflictsAcrossFactors(ref, tensor, f);
        },
        mesh, conservative);
    return axes;
  };
  for (auto [t, tensor] : llvm::enumerate(projection.getResults())) {
    for (int64_t f : order) {
      SmallVector<AxisRefAttr> axes = propagatedAxes(tensor, f);
      if (!axes.empty() && tensor.expandShardingAxes(f, axes))
        result.updateResults.set(t);
    }
  }
  for (auto [t, tensor] : llvm::enumerate(projection.getOperands())) {
    for (int64_t f : order) {
      SmallVector<AxisRefAttr> axes = propagatedAxes(tensor, f);
      if (axes.empty())
        continue;
      // Sideways through an elementwise op's operands: no further than a
      // result already got (a replicated result keeps its operands as is).
      if (isElementwise) {
        for (const TensorFactorShardings &res : projection.getResults()) {
          auto it = res.factorIndexToSharding.find(f);
          if (it != res.factorIndexToSharding.end() &&
              isStrictPrefix(it->second.axisRefs, axes))
            axes.assign(it->second.axisRefs.begin(), it->second.axisRefs.end());
        }
      }
      if (tensor.expandShardingAxes(f, axes))
        result.updateOperands.set(t);
    }
  }
  return result;
}
