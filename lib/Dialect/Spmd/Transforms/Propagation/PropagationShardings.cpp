//===- PropagationShardings.cpp - where shardings are stored ----*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The shardings spmd-propagate reads and writes where the IR stores them: a
// value's (its op's `spmd.sharding`, a constraint's or barrier's own), a
// function result's attribute, a manual computation's in_shardings and
// out_shardings (global view stored, local view seen); and every stored
// sharding of the module at once, for the rounds of user priorities.
//
//===----------------------------------------------------------------------===//

#include "Propagation.h"

#include "tessera/Dialect/Spmd/IR/SpmdDialect.h"
#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"

namespace mlir::tessera::spmd::detail {

bool setSlotSharding(const Slot &slot, TensorShardingAttr sharding) {
  MLIRContext *ctx = sharding.getContext();
  if (slot.func) {
    slot.func.setResultAttr(slot.index, SpmdDialect::kShardingAttrName,
                            sharding);
    return true;
  }
  if (slot.manual && slot.isInput) {
    SmallVector<TensorShardingAttr> ins(
        slot.manual.getInShardings().getShardings());
    ins[slot.index] = sharding;
    slot.manual.setInShardingsAttr(TensorShardingPerValueAttr::get(ctx, ins));
    return true;
  }
  if (slot.manual) {
    // Local view in, global view stored: the manual axes stay major.
    ManualComputationOp manual = slot.manual;
    TensorShardingAttr global = manual.getOutSharding(slot.index);
    SmallVector<DimensionShardingAttr> dims;
    for (auto [oldDim, newDim] : llvm::zip_equal(global.getDimShardings(),
                                                 sharding.getDimShardings())) {
      SmallVector<AxisRefAttr> axes;
      for (AxisRefAttr ref : oldDim.getAxes())
        if (manual.isManualAxis(ref.getName()))
          axes.push_back(ref);
      llvm::append_range(axes, newDim.getAxes());
      dims.push_back(
          DimensionShardingAttr::get(ctx, axes, newDim.getIsClosed()));
    }
    SmallVector<TensorShardingAttr> outs(
        manual.getOutShardings().getShardings());
    outs[slot.index] = TensorShardingAttr::get(
        ctx, global.getMeshOrRef(), dims, global.getReplicatedAxes(),
        global.getUnreducedAxes(), global.getUnreducedKind(),
        global.getReducedAxes());
    manual.setOutShardingsAttr(TensorShardingPerValueAttr::get(ctx, outs));
    return true;
  }
  Value value = slot.value;
  if (auto result = dyn_cast<OpResult>(value)) {
    Operation *op = result.getOwner();
    if (auto constraint = dyn_cast<ShardingConstraintOp>(op)) {
      constraint.setShardingAttr(sharding);
      return true;
    }
    if (isa<PropagationBarrierOp>(op)) {
      op->setAttr(SpmdDialect::kShardingAttrName,
                  TensorShardingPerValueAttr::get(ctx, {sharding}));
      return true;
    }
    if (auto manual = dyn_cast<ManualComputationOp>(op)) {
      SmallVector<TensorShardingAttr> outs(
          manual.getOutShardings().getShardings());
      outs[result.getResultNumber()] = sharding;
      manual.setOutShardingsAttr(TensorShardingPerValueAttr::get(ctx, outs));
      return true;
    }
  }
  // A result the user gave an `spmd.out_sharding` (JAX's out_sharding=)
  // keeps it: propagation reads it but never writes another sharding there.
  if (auto result = dyn_cast<OpResult>(value))
    if (hasOutSharding(result))
      return false;
  return succeeded(setSharding(value, sharding));
}

void transformShardings(
    ArrayRef<Operation *> holders,
    function_ref<TensorShardingAttr(TensorShardingAttr, Operation *, unsigned)>
        fn) {
  if (holders.empty())
    return;
  // Positions: arguments/in_shardings/results from 0, function results and
  // out_shardings from kSecond.
  constexpr unsigned kSecond = 1u << 30;
  MLIRContext *ctx = holders.front()->getContext();
  // (Only what changed is written back.)
  auto perValue = [&](TensorShardingPerValueAttr attr, Operation *op,
                      unsigned base) {
    SmallVector<TensorShardingAttr> shardings;
    for (auto [i, s] : llvm::enumerate(attr.getShardings()))
      shardings.push_back(s ? fn(s, op, base + i) : s);
    if (ArrayRef(shardings) == attr.getShardings())
      return attr;
    return TensorShardingPerValueAttr::get(ctx, shardings);
  };
  for (Operation *op : holders) {
    if (auto func = dyn_cast<FunctionOpInterface>(op)) {
      for (unsigned i = 0; i < func.getNumArguments(); ++i)
        if (auto s = dyn_cast_or_null<TensorShardingAttr>(
                func.getArgAttr(i, SpmdDialect::kShardingAttrName)))
          if (TensorShardingAttr t = fn(s, op, i); t != s)
            func.setArgAttr(i, SpmdDialect::kShardingAttrName, t);
      for (unsigned i = 0; i < func.getNumResults(); ++i)
        if (auto s = dyn_cast_or_null<TensorShardingAttr>(
                func.getResultAttr(i, SpmdDialect::kShardingAttrName)))
          if (TensorShardingAttr t = fn(s, op, kSecond + i); t != s)
            func.setResultAttr(i, SpmdDialect::kShardingAttrName, t);
      continue;
    }
    if (auto constraint = dyn_cast<ShardingConstraintOp>(op)) {
      if (TensorShardingAttr t = fn(constraint.getSharding(), op, 0);
          t != constraint.getSharding())
        constraint.setShardingAttr(t);
      continue;
    }
    if (auto manual = dyn_cast<ManualComputationOp>(op)) {
      if (auto ins = perValue(manual.getInShardings(), op, 0);
          ins != manual.getInShardings())
        manual.setInShardingsAttr(ins);
      if (auto outs = perValue(manual.getOutShardings(), op, kSecond);
          outs != manual.getOutShardings())
        manual.setOutShardingsAttr(outs);
      continue;
    }
    if (auto attr = op->getAttrOfType<TensorShardingPerValueAttr>(
            SpmdDialect::kShardingAttrName))
      if (auto updated = perValue(attr, op, 0); updated != attr)
        op->setAttr(SpmdDialect::kShardingAttrName, updated);
  }
}

DimensionShardingAttr dropPriority(DimensionShardingAttr dim) {
  return DimensionShardingAttr::get(dim.getContext(), dim.getAxes(),
                                    dim.getIsClosed());
}

} // namespace mlir::tessera::spmd::detail
