//===- ApplyVectorLayout.cpp - the kernel-apply-vector-layout pass --------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The driver of the rewrite onto tiles (ApplyVectorLayout.h): which values
// are lazy, the visit of the body in order with its loops and conditionals,
// the layout buffers around the body, and the clean-up of the original ops.
//
//===----------------------------------------------------------------------===//

#include "ApplyVectorLayout.h"

#include "tessera/Dialect/Kernel/IR/KernelOps.h"
#include "tessera/Dialect/Kernel/Transforms/Passes.h"
#include "tessera/Dialect/Kernel/Transforms/VectorLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/BitVector.h"

namespace mlir::tessera::kernel {
#define GEN_PASS_DEF_KERNELAPPLYVECTORLAYOUTPASS
#include "tessera/Dialect/Kernel/Transforms/Passes.h.inc"
} // namespace mlir::tessera::kernel

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::kernel;
using namespace mlir::tessera::kernel::layout;

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

VectorLayoutAttr LayoutApplier::getLayout(Value value) const {
  auto type = dyn_cast<VectorType>(value.getType());
  if (!type || type.getRank() == 0)
    return nullptr;
  if (VectorLayoutAttr layout = getAssignedLayout(value))
    return layout;
  return getNativeLayout(type);
}

bool LayoutApplier::spans(Value value) const {
  auto type = dyn_cast<VectorType>(value.getType());
  return type && spansTiles(type, getLayout(value));
}

SmallVector<int64_t> LayoutApplier::getTileShape(Value value) const {
  auto type = cast<VectorType>(value.getType());
  VectorLayoutAttr layout = getLayout(value);
  if (!layout)
    return {};
  return layout.getTileShape(type.getShape());
}

SmallVector<int64_t> LayoutApplier::getStepShape(Value value) const {
  SmallVector<int64_t> shape = getTileShape(value);
  if (rowsPerStep <= 0 || shape.size() < 2 || !spans(value))
    return shape;
  int64_t &rows = shape[shape.size() - 2];
  if (rows > rowsPerStep && rows % rowsPerStep == 0)
    rows = rowsPerStep;
  return shape;
}

//===----------------------------------------------------------------------===//
// Which values are lazy
//===----------------------------------------------------------------------===//

/// True if the tiles of `op`'s result can be computed on their own: loads,
/// elementwise ops, broadcasts, splat constants, masks and iotas.
static bool isTileOp(Operation *op) {
  if (op->getNumResults() != 1 || op->getNumRegions() != 0)
    return false;
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return isa<SplatElementsAttr>(constant.getValue());
  return isa<LoadOp, vector::BroadcastOp, vector::StepOp, vector::CreateMaskOp,
             vector::ConstantMaskOp>(op) ||
         OpTrait::hasElementwiseMappableTraits(op);
}

/// True if computing a tile of `op`'s result costs about as much as reading
/// it from a buffer: it is recomputed wherever it is used.
static bool isCheap(Operation *op) {
  return isa<arith::ConstantOp, LoadOp, vector::BroadcastOp, vector::StepOp,
             vector::CreateMaskOp, vector::ConstantMaskOp>(op);
}

/// True if `use` reads its value tile by tile.
static bool consumesTiles(OpOperand &use) {
  Operation *user = use.getOwner();
  if (isTileOp(user) && !isa<vector::BroadcastOp>(user))
    return true;
  if (auto store = dyn_cast<StoreOp>(user))
    return use.get() != store.getRef();
  // A contraction's accumulator is stored tile by tile into its buffer.
  if (isa<vector::ContractionOp>(user))
    return use.getOperandNumber() == 2;
  return isa<vector::MultiDimReductionOp, vector::ReductionOp, scf::ForOp,
             scf::YieldOp>(user);
}

ArrayRef<Operation *> LayoutApplier::getEvaluationPoints(Operation *op) {
  auto it = evaluationPoints.find(op);
  if (it != evaluationPoints.end())
    return it->second;
  SmallVector<Operation *> points;
  for (Operation *user : op->getResult(0).getUsers()) {
    if (lazyOps.contains(user))
      llvm::append_range(points, getEvaluationPoints(user));
    else
      points.push_back(user);
  }
  return evaluationPoints[op] = std::move(points);
}

Value mlir::tessera::kernel::layout::getViewBase(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// True if `buffer` is a buffer of its own: an argument of the kernel body
/// (a window, a scratch or scalar-prefetch buffer: distinct allocations) or
/// of a kernel.run_scoped.
static bool isDistinctBuffer(Value buffer) {
  auto arg = dyn_cast<BlockArgument>(buffer);
  if (!arg)
    return false;
  Operation *owner = arg.getOwner()->getParentOp();
  return isa<func::FuncOp, RunScopedOp>(owner) &&
         arg.getOwner()->isEntryBlock();
}

/// True if `op` may write the memory of `buffer` (a distinct buffer, see
/// isDistinctBuffer): it writes memory it does not name, or a view of a
/// buffer that is not distinct from another one, or of `buffer`.
static bool mayWrite(Operation *op, Value buffer) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects) {
    if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return true;
  } else {
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (MemoryEffects::EffectInstance &effect : instances) {
      if (!isa<MemoryEffects::Write>(effect.getEffect()))
        continue;
      Value written = effect.getValue();
      if (!written)
        return true;
      Value base = getViewBase(written);
      if (!isDistinctBuffer(base) || !isDistinctBuffer(buffer) ||
          base == buffer)
        return true;
    }
  }
  if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Operation &nested : block)
          if (mayWrite(&nested, buffer))
            return true;
  return false;
}

bool mlir::tessera::kernel::layout::writesBetween(LoadOp from, Operation *to) {
  Value buffer = getViewBase(from.getRef());
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode())
    if (mayWrite(op, buffer))
      return true;
  return false;
}

/// True if the vector `type`'s last dimension has more than one element.
static bool hasLanes(Type type) {
  auto vector = dyn_cast<VectorType>(type);
  return vector && vector.getRank() >= 2 && vector.getShape().back() > 1 &&
         !vector.isScalable();
}

void LayoutApplier::analyzeReplication() {
  // The scratch buffers assumed to hold lane-replicated rows; dropped (and
  // the values recomputed) until every write of the rest keeps them so.
  llvm::SmallDenseSet<Value> buffers;
  for (Value buffer : scratch)
    if (auto type = dyn_cast<MemRefType>(buffer.getType());
        type && type.getRank() >= 2)
      buffers.insert(buffer);
  SmallVector<Operation *> ops;
  body.walk([&](Operation *op) { ops.push_back(op); });
  while (true) {
    laneReplicated.clear();
    // Definitions come before their uses in the walk's order.
    for (Operation *op : ops) {
      if (op->getNumResults() != 1 || !hasLanes(op->getResult(0).getType()))
        continue;
      Value result = op->getResult(0);
      bool replicated = false;
      if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
        replicated = isa<SplatElementsAttr>(constant.getValue());
      } else if (auto broadcast = dyn_cast<vector::BroadcastOp>(op)) {
        auto source = dyn_cast<VectorType>(broadcast.getSourceType());
        replicated = !source || source.getShape().back() == 1 ||
                     (source.getRank() >= 2 &&
                      laneReplicated.contains(broadcast.getSource()));
      } else if (auto load = dyn_cast<LoadOp>(op)) {
        replicated = !load.getMask() && buffers.contains(load.getRef());
      } else if (OpTrait::hasElementwiseMappableTraits(op) &&
                 op->getNumRegions() == 0) {
        replicated = llvm::all_of(op->getOperands(), [&](Value operand) {
          return !isa<VectorType>(operand.getType()) ||
                 laneReplicated.contains(operand);
        });
      }
      if (replicated)
        laneReplicated.insert(result);
    }
    // A buffer keeps its rows replicated if it is only loaded from and
    // stored into, each store of a replicated value over whole rows.
    SmallVector<Value> broken;
    for (Value buffer : buffers) {
      auto type = cast<MemRefType>(buffer.getType());
      for (OpOperand &use : buffer.getUses()) {
        Operation *user = use.getOwner();
        if (isa<LoadOp>(user))
          continue;
        auto store = dyn_cast<StoreOp>(user);
        bool keeps = false;
        if (store && use.get() == store.getRef() && !store.getMask()) {
          auto valueType = cast<VectorType>(store.getValue().getType());
          std::optional<int64_t> lane =
              getConstantIntValue(store.getIndices().back());
          keeps = valueType.getRank() >= 1 && lane && *lane == 0 &&
                  valueType.getShape().back() == type.getShape().back() &&
                  (valueType.getShape().back() == 1 ||
                   laneReplicated.contains(store.getValue()));
        }
        if (!keeps) {
          broken.push_back(buffer);
          break;
        }
      }
    }
    if (broken.empty())
      return;
    for (Value buffer : broken)
      buffers.erase(buffer);
  }
}

void LayoutApplier::analyze() {
  analyzeReplication();
  body.walk([&](Operation *op) {
    if (!isTileOp(op) || !spans(op->getResult(0)))
      return;
    Value value = op->getResult(0);
    Block *block = op->getBlock();
    if (llvm::any_of(value.getUsers(), [&](Operation *user) {
          return user->getBlock() != block;
        }))
      return;
    // An elementwise op is computed where its one user reads its tiles;
    // with more users it is stored once.
    if (!isCheap(op) &&
        (!value.hasOneUse() || !consumesTiles(*value.use_begin())))
      return;
    lazyOps.insert(op);
  });
  // A load is read where its tiles are computed: only if nothing may write
  // memory in between; else it is copied where it is.
  while (true) {
    evaluationPoints.clear();
    SmallVector<Operation *> unsafe;
    for (Operation *op : lazyOps)
      if (auto load = dyn_cast<LoadOp>(op);
          load && llvm::any_of(getEvaluationPoints(op), [&](Operation *point) {
            return writesBetween(load, point);
          }))
        unsafe.push_back(op);
    if (unsafe.empty())
      break;
    for (Operation *op : unsafe)
      lazyOps.erase(op);
  }
}

//===----------------------------------------------------------------------===//
// The visit
//===----------------------------------------------------------------------===//

void LayoutApplier::setResult(OpBuilder &b, Location loc, Value result,
                              Value buffer, Value value) {
  if (spans(result)) {
    placements[result] = Placement{buffer, nullptr};
    return;
  }
  if (!value)
    value = loadWhole(b, loc, buffer, cast<VectorType>(result.getType()));
  result.replaceAllUsesWith(value);
}

LogicalResult LayoutApplier::rewriteBlock(Block &block) {
  for (Operation &op : llvm::make_early_inc_range(block))
    if (failed(rewriteOp(&op)))
      return failure();
  return success();
}

LogicalResult LayoutApplier::rewriteOp(Operation *op) {
  current = op;
  if (isa<scf::ForOp>(op)) {
    rewriteFor(op);
    return success();
  }
  if (isa<scf::IfOp>(op)) {
    rewriteIf(op);
    return success();
  }
  if (isa<scf::YieldOp>(op)) {
    rewriteYield(op);
    return success();
  }
  bool touches =
      llvm::any_of(op->getOperands(), [&](Value v) { return spans(v); }) ||
      llvm::any_of(op->getResults(), [&](Value v) { return spans(v); });
  if (!touches) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        if (failed(rewriteBlock(block)))
          return failure();
    return success();
  }
  if (isTileOp(op) && spans(op->getResult(0))) {
    Value value = op->getResult(0);
    toErase.push_back(op);
    if (value.use_empty() && (isPure(op) || isa<LoadOp>(op)))
      return success();
    placements[value] = Placement{nullptr, op};
    if (!lazyOps.contains(op)) {
      // Computed once, where it is, into a layout buffer.
      OpBuilder b(op);
      auto type = cast<VectorType>(value.getType());
      Value buffer =
          createBuffer(op->getLoc(), type.getShape(), type.getElementType());
      storeTiles(b, op->getLoc(), value, buffer);
      placements[value] = Placement{buffer, nullptr};
    }
    return success();
  }
  if (auto store = dyn_cast<StoreOp>(op)) {
    rewriteStore(store);
    return success();
  }
  if (isa<vector::MultiDimReductionOp, vector::ReductionOp>(op))
    rewriteReduction(op);
  else if (isa<vector::ContractionOp>(op))
    rewriteContraction(op);
  else if (isa<vector::TransposeOp>(op))
    rewriteTranspose(op);
  else if (isa<vector::ShapeCastOp>(op))
    rewriteShapeCast(op);
  else if (isa<vector::ExtractOp, vector::ExtractStridedSliceOp>(op))
    rewriteExtract(op);
  else if (isa<vector::InsertOp, vector::InsertStridedSliceOp>(op))
    rewriteInsert(op);
  else if (isa<arith::ConstantOp>(op))
    rewriteConstant(op);
  else
    return op->emitOpError(
        "is not supported on vectors of several tiles by "
        "kernel-apply-vector-layout (kernel-verify reports it)");
  toErase.push_back(op);
  return success();
}

void LayoutApplier::rewriteFor(Operation *op) {
  auto loop = cast<scf::ForOp>(op);
  bool carries = false;
  OpBuilder b(loop);
  for (auto [i, result] : llvm::enumerate(loop.getResults())) {
    if (!spans(result))
      continue;
    carries = true;
    auto type = cast<VectorType>(result.getType());
    Value buffer =
        createBuffer(loop.getLoc(), type.getShape(), type.getElementType());
    storeTiles(b, loop.getLoc(), loop.getInitArgs()[i], buffer);
    placements[loop.getRegionIterArgs()[i]] = Placement{buffer, nullptr};
    placements[result] = Placement{buffer, nullptr};
  }
  (void)rewriteBlock(*loop.getBody());
  current = op;
  if (carries)
    regionOps.push_back(op);
}

void LayoutApplier::rewriteIf(Operation *op) {
  auto ifOp = cast<scf::IfOp>(op);
  bool carries = false;
  for (Value result : ifOp.getResults()) {
    if (!spans(result))
      continue;
    carries = true;
    auto type = cast<VectorType>(result.getType());
    placements[result] = Placement{
        createBuffer(ifOp.getLoc(), type.getShape(), type.getElementType()),
        nullptr};
  }
  for (Region &region : ifOp->getRegions())
    for (Block &block : region)
      (void)rewriteBlock(block);
  current = op;
  if (carries)
    regionOps.push_back(op);
}

void LayoutApplier::rewriteYield(Operation *op) {
  Operation *parent = op->getParentOp();
  if (!isa<scf::ForOp, scf::IfOp>(parent))
    return;
  llvm::BitVector stored(op->getNumOperands());
  for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
    Value result = parent->getResult(i);
    if (!spans(result))
      continue;
    stored.set(i);
    Value buffer = placements.lookup(result).buffer;
    auto it = placements.find(operand);
    if (it != placements.end() && it->second.buffer == buffer)
      continue;
    OpBuilder b(op);
    protectFrom(op->getLoc(), operand, buffer, {});
    storeTiles(b, op->getLoc(), operand, buffer);
  }
  // The stored values leave the terminator (shrinkRegionOps drops the
  // parent's results to match).
  op->eraseOperands(stored);
}

//===----------------------------------------------------------------------===//
// Clean-up
//===----------------------------------------------------------------------===//

/// True if the values that span tiles can be dropped from `op` (an scf.for
/// or scf.if of regionOps): nothing uses them inside any more.
static bool canShrink(Operation *op, const LayoutApplier &applier) {
  auto loop = dyn_cast<scf::ForOp>(op);
  if (!loop)
    return true;
  for (auto [arg, result] :
       llvm::zip(loop.getRegionIterArgs(), loop.getResults()))
    if (applier.spans(result) && !arg.use_empty())
      return false;
  return true;
}

bool LayoutApplier::shrinkRegionOps() {
  bool shrunk = false;
  for (Operation *&op : regionOps) {
    if (!op || !canShrink(op, *this))
      continue;
    shrunk = true;
    llvm::BitVector drop(op->getNumResults());
    SmallVector<Type> keptTypes;
    for (OpResult result : op->getResults()) {
      if (spans(result))
        drop.set(result.getResultNumber());
      else
        keptTypes.push_back(result.getType());
    }
    OpBuilder b(op);
    Operation *replacement;
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      SmallVector<Value> inits;
      for (auto [i, init] : llvm::enumerate(loop.getInitArgs()))
        if (!drop.test(i))
          inits.push_back(init);
      auto newLoop =
          scf::ForOp::create(b, loop.getLoc(), loop.getLowerBound(),
                             loop.getUpperBound(), loop.getStep(), inits);
      newLoop.getRegion().takeBody(loop.getRegion());
      Block *block = newLoop.getBody();
      llvm::BitVector dropArgs(block->getNumArguments());
      for (unsigned i : drop.set_bits())
        dropArgs.set(i + 1);
      block->eraseArguments(dropArgs);
      replacement = newLoop;
    } else {
      auto ifOp = cast<scf::IfOp>(op);
      auto newIf =
          scf::IfOp::create(b, ifOp.getLoc(), keptTypes, ifOp.getCondition(),
                            /*withElseRegion=*/true);
      newIf.getThenRegion().takeBody(ifOp.getThenRegion());
      newIf.getElseRegion().takeBody(ifOp.getElseRegion());
      replacement = newIf;
    }
    unsigned next = 0;
    for (OpResult result : op->getResults())
      if (!drop.test(result.getResultNumber()))
        result.replaceAllUsesWith(replacement->getResult(next++));
    op->erase();
    op = nullptr;
  }
  return shrunk;
}

void LayoutApplier::allocateBuffers() {
  if (bufferAllocas.empty())
    return;
  Block &entry = body.front();
  Location loc = body.getLoc();
  OpBuilder b(&entry, entry.begin());
  OperationState state(loc, RunScopedOp::getOperationName());
  state.addRegion();
  auto scoped = cast<RunScopedOp>(b.create(state));
  Block *block = new Block();
  scoped.getBody().push_back(block);
  block->getOperations().splice(block->end(), entry.getOperations(),
                                std::next(scoped->getIterator()),
                                entry.getTerminator()->getIterator());
  for (Operation *alloca : bufferAllocas) {
    BlockArgument arg =
        block->addArgument(alloca->getResult(0).getType(), alloca->getLoc());
    alloca->getResult(0).replaceAllUsesWith(arg);
    alloca->erase();
  }
  b.setInsertionPointToEnd(block);
  YieldOp::create(b, loc, ValueRange{});
}

LogicalResult LayoutApplier::run() {
  analyze();
  if (failed(rewriteBlock(body.front())))
    return failure();
  // The original ops go once nothing uses them (the initial values of
  // loops are used until the loops are shrunk).
  SmallVector<Operation *> pending(llvm::reverse(toErase));
  bool progress = true;
  while (progress) {
    progress = false;
    for (Operation *&op : pending) {
      if (!op || !op->use_empty())
        continue;
      op->erase();
      op = nullptr;
      progress = true;
    }
    progress |= shrinkRegionOps();
  }
  for (Operation *op : pending)
    if (op)
      return op->emitOpError("is still used after kernel-apply-vector-layout "
                             "rewrote it onto tiles (an internal error)");
  allocateBuffers();
  body.walk([](Operation *op) {
    op->removeAttr(KernelDialect::getOutLayoutsAttrName());
  });
  return success();
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
struct KernelApplyVectorLayoutPass
    : public kernel::impl::KernelApplyVectorLayoutPassBase<
          KernelApplyVectorLayoutPass> {
  using Base::Base;
  void runOnOperation() override {
    if (rowsPerStep < 0) {
      getOperation().emitError("kernel-apply-vector-layout: rows-per-step "
                               "must be at least 0 (0: whole tiles), got ")
          << static_cast<int64_t>(rowsPerStep);
      return signalPassFailure();
    }
    for (func::FuncOp body : getKernelBodies(getOperation())) {
      if (failed(verifyVectorLayoutSupport(body)))
        return signalPassFailure();
      LayoutApplier applier(body, rowsPerStep);
      // The trailing arguments of the body are the calls' scratch buffers.
      std::optional<size_t> numScratch;
      getOperation().walk([&](CallOp call) {
        if (call.getCallee() != body.getSymName())
          return;
        size_t n = call.getScratchTypes().size();
        numScratch = numScratch ? std::min(*numScratch, n) : n;
      });
      if (numScratch && *numScratch <= body.getNumArguments())
        applier.setScratch(body.getArguments().take_back(*numScratch));
      if (failed(applier.run()))
        return signalPassFailure();
    }
  }
};
} // namespace
