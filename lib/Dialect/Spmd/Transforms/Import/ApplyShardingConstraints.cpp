//===- ApplyShardingConstraints.cpp - closed constraints onto inputs ------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Before propagation, a fully closed `spmd.sharding_constraint` on a value
// that has no sharding of its own becomes that value's sharding, so that its
// other users see it (as GSPMD and Shardy do), unless another constraint or
// a manual computation uses the value with a different sharding. Values on a
// data-flow edge and block arguments of non-function regions keep their own
// sharding (the constraint stays an identity on the way).
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/DataFlow.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"
#include "tessera/Dialect/Spmd/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::tessera::spmd {
#define GEN_PASS_DEF_SPMDAPPLYSHARDINGCONSTRAINTSPASS
#include "tessera/Dialect/Spmd/Transforms/Passes.h.inc"

namespace {

/// Whether `input` is used by a constraint or a manual computation that
/// wants a sharding other than `sharding`.
bool hasDisagreeingUse(Value input, TensorShardingAttr sharding) {
  for (OpOperand &use : input.getUses()) {
    if (auto other = dyn_cast<ShardingConstraintOp>(use.getOwner()))
      if (other.getSharding() != sharding)
        return true;
    if (auto manual = dyn_cast<ManualComputationOp>(use.getOwner()))
      if (manual.getInSharding(use.getOperandNumber()) != sharding)
        return true;
  }
  return false;
}

struct SpmdApplyShardingConstraintsPass
    : public impl::SpmdApplyShardingConstraintsPassBase<
          SpmdApplyShardingConstraintsPass> {
  void runOnOperation() override {
    getOperation().walk([](ShardingConstraintOp constraint) {
      Value input = constraint.getInput();
      TensorShardingAttr sharding = constraint.getSharding();
      if (getSharding(input) || !sharding.isFullyClosed() ||
          hasDisagreeingUse(input, sharding) || getDataFlowEdge(input))
        return;
      if (auto arg = dyn_cast<BlockArgument>(input))
        if (!isa<FunctionOpInterface>(arg.getOwner()->getParentOp()))
          return;
      (void)setSharding(input, sharding);
    });
  }
};

} // namespace
} // namespace mlir::tessera::spmd
