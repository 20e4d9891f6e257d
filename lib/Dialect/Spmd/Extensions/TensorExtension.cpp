//===- TensorExtension.cpp - sharding rules of tensor ops -----------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// - cast, splat: pointwise.
// - collapse_shape / expand_shape: one factor per dimension of the larger
//   side; the collapsed dimension is the compound of its group (major
//   first), so `[i, j] -> [ij]`.
// - reshape (static shapes): the same, with the factors found by walking both
//   shapes and cutting off common divisors: `6x4 -> 3x8` is
//   `([ij, k])->([i, jk]) {i=3, j=2, k=4}`. A reshape the walk cannot
//   describe (`6x4 -> 4x6`: after cutting 2, 3 and 2 have no common divisor)
//   has no rule.
// - concat: every dimension shared; the concatenated dimension is a
//   need-replication factor of the result's size.
// - extract_slice: an unsliced dimension is shared; a sliced one is a
//   permutation factor (a strided one needs replication); dropped unit
//   dimensions of a rank-reducing slice belong to the source only.
// - insert_slice: the destination and result share every dimension; a
//   dimension the update covers whole is shared with it too, one it covers
//   in part needs replication.
// - pad: an unpadded dimension is shared; a padded one is a permutation
//   factor of the result's size; the padding value is a scalar.
//
// Ops with dynamic shapes have no rule.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/Extensions/ShardingRuleExternalModels.h"

#include "RuleModel.h"

#include "tessera/Dialect/Spmd/IR/OpShardingRuleBuilder.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"

#include <numeric>

using namespace mlir;
using namespace mlir::tessera::spmd;

static constexpr int64_t kNull = OpShardingRuleBuilder::kNullDim;

static bool allStatic(Operation *op) {
  auto isStatic = [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return !isa<ShapedType>(type) || (tensor && tensor.hasStaticShape());
  };
  return llvm::all_of(op->getOperandTypes(), isStatic) &&
         llvm::all_of(op->getResultTypes(), isStatic);
}

static ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

/// The rule of a reshape from `in` (operand 0) to `out` (result 0), or null.
/// Walks both shapes, cutting off common divisors: each cut is a factor
/// mapped to the current dimension of both sides (compound where a dimension
/// takes several cuts, major first).
static OpShardingRuleAttr getReshapeRule(Operation *op, ArrayRef<int64_t> in,
                                         ArrayRef<int64_t> out) {
  OpShardingRuleBuilder builder(op);
  int64_t numOperands = op->getNumOperands();
  size_t i = 0, j = 0;
  int64_t restIn = in.empty() ? 1 : in[0];
  int64_t restOut = out.empty() ? 1 : out[0];
  auto operandDims = [&](int64_t dim) {
    SmallVector<int64_t> dims(numOperands, kNull);
    dims[0] = dim;
    return dims;
  };
  while (i < in.size() || j < out.size()) {
    if (i < in.size() && restIn == 1) {
      if (++i < in.size())
        restIn = in[i];
      continue;
    }
    if (j < out.size() && restOut == 1) {
      if (++j < out.size())
        restOut = out[j];
      continue;
    }
    if (i >= in.size() || j >= out.size())
      return {};
    int64_t g = std::gcd(restIn, restOut);
    if (g <= 1)
      return {};
    builder.addFactor(operandDims(i), {static_cast<int64_t>(j)}, g);
    restIn /= g;
    restOut /= g;
  }
  return builder.build();
}

/// tensor.gather: the batch dimensions of the indices (all but the last)
/// lead the result; the source dimensions that are not gathered follow (in
/// source order) and keep their factors; the gathered ones (size 1 in the
/// result, or dropped when rank-reduced) and the coordinate dimension of the
/// indices need replication, since any device may read any coordinate.
static OpShardingRuleAttr getGatherRule(tensor::GatherOp gather) {
  Operation *op = gather.getOperation();
  ArrayRef<int64_t> source = gather.getSourceType().getShape();
  ArrayRef<int64_t> indices = gather.getIndicesType().getShape();
  ArrayRef<int64_t> result = gather.getResultType().getShape();
  ArrayRef<int64_t> gatherDims = gather.getGatherDims();
  int64_t numBatch = static_cast<int64_t>(indices.size()) - 1;
  OpShardingRuleBuilder builder(op);
  for (int64_t d = 0; d < numBatch; ++d)
    builder.addFactor({kNull, d}, {d}, indices[d]);
  int64_t resultDim = numBatch;
  for (int64_t d = 0, e = source.size(); d < e; ++d) {
    if (!llvm::is_contained(gatherDims, d)) {
      builder.addFactor({d, kNull}, {resultDim++}, source[d]);
      continue;
    }
    builder.addFactor({d, kNull}, {kNull}, source[d],
                      FactorType::NeedReplication);
    if (resultDim < static_cast<int64_t>(result.size()) &&
        result.size() == indices.size() - 1 + source.size())
      builder.addFactor({kNull, kNull}, {resultDim++}, 1);
  }
  builder.addFactor({kNull, numBatch}, {kNull}, indices.back(),
                    FactorType::NeedReplication);
  return builder.build();
}

/// tensor.scatter: the destination and the result share every dimension,
/// the scattered ones needing replication; the source's batch dimensions
/// (those of the indices) need replication, as several of them may update
/// one place, and its other dimensions follow the destination's unscattered
/// ones.
static OpShardingRuleAttr getScatterRule(tensor::ScatterOp scatter) {
  Operation *op = scatter.getOperation();
  ArrayRef<int64_t> dest = scatter.getDestType().getShape();
  ArrayRef<int64_t> source = scatter.getSourceType().getShape();
  ArrayRef<int64_t> indices = scatter.getIndicesType().getShape();
  ArrayRef<int64_t> scatterDims = scatter.getScatterDims();
  int64_t numBatch = static_cast<int64_t>(indices.size()) - 1;
  bool rankReduced = source.size() == indices.size() - 1 + dest.size() -
                                          scatterDims.size();
  OpShardingRuleBuilder builder(op);
  // Operands: source, dest, indices.
  for (int64_t d = 0; d < numBatch; ++d)
    builder.addFactor({d, kNull, d}, {kNull}, indices[d],
                      FactorType::NeedReplication);
  int64_t sourceDim = numBatch;
  for (int64_t d = 0, e = dest.size(); d < e; ++d) {
    if (!llvm::is_contained(scatterDims, d)) {
      builder.addFactor({sourceDim++, d, kNull}, {d}, dest[d]);
      continue;
    }
    builder.addFactor({kNull, d, kNull}, {d}, dest[d],
                      FactorType::NeedReplication);
    if (!rankReduced)
      builder.addFactor({sourceDim++, kNull, kNull}, {kNull}, 1);
  }
  builder.addFactor({kNull, kNull, numBatch}, {kNull}, indices.back(),
                    FactorType::NeedReplication);
  return builder.build();
}

static OpShardingRuleAttr getTensorRule(Operation *op) {
  if (!allStatic(op) || op->getNumOperands() == 0 || op->getNumResults() != 1)
    return {};
  int64_t numOperands = op->getNumOperands();
  OpShardingRuleBuilder builder(op);

  if (isa<tensor::CastOp, tensor::SplatOp>(op))
    return OpShardingRuleBuilder::buildPointwise(op);

  if (auto gather = dyn_cast<tensor::GatherOp>(op))
    return getGatherRule(gather);
  if (auto scatter = dyn_cast<tensor::ScatterOp>(op))
    return getScatterRule(scatter);

  if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, tensor::ReshapeOp>(
          op))
    return getReshapeRule(op, shapeOf(op->getOperand(0)),
                          shapeOf(op->getResult(0)));

  if (auto concat = dyn_cast<tensor::ConcatOp>(op)) {
    ArrayRef<int64_t> shape = shapeOf(concat.getResult());
    int64_t concatDim = concat.getDim();
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
      builder.addFactor(d, shape[d],
                        d == concatDim ? FactorType::NeedReplication
                                       : FactorType::PassThrough);
    return builder.build();
  }

  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
    ArrayRef<int64_t> src = slice.getSourceType().getShape();
    llvm::SmallBitVector dropped = slice.getDroppedDims();
    SmallVector<int64_t> sizes(slice.getStaticSizes());
    SmallVector<int64_t> strides(slice.getStaticStrides());
    if (llvm::any_of(llvm::concat<int64_t>(sizes, strides),
                     ShapedType::isDynamic) ||
        llvm::any_of(slice.getStaticOffsets(), ShapedType::isDynamic))
      return {};
    int64_t resultDim = 0;
    for (int64_t d = 0; d < static_cast<int64_t>(src.size()); ++d) {
      SmallVector<int64_t> operandDims(numOperands, kNull);
      operandDims[0] = d;
      if (dropped.test(d)) {
        builder.addFactor(operandDims, {kNull}, src[d],
                          sizes[d] == src[d] ? FactorType::PassThrough
                                             : FactorType::Permutation);
        continue;
      }
      FactorType type = FactorType::PassThrough;
      if (strides[d] != 1)
        type = FactorType::NeedReplication;
      else if (sizes[d] != src[d])
        type = FactorType::Permutation;
      builder.addFactor(operandDims, {resultDim}, sizes[d], type);
      ++resultDim;
    }
    return builder.build();
  }

  if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
    ArrayRef<int64_t> dest = insert.getDestType().getShape();
    ArrayRef<int64_t> update = insert.getSourceType().getShape();
    SmallVector<int64_t> sizes(insert.getStaticSizes());
    if (llvm::any_of(sizes, ShapedType::isDynamic) ||
        llvm::any_of(insert.getStaticOffsets(), ShapedType::isDynamic) ||
        llvm::any_of(insert.getStaticStrides(), ShapedType::isDynamic))
      return {};
    llvm::SmallBitVector dropped = insert.getDroppedDims();
    int64_t updateDim = 0;
    for (int64_t d = 0; d < static_cast<int64_t>(dest.size()); ++d) {
      SmallVector<int64_t> operandDims(numOperands, kNull);
      operandDims[1] = d;
      bool whole = sizes[d] == dest[d];
      if (!dropped.test(d)) {
        if (whole && update[updateDim] == dest[d])
          operandDims[0] = updateDim;
        ++updateDim;
      }
      builder.addFactor(operandDims, {d}, dest[d],
                        whole ? FactorType::PassThrough
                              : FactorType::NeedReplication);
    }
    return builder.build();
  }

  if (auto pad = dyn_cast<tensor::PadOp>(op)) {
    ArrayRef<int64_t> src = pad.getSourceType().getShape();
    ArrayRef<int64_t> result = pad.getResultType().getShape();
    for (int64_t d = 0; d < static_cast<int64_t>(src.size()); ++d) {
      SmallVector<int64_t> operandDims(numOperands, kNull);
      operandDims[0] = d;
      builder.addFactor(operandDims, {d}, result[d],
                        src[d] == result[d] ? FactorType::PassThrough
                                            : FactorType::Permutation);
    }
    return builder.build();
  }
  return {};
}

void mlir::tessera::spmd::registerTensorShardingRuleModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, tensor::TensorDialect *) {
    models::attachRuleModels<
        getTensorRule, tensor::CastOp, tensor::SplatOp, tensor::CollapseShapeOp,
        tensor::ExpandShapeOp, tensor::ReshapeOp, tensor::ConcatOp,
        tensor::ExtractSliceOp, tensor::InsertSliceOp, tensor::PadOp,
        tensor::GatherOp, tensor::ScatterOp>(context);
  });
}
