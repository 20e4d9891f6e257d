//===- LinalgExtension.cpp - sharding rules of linalg structured ops ------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// One model for every structured op (named ops, generic, map, reduce,
// transpose, broadcast, fill, contractions, convolutions), derived from the
// indexing maps and iterator types:
//
// - every loop is a factor of the loop's static size; a reduction loop is a
//   reduction factor;
// - an operand (ins and outs) or result dimension whose map result is exactly
//   a loop `dN` is mapped to that factor; a result follows its init;
// - a dimension indexed by a combination of loops (a convolution's input
//   `d1 + d4`) is mapped to its parallel loop, which becomes a permutation
//   factor (sharding it needs halo exchange); the window loop stays a
//   reduction factor of the kernel;
// - a dimension indexed by a constant (a size-1 broadcast) gets no factor.
//
// Ops on memrefs and ops with a dynamic loop size have no rule.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/Extensions/ShardingRuleExternalModels.h"

#include "RuleModel.h"

#include "tessera/Dialect/Spmd/IR/OpShardingRuleBuilder.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

/// The loop that indexes dimension `expr`: the loop itself for `dN`; for a
/// combination of loops, its only parallel loop, marked in `permutation`.
static std::optional<unsigned>
getIndexingLoop(AffineExpr expr, ArrayRef<utils::IteratorType> iterators,
                llvm::SmallBitVector &permutation) {
  if (auto dim = dyn_cast<AffineDimExpr>(expr))
    return dim.getPosition();
  std::optional<unsigned> parallel;
  bool several = false;
  expr.walk([&](AffineExpr e) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim || iterators[dim.getPosition()] != utils::IteratorType::parallel)
      return;
    if (parallel && *parallel != dim.getPosition())
      several = true;
    parallel = dim.getPosition();
  });
  if (!parallel || several)
    return std::nullopt;
  permutation.set(*parallel);
  return parallel;
}

static OpShardingRuleAttr getLinalgRule(Operation *op) {
  auto linalgOp = cast<linalg::LinalgOp>(op);
  if (!linalgOp.hasPureTensorSemantics() || op->getNumResults() == 0)
    return {};
  // A loop of dynamic size (a `poly.shape` program) becomes a factor of
  // size `?`; every dimension it indexes must then be dynamic too (and a
  // static loop's dimensions static), else there is no rule.
  SmallVector<int64_t> loopSizes = linalgOp.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = linalgOp.getIteratorTypesArray();
  SmallVector<AffineMap> maps = linalgOp.getIndexingMapsArray();
  unsigned numLoops = loopSizes.size();
  int64_t numOperands = op->getNumOperands();

  // Per operand, per dimension: the loop indexing it.
  llvm::SmallBitVector permutation(numLoops);
  SmallVector<SmallVector<std::optional<unsigned>>> dimLoops(numOperands);
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = linalgOp.getMatchingIndexingMap(&operand);
    for (AffineExpr expr : map.getResults())
      dimLoops[operand.getOperandNumber()].push_back(
          getIndexingLoop(expr, iterators, permutation));
  }

  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!type)
      continue;
    for (auto [dim, loop] :
         llvm::enumerate(dimLoops[operand.getOperandNumber()]))
      if (loop && ShapedType::isDynamic(type.getDimSize(dim)) !=
                      ShapedType::isDynamic(loopSizes[*loop]))
        return {};
  }

  OpShardingRuleBuilder builder(op);
  constexpr int64_t kNull = OpShardingRuleBuilder::kNullDim;
  for (unsigned loop = 0; loop < numLoops; ++loop) {
    SmallVector<int64_t> operandDims(numOperands, kNull);
    for (int64_t i = 0; i < numOperands; ++i)
      for (auto [dim, l] : llvm::enumerate(dimLoops[i]))
        if (l == loop)
          operandDims[i] = dim;
    SmallVector<int64_t> resultDims;
    for (OpResult result : op->getResults())
      resultDims.push_back(
          operandDims[linalgOp.getDpsInitOperand(result.getResultNumber())
                          ->getOperandNumber()]);
    FactorType type = FactorType::PassThrough;
    if (iterators[loop] == utils::IteratorType::reduction)
      type = FactorType::Reduction;
    else if (permutation.test(loop))
      type = FactorType::Permutation;
    builder.addFactor(operandDims, resultDims, loopSizes[loop], type);
  }
  return builder.build();
}

/// Whether `value`, computed in `body`, depends on one of the block's
/// accumulator arguments (those from `firstAccumulator` on).
static bool dependsOnAccumulator(Value value, Block *body,
                                 unsigned firstAccumulator) {
  SmallVector<Value> worklist = {value};
  llvm::SmallPtrSet<Operation *, 8> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == body && arg.getArgNumber() >= firstAccumulator)
        return true;
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != body || !seen.insert(def).second)
      continue;
    llvm::append_range(worklist, def->getOperands());
  }
  return false;
}

/// The combiner of result `resultIndex` of a structured op: the binary op
/// that yields it from the result's own block argument and another value
/// that depends on no accumulator, read as the reduction it performs; or a
/// select between the accumulator and such a value (Select, the index of
/// an argmax), whatever its condition reads.
static ReductionCombiner getLinalgCombiner(Operation *op,
                                           unsigned resultIndex) {
  auto linalgOp = cast<linalg::LinalgOp>(op);
  if (op->getNumRegions() != 1 || op->getRegion(0).empty())
    return ReductionCombiner::None;
  Block *body = linalgOp.getBlock();
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  unsigned firstAccumulator = linalgOp.getNumDpsInputs();
  unsigned outArgIndex = firstAccumulator + resultIndex;
  if (!yield || resultIndex >= yield.getNumOperands() ||
      outArgIndex >= body->getNumArguments())
    return ReductionCombiner::None;
  BlockArgument outArg = body->getArgument(outArgIndex);
  Operation *combiner = yield.getOperand(resultIndex).getDefiningOp();
  if (!combiner || combiner->getBlock() != body)
    return ReductionCombiner::None;
  if (auto select = dyn_cast<arith::SelectOp>(combiner)) {
    Value onTrue = select.getTrueValue(), onFalse = select.getFalseValue();
    if ((onTrue == outArg) == (onFalse == outArg))
      return ReductionCombiner::None;
    Value element = onTrue == outArg ? onFalse : onTrue;
    if (dependsOnAccumulator(element, body, firstAccumulator))
      return ReductionCombiner::None;
    return ReductionCombiner::Select;
  }
  if (combiner->getNumOperands() != 2 ||
      !llvm::is_contained(combiner->getOperands(), outArg))
    return ReductionCombiner::None;
  Value other = combiner->getOperand(0) == outArg ? combiner->getOperand(1)
                                                  : combiner->getOperand(0);
  if (other == outArg || dependsOnAccumulator(other, body, firstAccumulator))
    return ReductionCombiner::None;
  if (isa<arith::AddFOp, arith::AddIOp>(combiner))
    return ReductionCombiner::Add;
  if (isa<arith::MulFOp, arith::MulIOp>(combiner))
    return ReductionCombiner::Mul;
  if (isa<arith::MaximumFOp, arith::MaxNumFOp, arith::MaxSIOp>(combiner))
    return ReductionCombiner::Max;
  if (isa<arith::MinimumFOp, arith::MinNumFOp, arith::MinSIOp>(combiner))
    return ReductionCombiner::Min;
  if (isa<arith::MaxUIOp>(combiner))
    return ReductionCombiner::UnsignedMax;
  if (isa<arith::MinUIOp>(combiner))
    return ReductionCombiner::UnsignedMin;
  if (isa<arith::AndIOp>(combiner))
    return ReductionCombiner::And;
  if (isa<arith::OrIOp>(combiner))
    return ReductionCombiner::Or;
  if (isa<arith::XOrIOp>(combiner))
    return ReductionCombiner::Xor;
  return ReductionCombiner::None;
}

void mlir::tessera::spmd::registerLinalgShardingRuleModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, linalg::LinalgDialect *) {
    models::attachReductionRuleModels<getLinalgRule, getLinalgCombiner,
#define GET_OP_LIST
#include "mlir/Dialect/Linalg/IR/LinalgStructuredOps.cpp.inc"
                                      >(context);
  });
}
