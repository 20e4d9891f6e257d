//===- SplitReductions.cpp - select reductions over sharded dims --------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// A select reduction is a structured op each of whose results, per step,
// keeps its accumulator or takes one element, under a condition the body
// computes (the index of an argmax, `select(x > acc, i, acc_i)`), or is the
// max or min of its accumulator and an element (an argmax's value). No
// collective finishes such partial results, so a sharded reduced dimension
// used to be gathered whole. Instead, as GSPMD partitions a variadic
// reduce, the op becomes two:
//
//   x: [.., N@A, ..]  --expand_shape-->  [.., P@A, N/P, ..]
//   partial = the op over the block (N/P), one result per block (P@A),
//             linalg.index of the reduced loop reading p * N/P + j
//   result  = the op's body over the P partial results, in block order
//
// and spmd-insert-reshards then gathers the P partial results (not the N
// elements) for the second reduction. Each element of a result's pair is
// a distinct input element or the reduced loop's index (possibly cast), so
// the second reduction reads the partial results where the first read the
// elements. The combine is exact for selections: the init is reused by
// every block, which a selection (and a max or min) absorbs, and blocks are
// combined in order, so ties resolve as in one sequential pass.
//
//===----------------------------------------------------------------------===//

#include "SplitReductions.h"

#include "tessera/Dialect/Spmd/IR/SpmdDialect.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdShardingRule.h"
#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tessera::spmd::detail {

namespace {

/// What splitting a select reduction needs to know.
struct SelectReduction {
  /// The sharded reduction loop, its size and the axes sharding it.
  unsigned loop = 0;
  int64_t size = 0;
  SmallVector<AxisRefAttr> axes;
  Attribute meshRef;
  int64_t parts = 1;
  /// Per result, the body value it takes as its element: a block argument
  /// of an input, the reduced loop's linalg.index or a cast of it.
  SmallVector<Value> elements;
  /// The result whose element is the reduced loop's index (or -1).
  int indexResult = -1;
};

} // namespace

static bool isSelectLike(ReductionCombiner combiner) {
  switch (combiner) {
  case ReductionCombiner::Select:
  case ReductionCombiner::Max:
  case ReductionCombiner::Min:
  case ReductionCombiner::UnsignedMax:
  case ReductionCombiner::UnsignedMin:
    return true;
  default:
    return false;
  }
}

/// The value result `k`'s yield takes from outside its accumulator:
/// `select(c, e, acc)`, `select(c, acc, e)` or `max/min(e, acc)`.
static Value getElementOf(Block *body, unsigned numInputs, unsigned k) {
  Value yielded = body->getTerminator()->getOperand(k);
  Value acc = body->getArgument(numInputs + k);
  Operation *def = yielded.getDefiningOp();
  if (!def || def->getBlock() != body)
    return {};
  if (auto select = dyn_cast<arith::SelectOp>(def)) {
    if (select.getTrueValue() == acc)
      return select.getFalseValue();
    if (select.getFalseValue() == acc)
      return select.getTrueValue();
    return {};
  }
  if (def->getNumOperands() != 2)
    return {};
  if (def->getOperand(0) == acc)
    return def->getOperand(1);
  if (def->getOperand(1) == acc)
    return def->getOperand(0);
  return {};
}

/// The linalg.index an element reads (itself or through one cast), if any.
static linalg::IndexOp getIndexOf(Value element) {
  Operation *def = element.getDefiningOp();
  if (isa_and_nonnull<arith::IndexCastOp, arith::IndexCastUIOp>(def))
    def = def->getOperand(0).getDefiningOp();
  return dyn_cast_or_null<linalg::IndexOp>(def);
}

static std::optional<SelectReduction> analyze(linalg::LinalgOp op) {
  Operation *operation = op.getOperation();
  if (!op.hasPureTensorSemantics() || operation->getNumResults() == 0 ||
      operation->getNumRegions() != 1 || operation->getRegion(0).empty())
    return std::nullopt;
  // A select reduction yields an `arith.select` (ReductionCombiner::Select):
  // a cheap test that skips nearly every op before the combiners are read.
  Operation *yield = op.getBlock()->getTerminator();
  if (llvm::none_of(yield->getOperands(), [](Value v) {
        return isa_and_nonnull<arith::SelectOp>(v.getDefiningOp());
      }))
    return std::nullopt;
  unsigned numResults = operation->getNumResults();
  bool anySelect = false;
  for (unsigned k = 0; k < numResults; ++k) {
    ReductionCombiner combiner = getReductionCombiner(operation, k);
    if (!isSelectLike(combiner))
      return std::nullopt;
    anySelect |= combiner == ReductionCombiner::Select;
  }
  if (!anySelect)
    return std::nullopt;

  // The sharded reduction loop: one input must index it directly through
  // a sharded dimension; no other reduction loop may be sharded, and no
  // input may index a reduction loop through an expression.
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  SelectReduction info;
  bool found = false;
  for (OpOperand *operand : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(operand);
    TensorShardingAttr sharding = getSharding(operand->get());
    for (auto [d, expr] : llvm::enumerate(map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim) {
        for (unsigned l = 0; l < iterators.size(); ++l)
          if (iterators[l] == utils::IteratorType::reduction &&
              expr.isFunctionOfDim(l))
            return std::nullopt;
        continue;
      }
      if (iterators[dim.getPosition()] != utils::IteratorType::reduction ||
          !sharding || static_cast<int64_t>(d) >= sharding.getRank())
        continue;
      ArrayRef<AxisRefAttr> axes = sharding.getDimSharding(d).getAxes();
      if (axes.empty())
        continue;
      if (found && info.loop != dim.getPosition())
        return std::nullopt;
      if (found)
        continue;
      MeshAttr mesh = getMesh(sharding, operand->get());
      if (!mesh)
        return std::nullopt;
      found = true;
      info.loop = dim.getPosition();
      info.axes.assign(axes.begin(), axes.end());
      info.meshRef = sharding.getMeshOrRef();
      for (AxisRefAttr ref : axes)
        info.parts *= ref.getSize(mesh);
    }
  }
  if (!found || info.parts <= 1)
    return std::nullopt;
  info.size = sizes[info.loop];
  if (ShapedType::isDynamic(info.size) || info.size % info.parts != 0)
    return std::nullopt;

  // The results: one map over the parallel loops, each once; their
  // shardings leave the reduced axes free.
  AffineMap resultMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  unsigned numParallel = op.getNumParallelLoops();
  if (!resultMap.isProjectedPermutation() ||
      resultMap.getNumResults() != numParallel)
    return std::nullopt;
  for (AffineExpr expr : resultMap.getResults())
    if (iterators[cast<AffineDimExpr>(expr).getPosition()] !=
        utils::IteratorType::parallel)
      return std::nullopt;
  for (OpResult result : operation->getResults()) {
    if (op.getMatchingIndexingMap(
            op.getDpsInitOperand(result.getResultNumber())) != resultMap)
      return std::nullopt;
    if (TensorShardingAttr sharding = getSharding(result))
      for (AxisRefAttr used : sharding.getAllAxisRefs())
        if (llvm::any_of(info.axes,
                         [&](AxisRefAttr a) { return a.overlaps(used); }))
          return std::nullopt;
  }

  // The body: each result's element is a distinct input element or the
  // reduced loop's index; every input element it reads is one of them.
  Block *body = op.getBlock();
  unsigned numInputs = op.getNumDpsInputs();
  for (unsigned k = 0; k < numResults; ++k) {
    Value element = getElementOf(body, numInputs, k);
    if (!element || llvm::is_contained(info.elements, element))
      return std::nullopt;
    auto arg = dyn_cast<BlockArgument>(element);
    bool isInput =
        arg && arg.getOwner() == body && arg.getArgNumber() < numInputs;
    linalg::IndexOp index = isInput ? nullptr : getIndexOf(element);
    if (!isInput && (!index || index.getDim() != info.loop))
      return std::nullopt;
    if (index) {
      if (info.indexResult >= 0)
        return std::nullopt;
      info.indexResult = k;
    }
    if (element.getType() != body->getArgument(numInputs + k).getType())
      return std::nullopt;
    info.elements.push_back(element);
  }
  for (unsigned i = 0; i < numInputs; ++i)
    if (!body->getArgument(i).use_empty() &&
        !llvm::is_contained(info.elements, body->getArgument(i)))
      return std::nullopt;
  for (Operation &nested : *body) {
    if (nested.getNumRegions() != 0)
      return std::nullopt;
    auto index = dyn_cast<linalg::IndexOp>(nested);
    if (!index)
      continue;
    if (iterators[index.getDim()] == utils::IteratorType::reduction &&
        (index.getDim() != info.loop || info.indexResult < 0))
      return std::nullopt;
  }
  return info;
}

/// `sharding`'s dimensions (replicated, closed, of rank `rank` when null)
/// with `extra` inserted at `position`, on `meshRef`.
static TensorShardingAttr insertDim(MLIRContext *ctx,
                                    TensorShardingAttr sharding, int64_t rank,
                                    Attribute meshRef, int64_t position,
                                    DimensionShardingAttr extra) {
  SmallVector<DimensionShardingAttr> dims;
  if (sharding)
    llvm::append_range(dims, sharding.getDimShardings());
  else
    dims.assign(rank, DimensionShardingAttr::get(ctx, {}, /*isClosed=*/true));
  dims.insert(dims.begin() + position, extra);
  return TensorShardingAttr::get(ctx,
                                 sharding ? sharding.getMeshOrRef() : meshRef,
                                 dims, {}, {}, ReductionKind::Sum, {});
}

static void setSharding(Operation *op, ArrayRef<TensorShardingAttr> shardings) {
  op->setAttr(SpmdDialect::kShardingAttrName,
              TensorShardingPerValueAttr::get(op->getContext(), shardings));
}

static void split(linalg::LinalgOp op, const SelectReduction &info) {
  Operation *operation = op.getOperation();
  MLIRContext *ctx = operation->getContext();
  IRRewriter rewriter(ctx);
  rewriter.setInsertionPoint(operation);
  Location loc = operation->getLoc();
  unsigned numLoops = op.getNumLoops();
  int64_t block = info.size / info.parts;
  AffineExpr p = getAffineDimExpr(numLoops, ctx);
  AffineExpr j = getAffineDimExpr(info.loop, ctx);

  // The inputs, their reduced dimension split into (block, element), and
  // their maps over the loops and the new block loop `p`.
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (OpOperand *operand : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(operand);
    SmallVector<AffineExpr> results;
    std::optional<int64_t> splitDim;
    for (auto [d, expr] : llvm::enumerate(map.getResults())) {
      if (expr == j) {
        splitDim = d;
        results.push_back(p);
      }
      results.push_back(expr);
    }
    maps.push_back(AffineMap::get(numLoops + 1, 0, results, ctx));
    Value input = operand->get();
    if (!splitDim) {
      inputs.push_back(input);
      continue;
    }
    auto type = cast<RankedTensorType>(input.getType());
    SmallVector<int64_t> shape;
    SmallVector<ReassociationIndices> groups;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      int64_t next = shape.size();
      if (d == *splitDim) {
        shape.append({info.parts, block});
        groups.push_back({next, next + 1});
      } else {
        shape.push_back(type.getDimSize(d));
        groups.push_back({next});
      }
    }
    auto expanded = tensor::ExpandShapeOp::create(
        rewriter, loc, type.clone(shape), input, groups);
    if (TensorShardingAttr sharding = getSharding(input)) {
      DimensionShardingAttr dim = sharding.getDimSharding(*splitDim);
      SmallVector<DimensionShardingAttr> dims(sharding.getDimShardings());
      dims.insert(dims.begin() + *splitDim + 1,
                  DimensionShardingAttr::get(ctx, {}, dim.getIsClosed()));
      setSharding(expanded,
                  {TensorShardingAttr::get(ctx, sharding.getMeshOrRef(), dims,
                                           {}, sharding.getUnreducedAxes(),
                                           sharding.getUnreducedKind(), {})});
    }
    inputs.push_back(expanded.getResult());
  }

  // The partial results: one per block, the new dimension last.
  AffineMap resultMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  SmallVector<AffineExpr> partialExprs(resultMap.getResults());
  partialExprs.push_back(p);
  AffineMap partialMap = AffineMap::get(numLoops + 1, 0, partialExprs, ctx);
  DimensionShardingAttr blockDim =
      DimensionShardingAttr::get(ctx, info.axes, /*isClosed=*/true);
  SmallVector<Value> partialInits;
  SmallVector<Type> partialTypes;
  SmallVector<TensorShardingAttr> partialShardings;
  for (OpResult result : operation->getResults()) {
    auto type = cast<RankedTensorType>(result.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape.push_back(info.parts);
    auto partialType = type.clone(shape);
    // The block axes are the input's: a result on another mesh (a 1-D view
    // of the devices) starts replicated on the input's mesh instead.
    TensorShardingAttr resultSharding = getSharding(result);
    if (resultSharding && resultSharding.getMeshOrRef() != info.meshRef)
      resultSharding = {};
    TensorShardingAttr sharding =
        insertDim(ctx, resultSharding, type.getRank(), info.meshRef,
                  type.getRank(), blockDim);
    auto empty =
        tensor::EmptyOp::create(rewriter, loc, shape, type.getElementType());
    auto broadcast = linalg::BroadcastOp::create(
        rewriter, loc, op.getDpsInitOperand(result.getResultNumber())->get(),
        empty, ArrayRef<int64_t>{type.getRank()});
    setSharding(broadcast, {sharding});
    partialInits.push_back(broadcast->getResult(0));
    partialTypes.push_back(partialType);
    partialShardings.push_back(sharding);
    maps.push_back(partialMap);
  }
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  iterators.push_back(utils::IteratorType::parallel);
  auto partial = linalg::GenericOp::create(rewriter, loc, partialTypes, inputs,
                                           partialInits, maps, iterators);
  rewriter.cloneRegionBefore(operation->getRegion(0), partial.getRegion(),
                             partial.getRegion().end());
  setSharding(partial, partialShardings);
  // The reduced loop's index is the block's offset plus the index in it.
  for (linalg::IndexOp index :
       llvm::to_vector(partial.getRegion().front().getOps<linalg::IndexOp>())) {
    if (index.getDim() != info.loop)
      continue;
    rewriter.setInsertionPoint(index);
    Value blockIndex = linalg::IndexOp::create(rewriter, loc, numLoops);
    Value offset = arith::MulIOp::create(
        rewriter, loc, blockIndex,
        arith::ConstantIndexOp::create(rewriter, loc, block));
    Value inBlock = linalg::IndexOp::create(rewriter, loc, info.loop);
    rewriter.replaceOp(index,
                       arith::AddIOp::create(rewriter, loc, offset, inBlock));
  }

  // The combine: the body over the partial results, in block order.
  rewriter.setInsertionPoint(operation);
  int64_t rank = resultMap.getNumResults();
  SmallVector<AffineMap> combineMaps(
      operation->getNumResults(),
      AffineMap::getMultiDimIdentityMap(rank + 1, ctx));
  SmallVector<AffineExpr> outExprs;
  for (int64_t d = 0; d < rank; ++d)
    outExprs.push_back(getAffineDimExpr(d, ctx));
  combineMaps.append(operation->getNumResults(),
                     AffineMap::get(rank + 1, 0, outExprs, ctx));
  SmallVector<utils::IteratorType> combineIterators(
      rank, utils::IteratorType::parallel);
  combineIterators.push_back(utils::IteratorType::reduction);
  SmallVector<Value> inits = llvm::map_to_vector(
      op.getDpsInitsMutable(), [](OpOperand &init) { return init.get(); });
  Block *body = op.getBlock();
  unsigned numInputs = op.getNumDpsInputs();
  auto combine = linalg::GenericOp::create(
      rewriter, loc, operation->getResultTypes(), partial.getResults(), inits,
      combineMaps, combineIterators,
      [&](OpBuilder &b, Location bodyLoc, ValueRange args) {
        ValueRange partials = args.take_front(operation->getNumResults());
        ValueRange accs = args.drop_front(operation->getNumResults());
        IRMapping mapping;
        for (auto [k, acc] : llvm::enumerate(accs))
          mapping.map(body->getArgument(numInputs + k), acc);
        for (auto [k, element] : llvm::enumerate(info.elements))
          mapping.map(element, partials[k]);
        for (Operation &nested : body->without_terminator()) {
          if (llvm::all_of(nested.getResults(),
                           [&](Value v) { return mapping.contains(v); }))
            continue;
          if (auto index = dyn_cast<linalg::IndexOp>(nested)) {
            Value value;
            if (index.getDim() == info.loop) {
              // Read back from the partial index, unless only the element
              // (mapped already) reads it.
              if (llvm::all_of(index->getUsers(), [&](Operation *user) {
                    return llvm::all_of(user->getResults(), [&](Value v) {
                      return mapping.contains(v);
                    });
                  }))
                continue;
              value = partials[info.indexResult];
              if (!value.getType().isIndex())
                value = arith::IndexCastOp::create(b, bodyLoc, b.getIndexType(),
                                                   value);
            } else {
              // A parallel loop: its position among the result's dims.
              unsigned position = *resultMap.getResultPosition(
                  getAffineDimExpr(index.getDim(), ctx));
              value = linalg::IndexOp::create(b, bodyLoc, position);
            }
            mapping.map(index.getResult(), value);
            continue;
          }
          b.clone(nested, mapping);
        }
        SmallVector<Value> yielded = llvm::map_to_vector(
            body->getTerminator()->getOperands(),
            [&](Value v) { return mapping.lookupOrDefault(v); });
        linalg::YieldOp::create(b, bodyLoc, yielded);
      });
  for (StringRef name :
       {SpmdDialect::kShardingAttrName, SpmdDialect::kOutShardingAttrName})
    if (Attribute attr = operation->getAttr(name))
      combine->setAttr(name, attr);
  rewriter.replaceOp(operation, combine.getResults());
}

bool splitSelectReduction(linalg::LinalgOp op) {
  std::optional<SelectReduction> info = analyze(op);
  if (!info)
    return false;
  split(op, *info);
  return true;
}

} // namespace mlir::tessera::spmd::detail
