//===- WholeBlockVectors.cpp - whole-block vector chains in loops ---------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Rewrites three shapes of whole-block vector code in a kernel body into
// loops over (8, 128) tiles before the body is lowered: a chain of loads and
// elementwise ops that ends in a store, a vector.multi_reduction of such a
// chain, and a vector.contract of two whole blocks (as a linalg op).
//
//===----------------------------------------------------------------------===//

#include "KernelToRuntimeImpl.h"

#include "tessera/Dialect/Kernel/IR/KernelOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::kernel;
using namespace mlir::tessera::kernel::lowering;

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

void lowering::tileWholeBlockVectors(func::FuncOp body) {
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
