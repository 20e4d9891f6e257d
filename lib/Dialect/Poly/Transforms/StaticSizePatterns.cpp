//===- StaticSizePatterns.cpp - constant sizes into static types ----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Patterns that complete the upstream canonicalization for `poly-specialize`:
// an op whose dynamic sizes are constant operands gets the static type they
// describe, followed by a `tensor.cast` to its former type (which the
// canonicalization folds into the users).
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Poly/Transforms/Patterns.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::tessera;

namespace {
/// `tensor.splat %v[%c3] : tensor<?x4xf32>` -> `tensor.splat %v :
/// tensor<3x4xf32>` + `tensor.cast`.
struct StaticSplatSizes : public OpRewritePattern<tensor::SplatOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::SplatOp op,
                                PatternRewriter &rewriter) const override {
    auto type = op.getType();
    SmallVector<int64_t> shape(type.getShape());
    SmallVector<Value> remaining;
    auto sizes = op.getDynamicSizes();
    unsigned next = 0;
    bool changed = false;
    for (int64_t &size : shape) {
      if (!ShapedType::isDynamic(size))
        continue;
      Value operand = sizes[next++];
      APInt constant;
      if (matchPattern(operand, m_ConstantInt(&constant)) &&
          !constant.isNegative()) {
        size = constant.getSExtValue();
        changed = true;
        continue;
      }
      remaining.push_back(operand);
    }
    if (!changed)
      return rewriter.notifyMatchFailure(op, "no constant dynamic size");
    auto staticType =
        RankedTensorType::get(shape, type.getElementType(), type.getEncoding());
    Value splat = tensor::SplatOp::create(rewriter, op.getLoc(), staticType,
                                          op.getInput(), remaining);
    rewriter.replaceOpWithNewOp<tensor::CastOp>(op, type, splat);
    return success();
  }
};
} // namespace

void poly::populateStaticSizePatterns(RewritePatternSet &patterns) {
  patterns.add<StaticSplatSizes>(patterns.getContext());
}
