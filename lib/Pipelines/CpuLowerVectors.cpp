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
//   `vector.reduction`s.
// * Transfers with broadcast or permuted dimensions become minor-identity
//   transfers plus `vector.broadcast` / `vector.transpose`; masked transfers
//   take their mask as an operand.
// * Leading unit dimensions are dropped.
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

struct TesseraCpuLowerVectorsPass
    : public impl::TesseraCpuLowerVectorsPassBase<TesseraCpuLowerVectorsPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    vector::populateVectorContractLoweringPatterns(
        patterns, vector::VectorContractLowering::ParallelArith);
    vector::populateVectorMultiReductionLoweringPatterns(
        patterns, vector::VectorMultiReductionLowering::InnerParallel);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorMaskLoweringPatternsForSideEffectingOps(patterns);
    vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
    vector::populateDropUnitDimWithShapeCastPatterns(patterns);
    for (RegisteredOperationName op : context->getRegisteredOperations())
      if (op.getDialectNamespace() ==
          vector::VectorDialect::getDialectNamespace())
        op.getCanonicalizationPatterns(patterns, context);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));

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
