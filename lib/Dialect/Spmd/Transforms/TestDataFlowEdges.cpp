//===- TestDataFlowEdges.cpp - print data-flow edges (test pass) ----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/DataFlow.h"
#include "tessera/Dialect/Spmd/IR/SpmdDialect.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"
#include "tessera/Dialect/Spmd/Transforms/Passes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::tessera::spmd {
#define GEN_PASS_DEF_SPMDTESTDATAFLOWEDGESPASS
#include "tessera/Dialect/Spmd/Transforms/Passes.h.inc"

namespace {

struct SpmdTestDataFlowEdgesPass
    : public impl::SpmdTestDataFlowEdgesPassBase<SpmdTestDataFlowEdgesPass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    MLIRContext *ctx = &getContext();
    if (setOpenShardingOnEdges) {
      root->walk([&](Operation *op) {
        for (const DataFlowEdge &edge : getDataFlowEdges(op)) {
          if (getSharding(edge.owner))
            continue;
          auto type = cast<RankedTensorType>(edge.owner.getType());
          auto open = TensorShardingAttr::getReplicated(
              ctx, FlatSymbolRefAttr::get(ctx, "mesh"), type.getRank(),
              /*closed=*/false);
          if (failed(setSharding(edge.targets.front(), open)))
            op->emitError("setSharding failed on the edge of ")
                << op->getName();
        }
      });
    }
    AsmState state(root);
    auto print = [&](llvm::raw_ostream &os, Value v) {
      v.printAsOperand(os, state);
    };
    SymbolTableCollection symbolTables;
    root->walk([&](Operation *op) {
      // A call's edges to and from its callee.
      if (auto call = dyn_cast<CallOpInterface>(op))
        for (const DataFlowEdge &edge :
             getCallDataFlowEdges(call, &symbolTables)) {
          std::string text;
          llvm::raw_string_ostream os(text);
          os << "call edge ";
          if (auto arg = dyn_cast<BlockArgument>(edge.owner))
            os << "@"
               << SymbolTable::getSymbolName(arg.getOwner()->getParentOp())
                      .getValue()
               << " argument " << arg.getArgNumber();
          else
            print(os, edge.owner);
          os << ": sources [";
          llvm::interleaveComma(edge.sources, os,
                                [&](Value v) { print(os, v); });
          os << "], sharding ";
          if (TensorShardingAttr sharding = getSharding(edge.owner))
            os << sharding;
          else
            os << "none";
          emitRemark(op->getLoc(), text);
        }
      for (const DataFlowEdge &edge : getDataFlowEdges(op)) {
        std::string text;
        llvm::raw_string_ostream os(text);
        os << "edge ";
        print(os, edge.owner);
        os << ": sources [";
        llvm::interleaveComma(edge.sources, os, [&](Value v) { print(os, v); });
        os << "], targets [";
        llvm::interleaveComma(edge.targets, os, [&](Value v) { print(os, v); });
        os << "], sharding ";
        TensorShardingAttr sharding = getSharding(edge.owner);
        if (sharding)
          os << sharding;
        else
          os << "none";
        for (Value target : edge.targets)
          if (getSharding(target) != sharding)
            os << " (mismatch at a target)";
        // A target belongs to exactly one edge (a source may feed several).
        for (Value v : edge.targets) {
          auto found = getDataFlowEdge(v);
          if (!found || found->owner != edge.owner)
            os << " (a target does not find its edge)";
        }
        emitRemark(op->getLoc(), text);
      }
      if (auto manual = dyn_cast<ManualComputationOp>(op))
        for (BlockArgument arg : manual.getBody().getArguments()) {
          std::string text;
          llvm::raw_string_ostream os(text);
          os << "body arg #" << arg.getArgNumber() << ": " << getSharding(arg);
          emitRemark(op->getLoc(), text);
        }
    });
  }
};

} // namespace
} // namespace mlir::tessera::spmd
