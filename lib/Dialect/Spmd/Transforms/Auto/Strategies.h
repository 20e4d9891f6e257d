//===- Strategies.h - candidate shardings of ops and values -----*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The strategies spmd-auto-partition chooses among, read from an op's
// sharding rule: each Auto mesh axis assigned to one shardable factor or to
// none (a sub-axis where the factor's size is not divisible by the whole
// axis), with the shardings every operand needs and every result gets, and
// the cost of each under a MachineModel; and the price of resharding a
// value, from the collectives spmd-reshard-to-collectives would emit
// (ReshardPlanner).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_AUTO_STRATEGIES_H
#define TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_AUTO_STRATEGIES_H

#include "CostModel.h"
#include "PlanGraph.h"

#include "tessera/Dialect/Spmd/IR/SpmdAttrs.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <string>
#include <utility>
#include <vector>

namespace mlir::tessera::spmd::autopart {

/// The mesh the pass plans for: its Auto axes of size > 1, in mesh order.
struct PlanMesh {
  MeshAttr mesh;
  /// How shardings name the mesh (its symbol).
  Attribute meshRef;
  llvm::SmallVector<std::pair<std::string, int64_t>> autoAxes;
  const MachineModel *machine = nullptr;

  /// The index of the largest Auto axis (the first of equal sizes).
  unsigned getLargestAxis() const;
};

/// One strategy of an op (or of a value: a one-operand identity).
struct Strategy {
  /// The axes of every factor of the rule.
  llvm::SmallVector<llvm::SmallVector<AxisRefAttr>> factorAxes;
  /// The sharding every operand needs (null for non-tensor operands).
  llvm::SmallVector<TensorShardingAttr> operands;
  /// The sharding of every result once partial values are reduced.
  llvm::SmallVector<TensorShardingAttr> results;
  /// The axes results are partial over (on sharded reduction factors).
  llvm::SmallVector<AxisRefAttr> partialAxes;
  StrategyCost cost;
};

/// The local bytes of `type` under `sharding` (null: replicated).
double getLocalBytes(RankedTensorType type, TensorShardingAttr sharding,
                     MeshAttr mesh);

/// The strategies of `op` under `rule`: the replicated one first, then
/// every assignment of the Auto axes to shardable factors (pass-through
/// factors and reduction factors whose combiner a collective finishes, of
/// static size > 1, major in every dimension they appear in, not blocked)
/// whose axes divide the factor, an axis that does not divide it taking its
/// largest major sub-axis that does. Deterministic order. `dataParallel`
/// gets the index of the strategy with the largest axis on the factor of
/// dimension 0 of the first result (0 if there is none).
std::vector<Strategy> enumerateOpStrategies(Operation *op,
                                            OpShardingRuleAttr rule,
                                            const PlanMesh &mesh,
                                            unsigned &dataParallel);

/// The strategies of a value of `type` chosen on its own (a function
/// argument): every sharding of its dimensions by the Auto axes, the
/// replicated one first; `persistentBytes` is its local size.
std::vector<Strategy> enumerateValueStrategies(RankedTensorType type,
                                               const PlanMesh &mesh);

/// Describes a strategy for the report: `{i: "data", j: "model"}` (factor
/// names of `rule`), or the sharding of a value (no rule).
std::string describeStrategy(const Strategy &strategy, OpShardingRuleAttr rule);

/// The time and bytes of resharding values, memoized per sharding pair and
/// type.
class ReshardCoster {
public:
  explicit ReshardCoster(const PlanMesh &mesh) : mesh(mesh) {}

  /// The time and bytes per device of moving a value of `type` from `from`
  /// to `to`: the collectives of ReshardPlanner, an all-reduce followed by
  /// a slice priced as a reduce-scatter (as the collectives'
  /// canonicalization merges them). A reshard no collective does costs
  /// kUnplannable seconds.
  std::pair<double, double> get(RankedTensorType type, TensorShardingAttr from,
                                TensorShardingAttr to);

  static constexpr double kUnplannable = 1e6;

private:
  std::pair<double, double> compute(RankedTensorType type,
                                    TensorShardingAttr from,
                                    TensorShardingAttr to);
  const PlanMesh &mesh;
  llvm::DenseMap<std::tuple<Type, Attribute, Attribute>,
                 std::pair<double, double>>
      cache;
};

/// Whether `lhs` and `rhs` shard every dimension by the same axes (open or
/// closed alike).
bool haveSameDimAxes(TensorShardingAttr lhs, TensorShardingAttr rhs);

} // namespace mlir::tessera::spmd::autopart

#endif // TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_AUTO_STRATEGIES_H
