//===- CallToRuntime.cpp - kernel.call to loops over block buffers --------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Lowers every `kernel.call` to a call of tessera_rt_kernel_call with a core
// function: the grid steps of one TensorCore (a loop over its range of the
// grid), which DMA blocks between the arrays and per-operand block buffers
// in the core's VMEM/SMEM arenas and call a lowered clone of the body
// (BodyToRuntime.cpp). In the interpret mode: one core, every block copied
// at every step, poisoning and checks; in the pipelined mode: double
// buffers, the next block's DMA started before the body, copies skipped
// when a block does not change, leading parallel axes split across a
// megacore's TensorCores. The runtime side is tessera/Runtime/KernelABI.h.
//
//===----------------------------------------------------------------------===//

#include "KernelToRuntimeImpl.h"

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
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"
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
  /// The whole array: in the caller, and in the core function.
  Value callerArray;
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
  /// Per buffer: the semaphore its copies signal (memref<2xi32>) and
  /// whether a copy into or out of it is in flight (memref<2xindex>).
  Value semaphores;
  Value pending;
  /// Interpret: per block, the first and last iterations that visited it
  /// (memref<blocks x 2 x index>), for the revisit check; null if unchecked.
  Value visits;
  SmallVector<int64_t> blockCounts;

  bool isDoubleBuffered() const { return buffers.size() == 2; }
};

/// Lowers one kernel.call: the caller passes the arrays to
/// tessera_rt_kernel_call, which runs a core function (the grid steps of one
/// TensorCore, its windows in the core's arenas) on every TensorCore.
class CallLowering {
public:
  CallLowering(CallOp call, func::FuncOp body, KernelLoweringMode mode,
               RuntimeCalls &runtime, TargetAttr target)
      : call(call), body(body), mode(mode), runtime(runtime),
        loc(call.getLoc()), grid(call.getGrid()), target(target) {}

  /// Builds the core function after the body and replaces the call.
  void run(ConversionPatternRewriter &rewriter);

private:
  bool interpret() const { return mode == KernelLoweringMode::Interpret; }
  /// The block indices of `operand` at grid point `point`.
  SmallVector<Value> getBlockIndices(OpBuilder &b, Blocked &operand,
                                     ValueRange point);
  /// The element offsets (into the array, possibly negative or past the
  /// end) where the block with `indices` starts.
  SmallVector<Value> getStarts(OpBuilder &b, Blocked &operand,
                               ValueRange indices);
  /// Starts the DMA of the block at `indices` between the array and buffer
  /// `k` of `operand` (only its part inside the array); its completion
  /// signals the buffer's semaphore, and the buffer is marked pending.
  void startCopy(OpBuilder &b, Blocked &operand, ValueRange indices, Value k,
                 bool toBuffer);
  /// Waits for the copy in flight into or out of buffer `k`, if any.
  void waitCopy(OpBuilder &b, Blocked &operand, Value k);
  /// True at the first step or if `indices` differ from the block indices
  /// of `operand`'s previous step; records `indices` as the previous ones.
  Value updatePrevious(OpBuilder &b, Blocked &operand, ValueRange indices,
                       Value isFirst);
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
  /// The caller's side: arrays, outputs initialized, the argument block.
  Value prepareCaller(OpBuilder &b);
  /// The core function's windows, scratch and bookkeeping.
  void allocate(OpBuilder &b, Value args);
  /// The steps [lo, hi) of the core function.
  void buildSteps(OpBuilder &b, Value lo, Value hi);
  void buildStep(OpBuilder &b, Value step, Value lo, Value hi);
  /// The non-zero semaphore checks at the end of the core function.
  void checkSemaphores(OpBuilder &b);
  SmallVector<Value> linearToPoint(OpBuilder &b, Value linear);
  /// The TensorCores the grid is split across and the number of leading
  /// grid axes split.
  std::pair<int64_t, unsigned> getCoreSplit();
  /// The call's FLOPs: its cost estimate, or a count of the body's
  /// arithmetic times the grid steps.
  int64_t getFlops();
  /// The bytes the block copies move (TESSERA_RT_KERNEL_INFO_COPY_BYTES).
  int64_t getCopyBytes();

  CallOp call;
  func::FuncOp body;
  KernelLoweringMode mode;
  RuntimeCalls &runtime;
  Location loc;
  ArrayRef<int64_t> grid;
  TargetAttr target;
  std::vector<Blocked> operands;
  SmallVector<Value> prefetch;
  SmallVector<Value> callerPrefetch;
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

void CallLowering::startCopy(OpBuilder &b, Blocked &operand, ValueRange indices,
                             Value k, bool toBuffer) {
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
  Value buffer = selectBuffer(b, operand, operand.buffers, k);
  Value arrayView = memref::SubViewOp::create(b, loc, operand.array,
                                              arrayOffsets, sizes, strides);
  Value bufferView =
      memref::SubViewOp::create(b, loc, buffer, bufferOffsets, sizes, strides);
  Value semaphore =
      runtime.getElementAddress(b, loc, operand.semaphores, ValueRange{k});
  Value one = arith::ConstantIntOp::create(b, loc, 1, 64);
  if (toBuffer)
    runtime.dmaStart(b, loc, arrayView, bufferView, TESSERA_RT_DMA_TO_LOCAL,
                     semaphore, one);
  else
    runtime.dmaStart(b, loc, bufferView, arrayView, TESSERA_RT_DMA_TO_HBM,
                     semaphore, one);
  memref::StoreOp::create(b, loc, constantIndex(b, loc, 1), operand.pending,
                          ValueRange{k});
}

void CallLowering::waitCopy(OpBuilder &b, Blocked &operand, Value k) {
  Value pending =
      memref::LoadOp::create(b, loc, operand.pending, ValueRange{k});
  Value inFlight =
      cmp(b, loc, arith::CmpIPredicate::ne, pending, constantIndex(b, loc, 0));
  scf::IfOp::create(b, loc, inFlight, [&](OpBuilder &tb, Location tl) {
    Value semaphore =
        runtime.getElementAddress(tb, tl, operand.semaphores, ValueRange{k});
    runtime.dmaWait(tb, tl, semaphore,
                    arith::ConstantIntOp::create(tb, tl, 1, 32));
    memref::StoreOp::create(tb, tl, constantIndex(tb, tl, 0), operand.pending,
                            ValueRange{k});
    scf::YieldOp::create(tb, tl);
  });
}

Value CallLowering::updatePrevious(OpBuilder &b, Blocked &operand,
                                   ValueRange indices, Value isFirst) {
  SmallVector<Value> previous;
  for (int64_t d = 0; d < operand.type.getRank(); ++d)
    previous.push_back(memref::LoadOp::create(
        b, loc, operand.previous, ValueRange{constantIndex(b, loc, d)}));
  Value changed = arith::OrIOp::create(b, loc, isFirst,
                                       anyDifferent(b, loc, indices, previous));
  for (auto [d, index] : llvm::enumerate(indices))
    memref::StoreOp::create(b, loc, index, operand.previous,
                            ValueRange{constantIndex(b, loc, d)});
  return changed;
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

/// True if the steps of `grid` visit every block of an array of `type` with
/// `block`, as far as its index map shows: an affine map whose results are
/// distinct grid indices ranging over at least the dimension's block count,
/// or 0 for a dimension of one block.
static bool visitsEveryBlock(BlockAttr block, RankedTensorType type,
                             ArrayRef<int64_t> grid) {
  if (block.isRawMemory() || block.hasElementDims() || block.getIndexFn())
    return false;
  SmallVector<int64_t> shape = block.getBlockShape(type.getShape());
  AffineMap map = block.getIndexMap();
  if (!map) {
    // No index map: block 0 only.
    return llvm::all_of(llvm::zip(shape, type.getShape()), [](auto pair) {
      return std::get<0>(pair) >= std::get<1>(pair);
    });
  }
  llvm::SmallDenseSet<unsigned> used;
  for (auto [d, expr] : llvm::enumerate(map.getResults())) {
    int64_t blocks = llvm::divideCeil(type.getDimSize(d), shape[d]);
    if (auto constant = dyn_cast<AffineConstantExpr>(expr)) {
      if (constant.getValue() != 0 || blocks != 1)
        return false;
      continue;
    }
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim || !used.insert(dim.getPosition()).second ||
        grid[dim.getPosition()] < blocks)
      return false;
  }
  return true;
}

Value CallLowering::prepareCaller(OpBuilder &b) {
  SmallVector<Value> addresses;
  for (Value operand : call.getPrefetchOperands()) {
    auto type = cast<RankedTensorType>(operand.getType());
    auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
    Value source =
        bufferization::ToBufferOp::create(b, loc, memrefType, operand, true);
    callerPrefetch.push_back(source);
    addresses.push_back(runtime.getAddress(b, loc, source));
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
      operand.callerArray = bufferization::ToBufferOp::create(
          b, loc, arrayType, call.getBlockedOperands()[i], true);
    } else {
      operand.callerArray = memref::AllocOp::create(b, loc, arrayType);
      const auto *alias = llvm::find_if(aliases, [&](auto pair) {
        return pair.second == static_cast<int64_t>(operand.index);
      });
      if (alias != aliases.end()) {
        // The output is the input's buffer: unvisited blocks keep its data.
        Value input = call.getOperands()[alias->first];
        Value source =
            bufferization::ToBufferOp::create(b, loc, arrayType, input, true);
        memref::CopyOp::create(b, loc, source, operand.callerArray);
      } else if (interpret()) {
        poison(b, loc, operand.callerArray);
      } else if (!visitsEveryBlock(operand.block, operand.type, grid)) {
        // Blocks no step visits read as zeros.
        zero(b, loc, operand.callerArray);
      }
      results.push_back(operand.callerArray);
    }
    addresses.push_back(runtime.getAddress(b, loc, operand.callerArray));
    operands.push_back(std::move(operand));
  }
  Value args = runtime.createEntryAlloca(
      b, loc,
      MemRefType::get({std::max<int64_t>(1, addresses.size())},
                      b.getI64Type()));
  for (auto [i, address] : llvm::enumerate(addresses))
    memref::StoreOp::create(b, loc, address, args,
                            ValueRange{constantIndex(b, loc, i)});
  return runtime.getAddress(b, loc, args);
}

void CallLowering::allocate(OpBuilder &b, Value args) {
  unsigned numArgs = call.getPrefetchOperands().size() + operands.size();
  Value argsBuffer = createMemRefAt(
      b, loc, args,
      MemRefType::get({std::max<int64_t>(1, numArgs)}, b.getI64Type()));
  unsigned next = 0;
  auto nextArgument = [&](MemRefType type) {
    Value address = memref::LoadOp::create(
        b, loc, argsBuffer, ValueRange{constantIndex(b, loc, next++)});
    return createMemRefAt(b, loc, address, type);
  };
  // Scalar-prefetch operands: copied to the core's SMEM before the first
  // step.
  for (Value operand : call.getPrefetchOperands()) {
    auto type = cast<RankedTensorType>(operand.getType());
    auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
    Value source = nextArgument(memrefType);
    Value copy =
        runtime.allocateInArena(b, loc, TESSERA_RT_KERNEL_SMEM, memrefType);
    memref::CopyOp::create(b, loc, source, copy);
    prefetch.push_back(copy);
  }
  SmallVector<std::pair<int64_t, int64_t>> aliases = call.getAliasPairs();
  Type indexType = b.getIndexType();
  for (Blocked &operand : operands) {
    operand.array = nextArgument(MemRefType::get(
        operand.type.getShape(), operand.type.getElementType()));
    if (operand.raw) {
      operand.views.push_back(operand.array);
      continue;
    }
    bool single = interpret() || operand.block.getBuffers() == 1 ||
                  operand.block.isTrivialWindow(operand.type.getShape());
    auto bufferType =
        MemRefType::get(operand.blockShape, operand.type.getElementType());
    auto reassociation = getSqueezeReassociation(operand.block);
    int32_t space = operand.block.getMemorySpace() == MemorySpace::Smem
                        ? TESSERA_RT_KERNEL_SMEM
                        : TESSERA_RT_KERNEL_VMEM;
    for (int k = 0; k < (single ? 1 : 2); ++k) {
      Value buffer = runtime.allocateInArena(b, loc, space, bufferType);
      operand.buffers.push_back(buffer);
      operand.views.push_back(
          reassociation
              ? memref::CollapseShapeOp::create(b, loc, buffer, *reassociation)
                    .getResult()
              : buffer);
    }
    operand.slot =
        memref::AllocaOp::create(b, loc, MemRefType::get({}, indexType));
    memref::StoreOp::create(b, loc, constantIndex(b, loc, 0), operand.slot);
    operand.previous = memref::AllocaOp::create(
        b, loc, MemRefType::get({operand.type.getRank()}, indexType));
    operand.semaphores =
        memref::AllocaOp::create(b, loc, MemRefType::get({2}, b.getI32Type()));
    zero(b, loc, operand.semaphores);
    operand.pending =
        memref::AllocaOp::create(b, loc, MemRefType::get({2}, indexType));
    zero(b, loc, operand.pending);
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
  }
  for (MemRefType type : call.getScratchTypes()) {
    auto stripped = cast<MemRefType>(stripType(type));
    std::optional<MemorySpace> space = getMemorySpace(type);
    Value buffer;
    if (space == MemorySpace::Vmem)
      buffer =
          runtime.allocateInArena(b, loc, TESSERA_RT_KERNEL_VMEM, stripped);
    else if (space == MemorySpace::Smem)
      buffer =
          runtime.allocateInArena(b, loc, TESSERA_RT_KERNEL_SMEM, stripped);
    else
      buffer = memref::AllocOp::create(b, loc, stripped);
    if (isSemaphoreType(type.getElementType()))
      zero(b, loc, buffer);
    else if (interpret())
      poison(b, loc, buffer);
    scratch.push_back(buffer);
  }
}

void CallLowering::buildSteps(OpBuilder &b, Value lo, Value hi) {
  // Pipelined: the first block of every double-buffered input is started
  // before the loop.
  if (!interpret()) {
    SmallVector<Value> origin = linearToPoint(b, lo);
    Value k0 = constantIndex(b, loc, 0);
    for (Blocked &operand : operands) {
      if (operand.raw || !operand.isInput || !operand.isDoubleBuffered())
        continue;
      SmallVector<Value> indices = getBlockIndices(b, operand, origin);
      startCopy(b, operand, indices, k0, true);
    }
  }
  scf::ForOp::create(b, loc, lo, hi, constantIndex(b, loc, 1), ValueRange{},
                     [&](OpBuilder &nb, Location, Value step, ValueRange) {
                       buildStep(nb, step, lo, hi);
                       scf::YieldOp::create(nb, loc);
                     });
}

void CallLowering::buildStep(OpBuilder &b, Value step, Value lo, Value hi) {
  SmallVector<Value> point = linearToPoint(b, step);
  Value isFirst = cmp(b, loc, arith::CmpIPredicate::eq, step, lo);
  Value isLast =
      cmp(b, loc, arith::CmpIPredicate::eq, step,
          arith::SubIOp::create(b, loc, hi, constantIndex(b, loc, 1)));
  Value notLast = arith::XOrIOp::create(
      b, loc, isLast, arith::ConstantIntOp::create(b, loc, 1, 1));
  // The next grid point (lexicographic; wraps to zeros after the last).
  SmallVector<Value> next = linearToPoint(
      b, arith::AddIOp::create(b, loc, step, constantIndex(b, loc, 1)));
  Value k0 = constantIndex(b, loc, 0);

  SmallVector<SmallVector<Value>> current(operands.size());
  SmallVector<Value> changesNext(operands.size());
  SmallVector<Value> slots(operands.size());
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
        startCopy(b, operand, current[i], k0, true);
        waitCopy(b, operand, k0);
      } else {
        // A new output block starts uninitialized; a revisited one stays.
        Value changed = updatePrevious(b, operand, current[i], isFirst);
        scf::IfOp::create(b, loc, changed, [&](OpBuilder &tb, Location tl) {
          poison(tb, tl, operand.buffers[0]);
          scf::YieldOp::create(tb, tl);
        });
        if (operand.visits)
          recordVisit(b, operand, current[i], point, step);
      }
      views[i] = operand.views[0];
      continue;
    }
    // Pipelined.
    SmallVector<Value> nextIndices = getBlockIndices(b, operand, next);
    changesNext[i] = arith::AndIOp::create(
        b, loc, notLast, anyDifferent(b, loc, nextIndices, current[i]));
    Value slot = memref::LoadOp::create(b, loc, operand.slot);
    slots[i] = slot;
    views[i] = selectBuffer(b, operand, operand.views, slot);
    if (operand.isInput && !operand.isDoubleBuffered()) {
      // One buffer: copied (and waited for) at the start of a step whose
      // block changed.
      Value changed = updatePrevious(b, operand, current[i], isFirst);
      SmallVector<Value> indices = current[i];
      scf::IfOp::create(
          b, loc, changed,
          [&](OpBuilder &tb, Location tl) {
            startCopy(tb, operand, indices, k0, true);
            waitCopy(tb, operand, k0);
            scf::YieldOp::create(tb, tl);
          },
          [&](OpBuilder &eb, Location el) {
            runtime.countCopy(eb, el, false);
            scf::YieldOp::create(eb, el);
          });
      continue;
    }
    // This step's input block (started in the previous step), or the
    // write-back of the output buffer's previous block, completes first.
    waitCopy(b, operand, slot);
    if (!operand.isInput)
      continue;
    // Start the next step's block into the other buffer before the body.
    Value other = arith::SubIOp::create(b, loc, constantIndex(b, loc, 1), slot);
    scf::IfOp::create(
        b, loc, changesNext[i],
        [&](OpBuilder &tb, Location tl) {
          startCopy(tb, operand, nextIndices, other, true);
          scf::YieldOp::create(tb, tl);
        },
        [&](OpBuilder &eb, Location el) {
          scf::IfOp::create(eb, el, notLast, [&](OpBuilder &sb, Location sl) {
            runtime.countCopy(sb, sl, false);
            scf::YieldOp::create(sb, sl);
          });
          scf::YieldOp::create(eb, el);
        });
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
      if (!operand.isInput) {
        startCopy(b, operand, current[i], k0, false);
        waitCopy(b, operand, k0);
      }
      continue;
    }
    Value slot = slots[i];
    if (!operand.isInput) {
      Value writeBack = arith::OrIOp::create(b, loc, changesNext[i], isLast);
      SmallVector<Value> indices = current[i];
      bool single = !operand.isDoubleBuffered();
      scf::IfOp::create(
          b, loc, writeBack,
          [&](OpBuilder &tb, Location tl) {
            startCopy(tb, operand, indices, slot, false);
            if (single)
              waitCopy(tb, operand, slot);
            scf::YieldOp::create(tb, tl);
          },
          [&](OpBuilder &eb, Location el) {
            runtime.countCopy(eb, el, false);
            scf::YieldOp::create(eb, el);
          });
    }
    if (operand.isDoubleBuffered()) {
      Value other =
          arith::SubIOp::create(b, loc, constantIndex(b, loc, 1), slot);
      Value newSlot =
          arith::SelectOp::create(b, loc, changesNext[i], other, slot);
      memref::StoreOp::create(b, loc, newSlot, operand.slot);
    }
  }
}

void CallLowering::checkSemaphores(OpBuilder &b) {
  // Semaphores are zero at kernel exit.
  SmallVector<MemRefType> scratchTypes = call.getScratchTypes();
  for (size_t s = 0; s < scratch.size(); ++s)
    if (isSemaphoreType(scratchTypes[s].getElementType()))
      runtime.checkSemaphoresZero(b, loc, scratch[s], call.getCallee(),
                                  "scratch buffer " + std::to_string(s),
                                  "kernel exit");
}

std::pair<int64_t, unsigned> CallLowering::getCoreSplit() {
  if (interpret())
    return {1, 0};
  unsigned parallel = 0;
  for (DimensionSemantics semantics : call.getGridSemantics()) {
    if (semantics != DimensionSemantics::Parallel)
      break;
    ++parallel;
  }
  const TpuInfo &info = target.getInfo();
  int64_t cores = info.megacore ? info.tensorCoresPerChip : 1;
  if (parallel == 0 || cores <= 1)
    return {1, 0};
  return {cores, parallel};
}

int64_t CallLowering::getFlops() {
  if (CostEstimateAttr cost = call.getCostEstimateAttr())
    return cost.getFlops();
  int64_t steps = 1;
  for (int64_t size : grid)
    steps *= size;
  return countFlops(body.getBody()) * steps;
}

int64_t CallLowering::getCopyBytes() {
  // The steps visit the grid in row-major order and a block is copied when
  // its index changes: an index map whose innermost grid dimension is d
  // changes at most grid[0] * ... * grid[d] times (once if it reads none);
  // an index function (scalar prefetch) may change at every step.
  int64_t steps = 1;
  for (int64_t size : grid)
    steps *= size;
  int64_t total = 0;
  for (const Blocked &operand : operands) {
    if (operand.raw)
      continue;
    int64_t bytes = llvm::divideCeil(operand.type.getElementTypeBitWidth(), 8);
    for (int64_t size : operand.blockShape)
      bytes *= size;
    int64_t copies = steps;
    if (!operand.block.getIndexFn()) {
      copies = 1;
      if (AffineMap map = operand.block.getIndexMap()) {
        int64_t innermost = -1;
        for (unsigned d = 0; d < map.getNumDims(); ++d)
          if (map.isFunctionOfDim(d))
            innermost = d;
        for (int64_t d = 0; d <= innermost; ++d)
          copies *= grid[d];
      }
    }
    total += bytes * copies;
  }
  return total;
}

void CallLowering::run(ConversionPatternRewriter &rewriter) {
  const TpuInfo &info = target.getInfo();
  OpBuilder &b = rewriter;
  b.setInsertionPoint(call);
  auto caller = call->getParentOfType<func::FuncOp>();
  runtime.setAllocaFunction(caller);
  Value args = prepareCaller(b);

  // The core function: the steps of one TensorCore.
  MLIRContext *context = call.getContext();
  auto coreType = FunctionType::get(
      context, {IntegerType::get(context, 64), IntegerType::get(context, 32)},
      {});
  func::FuncOp coreFn;
  auto [numCores, numSplit] = getCoreSplit();
  int64_t outer = 1, inner = 1;
  for (auto [d, size] : llvm::enumerate(grid))
    (d < numSplit ? outer : inner) *= size;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointAfter(body);
    coreFn = func::FuncOp::create(b, loc, (body.getName() + "_core").str(),
                                  coreType);
    coreFn.setPrivate();
    Block *entry = rewriter.createBlock(&coreFn.getBody(), {},
                                        coreType.getInputs(), {loc, loc});
    runtime.setAllocaFunction(coreFn);
    OpBuilder &cb = b;
    allocate(cb, entry->getArgument(0));
    int64_t perCore = llvm::divideCeil(outer, numCores);
    Value core = arith::IndexCastOp::create(cb, loc, cb.getIndexType(),
                                            entry->getArgument(1));
    auto bound = [&](int64_t offset) {
      Value first = arith::AddIOp::create(
          cb, loc,
          arith::MulIOp::create(cb, loc, core, constantIndex(cb, loc, perCore)),
          constantIndex(cb, loc, offset));
      Value clamped =
          arith::MinSIOp::create(cb, loc, first, constantIndex(cb, loc, outer));
      return arith::MulIOp::create(cb, loc, clamped,
                                   constantIndex(cb, loc, inner))
          .getResult();
    };
    Value lo = bound(0), hi = bound(perCore);
    scf::IfOp::create(cb, loc, cmp(cb, loc, arith::CmpIPredicate::slt, lo, hi),
                      [&](OpBuilder &tb, Location tl) {
                        buildSteps(tb, lo, hi);
                        scf::YieldOp::create(tb, tl);
                      });
    runtime.dmaDrain(cb, loc);
    checkSemaphores(cb);
    func::ReturnOp::create(cb, loc);
  }

  // The call.
  runtime.setAllocaFunction(caller);
  int64_t steps = outer * inner;
  int64_t vmemBytes =
      call.getVmemLimitBytes().value_or(info.defaultScopedVmemBytes);
  SmallVector<int64_t> callInfo(TESSERA_RT_KERNEL_INFO_SIZE, 0);
  callInfo[TESSERA_RT_KERNEL_INFO_MODE] = interpret() ? 0 : 1;
  callInfo[TESSERA_RT_KERNEL_INFO_CORES] = numCores;
  callInfo[TESSERA_RT_KERNEL_INFO_VMEM_BYTES] = vmemBytes;
  callInfo[TESSERA_RT_KERNEL_INFO_SMEM_BYTES] = info.smemBytes;
  callInfo[TESSERA_RT_KERNEL_INFO_FLOPS] = getFlops();
  callInfo[TESSERA_RT_KERNEL_INFO_STEPS] = steps;
  callInfo[TESSERA_RT_KERNEL_INFO_HBM_BYTES_PER_SECOND] =
      static_cast<int64_t>(info.hbmBytesPerSecond);
  callInfo[TESSERA_RT_KERNEL_INFO_PEAK_FLOPS_PER_SECOND] =
      static_cast<int64_t>(info.peakBf16FlopsPerSecond);
  callInfo[TESSERA_RT_KERNEL_INFO_COPY_BYTES] = getCopyBytes();
  runtime.callKernel(b, loc, call.getCallee(), info.generation, callInfo, args,
                     coreFn);

  // The results.
  SmallVector<Value> tensors;
  for (auto [result, buffer] : llvm::zip(call.getResults(), results))
    tensors.push_back(bufferization::ToTensorOp::create(
        b, loc, result.getType(), buffer, /*restrict=*/true,
        /*writable=*/true));
  rewriter.replaceOp(call, tensors);
}

//===----------------------------------------------------------------------===//
// The pattern
//===----------------------------------------------------------------------===//

namespace {
/// Lowers a kernel.call whose body and index map functions have bodies
/// (convertKernelToRuntime checks them first): clones the body with the grid
/// indices as leading arguments, registers the clone and the index map
/// functions with the state (their kernel ops are lowered by the body
/// patterns), and replaces the call with the runtime call of a new core
/// function.
struct LowerKernelCall : OpConversionPattern<CallOp> {
  LowerKernelCall(MLIRContext *context, KernelLoweringState::Impl &state)
      : OpConversionPattern(context), state(state) {}

  LogicalResult
  matchAndRewrite(CallOp call, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto body = state.symbols.lookup<func::FuncOp>(call.getCallee());
    TargetAttr target = lookupTarget(call);
    if (!body || body.isExternal() || !target ||
        !call->getParentOfType<func::FuncOp>())
      return rewriter.notifyMatchFailure(call, "cannot be lowered");
    // Index map functions are lowered in place, once (their leading
    // arguments are the grid point, then the scalar-prefetch buffers, as for
    // a body clone).
    for (unsigned i = 0, e = call.getNumBlocked(); i < e; ++i) {
      FlatSymbolRefAttr fn = call.getBlocked(i).first.getIndexFn();
      if (!fn)
        continue;
      auto indexFn = state.symbols.lookup<func::FuncOp>(fn.getValue());
      if (!state.bodies.contains(indexFn))
        state.addBody(indexFn, call);
    }
    state.originals.insert(body);
    // The clone: grid indices first.
    StringRef suffix = state.mode == KernelLoweringMode::Interpret
                           ? "_interpret"
                           : "_pipelined";
    func::FuncOp clone;
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointAfter(body);
      clone = cast<func::FuncOp>(rewriter.clone(*body));
    }
    clone.setName((body.getName() + suffix + Twine(state.numClones++)).str());
    clone.setPrivate();
    state.symbols.insert(clone);
    for (unsigned d = 0, e = call.getGrid().size(); d < e; ++d)
      (void)clone.insertArgument(d, rewriter.getIndexType(), {}, call.getLoc());
    state.addBody(clone, call);
    CallLowering lowering(call, clone, state.mode, state.runtime, target);
    lowering.run(rewriter);
    return success();
  }

  KernelLoweringState::Impl &state;
};
} // namespace

void mlir::tessera::kernel::populateKernelCallToRuntimePatterns(
    RewritePatternSet &patterns, KernelLoweringState &state) {
  patterns.add<LowerKernelCall>(patterns.getContext(), state.getImpl());
}
