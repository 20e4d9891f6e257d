//===- LowerBody.cpp - kernel ops of a body to vector and memref ops ------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Lowers the kernel ops of a kernel body clone (or an index map function)
// for kernel-lower-interpret and kernel-lower-pipelined: grid queries to the
// leading arguments and constants, kernel.load/store to row-wise vector
// loads and stores (masked ones to vector.maskedload/maskedstore), DMAs to
// synchronous copies that count bytes on their semaphores, semaphores to i32
// counters, kernel.run_scoped to buffers in the core's arenas (released at
// the end of the scope); with run-time checks that
// call tessera_rt_kernel_error.
//
//===----------------------------------------------------------------------===//

#include "LowerCalls.h"

#include "tessera/Dialect/Kernel/IR/KernelDialect.h"
#include "tessera/Dialect/Kernel/IR/KernelOps.h"
#include "tessera/Runtime/KernelABI.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::kernel;
using namespace mlir::tessera::kernel::lowering;

//===----------------------------------------------------------------------===//
// Vector loads and stores
//===----------------------------------------------------------------------===//

/// Calls `fn` with every position of `shape` in row-major order.
static void forEachPosition(ArrayRef<int64_t> shape,
                            function_ref<void(ArrayRef<int64_t>)> fn) {
  SmallVector<int64_t> position(shape.size(), 0);
  if (llvm::any_of(shape, [](int64_t d) { return d == 0; }))
    return;
  while (true) {
    fn(position);
    int64_t d = static_cast<int64_t>(shape.size()) - 1;
    for (; d >= 0; --d) {
      if (++position[d] < shape[d])
        break;
      position[d] = 0;
    }
    if (d < 0)
      return;
  }
}

/// `indices` advanced by `position` along the last dimensions, where the
/// row of a vector of rank `position.size() + 1` starts.
static SmallVector<Value> rowIndices(OpBuilder &b, Location loc,
                                     ValueRange indices,
                                     ArrayRef<int64_t> position) {
  SmallVector<Value> result(indices.begin(), indices.end());
  size_t first = indices.size() - position.size() - 1;
  for (auto [k, p] : llvm::enumerate(position))
    if (p != 0)
      result[first + k] = arith::AddIOp::create(b, loc, result[first + k],
                                                constantIndex(b, loc, p));
  return result;
}

/// A vector of `type` filled with the poison value (zeros if none).
static Value poisonVector(OpBuilder &b, Location loc, VectorType type) {
  TypedAttr scalar = getPoisonAttr(type.getElementType());
  if (!scalar)
    return arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
  return arith::ConstantOp::create(b, loc,
                                   DenseElementsAttr::get(type, scalar));
}

/// Loads a vector covering the last dimensions of `memref` from `indices`,
/// one 1-D load per row.
static Value loadVector(OpBuilder &b, Location loc, Value memref,
                        ValueRange indices, VectorType type, Value mask) {
  Value passthru = mask ? poisonVector(b, loc, type) : Value();
  if (type.getRank() == 1) {
    if (mask)
      return vector::MaskedLoadOp::create(b, loc, type, memref, indices, mask,
                                          passthru);
    return vector::LoadOp::create(b, loc, type, memref, indices);
  }
  auto rowType =
      VectorType::get({type.getShape().back()}, type.getElementType());
  Value result =
      mask ? passthru
           : arith::ConstantOp::create(b, loc, b.getZeroAttr(type)).getResult();
  forEachPosition(type.getShape().drop_back(), [&](ArrayRef<int64_t> pos) {
    SmallVector<Value> at = rowIndices(b, loc, indices, pos);
    Value row;
    if (mask) {
      Value rowMask = vector::ExtractOp::create(b, loc, mask, pos);
      Value rowPass = vector::ExtractOp::create(b, loc, passthru, pos);
      row = vector::MaskedLoadOp::create(b, loc, rowType, memref, at, rowMask,
                                         rowPass);
    } else {
      row = vector::LoadOp::create(b, loc, rowType, memref, at);
    }
    result = vector::InsertOp::create(b, loc, row, result, pos);
  });
  return result;
}

/// Stores `value` (a vector covering the last dimensions of `memref`) at
/// `indices`, one 1-D store per row.
static void storeVector(OpBuilder &b, Location loc, Value value, Value memref,
                        ValueRange indices, Value mask) {
  auto type = cast<VectorType>(value.getType());
  if (type.getRank() == 1) {
    if (mask)
      vector::MaskedStoreOp::create(b, loc, memref, indices, mask, value);
    else
      vector::StoreOp::create(b, loc, value, memref, indices);
    return;
  }
  forEachPosition(type.getShape().drop_back(), [&](ArrayRef<int64_t> pos) {
    SmallVector<Value> at = rowIndices(b, loc, indices, pos);
    Value row = vector::ExtractOp::create(b, loc, value, pos);
    if (mask) {
      Value rowMask = vector::ExtractOp::create(b, loc, mask, pos);
      vector::MaskedStoreOp::create(b, loc, memref, at, rowMask, row);
    } else {
      vector::StoreOp::create(b, loc, row, memref, at);
    }
  });
}

//===----------------------------------------------------------------------===//
// The body
//===----------------------------------------------------------------------===//

namespace {
/// Lowers the kernel ops of one body clone.
class BodyLowering {
public:
  BodyLowering(func::FuncOp body, CallOp call, KernelLoweringMode mode,
               RuntimeCalls &runtime)
      : body(body), call(call), mode(mode), runtime(runtime),
        gridRank(call.getGrid().size()) {}

  LogicalResult run();

private:
  /// The grid point the body runs at (its leading arguments).
  ValueRange getPoint() { return body.getArguments().take_front(gridRank); }
  /// The name of a buffer for messages.
  std::string getBufferName(Value buffer);
  /// Adds `prefix` with the kernel and iteration to `message`.
  Message start(StringRef text) {
    Message message;
    message << "kernel @" << call.getCallee() << ": " << text;
    return message;
  }
  /// The condition that the access of `extents` elements per dimension at
  /// `indices` of `memref` stays in bounds.
  Value inBounds(OpBuilder &b, Location loc, Value memref, ValueRange indices,
                 ArrayRef<int64_t> extents);
  /// `[a:b, c:d]` with the access range.
  void appendRange(Message &message, ValueRange indices,
                   ArrayRef<int64_t> extents, OpBuilder &b, Location loc);
  /// The extents of an access of `valueType` to a memref of rank `rank`.
  static SmallVector<int64_t> getExtents(Type valueType, int64_t rank);

  LogicalResult lowerRunScoped(RunScopedOp op);
  void lowerLoad(LoadOp op);
  void lowerStore(StoreOp op);
  void lowerSemaphore(Operation *op);
  void lowerAsyncCopy(AsyncCopyOp op);
  /// Reports (and returns false) when `view`, a DMA `role` ("source" or
  /// "target") made by memref.subview, leaves its buffer.
  Value checkView(OpBuilder &b, Location loc, Value view, StringRef role,
                  StringRef verb);

  func::FuncOp body;
  CallOp call;
  KernelLoweringMode mode;
  RuntimeCalls &runtime;
  unsigned gridRank;
  /// The TESSERA_RT_DMA_DIRECTION of each kernel.async_copy (from the
  /// memory spaces, before they are dropped).
  DenseMap<Operation *, int64_t> copyDirections;
  /// Names of buffers allocated by kernel.run_scoped.
  DenseMap<Value, std::string> scopedNames;
  unsigned numScoped = 0;
};
} // namespace

std::string BodyLowering::getBufferName(Value buffer) {
  while (auto subview = buffer.getDefiningOp<memref::SubViewOp>())
    buffer = subview.getSource();
  auto it = scopedNames.find(buffer);
  if (it != scopedNames.end())
    return it->second;
  auto arg = dyn_cast<BlockArgument>(buffer);
  if (!arg || arg.getOwner() != &body.front() || arg.getArgNumber() < gridRank)
    return "a buffer";
  unsigned index = arg.getArgNumber() - gridRank;
  unsigned numPrefetch = call.getScalarPrefetch();
  if (index < numPrefetch)
    return "args[" + std::to_string(index) + "]";
  index -= numPrefetch;
  if (index < call.getNumBlocked())
    return call.getBlockedName(index);
  return "scratch buffer " + std::to_string(index - call.getNumBlocked());
}

SmallVector<int64_t> BodyLowering::getExtents(Type valueType, int64_t rank) {
  SmallVector<int64_t> extents(rank, 1);
  if (auto vector = dyn_cast<VectorType>(valueType))
    for (auto [i, d] : llvm::enumerate(llvm::reverse(vector.getShape())))
      extents[rank - 1 - i] = d;
  return extents;
}

Value BodyLowering::inBounds(OpBuilder &b, Location loc, Value memref,
                             ValueRange indices, ArrayRef<int64_t> extents) {
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

void BodyLowering::appendRange(Message &message, ValueRange indices,
                               ArrayRef<int64_t> extents, OpBuilder &b,
                               Location loc) {
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

LogicalResult BodyLowering::lowerRunScoped(RunScopedOp op) {
  OpBuilder b(op);
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
    std::string name = "scoped buffer " + std::to_string(numScoped++);
    scopedNames[buffer] = name;
    if (auto original = dyn_cast<MemRefType>(arg.getType());
        original && isSemaphoreType(original.getElementType())) {
      zero(b, loc, buffer);
      semaphores.emplace_back(buffer, name);
    } else if (mode == KernelLoweringMode::Interpret) {
      poison(b, loc, buffer);
    }
    buffers.push_back(buffer);
  }
  auto yield = cast<YieldOp>(block.getTerminator());
  SmallVector<Value> results(yield.getValues());
  IRRewriter rewriter(op.getContext());
  rewriter.inlineBlockBefore(&block, op, buffers);
  b.setInsertionPoint(op);
  for (auto [buffer, name] : semaphores)
    runtime.checkSemaphoresZero(b, loc, buffer, call.getCallee(), name,
                                "the end of the kernel.run_scoped");
  // Released in the reverse order of the marks (SMEM, then VMEM).
  for (int32_t arena : {TESSERA_RT_KERNEL_SMEM, TESSERA_RT_KERNEL_VMEM})
    if (marks[arena])
      runtime.releaseArena(b, loc, arena, marks[arena]);
  op.replaceAllUsesWith(results);
  yield.erase();
  op.erase();
  return success();
}

void BodyLowering::lowerLoad(LoadOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value ref = op.getRef();
  auto refType = cast<MemRefType>(ref.getType());
  Type type = op.getResult().getType();
  auto emit = [&](OpBuilder &nb, Location nl) -> Value {
    if (auto vectorType = dyn_cast<VectorType>(type))
      return loadVector(nb, nl, ref, op.getIndices(), vectorType, op.getMask());
    if (Value mask = op.getMask()) {
      auto ifOp = scf::IfOp::create(
          nb, nl, mask,
          [&](OpBuilder &tb, Location tl) {
            Value v = memref::LoadOp::create(tb, tl, ref, op.getIndices());
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
    return memref::LoadOp::create(nb, nl, ref, op.getIndices());
  };
  Value result;
  if (!op.getMask()) {
    SmallVector<int64_t> extents = getExtents(type, refType.getRank());
    Value ok = inBounds(b, loc, ref, op.getIndices(), extents);
    auto ifOp = scf::IfOp::create(
        b, loc, ok,
        [&](OpBuilder &tb, Location tl) {
          scf::YieldOp::create(tb, tl, emit(tb, tl));
        },
        [&](OpBuilder &eb, Location el) {
          Message message = start("Out-of-bounds read of ");
          message << getBufferName(ref) << " in iteration ";
          message.tuple(getPoint()) << ": reading ";
          appendRange(message, op.getIndices(), extents, eb, el);
          message << " but buffer has shape "
                  << formatStaticShape(refType.getShape());
          runtime.report(eb, el, message);
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
  op.getResult().replaceAllUsesWith(result);
  op.erase();
}

void BodyLowering::lowerStore(StoreOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value ref = op.getRef();
  auto refType = cast<MemRefType>(ref.getType());
  Value value = op.getValue();
  auto emit = [&](OpBuilder &nb, Location nl) {
    if (isa<VectorType>(value.getType())) {
      storeVector(nb, nl, value, ref, op.getIndices(), op.getMask());
      return;
    }
    if (Value mask = op.getMask()) {
      scf::IfOp::create(nb, nl, mask, [&](OpBuilder &tb, Location tl) {
        memref::StoreOp::create(tb, tl, value, ref, op.getIndices());
        scf::YieldOp::create(tb, tl);
      });
      return;
    }
    memref::StoreOp::create(nb, nl, value, ref, op.getIndices());
  };
  if (!op.getMask()) {
    SmallVector<int64_t> extents =
        getExtents(value.getType(), refType.getRank());
    Value ok = inBounds(b, loc, ref, op.getIndices(), extents);
    scf::IfOp::create(
        b, loc, ok,
        [&](OpBuilder &tb, Location tl) {
          emit(tb, tl);
          scf::YieldOp::create(tb, tl);
        },
        [&](OpBuilder &eb, Location el) {
          Message message = start("Out-of-bounds write of ");
          message << getBufferName(ref) << " in iteration ";
          message.tuple(getPoint()) << ": writing ";
          appendRange(message, op.getIndices(), extents, eb, el);
          message << " but buffer has shape "
                  << formatStaticShape(refType.getShape());
          runtime.report(eb, el, message);
          scf::YieldOp::create(eb, el);
        });
  } else {
    emit(b, loc);
  }
  op.erase();
}

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

void BodyLowering::lowerSemaphore(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  if (auto signal = dyn_cast<SemaphoreSignalOp>(op)) {
    emitSignal(b, loc, signal.getSem(), signal.getIndices(),
               signal.getAmount());
  } else if (auto wait = dyn_cast<SemaphoreWaitOp>(op)) {
    Message message = start("kernel.semaphore_wait on ");
    message << getBufferName(wait.getSem()) << " in iteration ";
    message.tuple(getPoint()) << " would hang: its count ";
    emitWait(b, loc, wait.getSem(), wait.getIndices(), wait.getAmount(),
             message, runtime);
  } else if (auto read = dyn_cast<SemaphoreReadOp>(op)) {
    Value count =
        memref::LoadOp::create(b, loc, read.getSem(), read.getIndices());
    read.getResult().replaceAllUsesWith(count);
  }
  op->erase();
}

Value BodyLowering::checkView(OpBuilder &b, Location loc, Value view,
                              StringRef role, StringRef verb) {
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

void BodyLowering::lowerAsyncCopy(AsyncCopyOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto dstType = cast<MemRefType>(op.getDst().getType());
  int64_t bytes = dstType.getNumElements() *
                  std::max<int64_t>(1, dstType.getElementTypeBitWidth() / 8);
  Value amount = arith::ConstantIntOp::create(b, loc, bytes, 32);
  bool pipelined = mode == KernelLoweringMode::Pipelined;
  if (op.getPhase() == CopyPhase::Start) {
    Value ok = andAll(b, loc,
                      {checkView(b, loc, op.getSrc(), "source", "reading"),
                       checkView(b, loc, op.getDst(), "target", "writing")});
    if (pipelined) {
      // On the core's DMA engine; its completion adds its bytes to the
      // semaphore. A copy that would leave its buffers is not started, but
      // the semaphore still counts it (so the wait does not hang too).
      Value semaphore =
          runtime.getElementAddress(b, loc, op.getSem(), op.getSemIndices());
      Value bytes64 = arith::ConstantIntOp::create(b, loc, bytes, 64);
      int64_t direction = copyDirections.lookup(op);
      scf::IfOp::create(
          b, loc, ok,
          [&](OpBuilder &tb, Location tl) {
            runtime.dmaStart(tb, tl, op.getSrc(), op.getDst(), direction,
                             semaphore, bytes64);
            scf::YieldOp::create(tb, tl);
          },
          [&](OpBuilder &eb, Location el) {
            emitSignal(eb, el, op.getSem(), op.getSemIndices(), amount);
            scf::YieldOp::create(eb, el);
          });
    } else {
      // The copy completes at once (if its views are inside their
      // buffers); its semaphore counts its bytes.
      scf::IfOp::create(b, loc, ok, [&](OpBuilder &tb, Location tl) {
        memref::CopyOp::create(tb, tl, op.getSrc(), op.getDst());
        scf::YieldOp::create(tb, tl);
      });
      emitSignal(b, loc, op.getSem(), op.getSemIndices(), amount);
    }
  } else if (pipelined) {
    // Waits for the copies in flight on the semaphore; the runtime returns
    // the count when no copy in flight can satisfy the wait.
    Value semaphore =
        runtime.getElementAddress(b, loc, op.getSem(), op.getSemIndices());
    Value result = runtime.dmaWait(b, loc, semaphore, amount);
    Value hangs = cmp(b, loc, arith::CmpIPredicate::ne, result,
                      arith::ConstantIntOp::create(b, loc, -1, 32));
    Message message = start("kernel.async_copy wait on ");
    message << getBufferName(op.getSem()) << " in iteration ";
    message.tuple(getPoint())
        << " would hang: no copy of that size was started, the DMA "
           "semaphore count ";
    message.value(result) << " is less than ";
    message.value(amount);
    runtime.reportIf(b, loc, hangs, message);
  } else {
    Message message = start("kernel.async_copy wait on ");
    message << getBufferName(op.getSem()) << " in iteration ";
    message.tuple(getPoint())
        << " would hang: no copy of that size was started, the DMA "
           "semaphore count ";
    emitWait(b, loc, op.getSem(), op.getSemIndices(), amount, message, runtime);
  }
  op.erase();
}

//===----------------------------------------------------------------------===//
// Whole-block vectors
//===----------------------------------------------------------------------===//

/// Vectors of more elements than this, computed by loads and elementwise ops
/// and only stored, are computed tile by tile in loops (see
/// tileVectorChains): as whole values they reach LLVM as huge aggregates
/// that take minutes to compile.
static constexpr int64_t kMaxVectorElements = 8 * 128;

/// The tile of a vector of `shape`: (8, 128) in its last two dimensions and
/// 1 in the others, each side the largest divisor of the dimension not above
/// it.
static SmallVector<int64_t> getVectorTile(ArrayRef<int64_t> shape) {
  auto largestDivisor = [](int64_t n, int64_t limit) {
    for (int64_t d = std::min(n, limit); d > 1; --d)
      if (n % d == 0)
        return d;
    return int64_t(1);
  };
  int64_t rank = shape.size();
  SmallVector<int64_t> tile(rank, 1);
  tile[rank - 1] = largestDivisor(shape[rank - 1], 128);
  if (rank >= 2)
    tile[rank - 2] = largestDivisor(shape[rank - 2], 8);
  return tile;
}

/// The buffer `ref` is a view of (through memref.subview).
static Value getBaseBuffer(Value ref) {
  while (auto subview = ref.getDefiningOp<memref::SubViewOp>())
    ref = subview.getSource();
  return ref;
}

/// Collects into `chain` the whole-block vector ops that compute `root`
/// (of type `type`), to be computed slice by slice where `sink` is: unmasked
/// kernel.loads, elementwise ops, splat constants and scalar broadcasts of
/// that type in `sink`'s block, whose values have no users outside the
/// chain but `sink`, with no op that may write memory between the chain's
/// first op and `sink`. Returns false if `root` is not computed so.
static bool collectVectorChain(Value root, VectorType type, Operation *sink,
                               llvm::SetVector<Operation *> &chain) {
  Block *block = sink->getBlock();
  SmallVector<Value> worklist{root};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    Operation *def = value.getDefiningOp();
    if (!def || def->getBlock() != block || value.getType() != type)
      return false;
    if (!chain.insert(def))
      continue;
    if (auto load = dyn_cast<LoadOp>(def)) {
      if (load.getMask())
        return false;
      continue;
    }
    if (auto constant = dyn_cast<arith::ConstantOp>(def)) {
      if (!isa<SplatElementsAttr>(constant.getValue()))
        return false;
      continue;
    }
    if (auto broadcast = dyn_cast<vector::BroadcastOp>(def)) {
      if (isa<VectorType>(broadcast.getSource().getType()))
        return false;
      continue;
    }
    if (!OpTrait::hasElementwiseMappableTraits(def) ||
        def->getNumRegions() != 0 || def->getNumResults() != 1)
      return false;
    for (Value operand : def->getOperands())
      worklist.push_back(operand);
  }
  for (Operation *op : chain)
    for (Operation *user : op->getUsers())
      if (user != sink && !chain.contains(user))
        return false;
  Operation *first = sink;
  for (Operation *op : chain)
    if (op->isBeforeInBlock(first))
      first = op;
  for (Operation *op = first; op != sink; op = op->getNextNode())
    if (!chain.contains(op) && !isMemoryEffectFree(op))
      return false;
  return true;
}

/// The ops of `chain` in block order.
static SmallVector<Operation *>
getOrdered(const llvm::SetVector<Operation *> &chain) {
  SmallVector<Operation *> ordered(chain.begin(), chain.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

/// `indices` (of a kernel.load or kernel.store of a vector) moved by
/// `offsets`, one per vector dimension (the trailing dimensions of the
/// buffer; null: not moved).
static SmallVector<Value> offsetIndices(OpBuilder &b, Location loc,
                                        ValueRange indices,
                                        ArrayRef<Value> offsets) {
  SmallVector<Value> result(indices);
  int64_t lead = result.size() - offsets.size();
  for (auto [d, offset] : llvm::enumerate(offsets))
    if (offset)
      result[lead + d] =
          arith::AddIOp::create(b, loc, result[lead + d], offset);
  return result;
}

/// Computes the slice of type `sliceType` at `offsets` of each value of
/// the `ordered` chain (collectVectorChain) with `b`; returns the slice of
/// `root`.
static Value emitChainSlice(OpBuilder &b, ArrayRef<Operation *> ordered,
                            Value root, VectorType sliceType,
                            ArrayRef<Value> offsets) {
  IRMapping mapping;
  for (Operation *op : ordered) {
    Value result;
    if (auto load = dyn_cast<LoadOp>(op)) {
      result = LoadOp::create(
          b, load.getLoc(), sliceType, load.getRef(),
          offsetIndices(b, load.getLoc(), load.getIndices(), offsets), Value());
    } else if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      auto splat = cast<SplatElementsAttr>(constant.getValue());
      result = arith::ConstantOp::create(
          b, constant.getLoc(), sliceType,
          SplatElementsAttr::get(sliceType, splat.getSplatValue<Attribute>()));
    } else if (auto broadcast = dyn_cast<vector::BroadcastOp>(op)) {
      result = vector::BroadcastOp::create(b, broadcast.getLoc(), sliceType,
                                           broadcast.getSource());
    } else {
      Operation *clone = b.clone(*op, mapping);
      clone->getResult(0).setType(sliceType);
      result = clone->getResult(0);
    }
    mapping.map(op->getResult(0), result);
  }
  return mapping.lookup(root);
}

/// Builds loops over `shape` in steps of `step` where `sink` is; `body`
/// gets the offsets of each dimension (null where the step is the whole
/// dimension and there is no loop) and the loop-carried values.
static scf::LoopNest buildSliceLoops(
    Operation *sink, ArrayRef<int64_t> shape, ArrayRef<int64_t> step,
    ValueRange iterArgs,
    function_ref<SmallVector<Value>(OpBuilder &, ArrayRef<Value>, ValueRange)>
        body) {
  OpBuilder b(sink);
  Location loc = sink->getLoc();
  SmallVector<Value> lbs, ubs, steps;
  SmallVector<int64_t> looped;
  for (auto [d, size] : llvm::enumerate(shape)) {
    if (step[d] == size)
      continue;
    looped.push_back(d);
    lbs.push_back(arith::ConstantIndexOp::create(b, loc, 0));
    ubs.push_back(arith::ConstantIndexOp::create(b, loc, size));
    steps.push_back(arith::ConstantIndexOp::create(b, loc, step[d]));
  }
  return scf::buildLoopNest(
      b, loc, lbs, ubs, steps, iterArgs,
      [&](OpBuilder &nb, Location, ValueRange ivs, ValueRange args) {
        SmallVector<Value> offsets(shape.size());
        for (auto [d, iv] : llvm::zip(looped, ivs))
          offsets[d] = iv;
        return body(nb, offsets, args);
      });
}

/// Rewrites a chain of whole-block vector ops that ends in `store` (a
/// kernel.store of a large vector) into loops over tiles, when the chain is
/// one collectVectorChain accepts and its loads and the store do not touch
/// the same buffer at different indices (tile by tile, each tile is then
/// read before it is written, as the whole block was).
static void tileVectorChain(StoreOp store) {
  auto type = dyn_cast<VectorType>(store.getValue().getType());
  if (!type || type.isScalable() ||
      type.getNumElements() <= kMaxVectorElements || store.getMask())
    return;
  llvm::SetVector<Operation *> chain;
  if (!collectVectorChain(store.getValue(), type, store, chain))
    return;
  // Loads and the store on the same buffer use the same indices.
  Value target = getBaseBuffer(store.getRef());
  for (Operation *op : chain)
    if (auto load = dyn_cast<LoadOp>(op))
      if (getBaseBuffer(load.getRef()) == target &&
          (load.getRef() != store.getRef() ||
           load.getIndices() != store.getIndices()))
        return;

  // The loops, where the store was, and the chain on tiles inside.
  SmallVector<int64_t> tile = getVectorTile(type.getShape());
  auto tileType = VectorType::get(tile, type.getElementType());
  SmallVector<Operation *> ordered = getOrdered(chain);
  buildSliceLoops(store, type.getShape(), tile, {},
                  [&](OpBuilder &b, ArrayRef<Value> offsets, ValueRange) {
                    Value value = emitChainSlice(b, ordered, store.getValue(),
                                                 tileType, offsets);
                    StoreOp::create(b, store.getLoc(), value, store.getRef(),
                                    offsetIndices(b, store.getLoc(),
                                                  store.getIndices(), offsets),
                                    Value());
                    return SmallVector<Value>();
                  });
  store.erase();
  for (Operation *op : llvm::reverse(ordered))
    op->erase();
}

/// Accumulator buffers of at most this many bytes are allocated on the stack
/// (at the function's entry); larger ones on the heap where they are used
/// (freed by the buffer deallocation of tessera-cpu), as the stacks of the
/// emulated cores are a few MiB.
static constexpr int64_t kMaxStackAccumulatorBytes = int64_t(64) << 10;

/// An accumulator buffer of `type` for the rewrite of `op` (see
/// kMaxStackAccumulatorBytes).
static Value createAccumulator(Operation *op, MemRefType type) {
  int64_t bytes = type.getNumElements() *
                  llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  if (bytes > kMaxStackAccumulatorBytes) {
    OpBuilder b(op);
    return memref::AllocOp::create(b, op->getLoc(), type);
  }
  auto fn = op->getParentOfType<func::FuncOp>();
  OpBuilder entry(&fn.front(), fn.front().begin());
  return memref::AllocaOp::create(entry, op->getLoc(), type);
}

/// Rewrites a vector.multi_reduction of a large whole-block chain
/// (collectVectorChain; Pallas's `jnp.sum(x_ref[...], axis=0)`) into loops
/// over the tiles of its source, each reduced into its part of an
/// accumulator buffer (a stack buffer of the result's shape that starts as
/// the reduction's accumulator), which is loaded as the result at the end.
static void tileVectorReduction(vector::MultiDimReductionOp reduction) {
  VectorType type = reduction.getSourceVectorType();
  if (type.isScalable() || type.getNumElements() <= kMaxVectorElements)
    return;
  llvm::SetVector<Operation *> chain;
  if (!collectVectorChain(reduction.getSource(), type, reduction, chain))
    return;
  Location loc = reduction.getLoc();
  Type elementType = type.getElementType();
  SmallVector<int64_t> tile = getVectorTile(type.getShape());
  SmallVector<int64_t> kept, keptTile;
  for (auto [d, size] : llvm::enumerate(type.getShape()))
    if (!reduction.isReducedDim(d)) {
      kept.push_back(size);
      keptTile.push_back(tile[d]);
    }
  Value acc = createAccumulator(reduction, MemRefType::get(kept, elementType));
  OpBuilder b(reduction);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  SmallVector<Value> origin(kept.size(), zero);
  if (kept.empty())
    memref::StoreOp::create(b, loc, reduction.getAcc(), acc, origin);
  else
    vector::StoreOp::create(b, loc, reduction.getAcc(), acc, origin);

  auto tileType = VectorType::get(tile, elementType);
  auto accTileType = VectorType::get(keptTile, elementType);
  SmallVector<Operation *> ordered = getOrdered(chain);
  buildSliceLoops(
      reduction, type.getShape(), tile, {},
      [&](OpBuilder &nb, ArrayRef<Value> offsets, ValueRange) {
        Value value = emitChainSlice(nb, ordered, reduction.getSource(),
                                     tileType, offsets);
        SmallVector<Value> at;
        for (auto [d, offset] : llvm::enumerate(offsets))
          if (!reduction.isReducedDim(d))
            at.push_back(offset ? offset : zero);
        Value part = kept.empty()
                         ? memref::LoadOp::create(nb, loc, acc, at).getResult()
                         : vector::LoadOp::create(nb, loc, accTileType, acc, at)
                               .getResult();
        Value partial = vector::MultiDimReductionOp::create(
            nb, loc, value, part, reduction.getReductionMask(),
            reduction.getKind());
        if (kept.empty())
          memref::StoreOp::create(nb, loc, partial, acc, at);
        else
          vector::StoreOp::create(nb, loc, partial, acc, at);
        return SmallVector<Value>();
      });
  Value result =
      kept.empty()
          ? memref::LoadOp::create(b, loc, acc, origin).getResult()
          : vector::LoadOp::create(b, loc, reduction.getDestType(), acc, origin)
                .getResult();
  reduction.getResult().replaceAllUsesWith(result);
  reduction.erase();
  for (Operation *op : llvm::reverse(ordered))
    op->erase();
}

/// The view of `load`'s buffer it reads (a subview at its indices, of its
/// vector's shape, without the leading unit dimensions).
static Value getLoadedView(OpBuilder &b, LoadOp load) {
  auto refType = cast<MemRefType>(load.getRef().getType());
  auto vectorType = cast<VectorType>(load.getType());
  int64_t lead = refType.getRank() - vectorType.getRank();
  SmallVector<OpFoldResult> offsets(load.getIndices().begin(),
                                    load.getIndices().end());
  SmallVector<OpFoldResult> sizes(lead, b.getIndexAttr(1));
  for (int64_t size : vectorType.getShape())
    sizes.push_back(b.getIndexAttr(size));
  SmallVector<OpFoldResult> strides(refType.getRank(), b.getIndexAttr(1));
  auto viewType = memref::SubViewOp::inferRankReducedResultType(
      vectorType.getShape(), refType, offsets, sizes, strides);
  return memref::SubViewOp::create(b, load.getLoc(), cast<MemRefType>(viewType),
                                   load.getRef(), offsets, sizes, strides);
}

/// Rewrites a vector.contract of two large whole-block operands (Pallas's
/// `jnp.dot(x_ref[...], y_ref[...])`) as a linalg.generic of the same maps
/// on the buffers they were loaded from, accumulating into a VMEM buffer of
/// the result's shape that starts as the contraction's accumulator and is
/// loaded as the result (tensorizeLinalg then hands the linalg op to
/// tessera-cpu, which tiles and vectorizes it; the load joins a store
/// chain). Only `add` contractions of floats (operands extended to the
/// accumulator's type) or of integers of one width. An operand is read
/// where it was loaded when its kernel.load is unmasked, used only by the
/// contraction, in its block, with nothing that may write memory in
/// between; else, if a chain computes it (collectVectorChain), the chain is
/// stored tile by tile into a VMEM buffer of its shape, which is read.
static void tileVectorContraction(vector::ContractionOp contract) {
  auto resultType = dyn_cast<VectorType>(contract.getResultType());
  auto lhsType = contract.getLhsType();
  if (!resultType || contract.getKind() != vector::CombiningKind::ADD ||
      resultType.isScalable() || lhsType.isScalable() ||
      (lhsType.getNumElements() <= kMaxVectorElements &&
       resultType.getNumElements() <= kMaxVectorElements))
    return;
  Type accElement = resultType.getElementType();
  if (contract.getLhs() == contract.getRhs())
    return;
  // Each operand: a load whose view the linalg op reads, or a chain
  // (collectVectorChain) stored tile by tile into a buffer it reads.
  struct Operand {
    LoadOp load;
    llvm::SetVector<Operation *> chain;
  };
  Operand operands[2];
  Value values[2] = {contract.getLhs(), contract.getRhs()};
  for (auto [operand, info] : llvm::zip(values, operands)) {
    auto type = cast<VectorType>(operand.getType());
    Type element = type.getElementType();
    bool fits =
        isa<FloatType>(accElement)
            ? isa<FloatType>(element) && element.getIntOrFloatBitWidth() <=
                                             accElement.getIntOrFloatBitWidth()
            : element == accElement;
    if (!fits || type.isScalable())
      return;
    auto load = operand.getDefiningOp<LoadOp>();
    bool direct = load && !load.getMask() && load->hasOneUse() &&
                  load->getBlock() == contract->getBlock();
    for (Operation *op = direct ? load->getNextNode() : nullptr;
         op && op != contract.getOperation(); op = op->getNextNode()) {
      auto effects = dyn_cast<MemoryEffectOpInterface>(op);
      bool onlyReads = effects &&
                       effects.onlyHasEffect<MemoryEffects::Read>() &&
                       op->getNumRegions() == 0;
      if (!isMemoryEffectFree(op) && !onlyReads)
        direct = false;
    }
    if (direct)
      info.load = load;
    else if (!collectVectorChain(operand, type, contract, info.chain))
      return;
  }

  Location loc = contract.getLoc();
  auto accType = MemRefType::get(
      resultType.getShape(), accElement, MemRefLayoutAttrInterface(),
      MemorySpaceAttr::get(contract.getContext(), MemorySpace::Vmem));
  Value acc = createAccumulator(contract, accType);
  OpBuilder b(contract);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  SmallVector<Value> origin(resultType.getRank(), zero);
  StoreOp::create(b, loc, contract.getAcc(), acc, origin, Value());
  // The views of loads; chains stored into buffers of their shape.
  auto getView = [&](Operand &info, Value value) -> Value {
    if (info.load)
      return getLoadedView(b, info.load);
    auto type = cast<VectorType>(value.getType());
    Value buffer = createAccumulator(
        contract,
        MemRefType::get(
            type.getShape(), type.getElementType(), MemRefLayoutAttrInterface(),
            MemorySpaceAttr::get(contract.getContext(), MemorySpace::Vmem)));
    SmallVector<int64_t> tile = getVectorTile(type.getShape());
    auto tileType = VectorType::get(tile, type.getElementType());
    SmallVector<Operation *> ordered = getOrdered(info.chain);
    SmallVector<Value> at(type.getRank(), zero);
    buildSliceLoops(
        contract, type.getShape(), tile, {},
        [&](OpBuilder &nb, ArrayRef<Value> offsets, ValueRange) {
          Value slice = emitChainSlice(nb, ordered, value, tileType, offsets);
          StoreOp::create(nb, loc, slice, buffer,
                          offsetIndices(nb, loc, at, offsets), Value());
          return SmallVector<Value>();
        });
    return buffer;
  };
  Value lhs = getView(operands[0], contract.getLhs());
  Value rhs = getView(operands[1], contract.getRhs());
  SmallVector<utils::IteratorType> iterators;
  for (vector::IteratorType kind : contract.getIteratorTypesArray())
    iterators.push_back(kind == vector::IteratorType::parallel
                            ? utils::IteratorType::parallel
                            : utils::IteratorType::reduction);
  linalg::GenericOp::create(
      b, loc, ValueRange{lhs, rhs}, ValueRange{acc},
      contract.getIndexingMapsArray(), iterators,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        auto extend = [&](Value value) -> Value {
          if (value.getType() == accElement)
            return value;
          return arith::ExtFOp::create(nb, nl, accElement, value);
        };
        Value x = extend(args[0]), y = extend(args[1]);
        Value sum;
        if (isa<FloatType>(accElement))
          sum = arith::AddFOp::create(nb, nl, args[2],
                                      arith::MulFOp::create(nb, nl, x, y));
        else
          sum = arith::AddIOp::create(nb, nl, args[2],
                                      arith::MulIOp::create(nb, nl, x, y));
        linalg::YieldOp::create(nb, nl, sum);
      });
  Value result = LoadOp::create(b, loc, resultType, acc, origin, Value());
  contract.getResult().replaceAllUsesWith(result);
  contract.erase();
  for (Operand &info : operands) {
    if (info.load)
      info.load.erase();
    SmallVector<Operation *> ordered = getOrdered(info.chain);
    for (Operation *op : llvm::reverse(ordered))
      op->erase();
  }
}

/// Tiles the whole-block vector chains of `body` (tileVectorReduction,
/// tileVectorContraction, tileVectorChain).
static void tileVectorChains(func::FuncOp body) {
  SmallVector<vector::MultiDimReductionOp> reductions;
  body.walk([&](vector::MultiDimReductionOp reduction) {
    reductions.push_back(reduction);
  });
  for (vector::MultiDimReductionOp reduction : reductions)
    tileVectorReduction(reduction);
  SmallVector<vector::ContractionOp> contractions;
  body.walk([&](vector::ContractionOp contract) {
    contractions.push_back(contract);
  });
  for (vector::ContractionOp contract : contractions)
    tileVectorContraction(contract);
  SmallVector<StoreOp> stores;
  body.walk([&](StoreOp store) { stores.push_back(store); });
  for (StoreOp store : stores)
    tileVectorChain(store);
}

/// Rewrites the linalg `ops` on buffers (a body's own) as linalg ops on tensors
/// read from those buffers, whose results are materialized back into their
/// destination buffers: tessera-cpu tiles and vectorizes linalg on tensors
/// (on buffers it would become scalar loops), and bufferization then writes
/// the results in place. Ops whose operands share a buffer are left alone.
static void tensorizeLinalg(ArrayRef<linalg::LinalgOp> ops) {
  for (linalg::LinalgOp op : ops) {
    if (!op.hasPureBufferSemantics() || op->getNumResults() != 0)
      continue;
    llvm::SmallDenseSet<Value> bases;
    bool distinct = llvm::all_of(op->getOperands(), [&](Value operand) {
      return !isa<MemRefType>(operand.getType()) ||
             bases.insert(getBaseBuffer(operand)).second;
    });
    if (!distinct)
      continue;
    OpBuilder b(op);
    Location loc = op.getLoc();
    auto toTensor = [&](Value buffer, bool writable) -> Value {
      auto type = cast<MemRefType>(buffer.getType());
      auto tensorType =
          RankedTensorType::get(type.getShape(), type.getElementType());
      return bufferization::ToTensorOp::create(b, loc, tensorType, buffer,
                                               /*restrict=*/true, writable);
    };
    SmallVector<Value> operands;
    SmallVector<Type> resultTypes;
    for (OpOperand &operand : op->getOpOperands()) {
      Value value = operand.get();
      if (!isa<MemRefType>(value.getType())) {
        operands.push_back(value);
        continue;
      }
      bool init = op.isDpsInit(&operand);
      operands.push_back(toTensor(value, init));
      if (init)
        resultTypes.push_back(operands.back().getType());
    }
    Operation *tensorOp = mlir::clone(b, op, resultTypes, operands);
    for (auto [result, init] :
         llvm::zip(tensorOp->getResults(), op.getDpsInits())) {
      auto materialize = bufferization::MaterializeInDestinationOp::create(
          b, loc, result, init);
      materialize.setRestrict(true);
      materialize.setWritable(true);
    }
    op->erase();
  }
}

LogicalResult BodyLowering::run() {
  runtime.setAllocaFunction(body);
  tileVectorChains(body);
  // The body's own linalg ops (not the fills the lowering adds).
  SmallVector<linalg::LinalgOp> linalgOps;
  body.walk([&](linalg::LinalgOp op) { linalgOps.push_back(op); });
  // Scoped buffers first (outermost first), then the ops.
  SmallVector<RunScopedOp> scopes;
  body.walk<WalkOrder::PreOrder>([&](RunScopedOp op) { scopes.push_back(op); });
  for (RunScopedOp op : scopes)
    if (failed(lowerRunScoped(op)))
      return failure();
  body.walk([&](AsyncCopyOp op) {
    auto local = [](Value v) {
      std::optional<MemorySpace> space =
          getMemorySpace(cast<MemRefType>(v.getType()));
      return space == MemorySpace::Vmem || space == MemorySpace::Smem;
    };
    bool src = local(op.getSrc()), dst = local(op.getDst());
    copyDirections[op] = !src && dst   ? TESSERA_RT_DMA_TO_LOCAL
                         : src && !dst ? TESSERA_RT_DMA_TO_HBM
                                       : TESSERA_RT_DMA_WITHIN;
  });
  // Then the memory spaces go (semaphores become i32 counters).
  stripTypes(body);
  tensorizeLinalg(linalgOps);

  SmallVector<Operation *> ops;
  body.walk([&](Operation *op) {
    if (isa<KernelDialect>(op->getDialect()))
      ops.push_back(op);
  });
  OpBuilder b(body.getContext());
  for (Operation *op : ops) {
    if (auto programId = dyn_cast<ProgramIdOp>(op)) {
      if (programId.getAxis() >= gridRank)
        return programId.emitOpError("axis ")
               << programId.getAxis() << " is out of range for the grid of "
               << "rank " << gridRank
               << " of the kernel.call it is lowered for";
      programId.getResult().replaceAllUsesWith(
          body.getArgument(programId.getAxis()));
      op->erase();
    } else if (auto numPrograms = dyn_cast<NumProgramsOp>(op)) {
      if (numPrograms.getAxis() >= gridRank)
        return numPrograms.emitOpError("axis ")
               << numPrograms.getAxis()
               << " is out of range for the grid of rank " << gridRank
               << " of the kernel.call it is lowered for";
      b.setInsertionPoint(op);
      numPrograms.getResult().replaceAllUsesWith(constantIndex(
          b, op->getLoc(), call.getGrid()[numPrograms.getAxis()]));
      op->erase();
    } else if (auto load = dyn_cast<LoadOp>(op)) {
      lowerLoad(load);
    } else if (auto store = dyn_cast<StoreOp>(op)) {
      lowerStore(store);
    } else if (auto copy = dyn_cast<AsyncCopyOp>(op)) {
      lowerAsyncCopy(copy);
    } else if (isa<SemaphoreSignalOp, SemaphoreWaitOp, SemaphoreReadOp>(op)) {
      lowerSemaphore(op);
    } else {
      return op->emitOpError("cannot be lowered in a kernel body");
    }
  }
  return success();
}

LogicalResult
mlir::tessera::kernel::lowering::lowerBody(func::FuncOp body, CallOp call,
                                           KernelLoweringMode mode,
                                           RuntimeCalls &runtime) {
  return BodyLowering(body, call, mode, runtime).run();
}
