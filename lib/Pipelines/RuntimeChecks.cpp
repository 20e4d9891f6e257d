//===- RuntimeChecks.cpp - run-time bounds and division checks ------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// `tessera-insert-runtime-checks`: a `cf.assert` before every op that would
// read or write out of bounds or trap on a bad operand (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "tessera/Pipelines/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace mlir::tessera {

#define GEN_PASS_DEF_TESSERAINSERTRUNTIMECHECKSPASS
#include "tessera/Pipelines/Passes.h.inc"

namespace {

/// Builds the conditions of one guarded op at its location.
class CheckBuilder {
public:
  CheckBuilder(Operation *op) : builder(op), loc(op->getLoc()) {}

  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(builder, loc, value);
  }
  Value i1(bool value) {
    return arith::ConstantIntOp::create(builder, loc, value, 1);
  }
  Value cmp(arith::CmpIPredicate predicate, Value lhs, Value rhs) {
    return arith::CmpIOp::create(builder, loc, predicate, lhs, rhs);
  }
  Value both(Value a, Value b) {
    return arith::AndIOp::create(builder, loc, a, b);
  }
  Value either(Value a, Value b) {
    return arith::OrIOp::create(builder, loc, a, b);
  }
  /// Dimension `d` of `tensor` as an index.
  Value dim(Value tensor, int64_t d) {
    auto type = cast<RankedTensorType>(tensor.getType());
    if (!type.isDynamicDim(d))
      return index(type.getDimSize(d));
    return tensor::DimOp::create(builder, loc, tensor, d);
  }
  /// `0 <= i < size`.
  Value inBounds(Value i, Value size) {
    return both(cmp(arith::CmpIPredicate::sge, i, index(0)),
                cmp(arith::CmpIPredicate::slt, i, size));
  }
  Value value(OpFoldResult folded) {
    if (auto v = dyn_cast<Value>(folded))
      return v;
    return index(cast<IntegerAttr>(cast<Attribute>(folded)).getInt());
  }
  /// The slice `offset + k * stride` for k in [0, size) lies in [0, dim).
  Value sliceInBounds(OpFoldResult offset, OpFoldResult size,
                      OpFoldResult stride, Value dimSize) {
    Value o = value(offset), s = value(size), st = value(stride);
    Value last = arith::AddIOp::create(
        builder, loc, o,
        arith::MulIOp::create(builder, loc,
                              arith::SubIOp::create(builder, loc, s, index(1)),
                              st));
    Value empty = cmp(arith::CmpIPredicate::eq, s, index(0));
    Value inside = both(cmp(arith::CmpIPredicate::sge, o, index(0)),
                        cmp(arith::CmpIPredicate::slt, last, dimSize));
    return both(cmp(arith::CmpIPredicate::sge, s, index(0)),
                either(empty, inside));
  }
  /// True if no element of the integer `divisor` (scalar or tensor) is 0.
  Value nonZero(Value divisor) {
    Type type = divisor.getType();
    auto tensor = dyn_cast<RankedTensorType>(type);
    Type element = tensor ? tensor.getElementType() : type;
    Value zero =
        arith::ConstantOp::create(builder, loc, builder.getZeroAttr(element));
    if (!tensor)
      return cmp(arith::CmpIPredicate::ne, divisor, zero);
    // Any zero: an or-reduction of the comparison over every dimension.
    Value zeros = tensor::SplatOp::create(builder, loc, zero, tensor.getShape(),
                                          getDynamicSizes(divisor));
    Value isZero = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                         divisor, zeros);
    Value init = tensor::EmptyOp::create(builder, loc, ArrayRef<int64_t>{},
                                         builder.getI1Type());
    Value filled =
        linalg::FillOp::create(builder, loc, i1(false), init).getResult(0);
    SmallVector<int64_t> dims;
    for (int64_t d = 0; d < tensor.getRank(); ++d)
      dims.push_back(d);
    auto reduce = linalg::ReduceOp::create(
        builder, loc, ValueRange{isZero}, ValueRange{filled}, dims,
        [](OpBuilder &b, Location l, ValueRange args) {
          Value any = arith::OrIOp::create(b, l, args[0], args[1]);
          linalg::YieldOp::create(b, l, any);
        });
    Value any = tensor::ExtractOp::create(builder, loc, reduce.getResult(0),
                                          ValueRange{});
    return arith::XOrIOp::create(builder, loc, any, i1(true));
  }
  void require(Value condition, const Twine &message) {
    cf::AssertOp::create(builder, loc, condition, message.str());
  }

private:
  SmallVector<Value> getDynamicSizes(Value tensor) {
    SmallVector<Value> sizes;
    auto type = cast<RankedTensorType>(tensor.getType());
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        sizes.push_back(tensor::DimOp::create(builder, loc, tensor, d));
    return sizes;
  }

  OpBuilder builder;
  Location loc;
};

/// Checks that every index of `indices` is inside `tensor`.
static void checkIndices(Operation *op, Value tensor, ValueRange indices) {
  CheckBuilder b(op);
  for (auto [d, index] : llvm::enumerate(indices))
    b.require(b.inBounds(index, b.dim(tensor, d)),
              op->getName().getStringRef() + ": index " + Twine(d) +
                  " out of bounds");
}

/// Checks that the slice of `op` (any dynamic offset, size or stride) lies
/// inside `tensor`.
static void checkSlice(OffsetSizeAndStrideOpInterface op, Value tensor) {
  if (op.getOffsets().empty() && op.getSizes().empty() &&
      op.getStrides().empty())
    return; // Static: the verifier has checked it.
  CheckBuilder b(op);
  SmallVector<OpFoldResult> offsets = op.getMixedOffsets(),
                            sizes = op.getMixedSizes(),
                            strides = op.getMixedStrides();
  for (size_t d = 0; d < offsets.size(); ++d)
    b.require(
        b.sliceInBounds(offsets[d], sizes[d], strides[d], b.dim(tensor, d)),
        op->getName().getStringRef() +
            ": the slice is out of bounds "
            "along dimension " +
            Twine(d));
}

struct TesseraInsertRuntimeChecksPass
    : public impl::TesseraInsertRuntimeChecksPassBase<
          TesseraInsertRuntimeChecksPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) { ops.push_back(op); });
    for (Operation *op : ops) {
      if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
        checkIndices(op, extract.getTensor(), extract.getIndices());
      } else if (auto insert = dyn_cast<tensor::InsertOp>(op)) {
        checkIndices(op, insert.getDest(), insert.getIndices());
      } else if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
        checkSlice(slice, slice.getSource());
      } else if (auto slice = dyn_cast<tensor::InsertSliceOp>(op)) {
        checkSlice(slice, slice.getDest());
      } else if (isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp,
                     arith::RemUIOp, arith::CeilDivSIOp, arith::CeilDivUIOp,
                     arith::FloorDivSIOp>(op)) {
        CheckBuilder b(op);
        b.require(b.nonZero(op->getOperand(1)),
                  op->getName().getStringRef() + ": division by zero");
      }
    }
  }
};

} // namespace

} // namespace mlir::tessera
