//===- OpShardingRuleBuilder.h - build op sharding rules ----------*- C++
//-*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The public way to describe an op's sharding rule, factor by factor: used by
// Tessera's external models (Dialect/Spmd/Extensions) and by embedders that
// give their own ops a ShardingRuleOpInterface model.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_IR_OPSHARDINGRULEBUILDER_H
#define TESSERA_DIALECT_SPMD_IR_OPSHARDINGRULEBUILDER_H

#include "tessera/Dialect/Spmd/IR/SpmdAttrs.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/TypeRange.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace mlir::tessera::spmd {

//===----------------------------------------------------------------------===//
// OpShardingRuleBuilder
//===----------------------------------------------------------------------===//

/// Builds an `#spmd.op_sharding_rule` one factor at a time. Each factor is
/// mapped to at most one dimension of every operand and result; mapping a
/// second factor to the same dimension makes it a compound dimension whose
/// factors are ordered major to minor in the order they were added.
///
/// ```
///   // ([i, k], [k, j])->([i, j]) {i=8, j=16, k=32} reduction={k}
///   constexpr int64_t kNull = OpShardingRuleBuilder::kNullDim;
///   OpShardingRuleBuilder b(op);
///   b.addFactor({0, kNull}, {0}, 8);
///   b.addFactor({kNull, 1}, {1}, 16);
///   b.addFactor({1, 0}, {kNull}, 32, FactorType::Reduction);
///   OpShardingRuleAttr rule = b.build();
/// ```
class OpShardingRuleBuilder {
public:
  /// A dimension index meaning "this operand/result doesn't have the factor".
  static constexpr int64_t kNullDim = -1;

  /// Starts a rule for an op with these operand and result types. A ranked
  /// shaped type has its rank; any other type is a scalar (rank 0).
  OpShardingRuleBuilder(TypeRange operandTypes, TypeRange resultTypes,
                        MLIRContext *context);
  /// Starts a rule for `op`'s operand and result types.
  explicit OpShardingRuleBuilder(Operation *op);

  /// Adds a factor of size `size` and kind `type`, mapped to dimension
  /// `operandDims[i]` of operand i and `resultDims[j]` of result j
  /// (`kNullDim` to skip a value). Both lists have one entry per operand and
  /// per result. Returns the factor's index in the builder.
  int64_t addFactor(llvm::ArrayRef<int64_t> operandDims,
                    llvm::ArrayRef<int64_t> resultDims, int64_t size,
                    FactorType type = FactorType::PassThrough,
                    bool isBlocked = false);

  /// Adds a factor mapped to dimension `dim` of every operand and result of
  /// rank at least 1 (scalars are skipped); useful for elementwise ops.
  int64_t addFactor(int64_t dim, int64_t size,
                    FactorType type = FactorType::PassThrough,
                    bool isBlocked = false);

  /// Adds one pass-through factor per dimension of `shape`, mapped to that
  /// dimension of every operand and result of rank at least 1.
  OpShardingRuleBuilder &addPointwise(llvm::ArrayRef<int64_t> shape);

  /// Marks the rule as user-defined (`, custom`).
  OpShardingRuleBuilder &setCustom(bool isCustom = true);

  /// The number of factors added so far.
  int64_t getNumFactors() const { return factorSizes.size(); }

  /// Builds the rule, normalized so that it verifies: a factor of size 1 is
  /// removed from every dimension that has other factors; factors then mapped
  /// to no dimension are dropped (the remaining ones keep their relative
  /// order, so indices returned by addFactor shift down past a dropped
  /// factor); and every dimension left without a factor gets a new factor of
  /// size 1, appended in operand-then-result, dimension order. A rule needs
  /// at least one operand and one result.
  OpShardingRuleAttr build() const;

  /// The rule of an elementwise op: one pass-through factor per dimension of
  /// its first result, shared by every operand and result of rank at least
  /// 1 (scalars map to `[]`). Null if the op has no operand or no result, or
  /// if some operand or result is a shaped type other than a static ranked
  /// tensor, or a non-scalar with another shape.
  static OpShardingRuleAttr buildPointwise(Operation *op);

private:
  /// Maps `factorIndex` to dimension `dim` of tensor `tensorIndex` (operands
  /// first), unless `dim` is kNullDim.
  void mapFactor(int64_t tensorIndex, int64_t dim, int64_t factorIndex);

  MLIRContext *context;
  int64_t numOperands;
  /// Per tensor (operands, then results), per dimension: factor indices,
  /// major to minor.
  llvm::SmallVector<llvm::SmallVector<llvm::SmallVector<int64_t>>> mappings;
  llvm::SmallVector<int64_t> factorSizes;
  llvm::SmallVector<FactorType> factorTypes;
  llvm::SmallVector<bool> blockedFactors;
  bool isCustomRule = false;
};

} // namespace mlir::tessera::spmd

#endif // TESSERA_DIALECT_SPMD_IR_OPSHARDINGRULEBUILDER_H
