//===- FlattenCallGraph.cpp - one callee copy per call site ---------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Shardy's flatten-call-graph: before propagation, every call site of a
// function gets its own copy of it (and of what it calls), so that each site
// is sharded by its own operands; spmd-unflatten-call-graph merges the copies
// whose shardings agree after propagation.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/Transforms/CallGraphCopies.h"
#include "tessera/Dialect/Spmd/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::tessera::spmd {
#define GEN_PASS_DEF_SPMDFLATTENCALLGRAPHPASS
#include "tessera/Dialect/Spmd/Transforms/Passes.h.inc"

FunctionOpInterface resolveDefinedCallee(CallOpInterface call,
                                         SymbolTable &symbolTable) {
  auto ref = dyn_cast_if_present<FlatSymbolRefAttr>(
      dyn_cast_if_present<SymbolRefAttr>(call.getCallableForCallee()));
  if (!ref)
    return {};
  auto callee = symbolTable.lookup<FunctionOpInterface>(ref.getAttr());
  if (!callee || callee.isExternal())
    return {};
  return callee;
}

StringAttr getOriginalFuncName(FunctionOpInterface func) {
  if (auto name = func->getAttrOfType<StringAttr>(kOriginalFuncNameAttrName))
    return name;
  return SymbolTable::getSymbolName(func);
}

namespace {

/// The defined functions of the module a function calls, in call order.
using CallGraph =
    llvm::DenseMap<Operation *, SmallVector<FunctionOpInterface, 2>>;

/// The functions of `module` that are on a call cycle (they reach themselves
/// through calls): copying them would not end.
DenseSet<Operation *> findRecursiveFunctions(ModuleOp module,
                                             const CallGraph &graph) {
  // Tarjan's strongly connected components, iteratively: a component of
  // several functions, or one function that calls itself, is a cycle.
  DenseSet<Operation *> recursive;
  DenseMap<Operation *, unsigned> index, low;
  DenseSet<Operation *> onStack;
  SmallVector<Operation *> stack;
  unsigned next = 0;
  struct Frame {
    Operation *func;
    unsigned child;
  };
  auto calleesOf = [&](Operation *func) -> ArrayRef<FunctionOpInterface> {
    auto it = graph.find(func);
    return it == graph.end() ? ArrayRef<FunctionOpInterface>() : it->second;
  };
  for (auto root : module.getOps<FunctionOpInterface>()) {
    if (index.contains(root))
      continue;
    SmallVector<Frame> frames{{root, 0}};
    index[root] = low[root] = next++;
    stack.push_back(root);
    onStack.insert(root);
    while (!frames.empty()) {
      Frame &frame = frames.back();
      ArrayRef<FunctionOpInterface> callees = calleesOf(frame.func);
      if (frame.child < callees.size()) {
        Operation *callee = callees[frame.child++];
        if (callee == frame.func)
          recursive.insert(callee);
        if (!index.contains(callee)) {
          index[callee] = low[callee] = next++;
          stack.push_back(callee);
          onStack.insert(callee);
          frames.push_back({callee, 0});
        } else if (onStack.contains(callee)) {
          low[frame.func] = std::min(low[frame.func], index[callee]);
        }
        continue;
      }
      Operation *func = frame.func;
      frames.pop_back();
      if (!frames.empty())
        low[frames.back().func] = std::min(low[frames.back().func], low[func]);
      if (low[func] != index[func])
        continue;
      SmallVector<Operation *> component;
      Operation *member;
      do {
        member = stack.pop_back_val();
        onStack.erase(member);
        component.push_back(member);
      } while (member != func);
      if (component.size() > 1)
        recursive.insert(component.begin(), component.end());
    }
  }
  return recursive;
}

class CallGraphFlattener {
public:
  CallGraphFlattener(ModuleOp module) : module(module), symbolTable(module) {}

  void run() {
    // The calls of the module's functions as they are now; the copies made
    // below call fresh copies of their callees, so they need no visit.
    SmallVector<CallOpInterface> calls;
    for (auto func : module.getOps<FunctionOpInterface>()) {
      SmallVector<FunctionOpInterface, 2> &callees = graph[func];
      func->walk([&](CallOpInterface call) {
        if (FunctionOpInterface callee =
                resolveDefinedCallee(call, symbolTable)) {
          calls.push_back(call);
          callees.push_back(callee);
        }
      });
    }
    recursive = findRecursiveFunctions(module, graph);
    DenseSet<Operation *> called;
    for (CallOpInterface call : calls) {
      FunctionOpInterface callee = resolveDefinedCallee(call, symbolTable);
      if (recursive.contains(callee))
        continue;
      // The first call keeps the function; every further one gets a copy.
      if (called.insert(callee).second)
        continue;
      call.setCalleeFromCallable(
          FlatSymbolRefAttr::get(copyRecursively(callee)));
    }
  }

private:
  /// A private copy of `func` named after it, whose calls call fresh copies
  /// of their callees (recursive callees excepted).
  StringAttr copyRecursively(FunctionOpInterface func) {
    auto copy = cast<FunctionOpInterface>(func->clone());
    copy->setAttr(kOriginalFuncNameAttrName, getOriginalFuncName(func));
    SymbolTable::setSymbolVisibility(copy, SymbolTable::Visibility::Private);
    copy->walk([&](CallOpInterface call) {
      FunctionOpInterface callee = resolveDefinedCallee(call, symbolTable);
      if (callee && !recursive.contains(callee))
        call.setCalleeFromCallable(
            FlatSymbolRefAttr::get(copyRecursively(callee)));
    });
    // (Inserted at the end of the module, renamed `<name>_N` if taken.)
    return symbolTable.insert(copy);
  }

  ModuleOp module;
  SymbolTable symbolTable;
  CallGraph graph;
  DenseSet<Operation *> recursive;
};

struct SpmdFlattenCallGraphPass
    : public impl::SpmdFlattenCallGraphPassBase<SpmdFlattenCallGraphPass> {
  using Base::Base;

  void runOnOperation() override { CallGraphFlattener(getOperation()).run(); }
};

} // namespace
} // namespace mlir::tessera::spmd
