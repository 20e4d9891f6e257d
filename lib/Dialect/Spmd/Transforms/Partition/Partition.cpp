//===- Partition.cpp - the per-device program -------------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// After spmd-insert-reshards and spmd-reshard-to-collectives every op's
// operands and results agree on one factor sharding, so each op computes its
// local block from local blocks: the pass gives every value its local type
// (in place), turns the global-view collectives into `comm` ones, fixes the
// few ops whose attributes spell shapes or global positions, inlines manual
// computations, and records each function's global interface.
//
// Inside a manual computation a value's type is already divided by the
// manual axes and its sharding names only the free axes, so "type divided by
// the axes of its sharding" is the local type everywhere.
//
// This file holds the driver and the pass; PartitionCollectives.cpp lowers
// the collectives and PartitionLocalOps.cpp fixes the ops that spell shapes
// or global positions.
//
//===----------------------------------------------------------------------===//

#include "Partitioner.h"

#include "tessera/Dialect/Comm/IR/CommOps.h"
#include "tessera/Dialect/Spmd/Transforms/Passes.h"
#include "tessera/Dialect/Spmd/Transforms/TensorWalk.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::tessera::spmd {
#define GEN_PASS_DEF_SPMDPARTITIONPASS
#include "tessera/Dialect/Spmd/Transforms/Passes.h.inc"

namespace detail {

static constexpr StringLiteral kPerDeviceAttrName = "tessera.per_device";
static constexpr StringLiteral kGlobalTypeAttrName = "spmd.global_type";
static constexpr StringLiteral kGlobalShardingAttrName = "spmd.global_sharding";

/// The global-view collectives spmd-partition lowers to comm ops.
static bool isGlobalCollective(Operation *op) {
  return isa<AllGatherOp, AllSliceOp, AllToAllOp, CollectivePermuteOp,
             AllReduceOp, ReduceScatterOp, ShardedToUnreducedOp,
             ReplicatedToUnreducedOp>(op);
}

int64_t productOf(ArrayRef<AxisRefAttr> axes, MeshAttr mesh) {
  int64_t size = 1;
  for (AxisRefAttr axis : axes)
    size *= axis.getSize(mesh);
  return size;
}

FailureOr<std::pair<FlatSymbolRefAttr, MeshAttr>>
Partitioner::resolve(TensorShardingAttr sharding, Operation *op) {
  FlatSymbolRefAttr ref = sharding.getMeshSymName();
  if (!ref)
    return op->emitOpError("has a sharding with an inlined mesh; run "
                           "spmd-lift-inlined-meshes first");
  MeshAttr mesh = meshes.get(sharding, op);
  if (!mesh)
    return op->emitOpError("has a sharding whose mesh ")
           << ref << " cannot be resolved";
  return std::make_pair(ref, mesh);
}

FailureOr<Type> Partitioner::getLocalType(Type type,
                                          TensorShardingAttr sharding,
                                          Operation *op, StringRef what,
                                          bool *padded) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !sharding)
    return type;
  auto resolved = resolve(sharding, op);
  if (failed(resolved))
    return failure();
  MeshAttr mesh = resolved->second;
  if (sharding.getRank() != tensor.getRank())
    return op->emitOpError()
           << what << " has a sharding of rank " << sharding.getRank()
           << " for a tensor of rank " << tensor.getRank();
  SmallVector<int64_t> shape(tensor.getShape());
  for (int64_t d = 0; d < tensor.getRank(); ++d) {
    int64_t parts = productOf(sharding.getDimSharding(d).getAxes(), mesh);
    if (parts == 1)
      continue;
    // A dynamic dimension stays dynamic: its local size is known when the
    // program runs (the runtime checks that it divides).
    if (ShapedType::isDynamic(shape[d]))
      continue;
    // A dimension the axes do not divide is padded at the end: every
    // device holds ceil(n / parts) elements, the last ones past n unused.
    if (padded && shape[d] % parts != 0)
      *padded = true;
    shape[d] = llvm::divideCeil(shape[d], parts);
  }
  return tensor.clone(shape);
}

LogicalResult
Partitioner::inlineManualComputations(ArrayRef<ManualComputationOp> manuals,
                                      ArrayRef<Operation *> collectives) {
  if (manuals.empty())
    return success();
  // Collectives inside bodies read their input sharding from the global
  // view; pin it before the bodies' arguments disappear.
  for (Operation *op : collectives) {
    if (op->getAttr("in_sharding"))
      continue;
    if (TensorShardingAttr sharding = getSharding(op->getOperand(0)))
      op->setAttr("in_sharding", sharding);
  }
  for (ManualComputationOp manual : manuals) {
    Block &body = manual.getBody().front();
    Operation *terminator = body.getTerminator();
    SmallVector<Value> results;
    for (Value value : terminator->getOperands()) {
      auto arg = dyn_cast<BlockArgument>(value);
      results.push_back(arg && arg.getOwner() == &body
                            ? manual->getOperand(arg.getArgNumber())
                            : value);
    }
    rewriter.eraseOp(terminator);
    rewriter.inlineBlockBefore(&body, manual, manual->getOperands());
    // Users of the results read the global sharding from the collectives'
    // pinned in_sharding; keep the value's own (local-view) sharding.
    rewriter.replaceOp(manual, results);
  }
  return success();
}

LogicalResult
Partitioner::materializeConstants(ArrayRef<arith::ConstantOp> constants,
                                  bool &changed) {
  for (arith::ConstantOp op : constants) {
    TensorShardingAttr sharding = getSharding(op.getResult());
    auto attr = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!sharding || !attr || attr.isSplat())
      continue;
    auto resolved = resolve(sharding, op);
    if (failed(resolved))
      return failure();
    auto local = getLocalType(op.getType(), sharding, op, "result");
    if (failed(local))
      return failure();
    if (*local == op.getType())
      continue;
    // The whole constant, and each device's block of it.
    changed = true;
    op->removeAttr(SpmdDialect::kShardingAttrName);
    rewriter.setInsertionPointAfter(op);
    SmallVector<OpOperand *> uses(llvm::make_pointer_range(op->getUses()));
    // Dimensions the axes do not divide are padded and sliced one by one.
    auto type = cast<RankedTensorType>(op.getType());
    Value block = op.getResult();
    SmallVector<SmallVector<AxisRefAttr>> axes;
    for (auto [d, dim] : llvm::enumerate(sharding.getDimShardings())) {
      axes.emplace_back(dim.getAxes());
      if (type.getDimSize(d) % productOf(dim.getAxes(), resolved->second) == 0)
        continue;
      block = sliceWhole(op.getLoc(), block, d, type.getDimSize(d),
                         dim.getAxes(), resolved->first, resolved->second);
      axes.back().clear();
    }
    block =
        sliceLocal(op.getLoc(), block, resolved->first, resolved->second, axes);
    for (OpOperand *use : uses)
      use->set(block);
  }
  return success();
}

LogicalResult Partitioner::retype(func::FuncOp func,
                                  ArrayRef<Operation *> ops) {
  // Each value is visited once. The results of ops without regions are
  // retyped at once; block arguments and the results of region ops wait
  // until all are visited (the data-flow edges of control flow, which give
  // block arguments their shardings, compare the types of its values).
  struct Update {
    Value value;
    Type local;
  };
  SmallVector<Update> deferred;
  // The local type of each (global type, sharding) pair, and whether it is
  // padded: a large function has few distinct pairs. (All values of `func`
  // resolve their meshes in the same symbol table.)
  struct Local {
    Type type;
    bool padded;
  };
  DenseMap<std::pair<Type, Attribute>, Local> locals;
  auto visit = [&](Value value, Operation *anchor, StringRef what) {
    TensorShardingAttr sharding = getSharding(value);
    if (!sharding)
      return success();
    Type global = value.getType();
    auto [it, inserted] = locals.try_emplace({global, sharding});
    if (inserted) {
      bool padded = false;
      auto local = getLocalType(global, sharding, anchor, what, &padded);
      if (failed(local))
        return failure();
      it->second = {*local, padded};
    }
    auto [local, padded] = it->second;
    if (local == global)
      return success();
    if (padded || (isa<OpResult>(value) && isGlobalCollective(anchor)))
      globals.try_emplace(value, GlobalView{global, sharding, padded});
    anyPadded |= padded;
    if (isa<BlockArgument>(value) || anchor->getNumRegions() != 0)
      deferred.push_back({value, local});
    else
      value.setType(local);
    return success();
  };
  for (BlockArgument arg : func.getArguments())
    if (failed(visit(arg, func, "argument")))
      return failure();
  for (auto [i, op] : llvm::enumerate(ops)) {
    if (i + 2 < ops.size())
      prefetchOp(ops[i + 2]);
    for (OpResult result : op->getResults())
      if (failed(visit(result, op, "result")))
        return failure();
    if (op->getNumRegions() == 0 || isa<linalg::LinalgOp>(op))
      continue;
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (failed(visit(arg, op, "region argument")))
            return failure();
  }
  for (Update &update : deferred)
    update.value.setType(update.local);
  return success();
}

void Partitioner::stripShardings(func::FuncOp func) {
  auto strip = [&](ArrayRef<DictionaryAttr> old) {
    SmallVector<DictionaryAttr> dicts;
    for (DictionaryAttr dict : old) {
      NamedAttrList attrs(dict ? dict : DictionaryAttr::get(ctx));
      attrs.erase(SpmdDialect::kShardingAttrName);
      dicts.push_back(attrs.getDictionary(ctx));
    }
    return dicts;
  };
  SmallVector<DictionaryAttr> args, results;
  func.getAllArgAttrs(args);
  func.getAllResultAttrs(results);
  func.setAllArgAttrs(strip(args));
  func.setAllResultAttrs(strip(results));
}

void Partitioner::recordInterface(func::FuncOp func,
                                  ArrayRef<TensorShardingAttr> argShardings,
                                  ArrayRef<TensorShardingAttr> resultShardings,
                                  ArrayRef<Type> argTypes,
                                  ArrayRef<Type> resultTypes) {
  // A replicated sharding stands for an unannotated tensor.
  Attribute meshRef;
  for (TensorShardingAttr sharding : argShardings)
    if (sharding && !meshRef)
      meshRef = sharding.getMeshOrRef();
  for (TensorShardingAttr sharding : resultShardings)
    if (sharding && !meshRef)
      meshRef = sharding.getMeshOrRef();
  if (!meshRef)
    return stripShardings(func);
  auto complete = [&](ArrayRef<TensorShardingAttr> shardings,
                      ArrayRef<Type> types) {
    SmallVector<TensorShardingAttr> all;
    for (auto [sharding, type] : llvm::zip(shardings, types)) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      all.push_back(
          sharding ? sharding
                   : TensorShardingAttr::getReplicated(
                         ctx, meshRef, tensor ? tensor.getRank() : 0, true));
    }
    return TensorShardingPerValueAttr::get(ctx, all);
  };
  func->setAttr(kPerDeviceAttrName,
                ArrayAttr::get(ctx, {complete(argShardings, argTypes),
                                     complete(resultShardings, resultTypes)}));
  // One update of each attribute array (per-argument updates would rebuild
  // the array once per argument).
  // Many arguments have the same attributes, type and sharding: each new
  // dictionary is built once.
  DenseMap<std::tuple<Attribute, Type, Attribute>, DictionaryAttr> rebuilt;
  auto rebuild = [&](ArrayRef<DictionaryAttr> old, ArrayRef<Type> types,
                     ArrayRef<TensorShardingAttr> shardings) {
    SmallVector<DictionaryAttr> dicts;
    for (auto [i, type] : llvm::enumerate(types)) {
      DictionaryAttr before =
          i < old.size() && old[i] ? old[i] : DictionaryAttr::get(ctx);
      auto [it, inserted] =
          rebuilt.try_emplace(std::make_tuple(before, type, shardings[i]));
      if (inserted) {
        NamedAttrList attrs(before);
        attrs.erase(SpmdDialect::kShardingAttrName);
        attrs.set(kGlobalTypeAttrName, TypeAttr::get(type));
        if (shardings[i])
          attrs.set(kGlobalShardingAttrName, shardings[i]);
        it->second = attrs.getDictionary(ctx);
      }
      dicts.push_back(it->second);
    }
    return dicts;
  };
  SmallVector<DictionaryAttr> oldArgs, oldResults;
  func.getAllArgAttrs(oldArgs);
  func.getAllResultAttrs(oldResults);
  func.setAllArgAttrs(rebuild(oldArgs, argTypes, argShardings));
  func.setAllResultAttrs(rebuild(oldResults, resultTypes, resultShardings));
}

LogicalResult Partitioner::run() {
  // Only func.func bodies are partitioned: sharded code anywhere else would
  // stay global.
  for (Operation &top : module.getBody()->getOperations()) {
    if (isa<func::FuncOp, MeshOp>(top))
      continue;
    WalkResult outside = top.walk([&](Operation *op) {
      if (isa<MeshOp>(op) || (!isa_and_nonnull<SpmdDialect>(op->getDialect()) &&
                              !op->hasAttr(SpmdDialect::kShardingAttrName)))
        return WalkResult::advance();
      op->emitOpError("is outside a func.func: spmd-partition partitions "
                      "func.func bodies only");
      return WalkResult::interrupt();
    });
    if (outside.wasInterrupted())
      return failure();
  }
  SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
  for (func::FuncOp func : funcs) {
    if (func.isExternal())
      continue;
    // The global interface, before anything changes.
    SmallVector<TensorShardingAttr> argShardings, resultShardings;
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      argShardings.push_back(getSharding(func.getArgument(i)));
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      resultShardings.push_back(getFuncResultSharding(func, i));
    SmallVector<Type> argTypes(func.getArgumentTypes());
    SmallVector<Type> resultTypes(func.getResultTypes());

    // The ops the steps before retyping need, in one walk.
    SmallVector<ManualComputationOp> manuals;
    SmallVector<arith::ConstantOp> constants;
    SmallVector<Operation *> collectives;
    // Every op of the function outside linalg bodies, in pre-order.
    SmallVector<Operation *> ops;
    WalkResult leftovers =
        walkTensorOps(func, WalkOrder::PreOrder, [&](Operation *op) {
          ops.push_back(op);
          // Everything must have been resharded and lowered to
          // collectives.
          if (isa<ReshardOp, ShardingConstraintOp, PropagationBarrierOp>(op)) {
            op->emitOpError("must be removed before spmd-partition (run "
                            "spmd-insert-reshards and "
                            "spmd-reshard-to-collectives first)");
            return WalkResult::interrupt();
          }
          if (isa<AutoAxesOp, ExplicitAxesOp>(op)) {
            op->emitOpError("is not supported by spmd-partition");
            return WalkResult::interrupt();
          }
          if (auto manual = dyn_cast<ManualComputationOp>(op))
            manuals.push_back(manual);
          else if (auto constant = dyn_cast<arith::ConstantOp>(op))
            constants.push_back(constant);
          else if (isGlobalCollective(op))
            collectives.push_back(op);
          return WalkResult::advance();
        });
    if (leftovers.wasInterrupted())
      return failure();
    if (failed(inlineManualComputations(manuals, collectives)))
      return failure();
    // Manual computations (parents of resolved ops) are gone.
    meshes.clear();
    bool changed = !manuals.empty();
    if (failed(materializeConstants(constants, changed)))
      return failure();
    if (changed) {
      ops.clear();
      walkTensorOps(func, WalkOrder::PreOrder, [&](Operation *op) {
        ops.push_back(op);
        return WalkResult::advance();
      });
    }
    if (failed(retype(func, ops)))
      return failure();
    // The ops that stay (lowered collectives are replaced) are moved to the
    // front of `ops`. (Processing an op erases no other op.)
    size_t numKept = 0;
    for (size_t i = 0, e = ops.size(); i < e; ++i) {
      Operation *op = ops[i];
      if (i + 4 < e)
        prefetchOp(ops[i + 4]);
      if (isGlobalCollective(op)) {
        if (failed(lowerCollective(op)))
          return failure();
        continue;
      }
      ops[numKept++] = op;
      if (failed(fixShapeOps(op)))
        return failure();
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
        if (failed(fixLinalgIndices(linalgOp)) ||
            failed(cutPaddedReductions(linalgOp)))
          return failure();
    }
    recordInterface(func, argShardings, resultShardings, argTypes, resultTypes);
    func.setFunctionType(FunctionType::get(
        ctx, func.getBody().front().getArgumentTypes(),
        func.getBody().front().getTerminator()->getOperandTypes()));
    // The function is local now: the shardings that described the global
    // view go (the function keeps its own as spmd.global_sharding).
    for (size_t i = 0; i < numKept; ++i) {
      if (i + 2 < numKept)
        prefetchOp(ops[i + 2]);
      stripGlobalView(ops[i]);
    }
  }
  // Other ops outside these functions, and external functions.
  for (Operation &op : module.getOps()) {
    auto func = dyn_cast<func::FuncOp>(op);
    if (func && !func.isExternal())
      continue;
    walkTensorOps(&op, WalkOrder::PostOrder, [&](Operation *nested) {
      stripGlobalView(nested);
      return WalkResult::advance();
    });
    stripGlobalView(&op);
    if (func)
      stripShardings(func);
  }
  return success();
}

} // namespace detail

namespace {

struct SpmdPartitionPass
    : public impl::SpmdPartitionPassBase<SpmdPartitionPass> {
  void runOnOperation() override {
    detail::Partitioner partitioner(getOperation());
    if (failed(partitioner.run()))
      signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tessera::spmd
