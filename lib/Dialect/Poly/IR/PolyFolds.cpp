//===- PolyFolds.cpp - poly canonicalization ------------------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Poly/IR/PolyOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::tessera::poly;

/// An assertion of the constant `true` always holds: erase it. An assertion
/// of the constant `false` is kept; it fails at run time with its message.
LogicalResult ShapeAssertionOp::canonicalize(ShapeAssertionOp op,
                                             PatternRewriter &rewriter) {
  if (!matchPattern(op.getPred(), m_One()))
    return rewriter.notifyMatchFailure(op, "predicate is not constant true");
  rewriter.eraseOp(op);
  return success();
}
