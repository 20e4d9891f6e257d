//===- FlopCount.cpp - the arithmetic of a kernel body --------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The FLOPs a kernel.call reports (its `--stats` line and roofline) when it
// has no cost estimate: the arithmetic of its body, counted the same way on
// the body as written and after the vector layout passes (a contraction is
// 2 M N K whether it is a vector.contract or the linalg.generic it became,
// and an elementwise op on a whole block counts as many elements as its
// loop over tiles).
//
//===----------------------------------------------------------------------===//

#include "KernelToRuntimeImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/CastInterfaces.h"

using namespace mlir;
using namespace mlir::tessera::kernel;

/// The elements of a value of `type` (1 for a scalar or a dynamic shape).
static int64_t getElementCount(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.hasStaticShape() ? shaped.getNumElements() : 1;
  return 1;
}

/// True if `op` is one arithmetic operation per element of its result: an
/// arith or math op (not a constant or a cast) on floats, or on integers
/// where `integers` (in linalg bodies, and on vectors; never on indices).
static bool isArithmetic(Operation *op, bool integers) {
  if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
      isa<arith::ConstantOp, CastOpInterface>(op) || op->getNumResults() != 1)
    return false;
  Type element = getElementTypeOrSelf(op->getResult(0).getType());
  return isa<FloatType>(element) || (integers && element.isSignlessInteger() &&
                                     element.getIntOrFloatBitWidth() > 1);
}

/// The iterations of `op`'s loops (dynamic ones count 1).
static int64_t getIterations(linalg::LinalgOp op) {
  int64_t iterations = 1;
  for (int64_t range : op.getStaticLoopRanges())
    iterations *= ShapedType::isDynamic(range) ? 1 : range;
  return iterations;
}

int64_t mlir::tessera::kernel::lowering::countFlops(Region &region) {
  int64_t total = 0;
  for (Block &block : region) {
    for (Operation &op : block) {
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
        std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
        std::optional<int64_t> st = getConstantIntValue(loop.getStep());
        int64_t trips = lb && ub && st && *st > 0
                            ? std::max<int64_t>(0, (*ub - *lb + *st - 1) / *st)
                            : 1;
        total += trips * countFlops(loop.getRegion());
        continue;
      }
      if (auto branch = dyn_cast<scf::IfOp>(op)) {
        total += std::max(countFlops(branch.getThenRegion()),
                          countFlops(branch.getElseRegion()));
        continue;
      }
      if (auto contract = dyn_cast<vector::ContractionOp>(op)) {
        // A multiply and an add per point of the iteration space.
        SmallVector<int64_t> bounds;
        contract.getIterationBounds(bounds);
        int64_t points = 1;
        for (int64_t bound : bounds)
          points *= bound;
        total += 2 * points;
        continue;
      }
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
        int64_t perIteration = 0;
        linalgOp->walk([&](Operation *inner) {
          if (isArithmetic(inner, /*integers=*/true))
            ++perIteration;
        });
        total += perIteration * getIterations(linalgOp);
        continue;
      }
      if (auto multi = dyn_cast<vector::MultiDimReductionOp>(op)) {
        total += getElementCount(multi.getSourceVectorType());
        continue;
      }
      if (auto reduction = dyn_cast<vector::ReductionOp>(op)) {
        total += getElementCount(reduction.getSourceVectorType());
        continue;
      }
      if (isa<vector::FMAOp>(op)) {
        total += 2 * getElementCount(op.getResult(0).getType());
        continue;
      }
      bool onVector =
          op.getNumResults() == 1 && isa<VectorType>(op.getResult(0).getType());
      if (isArithmetic(&op, /*integers=*/onVector))
        total += getElementCount(op.getResult(0).getType());
      for (Region &nested : op.getRegions())
        total += countFlops(nested);
    }
  }
  return total;
}
