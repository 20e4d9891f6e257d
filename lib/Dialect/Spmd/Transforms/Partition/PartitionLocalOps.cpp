//===- PartitionLocalOps.cpp - ops that spell global shapes -----*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The few ops spmd-partition fixes beyond retyping: those whose attributes
// spell shapes (splat constants, expand_shape's output shape, slice sizes),
// linalg ops that read global positions (linalg.index), and reductions over
// a dimension whose block is padded, which are cut to the valid part.
//
//===----------------------------------------------------------------------===//

#include "Partitioner.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::tessera::spmd::detail {

LogicalResult Partitioner::cutPaddedReductions(linalg::LinalgOp op) {
  // Most ops have no padded operand (and most modules no padded value).
  if (!anyPadded || llvm::none_of(op->getOperands(), [&](Value value) {
        return globals.lookup(value).padded;
      }))
    return success();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  // Per padded reduction dimension: the number of valid elements in this
  // device's block, min(block, max(0, size - index * block)).
  DenseMap<int64_t, Value> valid;
  for (OpOperand *operand : op.getDpsInputOperands()) {
    auto view = globals.lookup(operand->get());
    auto global = dyn_cast_or_null<RankedTensorType>(view.type);
    if (!global || !view.sharding)
      continue;
    AffineMap map = op.getMatchingIndexingMap(operand);
    for (auto [d, expr] : llvm::enumerate(map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim ||
          iterators[dim.getPosition()] != utils::IteratorType::reduction ||
          valid.count(dim.getPosition()))
        continue;
      int64_t size = global.getDimSize(d);
      ArrayRef<AxisRefAttr> axes = view.sharding.getDimSharding(d).getAxes();
      auto resolved = resolve(view.sharding, op);
      if (failed(resolved))
        return failure();
      int64_t parts = productOf(axes, resolved->second);
      if (ShapedType::isDynamic(size) || size % parts == 0)
        continue;
      Location loc = op.getLoc();
      int64_t block = llvm::divideCeil(size, parts);
      rewriter.setInsertionPoint(op);
      Value offset =
          offsetOf(loc, resolved->first, resolved->second, axes, block);
      Value rest = arith::SubIOp::create(
          rewriter, loc, arith::ConstantIndexOp::create(rewriter, loc, size),
          offset);
      rest = arith::MaxSIOp::create(
          rewriter, loc, rest,
          arith::ConstantIndexOp::create(rewriter, loc, 0));
      valid[dim.getPosition()] = arith::MinSIOp::create(
          rewriter, loc, rest,
          arith::ConstantIndexOp::create(rewriter, loc, block));
    }
  }
  if (valid.empty())
    return success();
  for (OpOperand *operand : op.getDpsInputOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand->get().getType());
    if (!type)
      continue;
    AffineMap map = op.getMatchingIndexingMap(operand);
    SmallVector<int64_t> shape(type.getShape());
    SmallVector<OpFoldResult> offsets, sizes, strides;
    bool cut = false;
    for (int64_t d = 0; d < map.getNumResults(); ++d) {
      AffineExpr expr = map.getResult(d);
      offsets.push_back(rewriter.getIndexAttr(0));
      strides.push_back(rewriter.getIndexAttr(1));
      sizes.push_back(rewriter.getIndexAttr(shape[d]));
      if (ShapedType::isDynamic(shape[d]))
        sizes.back() =
            tensor::DimOp::create(rewriter, op.getLoc(), operand->get(), d)
                .getResult();
      bool padded = llvm::any_of(valid, [&](const auto &entry) {
        return expr.isFunctionOfDim(entry.first);
      });
      if (!padded)
        continue;
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim)
        return op->emitOpError("reduces over a padded dimension through an "
                               "index expression, which spmd-partition does "
                               "not support");
      sizes.back() = valid.lookup(dim.getPosition());
      shape[d] = ShapedType::kDynamic;
      cut = true;
    }
    if (!cut)
      continue;
    operand->set(tensor::ExtractSliceOp::create(
        rewriter, op.getLoc(), type.clone(shape), operand->get(), offsets,
        sizes, strides));
  }
  return success();
}

LogicalResult Partitioner::fixShapeOps(Operation *op) {
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    auto attr = dyn_cast<DenseElementsAttr>(constant.getValue());
    if (!attr || attr.getType() == constant.getType())
      return success();
    if (!attr.isSplat())
      return op->emitOpError("has a sharded non-splat value that was not "
                             "sliced");
    constant.setValueAttr(
        attr.resizeSplat(cast<ShapedType>(constant.getType())));
    return success();
  }
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
    auto type = expand.getResultType();
    if (!type.hasStaticShape())
      return success();
    expand.setStaticOutputShape(type.getShape());
    return success();
  }
  auto fixSizes = [&](auto sliceOp, RankedTensorType full,
                      RankedTensorType block,
                      ArrayRef<int64_t> oldSizes) -> LogicalResult {
    // Non-rank-reducing slices: a dimension taken whole is the one that may
    // be sharded.
    if (full.getRank() != block.getRank())
      return success();
    SmallVector<int64_t> sizes(oldSizes);
    bool changed = false;
    for (int64_t d = 0; d < full.getRank(); ++d) {
      if (ShapedType::isDynamic(sizes[d]) || sizes[d] == block.getDimSize(d))
        continue;
      sizes[d] = block.getDimSize(d);
      changed = true;
    }
    if (changed)
      sliceOp.setStaticSizes(sizes);
    return success();
  };
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
    return fixSizes(slice, slice.getSourceType(), slice.getResultType(),
                    slice.getStaticSizes());
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(op))
    return fixSizes(insert, insert.getDestType(), insert.getSourceType(),
                    insert.getStaticSizes());
  return success();
}

LogicalResult Partitioner::fixLinalgIndices(linalg::LinalgOp op) {
  // Bodies are separate allocations, rarely in cache in a large module: the
  // body of a named op is scanned once per name.
  bool *readsIndex = nullptr;
  if (op.getRegionBuilder()) {
    auto [it, inserted] = namedBodyReadsIndex.try_emplace(op->getName(), false);
    if (!inserted && !it->second)
      return success();
    readsIndex = &it->second;
  }
  // (Most bodies are a few ops without regions: they are scanned directly.)
  SmallVector<linalg::IndexOp> indices;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (Operation &nested : block) {
        if (auto index = dyn_cast<linalg::IndexOp>(nested))
          indices.push_back(index);
        else if (nested.getNumRegions() != 0)
          nested.walk([&](linalg::IndexOp index) { indices.push_back(index); });
      }
  if (readsIndex)
    *readsIndex = !indices.empty();
  if (indices.empty())
    return success();
  // The sharding of each loop dimension, from an operand or result that
  // indexes it directly.
  int64_t numLoops = op.getNumLoops();
  SmallVector<SmallVector<AxisRefAttr>> loopAxes(numLoops);
  SmallVector<int64_t> loopBlock(numLoops, 0);
  FlatSymbolRefAttr meshRef;
  MeshAttr loopMesh;
  for (OpOperand &operand : op->getOpOperands()) {
    Value value = operand.get();
    if (op.isDpsInit(&operand))
      value = op.getTiedOpResult(&operand);
    TensorShardingAttr sharding = shardingOf(value);
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!sharding || !type)
      continue;
    auto resolved = resolve(sharding, op);
    if (failed(resolved))
      return failure();
    meshRef = resolved->first;
    loopMesh = resolved->second;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (auto [d, expr] : llvm::enumerate(map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim || d >= static_cast<size_t>(sharding.getRank()))
        continue;
      ArrayRef<AxisRefAttr> axes = sharding.getDimSharding(d).getAxes();
      if (axes.empty() || !loopAxes[dim.getPosition()].empty())
        continue;
      loopAxes[dim.getPosition()].assign(axes.begin(), axes.end());
      loopBlock[dim.getPosition()] = type.getDimSize(d);
    }
  }
  for (linalg::IndexOp index : indices) {
    int64_t dim = index.getDim();
    if (loopAxes[dim].empty())
      continue;
    if (ShapedType::isDynamic(loopBlock[dim]))
      return index.emitOpError("reads the index of a sharded dynamic "
                               "dimension, which spmd-partition does not "
                               "support");
    // The offset is computed before the op (it is the same for the whole
    // block) and added to the index inside the body.
    rewriter.setInsertionPoint(op);
    Value offset = offsetOf(index.getLoc(), meshRef, loopMesh, loopAxes[dim],
                            loopBlock[dim]);
    rewriter.setInsertionPointAfter(index);
    auto sum = arith::AddIOp::create(rewriter, index.getLoc(), index, offset);
    index.getResult().replaceAllUsesExcept(sum, sum);
  }
  return success();
}

} // namespace mlir::tessera::spmd::detail
