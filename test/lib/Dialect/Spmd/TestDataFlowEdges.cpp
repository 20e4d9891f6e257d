//===- TestDataFlowEdges.cpp - remarks with the data-flow edges -*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// `spmd-test-data-flow-edges`, for the tests of the sharding core
// (`DataFlow.h`). For every scf.for, scf.while and scf.if with tensor
// results, one remark per data-flow edge at the op: `edge <owner>: sources
// [<values>], targets [<values>], sharding <s>`, where every target's
// `getSharding` must equal the owner's (otherwise the remark says
// `mismatch`); for every call, one remark per edge to and from its callee;
// for every `spmd.manual_computation`, one remark per body argument with its
// local-view sharding. With `set-open-sharding-on-edges`, it first sets a
// fully open sharding on the mesh `@mesh` on every edge without one, through
// `setSharding` on the edge's first target (a loop's block argument, or an
// scf.if's result), to test that the sharding lands on the owner.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/DataFlow.h"
#include "tessera/Dialect/Spmd/IR/SpmdDialect.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

namespace {

/// A test pass, registered by tessera-opt only (as upstream MLIR's test
/// passes are by mlir-opt).
struct TestDataFlowEdgesPass
    : public PassWrapper<TestDataFlowEdgesPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestDataFlowEdgesPass)

  TestDataFlowEdgesPass() = default;
  TestDataFlowEdgesPass(const TestDataFlowEdgesPass &pass)
      : PassWrapper(pass) {}

  StringRef getArgument() const final { return "spmd-test-data-flow-edges"; }
  StringRef getDescription() const final {
    return "Test pass: remarks with the data-flow edges and block-argument "
           "shardings";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<SpmdDialect>();
  }

  void runOnOperation() override;

  Option<bool> setOpenShardingOnEdges{
      *this, "set-open-sharding-on-edges",
      llvm::cl::desc(
          "Set a fully open sharding on every edge without one first"),
      llvm::cl::init(false)};
};

} // namespace

void TestDataFlowEdgesPass::runOnOperation() {
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
          op->emitError("setSharding failed on the edge of ") << op->getName();
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
        llvm::interleaveComma(edge.sources, os, [&](Value v) { print(os, v); });
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

namespace mlir::tessera::test {
void registerTestDataFlowEdgesPass() {
  PassRegistration<TestDataFlowEdgesPass>();
}
} // namespace mlir::tessera::test
