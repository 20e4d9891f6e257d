//===- SpmdUtils.cpp - queries over shardings in the IR -------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

/// Entry `index` of a per-value sharding attribute or, for a single-result
/// op, a plain sharding.
static TensorShardingAttr getEntry(Attribute attr, unsigned index) {
  if (auto perValue = dyn_cast_or_null<TensorShardingPerValueAttr>(attr)) {
    if (index < perValue.getShardings().size())
      return perValue.getShardings()[index];
    return {};
  }
  if (auto single = dyn_cast_or_null<TensorShardingAttr>(attr))
    return index == 0 ? single : TensorShardingAttr();
  return {};
}

TensorShardingAttr mlir::tessera::spmd::getSharding(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    Operation *parent = arg.getOwner()->getParentOp();
    auto func = dyn_cast_or_null<FunctionOpInterface>(parent);
    if (!func || arg.getOwner() != &func.getFunctionBody().front())
      return {};
    return dyn_cast_or_null<TensorShardingAttr>(
        func.getArgAttr(arg.getArgNumber(), SpmdDialect::kShardingAttrName));
  }
  auto result = cast<OpResult>(value);
  Operation *op = result.getOwner();
  unsigned index = result.getResultNumber();
  if (auto carrier = dyn_cast<ResultShardingOpInterface>(op))
    return carrier.getResultSharding(index);
  if (TensorShardingAttr sharding =
          getEntry(op->getAttr(SpmdDialect::kShardingAttrName), index))
    return sharding;
  return getEntry(op->getAttr(SpmdDialect::kOutShardingAttrName), index);
}

TensorShardingAttr mlir::tessera::spmd::getFuncResultSharding(Operation *op,
                                                              unsigned index) {
  auto func = dyn_cast_or_null<FunctionOpInterface>(op);
  if (!func || index >= func.getNumResults())
    return {};
  return dyn_cast_or_null<TensorShardingAttr>(
      func.getResultAttr(index, SpmdDialect::kShardingAttrName));
}

MeshAttr mlir::tessera::spmd::getMesh(TensorShardingAttr sharding,
                                      Value value) {
  if (!sharding)
    return {};
  Operation *anchor = value.getDefiningOp();
  if (!anchor)
    anchor = cast<BlockArgument>(value).getOwner()->getParentOp();
  return sharding.getMesh(anchor);
}
