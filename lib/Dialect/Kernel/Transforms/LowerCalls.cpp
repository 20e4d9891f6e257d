//===- LowerCalls.cpp - kernel.call to loops over block buffers -----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Lowers every `kernel.call` to nested scf.for loops over its grid that copy
// blocks between the operands and per-operand block buffers and call a
// lowered clone of the body (LowerBody.cpp), for kernel-lower-interpret
// (sequential, every block copied, poisoning and checks) and
// kernel-lower-pipelined (double buffers, copies skipped when a block does
// not change). The kernel memory spaces are dropped from every type, so the
// result is ordinary code for tessera-cpu. Run-time checks call
// tessera_rt_kernel_error (tessera/Runtime/Kernel.h).
//
//===----------------------------------------------------------------------===//

#include "LowerCalls.h"

#include "tessera/Dialect/Kernel/IR/KernelDialect.h"
#include "tessera/Dialect/Kernel/IR/KernelOps.h"

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
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"

#include <vector>

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::kernel;
using namespace mlir::tessera::kernel::lowering;

//===----------------------------------------------------------------------===//
// The call
//===----------------------------------------------------------------------===//

namespace {
/// One blocked operand or result of a call and its buffers.
struct Blocked {
  BlockAttr block;
  RankedTensorType type;
  bool isInput = true;
  /// Its index among the call's inputs or results.
  unsigned index = 0;
  std::string name;
  /// The whole array.
  Value array;
  /// No windowing (hbm/any): the body gets `array`.
  bool raw = false;
  /// The block shape (full rank) and the window buffers of that shape.
  SmallVector<int64_t> blockShape;
  SmallVector<Value> buffers;
  /// What the body gets for each buffer (squeezed dims dropped).
  SmallVector<Value> views;
  /// Pipelined: the current buffer (memref<index>).
  Value slot;
  /// The last block index (memref<rank x index>), for single buffers and
  /// the interpret lowering's outputs.
  Value previous;
  /// Interpret: per block, the first and last iterations that visited it
  /// (memref<blocks x 2 x index>), for the revisit check; null if unchecked.
  Value visits;
  SmallVector<int64_t> blockCounts;

  bool isDoubleBuffered() const { return buffers.size() == 2; }
};

/// Lowers one kernel.call.
class CallLowering {
public:
  CallLowering(CallOp call, func::FuncOp body, KernelLoweringMode mode,
               RuntimeCalls &runtime)
      : call(call), body(body), mode(mode), runtime(runtime),
        loc(call.getLoc()), grid(call.getGrid()) {}

  LogicalResult run();

private:
  bool interpret() const { return mode == KernelLoweringMode::Interpret; }
  /// The block indices of `operand` at grid point `point`.
  SmallVector<Value> getBlockIndices(OpBuilder &b, Blocked &operand,
                                     ValueRange point);
  /// The element offsets (into the array, possibly negative or past the
  /// end) where the block with `indices` starts.
  SmallVector<Value> getStarts(OpBuilder &b, Blocked &operand,
                               ValueRange indices);
  /// Copies the block at `indices` between the array and `buffer` (only its
  /// part inside the array).
  void copyBlock(OpBuilder &b, Blocked &operand, ValueRange indices,
                 Value buffer, bool toBuffer);
  /// Reports block indices out of bounds at `point`.
  void checkBlockIndices(OpBuilder &b, Blocked &operand, ValueRange indices,
                         ValueRange point);
  /// Interpret: records the visit of the output block at `indices` in the
  /// iteration `step`, reporting a non-consecutive revisit.
  void recordVisit(OpBuilder &b, Blocked &operand, ValueRange indices,
                   ValueRange point, Value step);
  /// The buffer (or view) of `operand` selected by its slot.
  Value selectBuffer(OpBuilder &b, Blocked &operand, ArrayRef<Value> values,
                     Value slot);
  void allocate(OpBuilder &b);
  void buildStep(OpBuilder &b, ValueRange point);
  SmallVector<Value> linearToPoint(OpBuilder &b, Value linear);

  CallOp call;
  func::FuncOp body;
  KernelLoweringMode mode;
  RuntimeCalls &runtime;
  Location loc;
  ArrayRef<int64_t> grid;
  std::vector<Blocked> operands;
  SmallVector<Value> prefetch;
  SmallVector<Value> scratch;
  SmallVector<Value> results;
};
} // namespace

SmallVector<Value> CallLowering::getBlockIndices(OpBuilder &b, Blocked &operand,
                                                 ValueRange point) {
  int64_t rank = operand.type.getRank();
  BlockAttr block = operand.block;
  SmallVector<Value> indices;
  if (AffineMap map = block.getIndexMap()) {
    for (AffineExpr expr : map.getResults())
      indices.push_back(affine::AffineApplyOp::create(
          b, loc, AffineMap::get(map.getNumDims(), 0, expr), point));
    return indices;
  }
  if (FlatSymbolRefAttr fn = block.getIndexFn()) {
    SmallVector<Value> args(point.begin(), point.end());
    args.append(prefetch.begin(), prefetch.end());
    SmallVector<Type> types(rank, b.getIndexType());
    auto callOp = func::CallOp::create(b, loc, fn, types, args);
    return SmallVector<Value>(callOp.getResults());
  }
  for (int64_t d = 0; d < rank; ++d)
    indices.push_back(constantIndex(b, loc, 0));
  return indices;
}

SmallVector<Value> CallLowering::getStarts(OpBuilder &b, Blocked &operand,
                                           ValueRange indices) {
  SmallVector<Value> starts;
  for (auto [d, index] : llvm::enumerate(indices)) {
    BlockDim dim = operand.block.getFull()
                       ? BlockDim::blocked(operand.blockShape[d])
                       : operand.block.getDims()[d];
    if (dim.isSqueezed())
      starts.push_back(index);
    else if (dim.isElement())
      starts.push_back(arith::SubIOp::create(
          b, loc, index, constantIndex(b, loc, dim.padLow)));
    else
      starts.push_back(arith::MulIOp::create(b, loc, index,
                                             constantIndex(b, loc, dim.size)));
  }
  return starts;
}

void CallLowering::copyBlock(OpBuilder &b, Blocked &operand, ValueRange indices,
                             Value buffer, bool toBuffer) {
  SmallVector<Value> starts = getStarts(b, operand, indices);
  SmallVector<OpFoldResult> arrayOffsets, bufferOffsets, sizes, strides;
  Value zero = constantIndex(b, loc, 0);
  ArrayRef<int64_t> shape = operand.type.getShape();
  for (auto [d, start] : llvm::enumerate(starts)) {
    Value size = constantIndex(b, loc, operand.blockShape[d]);
    Value extent = constantIndex(b, loc, shape[d]);
    auto clamp = [&](Value v, Value hi) {
      return arith::MinSIOp::create(
          b, loc, arith::MaxSIOp::create(b, loc, v, zero), hi);
    };
    Value lo = clamp(start, extent);
    Value hi = clamp(arith::AddIOp::create(b, loc, start, size), extent);
    Value length = arith::SubIOp::create(b, loc, hi, lo);
    Value offset = clamp(arith::SubIOp::create(b, loc, lo, start), size);
    arrayOffsets.push_back(lo);
    bufferOffsets.push_back(offset);
    sizes.push_back(length);
    strides.push_back(b.getIndexAttr(1));
  }
  Value arrayView = memref::SubViewOp::create(b, loc, operand.array,
                                              arrayOffsets, sizes, strides);
  Value bufferView =
      memref::SubViewOp::create(b, loc, buffer, bufferOffsets, sizes, strides);
  // linalg.copy becomes loops that LLVM vectorizes (memref.copy of strided
  // views is an element-by-element runtime call).
  if (toBuffer)
    linalg::CopyOp::create(b, loc, arrayView, bufferView);
  else
    linalg::CopyOp::create(b, loc, bufferView, arrayView);
}

void CallLowering::checkBlockIndices(OpBuilder &b, Blocked &operand,
                                     ValueRange indices, ValueRange point) {
  SmallVector<Value> starts = getStarts(b, operand, indices);
  SmallVector<Value> bad;
  ArrayRef<int64_t> shape = operand.type.getShape();
  for (auto [d, start] : llvm::enumerate(starts)) {
    int64_t size = operand.blockShape[d];
    BlockDim dim = operand.block.getFull() ? BlockDim::blocked(size)
                                           : operand.block.getDims()[d];
    // Blocks (and squeezed dims) need their first element inside the
    // array; element windows (offsets into the padded array) need one
    // element inside the padded array.
    int64_t low = dim.isElement() ? -dim.padLow - size + 1 : 0;
    int64_t high = dim.isElement() ? shape[d] + dim.padHigh - 1 : shape[d] - 1;
    bad.push_back(cmp(b, loc, arith::CmpIPredicate::slt, start,
                      constantIndex(b, loc, low)));
    bad.push_back(cmp(b, loc, arith::CmpIPredicate::sgt, start,
                      constantIndex(b, loc, high)));
  }
  Message message;
  message << "kernel @" << call.getCallee() << ": Out-of-bounds block index ";
  message.tuple(indices) << " for " << (operand.isInput ? "input" : "output")
                         << " \"" << operand.name << "\" in iteration ";
  message.tuple(point) << ": " << (operand.isInput ? "reading" : "writing")
                       << " [";
  for (auto [d, start] : llvm::enumerate(starts)) {
    if (d != 0)
      message << ", ";
    Value end = arith::AddIOp::create(
        b, loc, start, constantIndex(b, loc, operand.blockShape[d]));
    message.value(start) << ":";
    message.value(end);
  }
  message << "] but " << (operand.isInput ? "input" : "output") << " has shape "
          << formatShape(shape);
  runtime.reportIf(b, loc, anyOf(b, loc, bad), message);
}

SmallVector<Value> CallLowering::linearToPoint(OpBuilder &b, Value linear) {
  SmallVector<Value> point(grid.size());
  for (int64_t d = static_cast<int64_t>(grid.size()) - 1; d >= 0; --d) {
    Value size = constantIndex(b, loc, grid[d]);
    point[d] = arith::RemSIOp::create(b, loc, linear, size);
    linear = arith::DivSIOp::create(b, loc, linear, size);
  }
  return point;
}

void CallLowering::recordVisit(OpBuilder &b, Blocked &operand,
                               ValueRange indices, ValueRange point,
                               Value step) {
  // The linear block number, if the block is in bounds.
  SmallVector<Value> inBounds;
  Value linear = constantIndex(b, loc, 0);
  for (auto [d, index] : llvm::enumerate(indices)) {
    Value count = constantIndex(b, loc, operand.blockCounts[d]);
    inBounds.push_back(cmp(b, loc, arith::CmpIPredicate::sge, index,
                           constantIndex(b, loc, 0)));
    inBounds.push_back(cmp(b, loc, arith::CmpIPredicate::slt, index, count));
    linear = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, linear, count), index);
  }
  scf::IfOp::create(
      b, loc, andAll(b, loc, inBounds), [&](OpBuilder &tb, Location tl) {
        Value c0 = constantIndex(tb, tl, 0), c1 = constantIndex(tb, tl, 1);
        Value first = memref::LoadOp::create(tb, tl, operand.visits,
                                             ValueRange{linear, c0});
        Value last = memref::LoadOp::create(tb, tl, operand.visits,
                                            ValueRange{linear, c1});
        Value previousStep = arith::SubIOp::create(tb, tl, step, c1);
        Value unvisited = cmp(tb, tl, arith::CmpIPredicate::slt, first, c0);
        Value consecutive = arith::OrIOp::create(
            tb, tl, cmp(tb, tl, arith::CmpIPredicate::eq, last, previousStep),
            cmp(tb, tl, arith::CmpIPredicate::eq, last, step));
        Value ok = arith::OrIOp::create(tb, tl, unvisited, consecutive);
        scf::IfOp::create(
            tb, tl, ok,
            [&](OpBuilder &ob, Location ol) {
              Value newFirst =
                  arith::SelectOp::create(ob, ol, unvisited, step, first);
              memref::StoreOp::create(ob, ol, newFirst, operand.visits,
                                      ValueRange{linear, c0});
              memref::StoreOp::create(ob, ol, step, operand.visits,
                                      ValueRange{linear, c1});
              scf::YieldOp::create(ob, ol);
            },
            [&](OpBuilder &eb, Location el) {
              Message message;
              message << "kernel @" << call.getCallee()
                      << ": Revisited block [";
              SmallVector<Value> starts = getStarts(eb, operand, indices);
              for (auto [d, start] : llvm::enumerate(starts)) {
                if (d != 0)
                  message << ", ";
                BlockDim dim = operand.block.getFull()
                                   ? BlockDim::blocked(operand.blockShape[d])
                                   : operand.block.getDims()[d];
                if (dim.isSqueezed()) {
                  message.value(start);
                  continue;
                }
                Value end = arith::AddIOp::create(
                    eb, el, start,
                    constantIndex(eb, el, operand.blockShape[d]));
                message.value(start) << ":";
                message.value(end);
              }
              message << "] of output " << std::to_string(operand.index)
                      << " in iteration ";
              message.tuple(point)
                  << ". The block was previously visited in iterations ";
              message.tuple(linearToPoint(eb, first)) << " through ";
              message.tuple(linearToPoint(eb, last));
              runtime.report(eb, el, message);
              scf::YieldOp::create(eb, el);
            });
        scf::YieldOp::create(tb, tl);
      });
}

Value CallLowering::selectBuffer(OpBuilder &b, Blocked &operand,
                                 ArrayRef<Value> values, Value slot) {
  if (values.size() == 1)
    return values[0];
  Value isFirst =
      cmp(b, loc, arith::CmpIPredicate::eq, slot, constantIndex(b, loc, 0));
  return arith::SelectOp::create(b, loc, isFirst, values[0], values[1]);
}

/// The reassociation that drops the squeezed dims of `block` (each joins a
/// neighbouring kept dim), or none if nothing is squeezed.
static std::optional<SmallVector<ReassociationIndices>>
getSqueezeReassociation(BlockAttr block) {
  if (block.getFull() || llvm::none_of(block.getDims(), [](const BlockDim &d) {
        return d.isSqueezed();
      }))
    return std::nullopt;
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pending;
  for (auto [d, dim] : llvm::enumerate(block.getDims())) {
    if (dim.isSqueezed()) {
      if (groups.empty())
        pending.push_back(d);
      else
        groups.back().push_back(d);
      continue;
    }
    ReassociationIndices group = pending;
    pending.clear();
    group.push_back(d);
    groups.push_back(group);
  }
  return groups;
}

void CallLowering::allocate(OpBuilder &b) {
  // Scalar-prefetch operands: copied to "SMEM" before the first step.
  for (Value operand : call.getPrefetchOperands()) {
    auto type = cast<RankedTensorType>(operand.getType());
    auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
    Value source =
        bufferization::ToBufferOp::create(b, loc, memrefType, operand, true);
    Value copy = memref::AllocOp::create(b, loc, memrefType);
    memref::CopyOp::create(b, loc, source, copy);
    prefetch.push_back(copy);
  }
  SmallVector<std::pair<int64_t, int64_t>> aliases = call.getAliasPairs();
  unsigned numInputs = call.getBlockedOperands().size();
  for (unsigned i = 0, e = call.getNumBlocked(); i < e; ++i) {
    Blocked operand;
    std::tie(operand.block, operand.type) = call.getBlocked(i);
    operand.isInput = i < numInputs;
    operand.index = operand.isInput ? i : i - numInputs;
    operand.name = call.getBlockedName(i);
    operand.raw = operand.block.isRawMemory();
    operand.blockShape = operand.block.getBlockShape(operand.type.getShape());
    auto arrayType =
        MemRefType::get(operand.type.getShape(), operand.type.getElementType());
    if (operand.isInput) {
      operand.array = bufferization::ToBufferOp::create(
          b, loc, arrayType, call.getBlockedOperands()[i], true);
    } else {
      operand.array = memref::AllocOp::create(b, loc, arrayType);
      const auto *alias = llvm::find_if(aliases, [&](auto pair) {
        return pair.second == static_cast<int64_t>(operand.index);
      });
      if (alias != aliases.end()) {
        // The output is the input's buffer: unvisited blocks keep its data.
        Value input = call.getOperands()[alias->first];
        Value source =
            bufferization::ToBufferOp::create(b, loc, arrayType, input, true);
        memref::CopyOp::create(b, loc, source, operand.array);
      } else if (interpret()) {
        poison(b, loc, operand.array);
      } else {
        zero(b, loc, operand.array);
      }
      results.push_back(operand.array);
    }
    if (operand.raw) {
      operand.views.push_back(operand.array);
      operands.push_back(std::move(operand));
      continue;
    }
    bool single = interpret() || operand.block.getBuffers() == 1 ||
                  operand.block.isTrivialWindow(operand.type.getShape());
    auto bufferType =
        MemRefType::get(operand.blockShape, operand.type.getElementType());
    auto reassociation = getSqueezeReassociation(operand.block);
    for (int k = 0; k < (single ? 1 : 2); ++k) {
      Value buffer = memref::AllocOp::create(b, loc, bufferType);
      operand.buffers.push_back(buffer);
      operand.views.push_back(
          reassociation
              ? memref::CollapseShapeOp::create(b, loc, buffer, *reassociation)
                    .getResult()
              : buffer);
    }
    Type indexType = b.getIndexType();
    operand.slot =
        memref::AllocOp::create(b, loc, MemRefType::get({}, indexType));
    memref::StoreOp::create(b, loc, constantIndex(b, loc, 0), operand.slot);
    operand.previous = memref::AllocOp::create(
        b, loc, MemRefType::get({operand.type.getRank()}, indexType));
    // Revisits are tracked per block for outputs that are not aliased
    // (aliased outputs are exempt, as in Pallas's interpret mode) and have
    // no element dims.
    bool aliased = llvm::any_of(aliases, [&](auto pair) {
      return pair.second == static_cast<int64_t>(operand.index);
    });
    if (interpret() && !operand.isInput && !aliased &&
        !operand.block.hasElementDims()) {
      int64_t numBlocks = 1;
      for (auto [d, size] : llvm::enumerate(operand.blockShape)) {
        operand.blockCounts.push_back(
            llvm::divideCeil(operand.type.getDimSize(d), size));
        numBlocks *= operand.blockCounts.back();
      }
      operand.visits = memref::AllocOp::create(
          b, loc, MemRefType::get({numBlocks, 2}, indexType));
      Value minusOne = constantIndex(b, loc, -1);
      linalg::FillOp::create(b, loc, ValueRange{minusOne},
                             ValueRange{operand.visits});
    }
    operands.push_back(std::move(operand));
  }
  for (MemRefType type : call.getScratchTypes()) {
    auto stripped = cast<MemRefType>(stripType(type));
    Value buffer = memref::AllocOp::create(b, loc, stripped);
    if (isSemaphoreType(type.getElementType()))
      zero(b, loc, buffer);
    else if (interpret())
      poison(b, loc, buffer);
    scratch.push_back(buffer);
  }
}

void CallLowering::buildStep(OpBuilder &b, ValueRange point) {
  Value step = constantIndex(b, loc, 0);
  for (auto [d, iv] : llvm::enumerate(point))
    step = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, step, constantIndex(b, loc, grid[d])),
        iv);
  int64_t total = 1;
  for (int64_t size : grid)
    total *= size;
  Value isFirst =
      cmp(b, loc, arith::CmpIPredicate::eq, step, constantIndex(b, loc, 0));
  Value isLast = cmp(b, loc, arith::CmpIPredicate::eq, step,
                     constantIndex(b, loc, total - 1));
  // The next grid point (lexicographic; wraps to zeros after the last).
  SmallVector<Value> next(point.size());
  Value carry = arith::ConstantIntOp::create(b, loc, 1, 1);
  for (int64_t d = static_cast<int64_t>(point.size()) - 1; d >= 0; --d) {
    Value one = arith::SelectOp::create(b, loc, carry, constantIndex(b, loc, 1),
                                        constantIndex(b, loc, 0));
    Value bumped = arith::AddIOp::create(b, loc, point[d], one);
    Value wraps = cmp(b, loc, arith::CmpIPredicate::eq, bumped,
                      constantIndex(b, loc, grid[d]));
    next[d] = arith::SelectOp::create(b, loc, wraps, constantIndex(b, loc, 0),
                                      bumped);
    carry = wraps;
  }

  SmallVector<SmallVector<Value>> current(operands.size());
  SmallVector<Value> changesNext(operands.size());
  SmallVector<Value> views(operands.size());
  for (size_t i = 0; i < operands.size(); ++i) {
    Blocked &operand = operands[i];
    if (operand.raw) {
      views[i] = operand.array;
      continue;
    }
    current[i] = getBlockIndices(b, operand, point);
    checkBlockIndices(b, operand, current[i], point);
    if (interpret()) {
      if (operand.isInput) {
        poison(b, loc, operand.buffers[0]);
        copyBlock(b, operand, current[i], operand.buffers[0], true);
      } else {
        // A new output block starts uninitialized; a revisited one stays.
        SmallVector<Value> previous;
        for (int64_t d = 0; d < operand.type.getRank(); ++d)
          previous.push_back(memref::LoadOp::create(
              b, loc, operand.previous, ValueRange{constantIndex(b, loc, d)}));
        Value changed = arith::OrIOp::create(
            b, loc, isFirst, anyDifferent(b, loc, current[i], previous));
        scf::IfOp::create(b, loc, changed, [&](OpBuilder &tb, Location tl) {
          poison(tb, tl, operand.buffers[0]);
          scf::YieldOp::create(tb, tl);
        });
        for (auto [d, index] : llvm::enumerate(current[i]))
          memref::StoreOp::create(b, loc, index, operand.previous,
                                  ValueRange{constantIndex(b, loc, d)});
        if (operand.visits)
          recordVisit(b, operand, current[i], point, step);
      }
      views[i] = operand.views[0];
      continue;
    }
    // Pipelined.
    SmallVector<Value> nextIndices = getBlockIndices(b, operand, next);
    changesNext[i] = arith::AndIOp::create(
        b, loc,
        arith::XOrIOp::create(b, loc, isLast,
                              arith::ConstantIntOp::create(b, loc, 1, 1)),
        anyDifferent(b, loc, nextIndices, current[i]));
    Value slot = memref::LoadOp::create(b, loc, operand.slot);
    views[i] = selectBuffer(b, operand, operand.views, slot);
    if (!operand.isInput)
      continue;
    if (operand.isDoubleBuffered()) {
      // Issue the next step's copy into the other buffer before the body.
      Value other =
          arith::SubIOp::create(b, loc, constantIndex(b, loc, 1), slot);
      Value target = selectBuffer(b, operand, operand.buffers, other);
      scf::IfOp::create(
          b, loc, changesNext[i],
          [&](OpBuilder &tb, Location tl) {
            copyBlock(tb, operand, nextIndices, target, true);
            runtime.countCopy(tb, tl, true);
            scf::YieldOp::create(tb, tl);
          },
          [&](OpBuilder &eb, Location el) {
            scf::IfOp::create(
                eb, el,
                arith::XOrIOp::create(
                    eb, el, isLast, arith::ConstantIntOp::create(eb, el, 1, 1)),
                [&](OpBuilder &sb, Location sl) {
                  runtime.countCopy(sb, sl, false);
                  scf::YieldOp::create(sb, sl);
                });
            scf::YieldOp::create(eb, el);
          });
    } else {
      // One buffer: copy at the start of a step whose block changed.
      SmallVector<Value> previous;
      for (int64_t d = 0; d < operand.type.getRank(); ++d)
        previous.push_back(memref::LoadOp::create(
            b, loc, operand.previous, ValueRange{constantIndex(b, loc, d)}));
      Value changed = arith::OrIOp::create(
          b, loc, isFirst, anyDifferent(b, loc, current[i], previous));
      SmallVector<Value> indices = current[i];
      scf::IfOp::create(
          b, loc, changed,
          [&](OpBuilder &tb, Location tl) {
            copyBlock(tb, operand, indices, operand.buffers[0], true);
            runtime.countCopy(tb, tl, true);
            scf::YieldOp::create(tb, tl);
          },
          [&](OpBuilder &eb, Location el) {
            runtime.countCopy(eb, el, false);
            scf::YieldOp::create(eb, el);
          });
      for (auto [d, index] : llvm::enumerate(current[i]))
        memref::StoreOp::create(b, loc, index, operand.previous,
                                ValueRange{constantIndex(b, loc, d)});
    }
  }

  // The body.
  SmallVector<Value> args(point.begin(), point.end());
  args.append(prefetch.begin(), prefetch.end());
  args.append(views.begin(), views.end());
  args.append(scratch.begin(), scratch.end());
  func::CallOp::create(b, loc, body, args);

  // Write-backs and buffer switches.
  for (size_t i = 0; i < operands.size(); ++i) {
    Blocked &operand = operands[i];
    if (operand.raw)
      continue;
    if (interpret()) {
      if (!operand.isInput)
        copyBlock(b, operand, current[i], operand.buffers[0], false);
      continue;
    }
    Value slot = memref::LoadOp::create(b, loc, operand.slot);
    Value other = arith::SubIOp::create(b, loc, constantIndex(b, loc, 1), slot);
    if (!operand.isInput) {
      Value writeBack = arith::OrIOp::create(b, loc, changesNext[i], isLast);
      Value source = selectBuffer(b, operand, operand.buffers, slot);
      SmallVector<Value> indices = current[i];
      scf::IfOp::create(
          b, loc, writeBack,
          [&](OpBuilder &tb, Location tl) {
            copyBlock(tb, operand, indices, source, false);
            runtime.countCopy(tb, tl, true);
            scf::YieldOp::create(tb, tl);
          },
          [&](OpBuilder &eb, Location el) {
            runtime.countCopy(eb, el, false);
            scf::YieldOp::create(eb, el);
          });
    }
    if (operand.isDoubleBuffered()) {
      Value newSlot =
          arith::SelectOp::create(b, loc, changesNext[i], other, slot);
      memref::StoreOp::create(b, loc, newSlot, operand.slot);
    }
  }
}

LogicalResult CallLowering::run() {
  OpBuilder b(call);
  allocate(b);
  // Pipelined: the first block of every double-buffered input is copied
  // before the loops.
  if (!interpret()) {
    SmallVector<Value> origin;
    for (size_t d = 0; d < grid.size(); ++d)
      origin.push_back(constantIndex(b, loc, 0));
    for (Blocked &operand : operands) {
      if (operand.raw || !operand.isInput || !operand.isDoubleBuffered())
        continue;
      SmallVector<Value> indices = getBlockIndices(b, operand, origin);
      copyBlock(b, operand, indices, operand.buffers[0], true);
      runtime.countCopy(b, loc, true);
    }
  }
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t size : grid) {
    lbs.push_back(constantIndex(b, loc, 0));
    ubs.push_back(constantIndex(b, loc, size));
    steps.push_back(constantIndex(b, loc, 1));
  }
  if (grid.empty())
    buildStep(b, {});
  else
    scf::buildLoopNest(
        b, loc, lbs, ubs, steps,
        [&](OpBuilder &nb, Location, ValueRange ivs) { buildStep(nb, ivs); });
  // Semaphores are zero at kernel exit.
  unsigned numScratch = 0;
  SmallVector<MemRefType> scratchTypes = call.getScratchTypes();
  for (size_t s = 0; s < scratch.size(); ++s) {
    MemRefType type = scratchTypes[s];
    Value buffer = scratch[s];
    unsigned index = numScratch++;
    if (!isSemaphoreType(type.getElementType()))
      continue;
    auto stripped = cast<MemRefType>(buffer.getType());
    SmallVector<Value> lbs2, ubs2, steps2;
    for (int64_t d : stripped.getShape()) {
      lbs2.push_back(constantIndex(b, loc, 0));
      ubs2.push_back(constantIndex(b, loc, d));
      steps2.push_back(constantIndex(b, loc, 1));
    }
    auto check = [&](OpBuilder &nb, Location nl, ValueRange ivs) {
      Value count = memref::LoadOp::create(nb, nl, buffer, ivs);
      Value nonZero = cmp(nb, nl, arith::CmpIPredicate::ne, count,
                          arith::ConstantIntOp::create(nb, nl, 0, 32));
      Message message;
      message << "kernel @" << call.getCallee() << ": Semaphore scratch buffer "
              << std::to_string(index);
      if (!ivs.empty()) {
        message << "[";
        for (auto [k, iv] : llvm::enumerate(ivs)) {
          if (k != 0)
            message << ", ";
          message.value(iv);
        }
        message << "]";
      }
      message << " has non-zero count at kernel exit: ";
      message.value(count);
      runtime.reportIf(nb, nl, nonZero, message);
    };
    if (stripped.getRank() == 0)
      check(b, loc, {});
    else
      scf::buildLoopNest(b, loc, lbs2, ubs2, steps2, check);
  }
  // The results.
  SmallVector<Value> tensors;
  for (auto [result, buffer] : llvm::zip(call.getResults(), results))
    tensors.push_back(bufferization::ToTensorOp::create(
        b, loc, result.getType(), buffer, /*restrict=*/true,
        /*writable=*/true));
  call.replaceAllUsesWith(tensors);
  call.erase();
  return success();
}

//===----------------------------------------------------------------------===//
// Entry point
//===----------------------------------------------------------------------===//

LogicalResult mlir::tessera::kernel::lowerKernelCalls(ModuleOp module,
                                                      KernelLoweringMode mode) {
  SymbolTable symbols(module);
  RuntimeCalls runtime(module);
  SmallVector<CallOp> calls;
  module.walk([&](CallOp call) { calls.push_back(call); });
  llvm::SetVector<func::FuncOp> originals;
  llvm::SetVector<func::FuncOp> indexFns;
  StringRef suffix =
      mode == KernelLoweringMode::Interpret ? "_interpret" : "_pipelined";
  unsigned counter = 0;
  bool ok = true;
  for (CallOp call : calls) {
    auto body = symbols.lookup<func::FuncOp>(call.getCallee());
    if (!body || body.isExternal()) {
      call.emitOpError("kernel body @")
          << call.getCallee() << " has no body to lower";
      ok = false;
      continue;
    }
    for (unsigned i = 0, e = call.getNumBlocked(); i < e; ++i) {
      FlatSymbolRefAttr fn = call.getBlocked(i).first.getIndexFn();
      auto indexFn =
          fn ? symbols.lookup<func::FuncOp>(fn.getValue()) : func::FuncOp();
      if (fn && (!indexFn || indexFn.isExternal())) {
        call.emitOpError("index map function ")
            << fn << " of " << call.getBlockedName(i)
            << " has no body to lower";
        ok = false;
      }
    }
    if (!ok)
      continue;
    // Index map functions are lowered in place, once (their leading
    // arguments are the grid point, then the scalar-prefetch buffers, as
    // for a body clone).
    for (unsigned i = 0, e = call.getNumBlocked(); i < e; ++i) {
      FlatSymbolRefAttr fn = call.getBlocked(i).first.getIndexFn();
      if (!fn)
        continue;
      auto indexFn = symbols.lookup<func::FuncOp>(fn.getValue());
      if (!indexFns.insert(indexFn))
        continue;
      if (failed(lowerBody(indexFn, call, mode, runtime)))
        ok = false;
    }
    if (!ok)
      continue;
    originals.insert(body);
    // The clone: grid indices first, memory spaces dropped.
    auto clone = cast<func::FuncOp>(body->clone());
    clone.setName((body.getName() + suffix + Twine(counter++)).str());
    clone.setPrivate();
    symbols.insert(clone, std::next(Block::iterator(body)));
    for (unsigned d = 0, e = call.getGrid().size(); d < e; ++d)
      (void)clone.insertArgument(d, IndexType::get(module.getContext()), {},
                                 call.getLoc());
    if (failed(lowerBody(clone, call, mode, runtime))) {
      ok = false;
      continue;
    }
    CallLowering lowering(call, clone, mode, runtime);
    if (failed(lowering.run()))
      ok = false;
  }
  if (!ok)
    return failure();
  // The original bodies are no longer called.
  for (func::FuncOp body : originals)
    if (SymbolTable::symbolKnownUseEmpty(body, module))
      body.erase();
  // Kernel ops left are in functions that are not bodies.
  WalkResult left = module.walk([&](Operation *op) {
    if (!isa<KernelDialect>(op->getDialect()))
      return WalkResult::advance();
    op->emitOpError("is outside a kernel body and cannot be lowered (kernel "
                    "ops belong in the body of a kernel.call, not in "
                    "functions it calls)");
    return WalkResult::interrupt();
  });
  if (left.wasInterrupted())
    return failure();
  stripTypes(module);
  return success();
}
