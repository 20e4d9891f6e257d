//===- ElementwiseExtensions.cpp - sharding rules of pointwise ops --------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Elementwise ops (arith, math, and Tessera's identity ops) share one factor
// per dimension between every tensor operand and result; scalar operands
// (a select's i1 condition) map to `[]`. Ops whose values are all scalars
// (the bodies of linalg ops) and ops without operands (constants) have no
// rule.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/Extensions/ShardingRuleExternalModels.h"

#include "RuleModel.h"

#include "tessera/Dialect/Spmd/IR/OpShardingRuleBuilder.h"
#include "tessera/Dialect/Spmd/IR/SpmdDialect.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

/// The pointwise rule of `op`, or null if no operand or result is a tensor.
static OpShardingRuleAttr getPointwiseRule(Operation *op) {
  auto isTensor = [](Type type) { return isa<RankedTensorType>(type); };
  if (llvm::none_of(op->getOperandTypes(), isTensor) &&
      llvm::none_of(op->getResultTypes(), isTensor))
    return {};
  return OpShardingRuleBuilder::buildPointwise(op);
}

void mlir::tessera::spmd::registerArithShardingRuleModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, arith::ArithDialect *) {
    models::attachRuleModels<getPointwiseRule,
#define GET_OP_LIST
#include "mlir/Dialect/Arith/IR/ArithOps.cpp.inc"
                             >(context);
  });
}

void mlir::tessera::spmd::registerMathShardingRuleModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, math::MathDialect *) {
    models::attachRuleModels<getPointwiseRule,
#define GET_OP_LIST
#include "mlir/Dialect/Math/IR/MathOps.cpp.inc"
                             >(context);
  });
}

void mlir::tessera::spmd::registerSpmdShardingRuleModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, SpmdDialect *) {
    models::attachRuleModels<getPointwiseRule, ShardingConstraintOp, ReshardOp,
                             PropagationBarrierOp>(context);
  });
}

void mlir::tessera::spmd::registerShardingRuleExternalModels(
    DialectRegistry &registry) {
  registerArithShardingRuleModels(registry);
  registerMathShardingRuleModels(registry);
  registerLinalgShardingRuleModels(registry);
  registerTensorShardingRuleModels(registry);
  registerSpmdShardingRuleModels(registry);
  registerExplicitShardingExternalModels(registry);
  registerPartitionExternalModels(registry);
}
