//===- RuleModel.h - one ShardingRuleOpInterface model per rule function --===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_DIALECT_SPMD_EXTENSIONS_RULEMODEL_H
#define TESSERA_LIB_DIALECT_SPMD_EXTENSIONS_RULEMODEL_H

#include "tessera/Dialect/Spmd/IR/SpmdOps.h"

namespace mlir::tessera::spmd::models {

/// A function computing an op's sharding rule (null if it has none).
using RuleFn = OpShardingRuleAttr (*)(Operation *);

/// A function computing the reduction combiner of an op's result.
using CombinerFn = ReductionCombiner (*)(Operation *, unsigned);

/// The ShardingRuleOpInterface model of `OpTy` whose rule is `Rule(op)`
/// and whose reduction combiner is `Combiner(op, result)` (None if null).
template <typename OpTy, RuleFn Rule, CombinerFn Combiner = nullptr>
struct RuleModel : public ShardingRuleOpInterface::ExternalModel<
                       RuleModel<OpTy, Rule, Combiner>, OpTy> {
  OpShardingRuleAttr getShardingRule(Operation *op) const { return Rule(op); }
  ReductionCombiner getReductionCombiner(Operation *op,
                                         unsigned resultIndex) const {
    if constexpr (Combiner != nullptr)
      return Combiner(op, resultIndex);
    return ReductionCombiner::None;
  }
};

/// Attaches `RuleModel<OpTy, Rule>` to every op type in `OpTys`.
template <RuleFn Rule, typename... OpTys>
void attachRuleModels(MLIRContext *context) {
  (OpTys::template attachInterface<RuleModel<OpTys, Rule>>(*context), ...);
}

/// Attaches `RuleModel<OpTy, Rule, Combiner>` to every op type in `OpTys`.
template <RuleFn Rule, CombinerFn Combiner, typename... OpTys>
void attachReductionRuleModels(MLIRContext *context) {
  (OpTys::template attachInterface<RuleModel<OpTys, Rule, Combiner>>(*context),
   ...);
}

} // namespace mlir::tessera::spmd::models

#endif // TESSERA_LIB_DIALECT_SPMD_EXTENSIONS_RULEMODEL_H
