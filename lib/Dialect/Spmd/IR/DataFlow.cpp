//===- DataFlow.cpp - shardings of every value, and data-flow edges -------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/DataFlow.h"

#include "tessera/Dialect/Spmd/IR/SpmdDialect.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

//===----------------------------------------------------------------------===//
// Edges
//===----------------------------------------------------------------------===//

/// The edge of result `index` of a control-flow op, or std::nullopt.
static std::optional<DataFlowEdge> getEdge(Operation *op, unsigned index) {
  if (index >= op->getNumResults())
    return std::nullopt;
  DataFlowEdge edge;
  edge.owner = op->getResult(index);
  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    edge.sources = {forOp.getInitArgs()[index],
                    forOp.getYieldedValues()[index]};
    edge.targets = {forOp.getRegionIterArgs()[index], edge.owner};
    return edge;
  }
  if (auto whileOp = dyn_cast<scf::WhileOp>(op)) {
    // One edge per index when the before and after blocks carry the same
    // types (inits and results alike); otherwise only the results' side.
    Block *before = whileOp.getBeforeBody();
    Block *after = whileOp.getAfterBody();
    Value condArg = whileOp.getConditionOp().getArgs()[index];
    edge.sources = {condArg};
    edge.targets = {after->getArgument(index), edge.owner};
    if (whileOp->getNumOperands() == op->getNumResults() &&
        before->getArgument(index).getType() == edge.owner.getType()) {
      edge.sources.insert(edge.sources.begin(), whileOp.getInits()[index]);
      edge.sources.push_back(whileOp.getYieldOp().getResults()[index]);
      edge.targets.insert(edge.targets.begin(), before->getArgument(index));
    }
    return edge;
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    edge.sources.push_back(ifOp.thenYield().getResults()[index]);
    if (!ifOp.getElseRegion().empty())
      edge.sources.push_back(ifOp.elseYield().getResults()[index]);
    edge.targets = {edge.owner};
    return edge;
  }
  if (auto switchOp = dyn_cast<scf::IndexSwitchOp>(op)) {
    // Like stablehlo.case: every case region (and the default) yields into
    // the result.
    for (Region &region : switchOp->getRegions())
      if (!region.empty())
        if (auto yield = dyn_cast<scf::YieldOp>(region.front().getTerminator()))
          edge.sources.push_back(yield.getResults()[index]);
    edge.targets = {edge.owner};
    return edge;
  }
  return std::nullopt;
}

llvm::SmallVector<DataFlowEdge>
mlir::tessera::spmd::getDataFlowEdges(Operation *op) {
  llvm::SmallVector<DataFlowEdge> edges;
  for (OpResult result : op->getResults())
    if (isa<RankedTensorType>(result.getType()))
      if (auto edge = getEdge(op, result.getResultNumber()))
        edges.push_back(*edge);
  return edges;
}

llvm::SmallVector<DataFlowEdge>
mlir::tessera::spmd::getCallDataFlowEdges(CallOpInterface call,
                                          SymbolTableCollection *symbolTables) {
  llvm::SmallVector<DataFlowEdge> edges;
  Operation *callee = symbolTables ? call.resolveCallableInTable(symbolTables)
                                   : call.resolveCallable();
  auto func = dyn_cast_or_null<FunctionOpInterface>(callee);
  if (!func || func.isExternal() ||
      func.getNumArguments() != call.getArgOperands().size() ||
      func.getNumResults() != call->getNumResults())
    return edges;
  Block &entry = func.getFunctionBody().front();
  for (auto [operand, arg] :
       llvm::zip_equal(call.getArgOperands(), entry.getArguments()))
    if (isa<RankedTensorType>(arg.getType()))
      edges.push_back(DataFlowEdge{arg, {operand}, {arg}});
  // The returned values: the operands of the body's return op(s).
  SmallVector<Operation *> returns;
  for (Block &block : func.getFunctionBody())
    if (!block.empty() && block.back().hasTrait<OpTrait::ReturnLike>())
      returns.push_back(&block.back());
  for (OpResult result : call->getResults()) {
    if (!isa<RankedTensorType>(result.getType()))
      continue;
    DataFlowEdge edge{result, {}, {result}};
    for (Operation *ret : returns)
      if (result.getResultNumber() < ret->getNumOperands())
        edge.sources.push_back(ret->getOperand(result.getResultNumber()));
    edges.push_back(std::move(edge));
  }
  return edges;
}

std::optional<DataFlowEdge> mlir::tessera::spmd::getDataFlowEdge(Value value) {
  // A target: a result, or a block argument that maps to one.
  Value owner = getShardingOwner(value);
  if (auto result = dyn_cast<OpResult>(owner))
    if (auto edge = getEdge(result.getOwner(), result.getResultNumber()))
      return edge;
  // A source: an init operand or a yielded value.
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    unsigned number = use.getOperandNumber();
    if (auto forOp = dyn_cast<scf::ForOp>(user)) {
      if (number >= forOp.getNumControlOperands())
        return getEdge(forOp, number - forOp.getNumControlOperands());
    } else if (isa<scf::WhileOp>(user)) {
      return getEdge(user, number);
    } else if (isa<scf::YieldOp>(user)) {
      Operation *parent = user->getParentOp();
      if (auto whileOp = dyn_cast<scf::WhileOp>(parent);
          whileOp && whileOp.getNumOperands() != whileOp.getNumResults())
        continue;
      if (isa<scf::ForOp, scf::IfOp, scf::WhileOp, scf::IndexSwitchOp>(parent))
        return getEdge(parent, number);
    } else if (isa<scf::ConditionOp>(user) && number > 0) {
      return getEdge(user->getParentOp(), number - 1);
    }
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Owners and setting shardings
//===----------------------------------------------------------------------===//

Value mlir::tessera::spmd::getShardingOwner(Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg)
    return value;
  Operation *parent = arg.getOwner()->getParentOp();
  if (auto forOp = dyn_cast_or_null<scf::ForOp>(parent)) {
    if (OpResult result = forOp.getTiedLoopResult(arg))
      return result;
    return value;
  }
  if (auto whileOp = dyn_cast_or_null<scf::WhileOp>(parent)) {
    unsigned index = arg.getArgNumber();
    if (arg.getOwner() == whileOp.getAfterBody())
      return whileOp->getResult(index);
    if (whileOp.getNumOperands() == whileOp.getNumResults() &&
        arg.getType() == whileOp->getResult(index).getType())
      return whileOp->getResult(index);
  }
  return value;
}

TensorShardingAttr
mlir::tessera::spmd::removeManualAxes(TensorShardingAttr global,
                                      ArrayRef<StringAttr> manualAxes) {
  if (!global)
    return global;
  auto isFree = [&](AxisRefAttr ref) {
    return !llvm::any_of(manualAxes, [&](StringAttr name) {
      return name.getValue() == ref.getName();
    });
  };
  MLIRContext *ctx = global.getContext();
  SmallVector<DimensionShardingAttr> dims;
  for (DimensionShardingAttr dim : global.getDimShardings()) {
    SmallVector<AxisRefAttr> axes(
        llvm::make_filter_range(dim.getAxes(), isFree));
    dims.push_back(DimensionShardingAttr::get(ctx, axes, dim.getIsClosed(),
                                              dim.getPriority()));
  }
  SmallVector<AxisRefAttr> replicated(
      llvm::make_filter_range(global.getReplicatedAxes(), isFree));
  SmallVector<AxisRefAttr> unreduced(
      llvm::make_filter_range(global.getUnreducedAxes(), isFree));
  return TensorShardingAttr::get(
      ctx, global.getMeshOrRef(), dims, replicated, unreduced,
      unreduced.empty() ? ReductionKind::Sum : global.getUnreducedKind());
}

/// Sets entry `index` of the op's `spmd.sharding`, creating the attribute
/// with fully open shardings for the other results.
static void setResultSharding(Operation *op, unsigned index,
                              TensorShardingAttr sharding) {
  MLIRContext *ctx = op->getContext();
  SmallVector<TensorShardingAttr> shardings;
  if (auto existing = op->getAttrOfType<TensorShardingPerValueAttr>(
          SpmdDialect::kShardingAttrName))
    shardings.assign(existing.getShardings().begin(),
                     existing.getShardings().end());
  if (shardings.size() != op->getNumResults()) {
    shardings.clear();
    for (auto [i, type] : llvm::enumerate(op->getResultTypes())) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      shardings.push_back(i == index ? sharding
                                     : TensorShardingAttr::getReplicated(
                                           ctx, sharding.getMeshOrRef(),
                                           tensor ? tensor.getRank() : 0,
                                           /*closed=*/false));
    }
  }
  shardings[index] = sharding;
  op->setAttr(SpmdDialect::kShardingAttrName,
              TensorShardingPerValueAttr::get(ctx, shardings));
}

LogicalResult mlir::tessera::spmd::setSharding(Value value,
                                               TensorShardingAttr sharding) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !sharding || sharding.getRank() != type.getRank())
    return failure();
  Value owner = getShardingOwner(value);
  if (auto arg = dyn_cast<BlockArgument>(owner)) {
    Operation *parent = arg.getOwner()->getParentOp();
    if (auto func = dyn_cast_or_null<FunctionOpInterface>(parent)) {
      if (arg.getOwner() != &func.getFunctionBody().front())
        return failure();
      func.setArgAttr(arg.getArgNumber(), SpmdDialect::kShardingAttrName,
                      sharding);
      return success();
    }
    if (auto manual = dyn_cast_or_null<ManualComputationOp>(parent)) {
      // The body sees the local view; the op stores the global one: the
      // manual axes of the current in_sharding stay major in each dim.
      unsigned index = arg.getArgNumber();
      TensorShardingAttr global = manual.getInSharding(index);
      ArrayRef<StringAttr> manualAxes = manual.getManualAxes().getValue();
      if (removeManualAxes(sharding, manualAxes) != sharding ||
          global.getRank() != sharding.getRank())
        return failure();
      MLIRContext *ctx = manual.getContext();
      SmallVector<DimensionShardingAttr> dims;
      for (auto [oldDim, newDim] : llvm::zip_equal(
               global.getDimShardings(), sharding.getDimShardings())) {
        SmallVector<AxisRefAttr> axes;
        for (AxisRefAttr ref : oldDim.getAxes())
          if (manual.isManualAxis(ref.getName()))
            axes.push_back(ref);
        llvm::append_range(axes, newDim.getAxes());
        dims.push_back(DimensionShardingAttr::get(
            ctx, axes, newDim.getIsClosed(), newDim.getPriority()));
      }
      SmallVector<TensorShardingAttr> ins(
          manual.getInShardings().getShardings());
      ins[index] = TensorShardingAttr::get(
          ctx, global.getMeshOrRef(), dims, global.getReplicatedAxes(),
          global.getUnreducedAxes(), global.getUnreducedKind());
      manual.setInShardingsAttr(TensorShardingPerValueAttr::get(ctx, ins));
      return success();
    }
    return failure();
  }
  auto result = cast<OpResult>(owner);
  Operation *op = result.getOwner();
  if (isa<ResultShardingOpInterface>(op))
    return failure();
  setResultSharding(op, result.getResultNumber(), sharding);
  return success();
}
