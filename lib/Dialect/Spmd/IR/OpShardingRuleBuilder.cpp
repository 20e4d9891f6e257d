//===- OpShardingRuleBuilder.cpp - build op sharding rules ----------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/OpShardingRuleBuilder.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

//===----------------------------------------------------------------------===//
// OpShardingRuleBuilder
//===----------------------------------------------------------------------===//

/// The rank of a ranked shaped type; 0 for anything else (a scalar).
static int64_t getRankOrZero(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type); shaped && shaped.hasRank())
    return shaped.getRank();
  return 0;
}

OpShardingRuleBuilder::OpShardingRuleBuilder(TypeRange operandTypes,
                                             TypeRange resultTypes,
                                             MLIRContext *context)
    : context(context), numOperands(operandTypes.size()) {
  for (Type type : llvm::concat<const Type>(operandTypes, resultTypes))
    mappings.emplace_back(getRankOrZero(type));
}

OpShardingRuleBuilder::OpShardingRuleBuilder(Operation *op)
    : OpShardingRuleBuilder(op->getOperandTypes(), op->getResultTypes(),
                            op->getContext()) {}

void OpShardingRuleBuilder::mapFactor(int64_t tensorIndex, int64_t dim,
                                      int64_t factorIndex) {
  if (dim == kNullDim)
    return;
  assert(dim >= 0 && dim < static_cast<int64_t>(mappings[tensorIndex].size()) &&
         "dimension out of range");
  assert(!llvm::is_contained(mappings[tensorIndex][dim], factorIndex) &&
         "factor mapped twice to the same dimension");
  mappings[tensorIndex][dim].push_back(factorIndex);
}

int64_t OpShardingRuleBuilder::addFactor(ArrayRef<int64_t> operandDims,
                                         ArrayRef<int64_t> resultDims,
                                         int64_t size, FactorType type,
                                         bool isBlocked) {
  assert(static_cast<int64_t>(operandDims.size()) == numOperands &&
         static_cast<int64_t>(resultDims.size()) ==
             static_cast<int64_t>(mappings.size()) - numOperands &&
         "one dimension per operand and per result");
  int64_t factorIndex = factorSizes.size();
  factorSizes.push_back(size);
  factorTypes.push_back(type);
  blockedFactors.push_back(isBlocked);
  for (auto [operand, dim] : llvm::enumerate(operandDims))
    mapFactor(operand, dim, factorIndex);
  for (auto [result, dim] : llvm::enumerate(resultDims))
    mapFactor(numOperands + result, dim, factorIndex);
  return factorIndex;
}

int64_t OpShardingRuleBuilder::addFactor(int64_t dim, int64_t size,
                                         FactorType type, bool isBlocked) {
  int64_t factorIndex = factorSizes.size();
  factorSizes.push_back(size);
  factorTypes.push_back(type);
  blockedFactors.push_back(isBlocked);
  for (auto [tensor, dims] : llvm::enumerate(mappings))
    if (!dims.empty())
      mapFactor(tensor, dim, factorIndex);
  return factorIndex;
}

OpShardingRuleBuilder &
OpShardingRuleBuilder::addPointwise(ArrayRef<int64_t> shape) {
  for (auto [dim, size] : llvm::enumerate(shape))
    addFactor(dim, size);
  return *this;
}

OpShardingRuleBuilder &OpShardingRuleBuilder::setCustom(bool isCustom) {
  isCustomRule = isCustom;
  return *this;
}

OpShardingRuleAttr OpShardingRuleBuilder::build() const {
  // A size-1 factor can't be part of a compound dimension.
  auto dims = mappings;
  for (auto &tensor : dims)
    for (SmallVector<int64_t> &dim : tensor)
      if (dim.size() > 1)
        llvm::erase_if(dim, [&](int64_t f) { return factorSizes[f] == 1; });

  // Drop unused factors, keeping the others in order.
  int64_t numFactors = factorSizes.size();
  llvm::BitVector used(numFactors);
  for (auto &tensor : dims)
    for (SmallVector<int64_t> &dim : tensor)
      for (int64_t f : dim)
        used.set(f);
  SmallVector<int64_t> newIndex(numFactors, kNullDim);
  SmallVector<int64_t> sizes;
  std::array<SmallVector<int64_t>, 4> sets;
  for (int64_t f = 0; f < numFactors; ++f) {
    if (!used.test(f))
      continue;
    newIndex[f] = sizes.size();
    sizes.push_back(factorSizes[f]);
    if (factorTypes[f] != FactorType::PassThrough)
      sets[static_cast<int>(factorTypes[f]) - 1].push_back(newIndex[f]);
    if (blockedFactors[f])
      sets[3].push_back(newIndex[f]);
  }

  // Renumber, and give every dimension without a factor one of size 1.
  SmallVector<TensorMappingAttr> tensorMappings;
  for (auto &tensor : dims) {
    SmallVector<DimMappingAttr> dimMappings;
    for (SmallVector<int64_t> &dim : tensor) {
      for (int64_t &f : dim)
        f = newIndex[f];
      if (dim.empty()) {
        dim.push_back(sizes.size());
        sizes.push_back(1);
      }
      dimMappings.push_back(DimMappingAttr::get(context, dim));
    }
    tensorMappings.push_back(TensorMappingAttr::get(context, dimMappings));
  }
  ArrayRef<TensorMappingAttr> all(tensorMappings);
  using Factors = ArrayRef<int64_t>;
  return OpShardingRuleAttr::get(
      context, Factors(sizes), all.take_front(numOperands),
      all.drop_front(numOperands), Factors(sets[0]), Factors(sets[1]),
      Factors(sets[2]), Factors(sets[3]), isCustomRule);
}

OpShardingRuleAttr OpShardingRuleBuilder::buildPointwise(Operation *op) {
  if (op->getNumOperands() == 0 || op->getNumResults() == 0)
    return {};
  std::optional<ArrayRef<int64_t>> shape;
  for (Type type :
       llvm::concat<const Type>(op->getResultTypes(), op->getOperandTypes())) {
    ArrayRef<int64_t> valueShape;
    if (isa<ShapedType>(type)) {
      // Dynamic dimensions become factors of size `?`; all values must then
      // agree on which dimensions are dynamic (shapes compare equal).
      auto tensorType = dyn_cast<RankedTensorType>(type);
      if (!tensorType)
        return {};
      valueShape = tensorType.getShape();
    }
    if (!shape) {
      shape = valueShape;
      continue;
    }
    if (!valueShape.empty() && valueShape != *shape)
      return {};
  }
  OpShardingRuleBuilder builder(op);
  builder.addPointwise(*shape);
  return builder.build();
}
