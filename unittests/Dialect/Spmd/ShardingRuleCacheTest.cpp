//===- ShardingRuleCacheTest.cpp - spmd::ShardingRuleCache ----------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/Extensions/ShardingRuleExternalModels.h"
#include "tessera/Dialect/Spmd/IR/SpmdDialect.h"
#include "tessera/Dialect/Spmd/IR/SpmdShardingRule.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

namespace {

class ShardingRuleCacheTest : public ::testing::Test {
protected:
  ShardingRuleCacheTest() {
    DialectRegistry registry;
    registry.insert<SpmdDialect, arith::ArithDialect, func::FuncDialect>();
    registerShardingRuleExternalModels(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// The ops of the body of the first function of `source`.
  SmallVector<Operation *> opsOf(StringRef source) {
    module = parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module);
    SmallVector<Operation *> ops;
    if (!module)
      return ops;
    auto func = *module->getOps<func::FuncOp>().begin();
    for (Operation &op : func.getBody().front().without_terminator())
      ops.push_back(&op);
    return ops;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

// Ops with the same name, types and properties share the rule they would
// each get; ops that differ in any of those get their own.
TEST_F(ShardingRuleCacheTest, SharesRulesOfEqualOps) {
  SmallVector<Operation *> ops = opsOf(R"mlir(
    func.func @f(%a: tensor<8x4xf32>, %b: tensor<4x8xf32>) {
      %0 = arith.addf %a, %a : tensor<8x4xf32>
      %1 = arith.addf %0, %a : tensor<8x4xf32>
      %2 = arith.addf %b, %b : tensor<4x8xf32>
      %3 = arith.addf %a, %a fastmath<fast> : tensor<8x4xf32>
      %4 = arith.mulf %a, %a : tensor<8x4xf32>
      return
    }
  )mlir");
  ASSERT_EQ(ops.size(), 5u);
  ShardingRuleCache cache;
  SmallVector<OpShardingRuleAttr> rules;
  for (Operation *op : ops) {
    OpShardingRuleAttr rule = cache.get(op);
    ASSERT_TRUE(rule);
    // The cache never answers differently from the op itself.
    EXPECT_EQ(rule, getShardingRule(op));
    rules.push_back(rule);
  }
  EXPECT_EQ(rules[0], rules[1]);
  EXPECT_NE(rules[0], rules[2]); // Other types: other factor sizes.
}

// Ops of one name with more signatures than the cache keeps recent, asked
// for in turns, in cycles and out of order, each get their own rule.
TEST_F(ShardingRuleCacheTest, AnswersInAnyOrder) {
  SmallVector<Operation *> ops = opsOf(R"mlir(
    func.func @f(%a: tensor<1x2xf32>, %b: tensor<2x3xf32>,
                 %c: tensor<3x4xf32>, %d: tensor<4x5xf32>,
                 %e: tensor<5x6xf32>, %g: tensor<6x7xf32>) {
      %0 = arith.addf %a, %a : tensor<1x2xf32>
      %1 = arith.addf %b, %b : tensor<2x3xf32>
      %2 = arith.addf %c, %c : tensor<3x4xf32>
      %3 = arith.addf %d, %d : tensor<4x5xf32>
      %4 = arith.addf %e, %e : tensor<5x6xf32>
      %5 = arith.addf %g, %g : tensor<6x7xf32>
      return
    }
  )mlir");
  ASSERT_EQ(ops.size(), 6u);
  ShardingRuleCache cache;
  for (int i : {0, 1, 0, 1, 2, 3, 4, 5, 0, 5, 1, 4, 2, 2, 3, 0, 1,
                2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 5, 4, 3, 2, 1, 0}) {
    OpShardingRuleAttr rule = cache.get(ops[i]);
    ASSERT_TRUE(rule);
    EXPECT_EQ(rule, getShardingRule(ops[i])) << "op " << i;
  }
}

// A user-written rule is the op's own, never shared with equal ops.
TEST_F(ShardingRuleCacheTest, UserRulesAreNotShared) {
  SmallVector<Operation *> ops = opsOf(R"mlir(
    func.func @f(%a: tensor<8x4xf32>) {
      %0 = arith.addf %a, %a : tensor<8x4xf32>
      %1 = arith.addf %a, %a {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j], [i, j])->([i, j]) {i=8, j=4} need_replication={j}>} : tensor<8x4xf32>
      return
    }
  )mlir");
  ASSERT_EQ(ops.size(), 2u);
  ShardingRuleCache cache;
  OpShardingRuleAttr first = cache.get(ops[0]);
  OpShardingRuleAttr second = cache.get(ops[1]);
  EXPECT_NE(first, second);
  EXPECT_EQ(second,
            ops[1]->getAttrOfType<OpShardingRuleAttr>(kShardingRuleAttrName));
  // Asked again, the first op still gets its interface rule.
  EXPECT_EQ(cache.get(ops[0]), first);
}

// Entries hold no op pointers: erasing a cached op is safe.
TEST_F(ShardingRuleCacheTest, SurvivesErasedOps) {
  SmallVector<Operation *> ops = opsOf(R"mlir(
    func.func @f(%a: tensor<8x4xf32>) {
      %0 = arith.addf %a, %a : tensor<8x4xf32>
      %1 = arith.addf %a, %a : tensor<8x4xf32>
      return
    }
  )mlir");
  ASSERT_EQ(ops.size(), 2u);
  ShardingRuleCache cache;
  OpShardingRuleAttr rule = cache.get(ops[0]);
  ops[0]->erase();
  EXPECT_EQ(cache.get(ops[1]), rule);
}

} // namespace
