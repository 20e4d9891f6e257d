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

/// The ShardingRuleOpInterface model of `OpTy` whose rule is `Rule(op)`.
template <typename OpTy, RuleFn Rule>
struct RuleModel
    : public ShardingRuleOpInterface::ExternalModel<RuleModel<OpTy, Rule>,
                                                    OpTy> {
  OpShardingRuleAttr getShardingRule(Operation *op) const { return Rule(op); }
};

/// Attaches `RuleModel<OpTy, Rule>` to every op type in `OpTys`.
template <RuleFn Rule, typename... OpTys>
void attachRuleModels(MLIRContext *context) {
  (OpTys::template attachInterface<RuleModel<OpTys, Rule>>(*context), ...);
}

} // namespace mlir::tessera::spmd::models

#endif // TESSERA_LIB_DIALECT_SPMD_EXTENSIONS_RULEMODEL_H
