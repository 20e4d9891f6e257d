//===- LowerReplicated.cpp - global view run replicated on every device ---===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The per-device program of a global-view module in which every device
// computes every global-view value in full (everything outside manual
// computations is replicated) and the bodies of `spmd.manual_computation`
// run per device:
//
// - each operand of a manual computation is sliced to the device's local
//   block: dimension `d` sharded by manual axes `a1..ak` is cut at offset
//   `axis_index({a1..ak}) * localSize(d)`;
// - the body is inlined with those slices as its arguments;
// - each returned local value becomes the global result: dimensions sharded
//   by manual axes are all-gathered over them, and manual axes listed as
//   `unreduced` are all-reduced with the sharding's reduction kind.
//   Dimensions replicated over a manual axis take the device's own value,
//   which shard_map requires to be the same on every device of that axis.
//
// Sharding annotations, sharding constraints, reshards, the global-view
// collectives, propagation barriers and sharding groups only describe where
// data lives; with every value whole they are identities and are removed,
// as are the `spmd.auto_axes` / `spmd.explicit_axes` regions (inlined). The
// `spmd.mesh` symbols stay: the `comm` ops name them.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Comm/IR/CommOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::tessera::spmd {
#define GEN_PASS_DEF_SPMDLOWERREPLICATEDPASS
#include "tessera/Dialect/Spmd/Transforms/Passes.h.inc"

namespace {

/// The leading axes of `dim` that are manual axes of `manual`.
SmallVector<AxisRefAttr> manualPrefix(DimensionShardingAttr dim,
                                      ManualAxesAttr manual) {
  SmallVector<AxisRefAttr> axes;
  for (AxisRefAttr axis : dim.getAxes()) {
    if (!manual.contains(axis.getName()))
      break;
    axes.push_back(axis);
  }
  return axes;
}

/// The product of the sizes of `axes` in `mesh`.
int64_t groupSize(ArrayRef<AxisRefAttr> axes, MeshAttr mesh) {
  int64_t size = 1;
  for (AxisRefAttr axis : axes)
    size *= axis.getSize(mesh);
  return size;
}

/// The device's local block of `global` under `sharding`, restricted to
/// the manual axes.
Value sliceToLocal(OpBuilder &builder, Location loc, Value global,
                   TensorShardingAttr sharding, ManualAxesAttr manual,
                   MeshAttr mesh, RankedTensorType localType) {
  auto globalType = cast<RankedTensorType>(global.getType());
  int64_t rank = globalType.getRank();
  SmallVector<OpFoldResult> offsets, sizes, strides;
  FlatSymbolRefAttr meshRef = sharding.getMeshSymName();
  bool cut = false;
  for (int64_t d = 0; d < rank && d < sharding.getRank(); ++d)
    cut |= !manualPrefix(sharding.getDimSharding(d), manual).empty();
  if (!cut)
    return global;
  for (int64_t d = 0; d < rank; ++d) {
    strides.push_back(builder.getIndexAttr(1));
    SmallVector<AxisRefAttr> axes;
    if (sharding && d < sharding.getRank())
      axes = manualPrefix(sharding.getDimSharding(d), manual);
    OpFoldResult size;
    if (localType.isDynamicDim(d)) {
      Value whole = tensor::DimOp::create(builder, loc, global, d);
      Value parts =
          arith::ConstantIndexOp::create(builder, loc, groupSize(axes, mesh));
      size = arith::DivUIOp::create(builder, loc, whole, parts).getResult();
    } else {
      size = builder.getIndexAttr(localType.getDimSize(d));
    }
    sizes.push_back(size);
    if (axes.empty()) {
      offsets.push_back(builder.getIndexAttr(0));
      continue;
    }
    Value index = comm::AxisIndexOp::create(
        builder, loc, builder.getIndexType(), meshRef, axes);
    Value sizeValue = getValueOrCreateConstantIndexOp(builder, loc, size);
    offsets.push_back(
        arith::MulIOp::create(builder, loc, index, sizeValue).getResult());
  }
  return tensor::ExtractSliceOp::create(builder, loc, localType, global,
                                        offsets, sizes, strides);
}

/// The global value of a manual computation's result from each device's
/// `local` block.
Value gatherToGlobal(OpBuilder &builder, Location loc, Value local,
                     TensorShardingAttr sharding, ManualAxesAttr manual,
                     MeshAttr mesh) {
  auto type = cast<RankedTensorType>(local.getType());
  FlatSymbolRefAttr meshRef = sharding.getMeshSymName();
  Value value = local;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    SmallVector<AxisRefAttr> axes =
        manualPrefix(sharding.getDimSharding(d), manual);
    if (axes.empty())
      continue;
    auto current = cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> shape(current.getShape());
    if (!ShapedType::isDynamic(shape[d]))
      shape[d] *= groupSize(axes, mesh);
    auto resultType = current.clone(shape);
    value = comm::AllGatherOp::create(builder, loc, resultType, value, meshRef,
                                      axes, d);
  }
  SmallVector<AxisRefAttr> unreduced;
  for (AxisRefAttr axis : sharding.getUnreducedAxes())
    if (manual.contains(axis.getName()))
      unreduced.push_back(axis);
  if (!unreduced.empty()) {
    comm::ReductionKind kind = comm::ReductionKind::Sum;
    switch (sharding.getUnreducedKind()) {
    case ReductionKind::Sum:
      kind = comm::ReductionKind::Sum;
      break;
    case ReductionKind::Max:
      kind = comm::ReductionKind::Max;
      break;
    case ReductionKind::Min:
      kind = comm::ReductionKind::Min;
      break;
    }
    value = comm::AllReduceOp::create(builder, loc, value, kind, meshRef,
                                      unreduced);
  }
  return value;
}

/// Inlines the single block of `op`'s region before `op`, with its
/// arguments replaced by `args`; returns the values of its terminator and
/// erases the terminator.
SmallVector<Value> inlineBody(RewriterBase &rewriter, Operation *op,
                              Region &region, ValueRange args) {
  Block &body = region.front();
  Operation *terminator = body.getTerminator();
  SmallVector<Value> results;
  for (Value value : terminator->getOperands()) {
    // A returned region argument becomes the value it is replaced by.
    auto arg = dyn_cast<BlockArgument>(value);
    results.push_back(arg && arg.getOwner() == &body ? args[arg.getArgNumber()]
                                                     : value);
  }
  rewriter.eraseOp(terminator);
  rewriter.inlineBlockBefore(&body, op, args);
  return results;
}

LogicalResult lowerManualComputation(RewriterBase &rewriter,
                                     ManualComputationOp op,
                                     SymbolTableCollection &symbols) {
  Location loc = op.getLoc();
  ManualAxesAttr manual = op.getManualAxes();
  rewriter.setInsertionPoint(op);
  SmallVector<Value> locals;
  Block &body = op.getBody().front();
  for (auto [index, operand] : llvm::enumerate(op.getTensors())) {
    TensorShardingAttr sharding = op.getInSharding(index);
    auto localType =
        dyn_cast<RankedTensorType>(body.getArgument(index).getType());
    if (!localType || !sharding) {
      locals.push_back(operand);
      continue;
    }
    MeshAttr mesh = sharding.getMesh(op, &symbols);
    if (!sharding.getMeshSymName() || !mesh)
      return op.emitOpError("has a sharding without a mesh symbol; run "
                            "spmd-lift-inlined-meshes first");
    locals.push_back(sliceToLocal(rewriter, loc, operand, sharding, manual,
                                  mesh, localType));
  }
  SmallVector<Value> returned = inlineBody(rewriter, op, op.getBody(), locals);
  SmallVector<Value> globals;
  for (auto [index, local] : llvm::enumerate(returned)) {
    TensorShardingAttr sharding = op.getOutSharding(index);
    if (!sharding || !isa<RankedTensorType>(local.getType())) {
      globals.push_back(local);
      continue;
    }
    MeshAttr mesh = sharding.getMesh(op, &symbols);
    if (!sharding.getMeshSymName() || !mesh)
      return op.emitOpError("has a sharding without a mesh symbol; run "
                            "spmd-lift-inlined-meshes first");
    globals.push_back(
        gatherToGlobal(rewriter, loc, local, sharding, manual, mesh));
  }
  rewriter.replaceOp(op, globals);
  return success();
}

/// The manual computation that is the whole body of `func`, if `func` can
/// become a per-device function (see the pass's `local-entry` option).
ManualComputationOp
getWholeBodyManualComputation(func::FuncOp func,
                              SymbolTableCollection &symbols) {
  if (func.isExternal() || !llvm::hasSingleElement(func.getBody()))
    return {};
  Block &block = func.getBody().front();
  if (block.getOperations().size() != 2)
    return {};
  auto manual = dyn_cast<ManualComputationOp>(block.front());
  auto ret = dyn_cast<func::ReturnOp>(block.back());
  if (!manual || !ret)
    return {};
  if (manual->getOperands() != ValueRange(block.getArguments()) ||
      ret.getOperands() != ValueRange(manual->getResults()))
    return {};
  MeshAttr mesh;
  SmallVector<TensorShardingAttr> shardings(
      manual.getInShardings().getShardings());
  llvm::append_range(shardings, manual.getOutShardings().getShardings());
  for (TensorShardingAttr sharding : shardings) {
    if (!sharding || !sharding.getMeshSymName())
      return {};
    MeshAttr current = sharding.getMesh(manual, &symbols);
    if (!current || (mesh && current != mesh))
      return {};
    mesh = current;
  }
  if (!mesh)
    return {};
  for (MeshAxisAttr axis : mesh.getAxes())
    if (!manual.getManualAxes().contains(axis.getName()))
      return {};
  for (TensorShardingAttr sharding : manual.getOutShardings().getShardings())
    if (!sharding.getUnreducedAxes().empty())
      return {};
  return manual;
}

/// Turns `func`, whose body is `manual`, into the per-device function: the
/// manual computation's body with its local types.
void makePerDeviceFunction(func::FuncOp func, ManualComputationOp manual) {
  Block &block = func.getBody().front();
  Block &body = manual.getBody().front();
  for (auto [arg, local] :
       llvm::zip(block.getArguments(), body.getArguments())) {
    arg.setType(local.getType());
    local.replaceAllUsesWith(arg);
  }
  // Record how the caller scatters and gathers.
  func->setAttr("tessera.per_device",
                ArrayAttr::get(func.getContext(), {manual.getInShardings(),
                                                   manual.getOutShardings()}));
  Operation *terminator = body.getTerminator();
  SmallVector<Value> results(terminator->getOperands());
  OpBuilder builder(manual);
  block.getOperations().splice(manual->getIterator(), body.getOperations(),
                               body.begin(), terminator->getIterator());
  terminator->erase();
  Operation *oldReturn = block.getTerminator();
  builder.setInsertionPoint(oldReturn);
  func::ReturnOp::create(builder, oldReturn->getLoc(), results);
  oldReturn->erase();
  manual->erase();
  func.setFunctionType(FunctionType::get(func.getContext(),
                                         block.getArgumentTypes(),
                                         ValueRange(results).getTypes()));
}

struct SpmdLowerReplicatedPass
    : public impl::SpmdLowerReplicatedPassBase<SpmdLowerReplicatedPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;
    IRRewriter rewriter(module.getContext());

    if (!localEntry.empty())
      if (auto func = module.lookupSymbol<func::FuncOp>(localEntry))
        if (ManualComputationOp manual =
                getWholeBodyManualComputation(func, symbols))
          makePerDeviceFunction(func, manual);

    // Manual computations, outermost first: an inner one is lowered after
    // its parent's body has been inlined into the device program.
    SmallVector<ManualComputationOp> worklist;
    module.walk<WalkOrder::PreOrder>(
        [&](ManualComputationOp op) { worklist.push_back(op); });
    for (ManualComputationOp op : worklist)
      if (failed(lowerManualComputation(rewriter, op, symbols)))
        return signalPassFailure();

    // Region ops that only switch axis types: inline their bodies.
    SmallVector<Operation *> regionOps;
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<AutoAxesOp, ExplicitAxesOp>(op))
        regionOps.push_back(op);
    });
    for (Operation *op : regionOps) {
      rewriter.setInsertionPoint(op);
      SmallVector<Value> results =
          inlineBody(rewriter, op, op->getRegion(0), op->getOperands());
      rewriter.replaceOp(op, results);
    }

    // Ops that only move data between shardings are identities here.
    SmallVector<Operation *> identities;
    module.walk([&](Operation *op) {
      if (isa<ShardingConstraintOp, ReshardOp, PropagationBarrierOp,
              AllGatherOp, AllSliceOp, AllToAllOp, CollectivePermuteOp,
              AllReduceOp, ReduceScatterOp, ShardedToUnreducedOp,
              ReplicatedToUnreducedOp, ShardingGroupOp>(op))
        identities.push_back(op);
    });
    for (Operation *op : identities) {
      if (op->getNumResults() == 0)
        rewriter.eraseOp(op);
      else
        rewriter.replaceOp(op, op->getOperand(0));
    }

    // Sharding annotations.
    StringRef shardingName = "spmd.sharding";
    module.walk([&](Operation *op) {
      op->removeAttr(shardingName);
      op->removeAttr("spmd.out_sharding");
      op->removeAttr("spmd.sharding_rule");
      op->removeAttr("spmd.sharding_origins");
      if (auto func = dyn_cast<FunctionOpInterface>(op)) {
        for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
          func.removeArgAttr(i, shardingName);
        for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
          func.removeResultAttr(
              i, StringAttr::get(op->getContext(), shardingName));
      }
    });
  }
};

} // namespace
} // namespace mlir::tessera::spmd
