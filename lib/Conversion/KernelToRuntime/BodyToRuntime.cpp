//===- BodyToRuntime.cpp - kernel ops of a body to vector and memref ops --===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The patterns that lower the kernel ops of a kernel body clone (or an index
// map function) for convert-kernel-to-runtime: grid queries to the leading
// arguments and constants, kernel.load/store to row-wise vector loads and
// stores (masked ones to vector.maskedload/maskedstore), DMAs to copies that
// count bytes on their semaphores, semaphores to i32 counters,
// kernel.run_scoped to buffers in the core's arenas (released at the end of
// the scope), with run-time checks that call tessera_rt_kernel_error; the
// body's own linalg ops on buffers to linalg on tensors; and every other op
// whose types carry a kernel memory space to the same op without it.
//
//===----------------------------------------------------------------------===//

#include "KernelToRuntimeImpl.h"

#include "tessera/Dialect/Kernel/IR/KernelDialect.h"
#include "tessera/Dialect/Kernel/IR/KernelOps.h"
#include "tessera/Dialect/Kernel/Transforms/VectorLayout.h"
#include "tessera/Runtime/KernelABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::kernel;
using namespace mlir::tessera::kernel::lowering;

//===----------------------------------------------------------------------===//
// Vector loads and stores
//===----------------------------------------------------------------------===//

/// A vector of `type` filled with the poison value (zeros if none).
static Value poisonVector(OpBuilder &b, Location loc, VectorType type) {
  TypedAttr scalar = getPoisonAttr(type.getElementType());
  if (!scalar)
    return arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
  return arith::ConstantOp::create(b, loc,
                                   DenseElementsAttr::get(type, scalar));
}

/// The bytes of the row of `length` booleans at `at` in `memref` (a memref
/// of i1, one byte per element in memory), as a memref of i8: vectors of i1
/// are bit-packed in LLVM's loads and stores, so booleans move as bytes.
static Value getByteRow(OpBuilder &b, Location loc, RuntimeCalls &runtime,
                        Value memref, ValueRange at, int64_t length) {
  Value address = runtime.getElementAddress(b, loc, memref, at);
  return createMemRefAt(b, loc, address,
                        MemRefType::get({length}, b.getI8Type()));
}

/// Loads the row of `rowType` at `at` (masked-out lanes from `passthru`).
static Value loadRow(OpBuilder &b, Location loc, RuntimeCalls &runtime,
                     Value memref, ValueRange at, VectorType rowType,
                     Value mask, Value passthru) {
  if (!rowType.getElementType().isInteger(1)) {
    if (mask)
      return vector::MaskedLoadOp::create(b, loc, rowType, memref, at, mask,
                                          passthru);
    return vector::LoadOp::create(b, loc, rowType, memref, at);
  }
  auto byteType = VectorType::get(rowType.getShape(), b.getI8Type());
  Value bytes = getByteRow(b, loc, runtime, memref, at, rowType.getDimSize(0));
  Value zero = constantIndex(b, loc, 0);
  Value loaded =
      mask ? vector::MaskedLoadOp::create(
                 b, loc, byteType, bytes, ValueRange{zero}, mask,
                 arith::ExtUIOp::create(b, loc, byteType, passthru))
                 .getResult()
           : vector::LoadOp::create(b, loc, byteType, bytes, ValueRange{zero})
                 .getResult();
  return arith::TruncIOp::create(b, loc, rowType, loaded);
}

/// Stores the row `row` at `at` (only the lanes of `mask`, if any).
static void storeRow(OpBuilder &b, Location loc, RuntimeCalls &runtime,
                     Value row, Value memref, ValueRange at, Value mask) {
  auto rowType = cast<VectorType>(row.getType());
  if (rowType.getElementType().isInteger(1)) {
    auto byteType = VectorType::get(rowType.getShape(), b.getI8Type());
    memref = getByteRow(b, loc, runtime, memref, at, rowType.getDimSize(0));
    row = arith::ExtUIOp::create(b, loc, byteType, row);
    SmallVector<Value> zero{constantIndex(b, loc, 0)};
    if (mask)
      vector::MaskedStoreOp::create(b, loc, memref, zero, mask, row);
    else
      vector::StoreOp::create(b, loc, row, memref, zero);
    return;
  }
  if (mask)
    vector::MaskedStoreOp::create(b, loc, memref, at, mask, row);
  else
    vector::StoreOp::create(b, loc, row, memref, at);
}

/// Loads a vector covering the last dimensions of `memref` from `indices`,
/// one 1-D load per row.
static Value loadVector(OpBuilder &b, Location loc, RuntimeCalls &runtime,
                        Value memref, ValueRange indices, VectorType type,
                        Value mask) {
  Value passthru = mask ? poisonVector(b, loc, type) : Value();
  if (type.getRank() == 1)
    return loadRow(b, loc, runtime, memref, indices, type, mask, passthru);
  auto rowType =
      VectorType::get({type.getShape().back()}, type.getElementType());
  Value result =
      mask ? passthru
           : arith::ConstantOp::create(b, loc, b.getZeroAttr(type)).getResult();
  forEachVectorRow(type.getShape(), [&](ArrayRef<int64_t> pos) {
    SmallVector<Value> at = getVectorRowIndices(b, loc, indices, pos);
    Value rowMask, rowPass;
    if (mask) {
      rowMask = vector::ExtractOp::create(b, loc, mask, pos);
      rowPass = vector::ExtractOp::create(b, loc, passthru, pos);
    }
    Value row = loadRow(b, loc, runtime, memref, at, rowType, rowMask, rowPass);
    result = vector::InsertOp::create(b, loc, row, result, pos);
  });
  return result;
}

/// Stores `value` (a vector covering the last dimensions of `memref`) at
/// `indices`, one 1-D store per row.
static void storeVector(OpBuilder &b, Location loc, RuntimeCalls &runtime,
                        Value value, Value memref, ValueRange indices,
                        Value mask) {
  auto type = cast<VectorType>(value.getType());
  if (type.getRank() == 1) {
    storeRow(b, loc, runtime, value, memref, indices, mask);
    return;
  }
  forEachVectorRow(type.getShape(), [&](ArrayRef<int64_t> pos) {
    SmallVector<Value> at = getVectorRowIndices(b, loc, indices, pos);
    Value row = vector::ExtractOp::create(b, loc, value, pos);
    Value rowMask =
        mask ? vector::ExtractOp::create(b, loc, mask, pos).getResult()
             : Value();
    storeRow(b, loc, runtime, row, memref, at, rowMask);
  });
}

//===----------------------------------------------------------------------===//
// What the patterns share
//===----------------------------------------------------------------------===//

namespace {
/// The body an op being lowered is in, and the helpers its pattern uses.
class BodyContext {
public:
  BodyContext(KernelLoweringState::Impl &state, Operation *op)
      : info(*state.getBody(op)), runtime(state.runtime), mode(state.mode) {
    runtime.setAllocaFunction(op->getParentOfType<func::FuncOp>());
  }

  /// The grid point the body runs at (its leading arguments).
  ValueRange getPoint() const { return info.point; }
  /// The name of `buffer` (an original value) for messages.
  std::string getBufferName(Value buffer) const;
  /// A message that starts with the kernel and `text`.
  Message start(StringRef text) const {
    Message message;
    message << "kernel @" << info.kernel << ": " << text;
    return message;
  }
  /// The condition that the access of `extents` elements per dimension at
  /// `indices` of `memref` stays in bounds.
  Value inBounds(OpBuilder &b, Location loc, Value memref, ValueRange indices,
                 ArrayRef<int64_t> extents) const;
  /// `[a:b, c:d]` with the access range.
  void appendRange(Message &message, ValueRange indices,
                   ArrayRef<int64_t> extents, OpBuilder &b, Location loc) const;
  /// The extents of an access of `valueType` to a memref of rank `rank`.
  static SmallVector<int64_t> getExtents(Type valueType, int64_t rank);
  /// Reports (and returns false) when `view`, a DMA `role` ("source" or
  /// "target") made by memref.subview, leaves its buffer.
  Value checkView(OpBuilder &b, Location loc, Value view, StringRef role,
                  StringRef verb) const;

  BodyInfo &info;
  RuntimeCalls &runtime;
  KernelLoweringMode mode;
};

/// A pattern on a kernel op of a body being lowered.
template <typename OpTy> struct BodyPattern : OpConversionPattern<OpTy> {
  using OpAdaptor = typename OpConversionPattern<OpTy>::OpAdaptor;

  BodyPattern(const TypeConverter &converter, MLIRContext *context,
              KernelLoweringState::Impl &state)
      : OpConversionPattern<OpTy>(converter, context), state(state) {}

  /// Rewrites `op`, an op of the body `info` being lowered.
  virtual LogicalResult
  rewriteInBody(OpTy op, OpAdaptor adaptor, BodyInfo &info,
                ConversionPatternRewriter &rewriter) const = 0;

  /// Ops outside the bodies being lowered are left alone.
  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    BodyInfo *info = state.getBody(op);
    if (!info)
      return rewriter.notifyMatchFailure(op, "not in a body being lowered");
    return rewriteInBody(op, adaptor, *info, rewriter);
  }

  KernelLoweringState::Impl &state;
};
} // namespace

std::string BodyContext::getBufferName(Value buffer) const {
  buffer = getBaseBuffer(buffer);
  auto it = info.bufferNames.find(buffer);
  return it == info.bufferNames.end() ? "a buffer" : it->second;
}

SmallVector<int64_t> BodyContext::getExtents(Type valueType, int64_t rank) {
  SmallVector<int64_t> extents(rank, 1);
  if (auto vector = dyn_cast<VectorType>(valueType))
    for (auto [i, d] : llvm::enumerate(llvm::reverse(vector.getShape())))
      extents[rank - 1 - i] = d;
  return extents;
}

Value BodyContext::inBounds(OpBuilder &b, Location loc, Value memref,
                            ValueRange indices,
                            ArrayRef<int64_t> extents) const {
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<Value> conditions;
  Value zero = constantIndex(b, loc, 0);
  for (auto [d, index] : llvm::enumerate(indices)) {
    conditions.push_back(cmp(b, loc, arith::CmpIPredicate::sge, index, zero));
    Value end =
        arith::AddIOp::create(b, loc, index, constantIndex(b, loc, extents[d]));
    conditions.push_back(cmp(b, loc, arith::CmpIPredicate::sle, end,
                             constantIndex(b, loc, type.getDimSize(d))));
  }
  return andAll(b, loc, conditions);
}

void BodyContext::appendRange(Message &message, ValueRange indices,
                              ArrayRef<int64_t> extents, OpBuilder &b,
                              Location loc) const {
  message << "[";
  for (auto [d, index] : llvm::enumerate(indices)) {
    if (d != 0)
      message << ", ";
    Value end =
        arith::AddIOp::create(b, loc, index, constantIndex(b, loc, extents[d]));
    message.value(index) << ":";
    message.value(end);
  }
  message << "]";
}

Value BodyContext::checkView(OpBuilder &b, Location loc, Value view,
                             StringRef role, StringRef verb) const {
  auto subview = view.getDefiningOp<memref::SubViewOp>();
  if (!subview)
    return arith::ConstantIntOp::create(b, loc, 1, 1);
  auto sourceType = cast<MemRefType>(subview.getSource().getType());
  SmallVector<Value> conditions, starts, ends;
  Value zero = constantIndex(b, loc, 0);
  Value one = constantIndex(b, loc, 1);
  for (auto [d, offset, size, stride] :
       llvm::enumerate(subview.getMixedOffsets(), subview.getMixedSizes(),
                       subview.getMixedStrides())) {
    Value start = getValueOrCreateConstantIndexOp(b, loc, offset);
    Value count = getValueOrCreateConstantIndexOp(b, loc, size);
    Value step = getValueOrCreateConstantIndexOp(b, loc, stride);
    // The last element read is start + (count - 1) * step.
    Value last = arith::AddIOp::create(
        b, loc, start,
        arith::MulIOp::create(b, loc, arith::SubIOp::create(b, loc, count, one),
                              step));
    Value end = arith::AddIOp::create(b, loc, last, one);
    Value extent = constantIndex(b, loc, sourceType.getDimSize(d));
    conditions.push_back(cmp(b, loc, arith::CmpIPredicate::sge, start, zero));
    conditions.push_back(cmp(b, loc, arith::CmpIPredicate::sle, end, extent));
    starts.push_back(start);
    ends.push_back(end);
  }
  Value ok = andAll(b, loc, conditions);
  Message message = start("Out-of-bounds DMA ");
  message << role << " of " << getBufferName(view) << " in iteration ";
  message.tuple(getPoint()) << ": " << verb << " [";
  for (size_t d = 0; d < starts.size(); ++d) {
    if (d != 0)
      message << ", ";
    message.value(starts[d]) << ":";
    message.value(ends[d]);
  }
  message << "] but buffer has shape "
          << formatStaticShape(sourceType.getShape());
  Value failed = arith::XOrIOp::create(
      b, loc, ok, arith::ConstantIntOp::create(b, loc, 1, 1));
  runtime.reportIf(b, loc, failed, message);
  return ok;
}

//===----------------------------------------------------------------------===//
// Grid queries
//===----------------------------------------------------------------------===//

namespace {
/// kernel.program_id: the grid index, a leading argument of the body.
struct LowerProgramId : BodyPattern<ProgramIdOp> {
  using BodyPattern::BodyPattern;
  LogicalResult
  rewriteInBody(ProgramIdOp op, OpAdaptor, BodyInfo &info,
                ConversionPatternRewriter &rewriter) const override {
    if (op.getAxis() >= info.gridRank())
      return rewriter.notifyMatchFailure(op, "axis out of range");
    rewriter.replaceOp(op, info.point[op.getAxis()]);
    return success();
  }
};

/// kernel.num_programs: a constant.
struct LowerNumPrograms : BodyPattern<NumProgramsOp> {
  using BodyPattern::BodyPattern;
  LogicalResult
  rewriteInBody(NumProgramsOp op, OpAdaptor, BodyInfo &info,
                ConversionPatternRewriter &rewriter) const override {
    if (op.getAxis() >= info.gridRank())
      return rewriter.notifyMatchFailure(op, "axis out of range");
    rewriter.replaceOp(
        op, constantIndex(rewriter, op.getLoc(), info.grid[op.getAxis()]));
    return success();
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// Loads and stores
//===----------------------------------------------------------------------===//

namespace {
/// kernel.load: a bounds-checked vector (row-wise) or scalar load; masked
/// loads unchecked, their masked-out lanes poisoned.
struct LowerLoad : BodyPattern<LoadOp> {
  using BodyPattern::BodyPattern;
  LogicalResult
  rewriteInBody(LoadOp op, OpAdaptor adaptor, BodyInfo &info,
                ConversionPatternRewriter &rewriter) const override;
};

/// kernel.store: a bounds-checked vector (row-wise) or scalar store; masked
/// stores unchecked.
struct LowerStore : BodyPattern<StoreOp> {
  using BodyPattern::BodyPattern;
  LogicalResult
  rewriteInBody(StoreOp op, OpAdaptor adaptor, BodyInfo &info,
                ConversionPatternRewriter &rewriter) const override;
};
} // namespace

LogicalResult
LowerLoad::rewriteInBody(LoadOp op, OpAdaptor adaptor, BodyInfo &,
                         ConversionPatternRewriter &rewriter) const {
  BodyContext body(state, op);
  OpBuilder &b = rewriter;
  Location loc = op.getLoc();
  Value ref = adaptor.getRef();
  ValueRange indices = adaptor.getIndices();
  Value mask = adaptor.getMask();
  auto refType = cast<MemRefType>(ref.getType());
  Type type = op.getResult().getType();
  auto emit = [&](OpBuilder &nb, Location nl) -> Value {
    if (auto vectorType = dyn_cast<VectorType>(type))
      return loadVector(nb, nl, body.runtime, ref, indices, vectorType, mask);
    if (mask) {
      auto ifOp = scf::IfOp::create(
          nb, nl, mask,
          [&](OpBuilder &tb, Location tl) {
            Value v = memref::LoadOp::create(tb, tl, ref, indices);
            scf::YieldOp::create(tb, tl, v);
          },
          [&](OpBuilder &eb, Location el) {
            TypedAttr attr = getPoisonAttr(type);
            Value v = arith::ConstantOp::create(
                eb, el, attr ? attr : eb.getZeroAttr(type));
            scf::YieldOp::create(eb, el, v);
          });
      return ifOp.getResult(0);
    }
    return memref::LoadOp::create(nb, nl, ref, indices);
  };
  Value result;
  if (!mask) {
    SmallVector<int64_t> extents =
        BodyContext::getExtents(type, refType.getRank());
    Value ok = body.inBounds(b, loc, ref, indices, extents);
    auto ifOp = scf::IfOp::create(
        b, loc, ok,
        [&](OpBuilder &tb, Location tl) {
          scf::YieldOp::create(tb, tl, emit(tb, tl));
        },
        [&](OpBuilder &eb, Location el) {
          Message message = body.start("Out-of-bounds read of ");
          message << body.getBufferName(op.getRef()) << " in iteration ";
          message.tuple(body.getPoint()) << ": reading ";
          body.appendRange(message, indices, extents, eb, el);
          message << " but buffer has shape "
                  << formatStaticShape(refType.getShape());
          body.runtime.report(eb, el, message);
          Value poisoned;
          if (auto vectorType = dyn_cast<VectorType>(type)) {
            poisoned = poisonVector(eb, el, vectorType);
          } else {
            TypedAttr attr = getPoisonAttr(type);
            poisoned = arith::ConstantOp::create(
                eb, el, attr ? attr : eb.getZeroAttr(type));
          }
          scf::YieldOp::create(eb, el, poisoned);
        });
    result = ifOp.getResult(0);
  } else {
    result = emit(b, loc);
  }
  rewriter.replaceOp(op, result);
  return success();
}

LogicalResult
LowerStore::rewriteInBody(StoreOp op, OpAdaptor adaptor, BodyInfo &,
                          ConversionPatternRewriter &rewriter) const {
  BodyContext body(state, op);
  OpBuilder &b = rewriter;
  Location loc = op.getLoc();
  Value ref = adaptor.getRef();
  ValueRange indices = adaptor.getIndices();
  Value mask = adaptor.getMask();
  auto refType = cast<MemRefType>(ref.getType());
  Value value = adaptor.getValue();
  auto emit = [&](OpBuilder &nb, Location nl) {
    if (isa<VectorType>(value.getType())) {
      storeVector(nb, nl, body.runtime, value, ref, indices, mask);
      return;
    }
    if (mask) {
      scf::IfOp::create(nb, nl, mask, [&](OpBuilder &tb, Location tl) {
        memref::StoreOp::create(tb, tl, value, ref, indices);
        scf::YieldOp::create(tb, tl);
      });
      return;
    }
    memref::StoreOp::create(nb, nl, value, ref, indices);
  };
  if (!mask) {
    SmallVector<int64_t> extents =
        BodyContext::getExtents(value.getType(), refType.getRank());
    Value ok = body.inBounds(b, loc, ref, indices, extents);
    scf::IfOp::create(
        b, loc, ok,
        [&](OpBuilder &tb, Location tl) {
          emit(tb, tl);
          scf::YieldOp::create(tb, tl);
        },
        [&](OpBuilder &eb, Location el) {
          Message message = body.start("Out-of-bounds write of ");
          message << body.getBufferName(op.getRef()) << " in iteration ";
          message.tuple(body.getPoint()) << ": writing ";
          body.appendRange(message, indices, extents, eb, el);
          message << " but buffer has shape "
                  << formatStaticShape(refType.getShape());
          body.runtime.report(eb, el, message);
          scf::YieldOp::create(eb, el);
        });
  } else {
    emit(b, loc);
  }
  rewriter.eraseOp(op);
  return success();
}

//===----------------------------------------------------------------------===//
// Semaphores and DMAs
//===----------------------------------------------------------------------===//

/// Subtracts `amount` from the counter `sem[indices]`, reporting (and not
/// subtracting) when it is smaller: a wait that would hang.
static void emitWait(OpBuilder &b, Location loc, Value sem, ValueRange indices,
                     Value amount, Message message, RuntimeCalls &runtime) {
  Value count = memref::LoadOp::create(b, loc, sem, indices);
  Value enough = cmp(b, loc, arith::CmpIPredicate::sge, count, amount);
  scf::IfOp::create(
      b, loc, enough,
      [&](OpBuilder &tb, Location tl) {
        Value rest = arith::SubIOp::create(tb, tl, count, amount);
        memref::StoreOp::create(tb, tl, rest, sem, indices);
        scf::YieldOp::create(tb, tl);
      },
      [&](OpBuilder &eb, Location el) {
        message.value(count) << " is less than ";
        message.value(amount);
        runtime.report(eb, el, message);
        scf::YieldOp::create(eb, el);
      });
}

static void emitSignal(OpBuilder &b, Location loc, Value sem,
                       ValueRange indices, Value amount) {
  Value count = memref::LoadOp::create(b, loc, sem, indices);
  Value sum = arith::AddIOp::create(b, loc, count, amount);
  memref::StoreOp::create(b, loc, sum, sem, indices);
}

namespace {
/// kernel.semaphore_signal: adds to the counter.
struct LowerSemaphoreSignal : BodyPattern<SemaphoreSignalOp> {
  using BodyPattern::BodyPattern;
  LogicalResult
  rewriteInBody(SemaphoreSignalOp op, OpAdaptor adaptor, BodyInfo &,
                ConversionPatternRewriter &rewriter) const override {
    emitSignal(rewriter, op.getLoc(), adaptor.getSem(), adaptor.getIndices(),
               adaptor.getAmount());
    rewriter.eraseOp(op);
    return success();
  }
};

/// kernel.semaphore_wait: subtracts from the counter, reporting a wait that
/// would hang.
struct LowerSemaphoreWait : BodyPattern<SemaphoreWaitOp> {
  using BodyPattern::BodyPattern;
  LogicalResult
  rewriteInBody(SemaphoreWaitOp op, OpAdaptor adaptor, BodyInfo &,
                ConversionPatternRewriter &rewriter) const override {
    BodyContext body(state, op);
    Message message = body.start("kernel.semaphore_wait on ");
    message << body.getBufferName(op.getSem()) << " in iteration ";
    message.tuple(body.getPoint()) << " would hang: its count ";
    emitWait(rewriter, op.getLoc(), adaptor.getSem(), adaptor.getIndices(),
             adaptor.getAmount(), message, body.runtime);
    rewriter.eraseOp(op);
    return success();
  }
};

/// kernel.semaphore_read: loads the counter.
struct LowerSemaphoreRead : BodyPattern<SemaphoreReadOp> {
  using BodyPattern::BodyPattern;
  LogicalResult
  rewriteInBody(SemaphoreReadOp op, OpAdaptor adaptor, BodyInfo &,
                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, memref::LoadOp::create(rewriter, op.getLoc(),
                                                  adaptor.getSem(),
                                                  adaptor.getIndices())
                               .getResult());
    return success();
  }
};

/// kernel.async_copy: a DMA on the core's engine and a runtime wait
/// (pipelined), or a synchronous copy and a counter check (interpret).
struct LowerAsyncCopy : BodyPattern<AsyncCopyOp> {
  using BodyPattern::BodyPattern;
  LogicalResult
  rewriteInBody(AsyncCopyOp op, OpAdaptor adaptor, BodyInfo &info,
                ConversionPatternRewriter &rewriter) const override;
};
} // namespace

LogicalResult
LowerAsyncCopy::rewriteInBody(AsyncCopyOp op, OpAdaptor adaptor, BodyInfo &,
                              ConversionPatternRewriter &rewriter) const {
  BodyContext body(state, op);
  RuntimeCalls &runtime = body.runtime;
  OpBuilder &b = rewriter;
  Location loc = op.getLoc();
  Value src = adaptor.getSrc(), dst = adaptor.getDst(), sem = adaptor.getSem();
  ValueRange semIndices = adaptor.getSemIndices();
  auto dstType = cast<MemRefType>(op.getDst().getType());
  int64_t bytes = dstType.getNumElements() *
                  std::max<int64_t>(1, dstType.getElementTypeBitWidth() / 8);
  Value amount = arith::ConstantIntOp::create(b, loc, bytes, 32);
  bool pipelined = body.mode == KernelLoweringMode::Pipelined;
  if (op.getPhase() == CopyPhase::Start) {
    Value ok =
        andAll(b, loc,
               {body.checkView(b, loc, op.getSrc(), "source", "reading"),
                body.checkView(b, loc, op.getDst(), "target", "writing")});
    if (pipelined) {
      // On the core's DMA engine; its completion adds its bytes to the
      // semaphore. A copy that would leave its buffers is not started, but
      // the semaphore still counts it (so the wait does not hang too).
      Value semaphore = runtime.getElementAddress(b, loc, sem, semIndices);
      Value bytes64 = arith::ConstantIntOp::create(b, loc, bytes, 64);
      int64_t direction = body.info.copyDirections.lookup(op);
      scf::IfOp::create(
          b, loc, ok,
          [&](OpBuilder &tb, Location tl) {
            runtime.dmaStart(tb, tl, src, dst, direction, semaphore, bytes64);
            scf::YieldOp::create(tb, tl);
          },
          [&](OpBuilder &eb, Location el) {
            emitSignal(eb, el, sem, semIndices, amount);
            scf::YieldOp::create(eb, el);
          });
    } else {
      // The copy completes at once (if its views are inside their
      // buffers); its semaphore counts its bytes.
      scf::IfOp::create(b, loc, ok, [&](OpBuilder &tb, Location tl) {
        memref::CopyOp::create(tb, tl, src, dst);
        scf::YieldOp::create(tb, tl);
      });
      emitSignal(b, loc, sem, semIndices, amount);
    }
  } else if (pipelined) {
    // Waits for the copies in flight on the semaphore; the runtime returns
    // the count when no copy in flight can satisfy the wait.
    Value semaphore = runtime.getElementAddress(b, loc, sem, semIndices);
    Value result = runtime.dmaWait(b, loc, semaphore, amount);
    Value hangs = cmp(b, loc, arith::CmpIPredicate::ne, result,
                      arith::ConstantIntOp::create(b, loc, -1, 32));
    Message message = body.start("kernel.async_copy wait on ");
    message << body.getBufferName(op.getSem()) << " in iteration ";
    message.tuple(body.getPoint())
        << " would hang: no copy of that size was started, the DMA "
           "semaphore count ";
    message.value(result) << " is less than ";
    message.value(amount);
    runtime.reportIf(b, loc, hangs, message);
  } else {
    Message message = body.start("kernel.async_copy wait on ");
    message << body.getBufferName(op.getSem()) << " in iteration ";
    message.tuple(body.getPoint())
        << " would hang: no copy of that size was started, the DMA "
           "semaphore count ";
    emitWait(b, loc, sem, semIndices, amount, message, runtime);
  }
  rewriter.eraseOp(op);
  return success();
}

//===----------------------------------------------------------------------===//
// Scoped buffers
//===----------------------------------------------------------------------===//

namespace {
/// kernel.run_scoped: its VMEM and SMEM buffers from the core's arenas
/// (released at the end of the scope), semaphores as zeroed counters
/// (checked to be zero at the end), the region inlined.
struct LowerRunScoped : BodyPattern<RunScopedOp> {
  using BodyPattern::BodyPattern;
  LogicalResult
  rewriteInBody(RunScopedOp op, OpAdaptor adaptor, BodyInfo &info,
                ConversionPatternRewriter &rewriter) const override;
};
} // namespace

LogicalResult
LowerRunScoped::rewriteInBody(RunScopedOp op, OpAdaptor, BodyInfo &,
                              ConversionPatternRewriter &rewriter) const {
  BodyContext body(state, op);
  RuntimeCalls &runtime = body.runtime;
  OpBuilder &b = rewriter;
  Location loc = op.getLoc();
  Block &block = op.getBody().front();
  SmallVector<Value> buffers;
  SmallVector<std::pair<Value, std::string>> semaphores;
  // VMEM and SMEM buffers come from the core's arenas (which the target
  // sizes) and go back to them at the end of the scope; semaphores are
  // plain counters.
  Value marks[2];
  for (BlockArgument arg : block.getArguments()) {
    auto type = cast<MemRefType>(stripType(arg.getType()));
    std::optional<MemorySpace> space = getMemorySpace(arg.getType());
    int32_t arena = space == MemorySpace::Vmem   ? TESSERA_RT_KERNEL_VMEM
                    : space == MemorySpace::Smem ? TESSERA_RT_KERNEL_SMEM
                                                 : -1;
    Value buffer;
    if (arena >= 0) {
      if (!marks[arena])
        marks[arena] = runtime.markArena(b, loc, arena);
      buffer = runtime.allocateInArena(b, loc, arena, type);
    } else {
      buffer = memref::AllocOp::create(b, loc, type);
    }
    std::string name = "scoped buffer " + std::to_string(body.info.numScoped++);
    body.info.bufferNames[arg] = name;
    if (auto original = dyn_cast<MemRefType>(arg.getType());
        original && isSemaphoreType(original.getElementType())) {
      zero(b, loc, buffer);
      semaphores.emplace_back(buffer, name);
    } else if (body.mode == KernelLoweringMode::Interpret) {
      poison(b, loc, buffer);
    }
    buffers.push_back(buffer);
  }
  auto yield = cast<YieldOp>(block.getTerminator());
  SmallVector<Value> results(yield.getValues());
  rewriter.inlineBlockBefore(&block, op, buffers);
  rewriter.setInsertionPoint(op);
  for (auto [buffer, name] : semaphores)
    runtime.checkSemaphoresZero(b, loc, buffer, body.info.kernel, name,
                                "the end of the kernel.run_scoped");
  // Released in the reverse order of the marks (SMEM, then VMEM).
  for (int32_t arena : {TESSERA_RT_KERNEL_SMEM, TESSERA_RT_KERNEL_VMEM})
    if (marks[arena])
      runtime.releaseArena(b, loc, arena, marks[arena]);
  rewriter.eraseOp(yield);
  rewriter.replaceOp(op, results);
  return success();
}

//===----------------------------------------------------------------------===//
// Linalg ops and types
//===----------------------------------------------------------------------===//

namespace {
/// Rewrites a body's own linalg op on buffers as the linalg op on tensors
/// read from those buffers, whose results are materialized back into their
/// destination buffers: tessera-cpu tiles and vectorizes linalg on tensors
/// (on buffers it would become scalar loops), and bufferization then writes
/// the results in place. Ops whose operands share a buffer are left to
/// StripMemorySpaces (they stay on buffers).
struct TensorizeBodyLinalg : OpInterfaceConversionPattern<linalg::LinalgOp> {
  TensorizeBodyLinalg(const TypeConverter &converter, MLIRContext *context,
                      KernelLoweringState::Impl &state)
      : OpInterfaceConversionPattern(converter, context, /*benefit=*/2),
        state(state) {}

  LogicalResult
  matchAndRewrite(linalg::LinalgOp op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override;

  KernelLoweringState::Impl &state;
};

/// Any other op whose operand, result or region argument types carry a
/// kernel memory space: the same op with the converted types.
struct StripMemorySpaces : ConversionPattern {
  StripMemorySpaces(const TypeConverter &converter, MLIRContext *context)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/0,
                          context) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override;
};
} // namespace

LogicalResult TensorizeBodyLinalg::matchAndRewrite(
    linalg::LinalgOp op, ArrayRef<Value> operands,
    ConversionPatternRewriter &rewriter) const {
  if (!state.bodyLinalgOps.contains(op) || !op.hasPureBufferSemantics() ||
      op->getNumResults() != 0)
    return rewriter.notifyMatchFailure(op, "not a body's op on buffers");
  llvm::SmallDenseSet<Value> bases;
  bool distinct = llvm::all_of(op->getOperands(), [&](Value operand) {
    return !isa<MemRefType>(operand.getType()) ||
           bases.insert(getBaseBuffer(operand)).second;
  });
  if (!distinct)
    return rewriter.notifyMatchFailure(op, "operands share a buffer");
  OpBuilder &b = rewriter;
  Location loc = op.getLoc();
  auto toTensor = [&](Value buffer, bool writable) -> Value {
    auto type = cast<MemRefType>(buffer.getType());
    auto tensorType =
        RankedTensorType::get(type.getShape(), type.getElementType());
    return bufferization::ToTensorOp::create(b, loc, tensorType, buffer,
                                             /*restrict=*/true, writable);
  };
  SmallVector<Value> tensorOperands;
  SmallVector<Type> resultTypes;
  SmallVector<Value> inits;
  for (auto [operand, value] : llvm::zip(op->getOpOperands(), operands)) {
    if (!isa<MemRefType>(value.getType())) {
      tensorOperands.push_back(value);
      continue;
    }
    bool init = op.isDpsInit(&operand);
    tensorOperands.push_back(toTensor(value, init));
    if (init) {
      resultTypes.push_back(tensorOperands.back().getType());
      inits.push_back(value);
    }
  }
  Operation *tensorOp = mlir::clone(b, op, resultTypes, tensorOperands);
  for (auto [result, init] : llvm::zip(tensorOp->getResults(), inits)) {
    auto materialize =
        bufferization::MaterializeInDestinationOp::create(b, loc, result, init);
    materialize.setRestrict(true);
    materialize.setWritable(true);
  }
  rewriter.eraseOp(op);
  return success();
}

LogicalResult
StripMemorySpaces::matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                                   ConversionPatternRewriter &rewriter) const {
  if (isa<KernelDialect>(op->getDialect()) || isa<FunctionOpInterface>(op))
    return rewriter.notifyMatchFailure(op, "kernel op or function");
  const TypeConverter &converter = *getTypeConverter();
  SmallVector<Type> resultTypes;
  if (failed(converter.convertTypes(op->getResultTypes(), resultTypes)))
    return rewriter.notifyMatchFailure(op, "result types not converted");
  OperationState state(op->getLoc(), op->getName());
  state.addOperands(operands);
  state.addTypes(resultTypes);
  state.addSuccessors(op->getSuccessors());
  state.propertiesAttr = op->getPropertiesAsAttribute();
  state.addAttributes(llvm::to_vector(op->getDiscardableAttrs()));
  for (unsigned i = 0, e = op->getNumRegions(); i < e; ++i)
    state.addRegion();
  Operation *newOp = rewriter.create(state);
  for (auto [from, to] : llvm::zip(op->getRegions(), newOp->getRegions())) {
    rewriter.inlineRegionBefore(from, to, to.end());
    if (failed(rewriter.convertRegionTypes(&to, converter)))
      return rewriter.notifyMatchFailure(op, "region types not converted");
  }
  rewriter.replaceOp(op, newOp->getResults());
  return success();
}

//===----------------------------------------------------------------------===//
// The pattern set
//===----------------------------------------------------------------------===//

void mlir::tessera::kernel::populateKernelBodyToRuntimePatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    KernelLoweringState &state) {
  MLIRContext *context = patterns.getContext();
  KernelLoweringState::Impl &impl = state.getImpl();
  patterns.add<LowerProgramId, LowerNumPrograms, LowerLoad, LowerStore,
               LowerSemaphoreSignal, LowerSemaphoreWait, LowerSemaphoreRead,
               LowerAsyncCopy, LowerRunScoped, TensorizeBodyLinalg>(
      converter, context, impl);
  patterns.add<StripMemorySpaces>(converter, context);
  populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                 converter);
}
