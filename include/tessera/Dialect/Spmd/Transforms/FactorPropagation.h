//===- FactorPropagation.h - shardings projected onto factors ----*- C++-*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The algebra under `spmd-propagate`, free of any pass state so that it can be
// tested alone: the shardings of an op's operands and results projected onto
// the factors of the op's sharding rule (ShardingProjection), and the two
// strategies that decide which axes each factor gets (basic and aggressive,
// as Shardy defines them).
//
// Projection. A dimension mapped to factors `[f1, ..., fn]` (major to minor)
// hands its axes to the factors in order: each non-minor factor takes axes
// until their product reaches the factor's size, splitting an axis into
// sub-axes where only part of it fits (the greatest common divisor); axes
// that do not divide the factor are the factor's *overflow*, and the factors
// after an overflow are closed. The minor-most factor takes whatever is left.
//
// Strategies. For each factor, the *compatible major axes* are the longest
// list the tensors that have the factor agree on (a common major prefix,
// extended by the longer list while nothing disagrees). That list is cut at
// the first axis that conflicts: an axis used by another factor of some
// tensor (or its overflow), an explicitly replicated or unreduced axis of a
// tensor that has the factor, a closed factor that does not have it yet, or
// an axis that does not divide the remaining size of a non-minor factor (the
// part that divides survives as a sub-axis). The basic strategy gives every
// tensor that list; the aggressive one cuts the list per tensor, so that a
// closed tensor or a conflict in one tensor no longer blocks the others, and
// resolves conflicts between factors that want the same axis by preferring
// the factor whose source tensor is larger (then the lower tensor index, then
// the lower factor index).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_TRANSFORMS_FACTORPROPAGATION_H
#define TESSERA_DIALECT_SPMD_TRANSFORMS_FACTORPROPAGATION_H

#include "tessera/Dialect/Spmd/IR/SpmdAttrs.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::tessera::spmd {

//===----------------------------------------------------------------------===//
// Directions
//===----------------------------------------------------------------------===//

// Directions are the dialect's `PropagationDirection` (NONE, FORWARD: from
// operands into results, BACKWARD: from results into operands, BOTH).

inline PropagationDirection unionOf(PropagationDirection a,
                                    PropagationDirection b) {
  return static_cast<PropagationDirection>(static_cast<uint32_t>(a) |
                                           static_cast<uint32_t>(b));
}
inline PropagationDirection intersectionOf(PropagationDirection a,
                                           PropagationDirection b) {
  return static_cast<PropagationDirection>(static_cast<uint32_t>(a) &
                                           static_cast<uint32_t>(b));
}

/// The direction allowed along each factor of an op.
using DirectionAlongFactor = llvm::function_ref<PropagationDirection(int64_t)>;

//===----------------------------------------------------------------------===//
// Axis-list helpers
//===----------------------------------------------------------------------===//

enum class PrefixStatus { NotAPrefix, StrictPrefix, Equal };

/// Whether `first` is a major prefix of `second`: all but its last ref equal,
/// its last ref a prefix of the corresponding one of `second` (so `["a":(1)2]`
/// is a strict prefix of `["a"]` when "a" has size 4, and `[]` of any
/// non-empty list).
PrefixStatus isAxisListPrefixOf(ArrayRef<AxisRefAttr> first,
                                ArrayRef<AxisRefAttr> second);

inline bool isStrictPrefix(ArrayRef<AxisRefAttr> first,
                           ArrayRef<AxisRefAttr> second) {
  return isAxisListPrefixOf(first, second) == PrefixStatus::StrictPrefix;
}

/// The major part of `ref` that overlaps none of `others`, or std::nullopt.
std::optional<AxisRefAttr> getPrefixWithoutOverlap(AxisRefAttr ref,
                                                   ArrayRef<AxisRefAttr> others,
                                                   MeshAttr mesh);

//===----------------------------------------------------------------------===//
// Projection
//===----------------------------------------------------------------------===//

/// The sharding of one factor in one tensor.
struct FactorSharding {
  SmallVector<AxisRefAttr, 2> axisRefs;
  bool isClosed = false;
  /// The minor-most factor of its dimension (may take any number of axes).
  bool isMinorMost = false;
  /// Axes of the dimension that do not divide this (non-minor) factor.
  SmallVector<AxisRefAttr, 1> overflowAxes;

  bool operator==(const FactorSharding &other) const {
    return axisRefs == other.axisRefs && isClosed == other.isClosed &&
           isMinorMost == other.isMinorMost &&
           overflowAxes == other.overflowAxes;
  }
};

/// One tensor's sharding in terms of factors.
struct TensorFactorShardings {
  /// Every factor the tensor has, in the order its dimensions list them.
  llvm::SmallMapVector<int64_t, FactorSharding, 4> factorIndexToSharding;
  SmallVector<AxisRefAttr> replicatedAxes;
  SmallVector<AxisRefAttr> unreducedAxes;

  /// Replaces the axes of `factorIndex` with `newAxes` if the old ones are a
  /// strict prefix of them; returns whether it did.
  bool expandShardingAxes(int64_t factorIndex, ArrayRef<AxisRefAttr> newAxes);

  /// The sharding of the tensor: each dimension takes the axes of its
  /// factors major to minor (stopping after a factor that is not fully
  /// sharded or has overflow axes), closed if any of its factors is. The
  /// replicated and unreduced axes and the dims' priorities come from `old`
  /// (null: none).
  TensorShardingAttr createTensorSharding(TensorMappingAttr mapping,
                                          ArrayRef<int64_t> factorSizes,
                                          Attribute meshOrRef, MeshAttr mesh,
                                          TensorShardingAttr old) const;
};

/// The shardings of an op's operands and results projected onto the factors
/// of its rule.
class ShardingProjection {
public:
  ShardingProjection() = default;
  ShardingProjection(SmallVector<TensorFactorShardings, 2> operands,
                     SmallVector<TensorFactorShardings, 1> results)
      : operands(std::move(operands)), results(std::move(results)) {}

  /// Projects the shardings (null: no sharding, all dims open) onto the
  /// factors of `rule` over `mesh`.
  static ShardingProjection build(ArrayRef<TensorShardingAttr> operandShardings,
                                  ArrayRef<TensorShardingAttr> resultShardings,
                                  OpShardingRuleAttr rule, MeshAttr mesh);

  /// One tensor's projection (used by the two overloads above).
  static TensorFactorShardings project(TensorShardingAttr sharding,
                                       TensorMappingAttr mapping,
                                       ArrayRef<int64_t> factorSizes,
                                       MeshAttr mesh);

  ArrayRef<TensorFactorShardings> getOperands() const { return operands; }
  ArrayRef<TensorFactorShardings> getResults() const { return results; }
  MutableArrayRef<TensorFactorShardings> getOperands() { return operands; }
  MutableArrayRef<TensorFactorShardings> getResults() { return results; }
  int64_t getNumOperands() const { return operands.size(); }
  int64_t getNumResults() const { return results.size(); }

  bool operator==(const ShardingProjection &other) const;

private:
  SmallVector<TensorFactorShardings, 2> operands;
  SmallVector<TensorFactorShardings, 1> results;
};

/// Which operands and results a propagation step changed.
struct UpdateTensorShardings {
  llvm::BitVector updateOperands;
  llvm::BitVector updateResults;
  UpdateTensorShardings(int64_t numOperands, int64_t numResults)
      : updateOperands(numOperands), updateResults(numResults) {}
};

//===----------------------------------------------------------------------===//
// Strategies
//===----------------------------------------------------------------------===//

/// Decides the axes of every factor and expands the projection's tensors.
class FactorPropagation {
public:
  virtual ~FactorPropagation() = default;

  /// Propagates along every factor in the allowed direction and expands the
  /// open factors of `projection` in place. `conservative` stops at
  /// sub-axes. `isElementwise` enables the elementwise tie-break and
  /// sideways rule of the aggressive strategy. `mesh` may be null in tests:
  /// then sizes are not checked.
  virtual UpdateTensorShardings
  propagateFactorShardings(ShardingProjection &projection,
                           DirectionAlongFactor directionAlongFactor,
                           ArrayRef<int64_t> factorSizes, MeshAttr mesh,
                           bool conservative, bool isElementwise) const = 0;
};

/// The basic strategy: every tensor gets the same compatible axes.
class BasicFactorPropagation : public FactorPropagation {
public:
  UpdateTensorShardings propagateFactorShardings(
      ShardingProjection &projection, DirectionAlongFactor directionAlongFactor,
      ArrayRef<int64_t> factorSizes, MeshAttr mesh, bool conservative,
      bool isElementwise) const override;

  /// The compatible major axes of `factorIndex` before conflicts are
  /// removed: the tensors allowed by `direction` may extend the list, the
  /// others only cut it.
  SmallVector<AxisRefAttr>
  getCompatibleMajorAxes(const ShardingProjection &projection,
                         int64_t factorIndex,
                         PropagationDirection direction) const;

  /// The compatible major axes with every conflict removed (see above).
  SmallVector<AxisRefAttr> getCompatibleMajorShardingAxes(
      const ShardingProjection &projection, int64_t factorIndex,
      PropagationDirection direction, int64_t factorSize, MeshAttr mesh,
      bool conservative) const;

protected:
  /// The part of `ref` that overlaps no axis of another factor of `tensor`.
  std::optional<AxisRefAttr>
  prefixNoConflictsAcrossFactors(AxisRefAttr ref,
                                 const TensorFactorShardings &tensor,
                                 int64_t factorIndex) const;

  /// The part of `ref` that the factor may take in one tensor: no
  /// replicated or unreduced axis, already there or addable to an open
  /// factor without overflow, within the factor's size after
  /// `prevShardedSize`.
  std::optional<AxisRefAttr> prefixNoConflictsWithinFactor(
      AxisRefAttr ref, const TensorFactorShardings &tensor,
      const FactorSharding &factor, int64_t prevShardedSize, int64_t factorSize,
      MeshAttr mesh) const;

  /// Cuts `axes` at the first axis `removeConflicts` shortens or rejects.
  void truncateByConflicts(
      SmallVector<AxisRefAttr> &axes,
      llvm::function_ref<std::optional<AxisRefAttr>(AxisRefAttr, int64_t)>
          removeConflicts,
      MeshAttr mesh, bool conservative) const;
};

/// The aggressive strategy (Shardy's default).
class AggressiveFactorPropagation : public BasicFactorPropagation {
public:
  UpdateTensorShardings propagateFactorShardings(
      ShardingProjection &projection, DirectionAlongFactor directionAlongFactor,
      ArrayRef<int64_t> factorSizes, MeshAttr mesh, bool conservative,
      bool isElementwise) const override;
};

} // namespace mlir::tessera::spmd

#endif // TESSERA_DIALECT_SPMD_TRANSFORMS_FACTORPROPAGATION_H
