//===- UnflattenCallGraph.cpp - merge callee copies with equal shardings --===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Shardy's unflatten-call-graph: after propagation, the copies that
// spmd-flatten-call-graph made of a function are merged when they have the
// same argument and result shardings; the others stay, one per sharding
// signature.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/Transforms/CallGraphCopies.h"
#include "tessera/Dialect/Spmd/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::tessera::spmd {
#define GEN_PASS_DEF_SPMDUNFLATTENCALLGRAPHPASS
#include "tessera/Dialect/Spmd/Transforms/Passes.h.inc"

namespace {

/// What makes two copies interchangeable: the function they copy and the
/// `spmd.sharding` of every argument and result (a unit attribute where
/// there is none), as one uniqued array.
Attribute getSignature(FunctionOpInterface func) {
  MLIRContext *ctx = func->getContext();
  SmallVector<Attribute> parts{getOriginalFuncName(func)};
  auto shardingOr = [&](Attribute sharding) {
    return sharding ? sharding : UnitAttr::get(ctx);
  };
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    parts.push_back(
        shardingOr(func.getArgAttr(i, SpmdDialect::kShardingAttrName)));
  // (Arguments and results apart: a separator no sharding equals.)
  parts.push_back(StringAttr::get(ctx, "->"));
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
    parts.push_back(
        shardingOr(func.getResultAttr(i, SpmdDialect::kShardingAttrName)));
  return ArrayAttr::get(ctx, parts);
}

struct SpmdUnflattenCallGraphPass
    : public impl::SpmdUnflattenCallGraphPassBase<SpmdUnflattenCallGraphPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbolTable(module);

    // Every call calls the first function of its signature.
    DenseMap<Attribute, StringAttr> representative;
    module.walk([&](CallOpInterface call) {
      FunctionOpInterface callee = resolveDefinedCallee(call, symbolTable);
      if (!callee)
        return;
      StringAttr name = SymbolTable::getSymbolName(callee);
      auto [it, inserted] =
          representative.try_emplace(getSignature(callee), name);
      if (!inserted && it->second != name)
        call.setCalleeFromCallable(FlatSymbolRefAttr::get(it->second));
    });

    // Copies nothing calls any more go, then the copies only they called.
    bool erased = true;
    while (erased) {
      erased = false;
      DenseSet<StringAttr> called;
      module.walk([&](CallOpInterface call) {
        if (FunctionOpInterface callee =
                resolveDefinedCallee(call, symbolTable))
          called.insert(SymbolTable::getSymbolName(callee));
      });
      for (auto func :
           llvm::make_early_inc_range(module.getOps<FunctionOpInterface>())) {
        if (func->hasAttr(kOriginalFuncNameAttrName) &&
            !called.contains(SymbolTable::getSymbolName(func))) {
          symbolTable.erase(func);
          erased = true;
        }
      }
    }
    for (auto func : module.getOps<FunctionOpInterface>())
      func->removeAttr(kOriginalFuncNameAttrName);
  }
};

} // namespace
} // namespace mlir::tessera::spmd
