//===- AnnotateShardingRules.cpp - attach every op's sharding rule --------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/SpmdDialect.h"
#include "tessera/Dialect/Spmd/IR/SpmdShardingRule.h"
#include "tessera/Dialect/Spmd/Transforms/Passes.h"

#include "mlir/IR/Operation.h"

namespace mlir::tessera::spmd {
#define GEN_PASS_DEF_SPMDANNOTATESHARDINGRULESPASS
#include "tessera/Dialect/Spmd/Transforms/Passes.h.inc"

namespace {

struct SpmdAnnotateShardingRulesPass
    : public impl::SpmdAnnotateShardingRulesPassBase<
          SpmdAnnotateShardingRulesPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      if (op->hasAttr(kShardingRuleAttrName))
        return;
      if (OpShardingRuleAttr rule = getShardingRule(op))
        op->setAttr(kShardingRuleAttrName, rule);
    });
  }
};

} // namespace
} // namespace mlir::tessera::spmd
