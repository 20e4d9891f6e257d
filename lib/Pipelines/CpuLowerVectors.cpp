//===- CpuLowerVectors.cpp - lower the codegen's vector ops ---------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// `tessera-cpu-lower-vectors` runs on buffers, after bufferization, and
// leaves vector ops that VectorToSCF (n-D transfers, fully unrolled) and
// VectorToLLVM take:
//
// * `vector.contract` with unit reduction dimensions (the register kernels)
//   become `vector.fma` on whole accumulator tiles; other contractions fall
//   back to the upstream lowering.
// * `vector.multi_reduction` becomes elementwise ops and 1-D
//   `vector.reduction`s, without moving data between lanes where it can:
//   one that reduces the innermost dimensions (a row sum of an (8, 128)
//   tile) becomes one 1-D reduction per kept element, the others combine
//   whole vectors elementwise (transposing the reduced dimensions to the
//   front first, if they are not there).
// * A `vector.reduction` of a 1-D vector wider than a 512-bit register
//   first combines the halves of the vector elementwise until it fits one
//   (LLVM reduces floats in order otherwise, element by element, and NaN-
//   propagating maxima and minima always so); sums and products of floats
//   narrower than f32 keep their order.
// * Transfers with broadcast or permuted dimensions become minor-identity
//   transfers plus `vector.broadcast` / `vector.transpose`; masked transfers
//   take their mask as an operand.
// * Leading unit dimensions are dropped.
// * 2-D transposes of 32-bit elements whose dimensions are multiples of 16
//   (the packing of a transposed contraction operand, `q k^T`) become
//   16 x 16 blocks transposed with shuffles of whole rows (the LLVM
//   conversion would move one element at a time).
// * exp, log, tanh, erf and their variants on f32 vectors become polynomial
//   approximations.
// * `math.absi` on vectors becomes max(x, 0 - x) (MathToLLVM only lowers
//   it on 1-D vectors).
//
//===----------------------------------------------------------------------===//

#include "tessera/Pipelines/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tessera {

#define GEN_PASS_DEF_TESSERACPULOWERVECTORSPASS
#include "tessera/Pipelines/Passes.h.inc"

namespace {

/// |x| as max(x, 0 - x): the same two's-complement result as `math.absi`
/// (the minimum value stays itself), on vectors of any rank.
struct ExpandVectorAbsI : OpRewritePattern<math::AbsIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::AbsIOp op,
                                PatternRewriter &rewriter) const override {
    if (!isa<VectorType>(op.getType()))
      return failure();
    Value zero = arith::ConstantOp::create(rewriter, op.getLoc(), op.getType(),
                                           rewriter.getZeroAttr(op.getType()));
    Value negated =
        arith::SubIOp::create(rewriter, op.getLoc(), zero, op.getOperand());
    rewriter.replaceOpWithNewOp<arith::MaxSIOp>(op, op.getOperand(), negated);
    return success();
  }
};

/// vector.reduction of a 1-D vector of more than 512 bits: the reduction of
/// the elementwise combination of its two halves (a tree of vector ops, and
/// a last reduction of one register's width).
struct SplitWideReduction : OpRewritePattern<vector::ReductionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::ReductionOp op,
                                PatternRewriter &rewriter) const override {
    VectorType type = op.getSourceVectorType();
    if (type.getRank() != 1 || type.isScalable() ||
        !type.getElementType().isIntOrFloat() ||
        isa<vector::MaskingOpInterface>(op->getParentOp()))
      return failure();
    int64_t size = type.getDimSize(0);
    unsigned width = type.getElementType().getIntOrFloatBitWidth();
    if (size % 2 != 0 || size * width <= 512)
      return failure();
    // Sums and products of floats narrower than f32 keep their order (their
    // rounding would change far more than f32's, as in CpuCodegen's
    // reductions); maxima and minima do not depend on the order.
    vector::CombiningKind kind = op.getKind();
    if (isa<FloatType>(type.getElementType()) && width < 32 &&
        (kind == vector::CombiningKind::ADD ||
         kind == vector::CombiningKind::MUL))
      return failure();
    Location loc = op.getLoc();
    int64_t half = size / 2;
    Value low = vector::ExtractStridedSliceOp::create(
        rewriter, loc, op.getVector(), ArrayRef<int64_t>{0},
        ArrayRef<int64_t>{half}, ArrayRef<int64_t>{1});
    Value high = vector::ExtractStridedSliceOp::create(
        rewriter, loc, op.getVector(), ArrayRef<int64_t>{half},
        ArrayRef<int64_t>{half}, ArrayRef<int64_t>{1});
    Value combined = vector::makeArithReduction(rewriter, loc, kind, low, high);
    rewriter.modifyOpInPlace(op,
                             [&] { op.getVectorMutable().assign(combined); });
    return success();
  }
};

/// A 2-D transpose of 32-bit elements whose dimensions are multiples of 16
/// (the transposed packing of a contraction's operand): 16 x 16 blocks, each
/// transposed on its own (ShuffleTransposeBlocks lowers those with
/// shuffles of whole rows; the default lowering moves one element at a
/// time).
struct SplitTransposeInto16x16 : OpRewritePattern<vector::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    VectorType type = op.getSourceVectorType();
    if (type.getRank() != 2 || type.isScalable() ||
        !type.getElementType().isIntOrFloat() ||
        type.getElementType().getIntOrFloatBitWidth() != 32 ||
        !llvm::equal(op.getPermutation(), ArrayRef<int64_t>{1, 0}))
      return failure();
    int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
    if (rows % 16 != 0 || cols % 16 != 0 || (rows == 16 && cols == 16))
      return failure();
    Location loc = op.getLoc();
    VectorType resultType = op.getResultVectorType();
    Value result = arith::ConstantOp::create(rewriter, loc, resultType,
                                             rewriter.getZeroAttr(resultType));
    for (int64_t r = 0; r < rows; r += 16)
      for (int64_t c = 0; c < cols; c += 16) {
        Value block = vector::ExtractStridedSliceOp::create(
            rewriter, loc, op.getVector(), ArrayRef<int64_t>{r, c},
            ArrayRef<int64_t>{16, 16}, ArrayRef<int64_t>{1, 1});
        Value transposed = vector::TransposeOp::create(rewriter, loc, block,
                                                       ArrayRef<int64_t>{1, 0});
        result = vector::InsertStridedSliceOp::create(
            rewriter, loc, transposed, result, ArrayRef<int64_t>{c, r},
            ArrayRef<int64_t>{1, 1});
      }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// True if `op` reduces exactly the innermost dimensions of its source and
/// keeps at least one: its rows are contiguous vectors, each reduced on its
/// own (lowering it the other way would transpose the source element by
/// element).
bool reducesInnermostDims(vector::MultiDimReductionOp op) {
  SmallVector<bool> reduced = op.getReductionMask();
  auto firstReduced = llvm::find(reduced, true);
  return firstReduced != reduced.begin() && firstReduced != reduced.end() &&
         std::all_of(firstReduced, reduced.end(), [](bool r) { return r; });
}

struct TesseraCpuLowerVectorsPass
    : public impl::TesseraCpuLowerVectorsPassBase<TesseraCpuLowerVectorsPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    // Reductions of rows first: one vector.reduction per row.
    SmallVector<Operation *> rowReductions;
    getOperation().walk([&](vector::MultiDimReductionOp op) {
      if (reducesInnermostDims(op))
        rowReductions.push_back(op);
    });
    if (!rowReductions.empty()) {
      RewritePatternSet rowPatterns(context);
      vector::populateVectorMultiReductionLoweringPatterns(
          rowPatterns, vector::VectorMultiReductionLowering::InnerReduction);
      GreedyRewriteConfig rowConfig;
      rowConfig.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
      (void)applyOpPatternsGreedily(rowReductions, std::move(rowPatterns),
                                    rowConfig);
    }

    RewritePatternSet patterns(context);
    vector::populateVectorContractLoweringPatterns(
        patterns, vector::VectorContractLowering::ParallelArith);
    vector::populateVectorMultiReductionLoweringPatterns(
        patterns, vector::VectorMultiReductionLowering::InnerParallel);
    patterns.add<SplitWideReduction>(context);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorMaskLoweringPatternsForSideEffectingOps(patterns);
    vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
    vector::populateDropUnitDimWithShapeCastPatterns(patterns);
    for (RegisteredOperationName op : context->getRegisteredOperations())
      if (op.getDialectNamespace() ==
          vector::VectorDialect::getDialectNamespace())
        op.getCanonicalizationPatterns(patterns, context);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));

    // 2-D transposes of 32-bit elements in 16 x 16 blocks of shuffles.
    RewritePatternSet transposePatterns(context);
    transposePatterns.add<SplitTransposeInto16x16>(context);
    vector::populateVectorTransposeLoweringPatterns(
        transposePatterns, vector::VectorTransposeLowering::Shuffle16x16);
    SmallVector<Operation *> transposes;
    getOperation().walk([&](vector::TransposeOp op) {
      VectorType type = op.getSourceVectorType();
      if (type.getRank() == 2 && !type.isScalable() &&
          type.getDimSize(0) % 16 == 0 && type.getDimSize(1) % 16 == 0 &&
          type.getElementType().isIntOrFloat() &&
          type.getElementType().getIntOrFloatBitWidth() == 32)
        transposes.push_back(op);
    });
    if (!transposes.empty()) {
      GreedyRewriteConfig transposeConfig;
      transposeConfig.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
      (void)applyOpPatternsGreedily(transposes, std::move(transposePatterns),
                                    transposeConfig);
    }

    // Transcendental functions on vectors: polynomials (LLVM would call the
    // scalar libm function once per element). Scalars keep libm.
    SmallVector<Operation *> vectorMath;
    getOperation().walk([&](Operation *op) {
      if (isa<math::MathDialect>(op->getDialect()) &&
          op->getNumResults() == 1 &&
          isa<VectorType>(op->getResult(0).getType()))
        vectorMath.push_back(op);
    });
    RewritePatternSet mathPatterns(context);
    populateMathPolynomialApproximationPatterns(
        mathPatterns, [](StringRef name) {
          name.consume_front("math.");
          return llvm::is_contained(
              {"exp", "expm1", "log", "log1p", "log2", "tanh", "erf"}, name);
        });
    mathPatterns.add<ExpandVectorAbsI>(context);
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    (void)applyOpPatternsGreedily(vectorMath, std::move(mathPatterns), config);
  }
};

} // namespace

} // namespace mlir::tessera
