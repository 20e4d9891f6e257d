//===- PartitionExtensions.cpp - local forms of shape-carrying ops --------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// PartitionOpInterface models of the upstream ops whose attributes or
// operands spell shapes or global positions, so that spmd-partition can give
// them their local form:
//
// - `arith.constant`: a splat takes the local shape; a sharded dense value
//   stays whole and each device takes its block of it;
// - `tensor.expand_shape`: its static output shape is the local one;
// - `tensor.extract_slice` / `tensor.insert_slice`: a dimension taken whole
//   (the one that may be sharded) takes the local size;
// - linalg structured ops: `linalg.index` of a sharded loop adds the
//   device's offset, and a reduction over a dimension whose block is padded
//   reads only the valid part.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/Extensions/ShardingRuleExternalModels.h"

#include "tessera/Dialect/Spmd/IR/Partitioning.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

using Values = FailureOr<SmallVector<Value>>;

static int64_t productOf(ArrayRef<AxisRefAttr> axes, MeshAttr mesh) {
  int64_t size = 1;
  for (AxisRefAttr axis : axes)
    size *= axis.getSize(mesh);
  return size;
}

//===----------------------------------------------------------------------===//
// arith.constant
//===----------------------------------------------------------------------===//

static Values partitionConstant(arith::ConstantOp op, PartitionContext &context,
                                RewriterBase &rewriter, TypeRange types) {
  auto attr = dyn_cast<DenseElementsAttr>(op.getValue());
  Type local = types.front();
  if (!attr || local == op.getType()) {
    setLocalResultTypes(rewriter, op, types);
    return SmallVector<Value>{op.getResult()};
  }
  if (attr.isSplat())
    return SmallVector<Value>{arith::ConstantOp::create(
        rewriter, op.getLoc(), attr.resizeSplat(cast<ShapedType>(local)))};
  // The whole value, and each device's block of it.
  Value whole = arith::ConstantOp::create(rewriter, op.getLoc(), attr);
  FailureOr<Value> block = context.buildLocalBlock(
      rewriter, op.getLoc(), whole, context.getSharding(op.getResult()), op);
  if (failed(block))
    return failure();
  return SmallVector<Value>{*block};
}

//===----------------------------------------------------------------------===//
// tensor.expand_shape, extract_slice, insert_slice
//===----------------------------------------------------------------------===//

static Values partitionExpandShape(tensor::ExpandShapeOp op,
                                   PartitionContext &context,
                                   RewriterBase &rewriter, TypeRange types) {
  setLocalResultTypes(rewriter, op, types);
  auto type = op.getResultType();
  if (type.hasStaticShape())
    rewriter.modifyOpInPlace(op,
                             [&] { op.setStaticOutputShape(type.getShape()); });
  return SmallVector<Value>{op.getResult()};
}

/// The static sizes of a non-rank-reducing slice of `full` into `block`:
/// a dimension taken whole (the one that may be sharded) takes the block's
/// size.
static std::optional<SmallVector<int64_t>>
getLocalSliceSizes(RankedTensorType full, RankedTensorType block,
                   ArrayRef<int64_t> oldSizes) {
  if (full.getRank() != block.getRank())
    return std::nullopt;
  SmallVector<int64_t> sizes(oldSizes);
  bool changed = false;
  for (int64_t d = 0; d < full.getRank(); ++d) {
    if (ShapedType::isDynamic(sizes[d]) || sizes[d] == block.getDimSize(d))
      continue;
    sizes[d] = block.getDimSize(d);
    changed = true;
  }
  if (!changed)
    return std::nullopt;
  return sizes;
}

static Values partitionExtractSlice(tensor::ExtractSliceOp op,
                                    PartitionContext &context,
                                    RewriterBase &rewriter, TypeRange types) {
  setLocalResultTypes(rewriter, op, types);
  if (auto sizes = getLocalSliceSizes(op.getSourceType(), op.getResultType(),
                                      op.getStaticSizes()))
    rewriter.modifyOpInPlace(op, [&] { op.setStaticSizes(*sizes); });
  return SmallVector<Value>{op.getResult()};
}

static Values partitionInsertSlice(tensor::InsertSliceOp op,
                                   PartitionContext &context,
                                   RewriterBase &rewriter, TypeRange types) {
  setLocalResultTypes(rewriter, op, types);
  if (auto sizes = getLocalSliceSizes(op.getDestType(), op.getSourceType(),
                                      op.getStaticSizes()))
    rewriter.modifyOpInPlace(op, [&] { op.setStaticSizes(*sizes); });
  return SmallVector<Value>{op.getResult()};
}

//===----------------------------------------------------------------------===//
// linalg structured ops
//===----------------------------------------------------------------------===//

/// Whether the body of `op` may read a loop index. The bodies of generic,
/// map and reduce are the program's own; a named op's body is built from
/// its definition, and of upstream's named ops only fill_rng_2d reads an
/// index. Structured ops of other dialects are looked at.
static bool mayReadIndex(Operation *op) {
  return !isa<linalg::LinalgDialect>(op->getDialect()) ||
         isa<linalg::GenericOp, linalg::MapOp, linalg::ReduceOp,
             linalg::FillRng2DOp>(op);
}

/// The linalg.index ops of a structured op's body (looked for only where
/// mayReadIndex says they may be: most bodies are not touched).
static SmallVector<linalg::IndexOp> getIndexOps(Operation *op) {
  SmallVector<linalg::IndexOp> indices;
  if (!mayReadIndex(op))
    return indices;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (Operation &nested : block) {
        if (auto index = dyn_cast<linalg::IndexOp>(nested))
          indices.push_back(index);
        else if (nested.getNumRegions() != 0)
          nested.walk([&](linalg::IndexOp index) { indices.push_back(index); });
      }
  return indices;
}

/// A reduction loop whose blocks are padded: the sharding of the input
/// dimension it indexes and that dimension's global size.
struct PaddedLoop {
  FlatSymbolRefAttr meshRef;
  MeshAttr mesh;
  SmallVector<AxisRefAttr> axes;
  int64_t size;
};

/// The reduction loops of `op` that an input indexes directly through a
/// dimension whose block is padded (its axes do not divide it).
static llvm::MapVector<int64_t, PaddedLoop>
getPaddedReductionLoops(linalg::LinalgOp op, PartitionContext &context) {
  llvm::MapVector<int64_t, PaddedLoop> loops;
  // (All operands first: most programs have no padded block, and the
  // interface's list of inputs is not free.)
  if (llvm::none_of(op->getOperands(),
                    [&](Value value) { return context.isPadded(value); }))
    return loops;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (OpOperand *operand : op.getDpsInputOperands()) {
    if (!context.isPadded(operand->get()))
      continue;
    TensorShardingAttr sharding = context.getSharding(operand->get());
    auto global =
        dyn_cast<RankedTensorType>(context.getGlobalType(operand->get()));
    if (!global || !sharding)
      continue;
    auto resolved = context.resolveMesh(sharding, op);
    if (failed(resolved))
      continue;
    AffineMap map = op.getMatchingIndexingMap(operand);
    for (auto [d, expr] : llvm::enumerate(map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim ||
          iterators[dim.getPosition()] != utils::IteratorType::reduction ||
          loops.count(dim.getPosition()))
        continue;
      int64_t size = global.getDimSize(d);
      ArrayRef<AxisRefAttr> axes = sharding.getDimSharding(d).getAxes();
      if (ShapedType::isDynamic(size) ||
          size % productOf(axes, resolved->second) == 0)
        continue;
      loops[dim.getPosition()] = PaddedLoop{resolved->first, resolved->second,
                                            llvm::to_vector(axes), size};
    }
  }
  return loops;
}

/// Checks what the local form of `op` cannot do, before anything changes:
/// a linalg.index of a sharded dynamic loop, a padded reduction loop read
/// through an index expression.
static LogicalResult
checkLinalg(linalg::LinalgOp op, PartitionContext &context,
            ArrayRef<linalg::IndexOp> indices,
            const llvm::MapVector<int64_t, PaddedLoop> &padded) {
  for (OpOperand &operand : op->getOpOperands()) {
    if (indices.empty())
      break;
    // (The op's results still have their global types.)
    bool isInit = op.isDpsInit(&operand);
    Value value = isInit ? op.getTiedOpResult(&operand) : operand.get();
    TensorShardingAttr sharding = context.getSharding(value);
    auto type = dyn_cast<RankedTensorType>(
        isInit ? value.getType() : context.getGlobalType(value));
    if (!sharding || !type)
      continue;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (auto [d, expr] : llvm::enumerate(map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim || d >= static_cast<size_t>(sharding.getRank()) ||
          sharding.getDimSharding(d).getAxes().empty() ||
          !ShapedType::isDynamic(type.getDimSize(d)))
        continue;
      for (linalg::IndexOp index : indices)
        if (index.getDim() == dim.getPosition())
          return index.emitOpError("reads the index of a sharded dynamic "
                                   "dimension, which spmd-partition does not "
                                   "support");
    }
  }
  if (padded.empty())
    return success();
  for (OpOperand *operand : op.getDpsInputOperands())
    for (AffineExpr expr : op.getMatchingIndexingMap(operand).getResults())
      if (!isa<AffineDimExpr>(expr) &&
          llvm::any_of(padded, [&](const auto &entry) {
            return expr.isFunctionOfDim(entry.first);
          }))
        return op->emitOpError("reduces over a padded dimension through an "
                               "index expression, which spmd-partition does "
                               "not support");
  return success();
}

/// Adds the device's offset to every linalg.index (`indices`, in `op`'s
/// body) of a sharded loop of `op` (its results already local).
static void offsetIndices(linalg::LinalgOp op,
                          ArrayRef<linalg::IndexOp> indices,
                          PartitionContext &context, RewriterBase &rewriter) {
  if (indices.empty())
    return;
  // The sharding of each loop dimension, from an operand or result that
  // indexes it directly, with that operand's mesh (operands may be on
  // different meshes over the same devices), and the loop's local size.
  int64_t numLoops = op.getNumLoops();
  SmallVector<SmallVector<AxisRefAttr>> loopAxes(numLoops);
  SmallVector<std::pair<FlatSymbolRefAttr, MeshAttr>> loopMeshes(numLoops);
  SmallVector<int64_t> loopBlock(numLoops, 0);
  for (OpOperand &operand : op->getOpOperands()) {
    Value value =
        op.isDpsInit(&operand) ? op.getTiedOpResult(&operand) : operand.get();
    TensorShardingAttr sharding = context.getSharding(value);
    auto localType = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!sharding || !localType)
      continue;
    auto resolved = context.resolveMesh(sharding, op);
    if (failed(resolved))
      continue;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (auto [d, expr] : llvm::enumerate(map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim || d >= static_cast<size_t>(sharding.getRank()))
        continue;
      ArrayRef<AxisRefAttr> axes = sharding.getDimSharding(d).getAxes();
      if (axes.empty() || !loopAxes[dim.getPosition()].empty())
        continue;
      loopAxes[dim.getPosition()].assign(axes.begin(), axes.end());
      loopMeshes[dim.getPosition()] = *resolved;
      loopBlock[dim.getPosition()] = localType.getDimSize(d);
    }
  }
  for (linalg::IndexOp index : indices) {
    int64_t dim = index.getDim();
    if (loopAxes[dim].empty())
      continue;
    // The offset is computed before the op (it is the same for the whole
    // block) and added to the index inside the body.
    rewriter.setInsertionPoint(op);
    auto [meshRef, loopMesh] = loopMeshes[dim];
    Value offset =
        context.buildBlockOffset(rewriter, index.getLoc(), meshRef, loopMesh,
                                 loopAxes[dim], loopBlock[dim]);
    rewriter.setInsertionPoint(index);
    Value position = linalg::IndexOp::create(rewriter, index.getLoc(), dim);
    Value sum =
        arith::AddIOp::create(rewriter, index.getLoc(), position, offset);
    rewriter.replaceOp(index, sum);
  }
}

/// Cuts the inputs of `op` (its operands local already) to the valid part
/// of every reduction loop in `padded`, so that padding is never reduced
/// over.
static void
cutPaddedReductions(linalg::LinalgOp op, PartitionContext &context,
                    RewriterBase &rewriter,
                    const llvm::MapVector<int64_t, PaddedLoop> &padded) {
  if (padded.empty())
    return;
  rewriter.setInsertionPoint(op);
  // Per padded loop: the number of valid elements in this device's block,
  // min(block, max(0, size - offset)).
  Location loc = op.getLoc();
  DenseMap<int64_t, Value> valid;
  for (const auto &[loop, info] : padded) {
    int64_t block =
        llvm::divideCeil(info.size, productOf(info.axes, info.mesh));
    Value offset = context.buildBlockOffset(rewriter, loc, info.meshRef,
                                            info.mesh, info.axes, block);
    Value rest = arith::SubIOp::create(
        rewriter, loc, arith::ConstantIndexOp::create(rewriter, loc, info.size),
        offset);
    rest = arith::MaxSIOp::create(
        rewriter, loc, rest, arith::ConstantIndexOp::create(rewriter, loc, 0));
    valid[loop] = arith::MinSIOp::create(
        rewriter, loc, rest,
        arith::ConstantIndexOp::create(rewriter, loc, block));
  }
  for (OpOperand *operand : op.getDpsInputOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand->get().getType());
    if (!type)
      continue;
    AffineMap map = op.getMatchingIndexingMap(operand);
    SmallVector<int64_t> shape(type.getShape());
    SmallVector<OpFoldResult> offsets, sizes, strides;
    bool cut = false;
    for (int64_t d = 0; d < map.getNumResults(); ++d) {
      auto dim = dyn_cast<AffineDimExpr>(map.getResult(d));
      offsets.push_back(rewriter.getIndexAttr(0));
      strides.push_back(rewriter.getIndexAttr(1));
      sizes.push_back(rewriter.getIndexAttr(shape[d]));
      if (ShapedType::isDynamic(shape[d]))
        sizes.back() =
            tensor::DimOp::create(rewriter, loc, operand->get(), d).getResult();
      if (!dim || !valid.count(dim.getPosition()))
        continue;
      sizes.back() = valid.lookup(dim.getPosition());
      shape[d] = ShapedType::kDynamic;
      cut = true;
    }
    if (!cut)
      continue;
    Value slice =
        tensor::ExtractSliceOp::create(rewriter, loc, type.clone(shape),
                                       operand->get(), offsets, sizes, strides);
    rewriter.modifyOpInPlace(op, [&] { operand->set(slice); });
  }
}

static Values partitionLinalg(linalg::LinalgOp op, PartitionContext &context,
                              RewriterBase &rewriter, TypeRange types) {
  // Ops on buffers (in kernel bodies) hold no sharded value. (An op with
  // tensor semantics has a result per init; asking for results does not
  // load every operand's type.)
  if (op->getNumResults() == 0) {
    setLocalResultTypes(rewriter, op, types);
    return SmallVector<Value>(op->getResults());
  }
  llvm::MapVector<int64_t, PaddedLoop> padded =
      getPaddedReductionLoops(op, context);
  SmallVector<linalg::IndexOp> indices = getIndexOps(op);
  if (failed(checkLinalg(op, context, indices, padded)))
    return failure();
  setLocalResultTypes(rewriter, op, types);
  offsetIndices(op, indices, context, rewriter);
  cutPaddedReductions(op, context, rewriter, padded);
  return SmallVector<Value>(op->getResults());
}

//===----------------------------------------------------------------------===//
// Models
//===----------------------------------------------------------------------===//

namespace {

template <typename OpTy>
struct ConstantModel
    : public PartitionOpInterface::ExternalModel<ConstantModel<OpTy>, OpTy> {
  Values partition(Operation *op, PartitionContext &context,
                   RewriterBase &rewriter, TypeRange types) const {
    return partitionConstant(cast<OpTy>(op), context, rewriter, types);
  }
};

/// The model of `OpTy` whose local form `Fn` builds.
template <typename OpTy,
          Values (*Fn)(OpTy, PartitionContext &, RewriterBase &, TypeRange)>
struct LocalFormModel
    : public PartitionOpInterface::ExternalModel<LocalFormModel<OpTy, Fn>,
                                                 OpTy> {
  Values partition(Operation *op, PartitionContext &context,
                   RewriterBase &rewriter, TypeRange types) const {
    return Fn(cast<OpTy>(op), context, rewriter, types);
  }
};

template <typename OpTy>
struct LinalgModel
    : public PartitionOpInterface::ExternalModel<LinalgModel<OpTy>, OpTy> {
  Values partition(Operation *op, PartitionContext &context,
                   RewriterBase &rewriter, TypeRange types) const {
    return partitionLinalg(cast<linalg::LinalgOp>(op), context, rewriter,
                           types);
  }
};

} // namespace

template <typename... OpTys>
static void attachLinalgModels(MLIRContext *context) {
  (OpTys::template attachInterface<LinalgModel<OpTys>>(*context), ...);
}

void mlir::tessera::spmd::registerPartitionExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, arith::ArithDialect *) {
    arith::ConstantOp::attachInterface<ConstantModel<arith::ConstantOp>>(
        *context);
  });
  registry.addExtension(+[](MLIRContext *context, tensor::TensorDialect *) {
    tensor::ExpandShapeOp::attachInterface<
        LocalFormModel<tensor::ExpandShapeOp, partitionExpandShape>>(*context);
    tensor::ExtractSliceOp::attachInterface<
        LocalFormModel<tensor::ExtractSliceOp, partitionExtractSlice>>(
        *context);
    tensor::InsertSliceOp::attachInterface<
        LocalFormModel<tensor::InsertSliceOp, partitionInsertSlice>>(*context);
  });
  registry.addExtension(+[](MLIRContext *context, linalg::LinalgDialect *) {
    attachLinalgModels<
#define GET_OP_LIST
#include "mlir/Dialect/Linalg/IR/LinalgStructuredOps.cpp.inc"
        >(context);
  });
}
