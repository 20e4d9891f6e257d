//===- DataFlow.cpp - shardings of every value, and data-flow edges -------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/DataFlow.h"

#include "tessera/Dialect/Spmd/IR/SpmdDialect.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"

#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"

#include <numeric>
#include <tuple>

using namespace mlir;
using namespace mlir::tessera::spmd;

//===----------------------------------------------------------------------===//
// Edges
//===----------------------------------------------------------------------===//

/// The data-flow edges of a region-branching op (scf.for, scf.while,
/// scf.if, scf.index_switch, scf.execute_region, or any op implementing
/// RegionBranchOpInterface), from the flows the interface describes: the
/// successor inputs (block arguments and results) that one successor operand
/// reaches form one edge (an scf.for yield reaches the loop's block argument
/// and its result), owned by its op result. A group of block arguments that
/// no result owns (the entry region of an scf.while whose condition forwards
/// other values) joins the edge of the result at the same position when the
/// region has one argument per result and the types agree; otherwise it has
/// no edge (its values are replicated). An op with a tensor result that no
/// successor operand reaches has no edges at all.
static SmallVector<DataFlowEdge> computeEdges(RegionBranchOpInterface op) {
  SmallVector<DataFlowEdge> edges;
  if (llvm::none_of(op->getResultTypes(),
                    [](Type type) { return isa<RankedTensorType>(type); }))
    return edges;
  RegionBranchSuccessorMapping mapping;
  op.getSuccessorOperandInputMapping(mapping);

  // Successor inputs in a fixed order (block arguments region by region,
  // then results), numbered, and grouped with a union-find.
  SmallVector<Value> inputs;
  llvm::DenseMap<Value, unsigned> numbers;
  auto numberOf = [&](Value value) {
    auto [it, inserted] = numbers.try_emplace(value, inputs.size());
    if (inserted)
      inputs.push_back(value);
    return it->second;
  };
  for (Region &region : op->getRegions())
    if (!region.empty())
      for (BlockArgument arg : region.front().getArguments())
        numberOf(arg);
  for (OpResult result : op->getResults())
    numberOf(result);
  SmallVector<unsigned> parent(inputs.size());
  std::iota(parent.begin(), parent.end(), 0u);
  auto find = [&](unsigned i) {
    while (parent[i] != i)
      i = parent[i] = parent[parent[i]];
    return i;
  };
  auto unite = [&](unsigned a, unsigned b) {
    a = find(a);
    b = find(b);
    if (a != b)
      parent[std::max(a, b)] = std::min(a, b);
  };
  // The operands in a fixed order: the entry operands, then each region's
  // terminators.
  SmallVector<OpOperand *> operands;
  for (auto &[operand, reached] : mapping)
    operands.push_back(operand);
  auto orderOf = [&](OpOperand *operand) {
    Operation *owner = operand->getOwner();
    if (owner == op.getOperation())
      return std::make_tuple(0u, 0u, operand->getOperandNumber());
    return std::make_tuple(1u + owner->getParentRegion()->getRegionNumber(), 0u,
                           operand->getOperandNumber());
  };
  llvm::sort(operands, [&](OpOperand *a, OpOperand *b) {
    return orderOf(a) < orderOf(b);
  });
  for (OpOperand *operand : operands) {
    ArrayRef<Value> reached = mapping[operand];
    for (Value input : reached)
      if (numbers.count(input))
        unite(numberOf(reached.front()), numberOf(input));
  }

  // Groups without a result join the result at the same position.
  auto hasResult = [&](unsigned root) {
    for (OpResult result : op->getResults())
      if (find(numbers[result]) == root)
        return true;
    return false;
  };
  for (Region &region : op->getRegions()) {
    if (region.empty() ||
        region.front().getNumArguments() != op->getNumResults())
      continue;
    for (BlockArgument arg : region.front().getArguments()) {
      unsigned root = find(numbers[arg]);
      OpResult result = op->getResult(arg.getArgNumber());
      if (!hasResult(root) && arg.getType() == result.getType())
        unite(root, numbers[result]);
    }
  }

  for (OpResult result : op->getResults()) {
    if (!isa<RankedTensorType>(result.getType()))
      continue;
    unsigned root = find(numbers[result]);
    // The lowest-numbered result of the group owns it.
    bool owns = true;
    for (OpResult other : op->getResults())
      if (other.getResultNumber() < result.getResultNumber() &&
          find(numbers[other]) == root)
        owns = false;
    if (!owns)
      continue;
    DataFlowEdge edge;
    edge.owner = result;
    for (Value input : inputs)
      if (find(numbers[input]) == root)
        edge.targets.push_back(input);
    for (OpOperand *operand : operands) {
      ArrayRef<Value> reached = mapping[operand];
      if (llvm::any_of(reached, [&](Value input) {
            return numbers.count(input) && find(numbers[input]) == root;
          })) {
        edge.sources.push_back(operand->get());
        edge.sourceOperands.push_back(operand);
      }
    }
    // A result nothing flows into (scf.forall's, which parallel inserts
    // build) is not a data flow: the op has no edges.
    if (edge.sources.empty())
      return {};
    edges.push_back(std::move(edge));
  }
  return edges;
}

llvm::SmallVector<DataFlowEdge>
mlir::tessera::spmd::getDataFlowEdges(Operation *op) {
  if (auto branch = dyn_cast<RegionBranchOpInterface>(op))
    return computeEdges(branch);
  return {};
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
       llvm::zip_equal(call.getArgOperandsMutable(), entry.getArguments()))
    if (isa<RankedTensorType>(arg.getType()))
      edges.push_back(DataFlowEdge{arg, {operand.get()}, {arg}, {&operand}});
  // The returned values: the operands of the body's return op(s).
  SmallVector<Operation *> returns;
  for (Block &block : func.getFunctionBody())
    if (!block.empty() && block.back().hasTrait<OpTrait::ReturnLike>())
      returns.push_back(&block.back());
  for (OpResult result : call->getResults()) {
    if (!isa<RankedTensorType>(result.getType()))
      continue;
    DataFlowEdge edge{result, {}, {result}, {}};
    for (Operation *ret : returns)
      if (result.getResultNumber() < ret->getNumOperands()) {
        OpOperand &operand = ret->getOpOperand(result.getResultNumber());
        edge.sources.push_back(operand.get());
        edge.sourceOperands.push_back(&operand);
      }
    edges.push_back(std::move(edge));
  }
  return edges;
}

/// The region-branching op whose edges `value` may take part in as a
/// target: the op defining a result, or the parent of a block argument.
static RegionBranchOpInterface getTargetOwner(Value value) {
  if (auto result = dyn_cast<OpResult>(value))
    return dyn_cast<RegionBranchOpInterface>(result.getOwner());
  return dyn_cast_or_null<RegionBranchOpInterface>(
      cast<BlockArgument>(value).getOwner()->getParentOp());
}

std::optional<DataFlowEdge> mlir::tessera::spmd::getDataFlowEdge(Value value) {
  // A target: a result, or a block argument.
  if (RegionBranchOpInterface op = getTargetOwner(value))
    for (DataFlowEdge &edge : computeEdges(op))
      if (llvm::is_contained(edge.targets, value))
        return std::move(edge);
  // A source: an operand the op or one of its regions' terminators forwards.
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    auto op = dyn_cast<RegionBranchOpInterface>(user);
    if (!op && isa<RegionBranchTerminatorOpInterface>(user))
      op = dyn_cast_or_null<RegionBranchOpInterface>(user->getParentOp());
    if (!op)
      continue;
    for (DataFlowEdge &edge : computeEdges(op))
      if (llvm::is_contained(edge.sourceOperands, &use))
        return std::move(edge);
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Owners and setting shardings
//===----------------------------------------------------------------------===//

Value mlir::tessera::spmd::getShardingOwner(Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg || !isa<RankedTensorType>(arg.getType()))
    return value;
  if (RegionBranchOpInterface op = getTargetOwner(arg))
    for (const DataFlowEdge &edge : computeEdges(op))
      if (llvm::is_contained(edge.targets, value))
        return edge.owner;
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
      unreduced.empty() ? ReductionKind::Sum : global.getUnreducedKind(),
      llvm::to_vector(
          llvm::make_filter_range(global.getReducedAxes(), isFree)));
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
          global.getUnreducedAxes(), global.getUnreducedKind(),
          global.getReducedAxes());
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
