//===- FactorChoice.h - spmd-insert-reshards' factor choice -----*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Dialect/Spmd/Transforms/Partition: how spmd-insert-reshards
// (InsertReshards.cpp) picks one sharding of an op's factors, in
// FactorChoice.cpp: the reduction kinds the mesh can finish, which factors
// may be padded, and the greedy choice of each factor's axes.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_PARTITION_FACTORCHOICE_H
#define TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_PARTITION_FACTORCHOICE_H

#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdShardingRule.h"
#include "tessera/Dialect/Spmd/Transforms/FactorPropagation.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "llvm/ADT/BitVector.h"

#include <optional>

namespace mlir::tessera::spmd::detail {

/// True if `op` computes right on blocks padded with zeros past the end of
/// a dimension: the partitioner cuts linalg reductions to the valid part,
/// and everything else maps padding to padding. Integer division could
/// trap on the padding, and ops that spell global positions other than
/// through linalg.index or whole dimensions are left out.
bool isPaddingSafe(Operation *op);

/// The factors of `rule` that may be sharded by axes that do not divide
/// them (each device's block padded at the end) on a padding-safe op: a
/// factor of static size larger than 1 that is, in every dimension it
/// appears in, the only factor larger than 1 (a dimension made of several
/// factors has one padded layout, not one per factor).
llvm::BitVector getPaddableFactors(OpShardingRuleAttr rule);

/// The axes of every factor, chosen greedily from the tensors' shardings.
/// The axes of a factor divide it unless the factor is `paddable`.
SmallVector<SmallVector<AxisRefAttr>>
chooseFactorAxes(OpShardingRuleAttr rule, const ShardingProjection &projection,
                 ArrayRef<int64_t> tensorSizes,
                 const llvm::BitVector &shardable,
                 const llvm::BitVector &paddable, MeshAttr mesh);

/// An input dimension of a structured op read through a window (a spatial
/// dimension of a convolution's or pooling's input): indexed by
/// `stride * outLoop + dilation * windowLoop`, where `outLoop` is a parallel
/// loop every init indexes directly and `windowLoop` a reduction loop no
/// init reads. Its sharding rule maps it to `outLoop`, a permutation factor.
struct WindowedDim {
  unsigned operand;
  int64_t dim;
  unsigned outLoop;
  unsigned windowLoop;
  int64_t stride;
  int64_t dilation;
};

/// The windowLoop of a padded dimension of a `tensor.pad` (see getHaloDims):
/// it has no window loop.
constexpr unsigned kNoWindowLoop = ~0u;

/// The windowed input dimensions of `op`; none when an input dimension is
/// indexed by another combination of loops or an init by anything but loops
/// and constants (those ops keep their permutation factors unsharded).
SmallVector<WindowedDim> getWindowedDims(linalg::LinalgOp op);

/// The windowed dimensions of `op` under `rule`, the rule of `op` with one
/// factor per loop (each maps to its output loop); none for other ops and
/// rules. Their output loops may be sharded with a halo exchange
/// (spmd-partition's exchangeHalos) when their sizes are static. For a
/// `tensor.pad` of static amounts and a constant padding value, its padded
/// dimensions, as windows of one element (the output loop is the
/// dimension's factor; kNoWindowLoop).
SmallVector<WindowedDim> getHaloDims(Operation *op, OpShardingRuleAttr rule);

/// The sharding of a tensor with `mapping` under the factor axes `chosen`.
TensorShardingAttr buildSharding(MLIRContext *ctx, TensorMappingAttr mapping,
                                 ArrayRef<SmallVector<AxisRefAttr>> chosen,
                                 Attribute meshRef, MeshAttr mesh);

} // namespace mlir::tessera::spmd::detail

#endif // TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_PARTITION_FACTORCHOICE_H
