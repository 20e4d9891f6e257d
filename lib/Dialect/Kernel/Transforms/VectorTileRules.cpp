//===- VectorTileRules.cpp - vector ops of kernel bodies onto tiles -------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The tiles of the values kernel-apply-vector-layout places (a lazy op
// replayed on a tile, a tile loaded from a layout buffer, a slice of a
// register), the loops over tiles, layout buffers, and the rules that
// rewrite each op family that needs more than one tile at a time: stores,
// reductions, contractions, transposes, shape casts, extracts, inserts and
// constants.
//
//===----------------------------------------------------------------------===//

#include "ApplyVectorLayout.h"

#include "tessera/Dialect/Kernel/IR/KernelOps.h"
#include "tessera/Dialect/Kernel/Transforms/VectorLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::kernel;
using namespace mlir::tessera::kernel::layout;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// `offsets` as index values.
static SmallVector<Value> toValues(OpBuilder &b, Location loc,
                                   ArrayRef<OpFoldResult> offsets) {
  return llvm::map_to_vector(offsets, [&](OpFoldResult offset) {
    return getValueOrCreateConstantIndexOp(b, loc, offset);
  });
}

/// `indices` (of an access to the trailing dimensions of a memref) moved by
/// `offsets` along the last `offsets.size()` dimensions.
static SmallVector<Value> offsetIndices(OpBuilder &b, Location loc,
                                        ValueRange indices,
                                        ArrayRef<OpFoldResult> offsets) {
  SmallVector<Value> result(indices);
  size_t lead = result.size() - offsets.size();
  for (auto [d, offset] : llvm::enumerate(offsets)) {
    std::optional<int64_t> constant = getConstantIntValue(offset);
    if (constant && *constant == 0)
      continue;
    Value index = result[lead + d];
    std::optional<int64_t> start = getConstantIntValue(index);
    if (start && *start == 0)
      result[lead + d] = getValueOrCreateConstantIndexOp(b, loc, offset);
    else
      result[lead + d] = arith::AddIOp::create(
          b, loc, index, getValueOrCreateConstantIndexOp(b, loc, offset));
  }
  return result;
}

/// The value a reduction of `kind` over no elements gives.
static TypedAttr getNeutralElement(vector::CombiningKind kind, Type type) {
  using vector::CombiningKind;
  if (auto floatType = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
    switch (kind) {
    case CombiningKind::MUL:
      return FloatAttr::get(type, 1.0);
    case CombiningKind::MINNUMF:
    case CombiningKind::MINIMUMF:
      return FloatAttr::get(type, APFloat::getInf(semantics));
    case CombiningKind::MAXNUMF:
    case CombiningKind::MAXIMUMF:
      return FloatAttr::get(type, APFloat::getInf(semantics, true));
    default:
      return FloatAttr::get(type, 0.0);
    }
  }
  unsigned width = type.getIntOrFloatBitWidth();
  switch (kind) {
  case CombiningKind::MUL:
    return IntegerAttr::get(type, APInt(width, 1));
  case CombiningKind::MINUI:
  case CombiningKind::AND:
    return IntegerAttr::get(type, APInt::getAllOnes(width));
  case CombiningKind::MINSI:
    return IntegerAttr::get(type, APInt::getSignedMaxValue(width));
  case CombiningKind::MAXSI:
    return IntegerAttr::get(type, APInt::getSignedMinValue(width));
  default:
    return IntegerAttr::get(type, APInt(width, 0));
  }
}

/// A subview of `buffer` at `offsets` of `sizes` (strides `strides`, 1 if
/// empty), rank-reduced to `shape`.
static Value createView(OpBuilder &b, Location loc, Value buffer,
                        ArrayRef<OpFoldResult> offsets,
                        ArrayRef<OpFoldResult> sizes,
                        ArrayRef<OpFoldResult> strides,
                        ArrayRef<int64_t> shape) {
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<OpFoldResult> unit(type.getRank(), b.getIndexAttr(1));
  if (strides.empty())
    strides = unit;
  auto viewType = memref::SubViewOp::inferRankReducedResultType(
      shape, type, offsets, sizes, strides);
  return memref::SubViewOp::create(b, loc, cast<MemRefType>(viewType), buffer,
                                   offsets, sizes, strides);
}

/// The element type a layout buffer holds for `type`: booleans as bytes
/// (LLVM bit-packs vectors of i1 in memory).
static Type getStorageType(Type type) {
  return type.isInteger(1) ? IntegerType::get(type.getContext(), 8) : type;
}

/// `value` (of element type `type` stored as `storage`) as it is stored.
static Value toStorage(OpBuilder &b, Location loc, Value value, Type storage) {
  Type type = value.getType();
  if (getElementTypeOrSelf(type) == storage)
    return value;
  Type target = storage;
  if (auto vector = dyn_cast<VectorType>(type))
    target = VectorType::get(vector.getShape(), storage);
  return arith::ExtUIOp::create(b, loc, target, value);
}

/// `value` loaded from storage, as a value of element type `element`.
static Value fromStorage(OpBuilder &b, Location loc, Value value,
                         Type element) {
  Type type = value.getType();
  if (getElementTypeOrSelf(type) == element)
    return value;
  Type target = element;
  if (auto vector = dyn_cast<VectorType>(type))
    target = VectorType::get(vector.getShape(), element);
  return arith::TruncIOp::create(b, loc, target, value);
}

/// Loads the vector of `type` at `indices` of the layout buffer `buffer`
/// (an in-bounds transfer: layout buffers are accessed only inside their
/// bounds; tessera-cpu unrolls it into 1-D loads).
static Value loadTile(OpBuilder &b, Location loc, Value buffer,
                      ValueRange indices, VectorType type) {
  Type storage = cast<MemRefType>(buffer.getType()).getElementType();
  auto storageType = VectorType::get(type.getShape(), storage);
  Value padding = arith::ConstantOp::create(b, loc, b.getZeroAttr(storage));
  SmallVector<bool> inBounds(type.getRank(), true);
  Value tile = vector::TransferReadOp::create(b, loc, storageType, buffer,
                                              indices, padding, inBounds);
  return fromStorage(b, loc, tile, type.getElementType());
}

/// Stores the vector `value` at `indices` of the layout buffer `buffer`.
static void storeTile(OpBuilder &b, Location loc, Value value, Value buffer,
                      ValueRange indices) {
  auto type = cast<VectorType>(value.getType());
  Type storage = cast<MemRefType>(buffer.getType()).getElementType();
  SmallVector<bool> inBounds(type.getRank(), true);
  vector::TransferWriteOp::create(b, loc, toStorage(b, loc, value, storage),
                                  buffer, indices, inBounds);
}

//===----------------------------------------------------------------------===//
// Tiles and buffers
//===----------------------------------------------------------------------===//

Value LayoutApplier::createBuffer(Location loc, ArrayRef<int64_t> shape,
                                  Type elementType) {
  Block &entry = body.front();
  OpBuilder b(&entry, entry.begin());
  auto type = MemRefType::get(
      shape, getStorageType(elementType), MemRefLayoutAttrInterface(),
      MemorySpaceAttr::get(body.getContext(), MemorySpace::Vmem));
  auto alloca = memref::AllocaOp::create(b, loc, type);
  bufferAllocas.push_back(alloca);
  return alloca;
}

Value LayoutApplier::loadWhole(OpBuilder &b, Location loc, Value buffer,
                               VectorType type) {
  SmallVector<Value> zeros(cast<MemRefType>(buffer.getType()).getRank(),
                           arith::ConstantIndexOp::create(b, loc, 0));
  return loadTile(b, loc, buffer, zeros, type);
}

SmallVector<Value> LayoutApplier::forEachTile(OpBuilder &b, Location loc,
                                              ArrayRef<int64_t> shape,
                                              ArrayRef<int64_t> tile,
                                              ValueRange iterArgs,
                                              TileBody fn) {
  SmallVector<Value> lbs, ubs, steps;
  SmallVector<unsigned> looped;
  for (auto [d, size] : llvm::enumerate(shape)) {
    if (tile[d] == size)
      continue;
    looped.push_back(d);
    lbs.push_back(arith::ConstantIndexOp::create(b, loc, 0));
    ubs.push_back(arith::ConstantIndexOp::create(b, loc, size));
    steps.push_back(arith::ConstantIndexOp::create(b, loc, tile[d]));
  }
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, iterArgs,
      [&](OpBuilder &nb, Location nl, ValueRange ivs, ValueRange args) {
        SmallVector<OpFoldResult> offsets(shape.size(), nb.getIndexAttr(0));
        for (auto [d, iv] : llvm::zip(looped, ivs))
          offsets[d] = iv;
        return fn(nb, nl, offsets, args);
      });
  return nest.results;
}

void LayoutApplier::storeTiles(OpBuilder &b, Location loc, Value value,
                               Value buffer) {
  auto type = cast<VectorType>(value.getType());
  SmallVector<int64_t> tile = getStepShape(value);
  forEachTile(b, loc, type.getShape(), tile, {},
              [&](OpBuilder &nb, Location nl, ArrayRef<OpFoldResult> offsets,
                  ValueRange) {
                Value part = getTile(nb, nl, value, offsets, tile);
                storeTile(nb, nl, part, buffer, toValues(nb, nl, offsets));
                return SmallVector<Value>();
              });
}

Value LayoutApplier::getBuffer(Location loc, Value value) {
  auto type = cast<VectorType>(value.getType());
  auto it = placements.find(value);
  if (it != placements.end()) {
    if (it->second.buffer)
      return it->second.buffer;
    // A lazy value: computed into a buffer where the op being rewritten is
    // (its evaluation point), which later uses then read.
    OpBuilder b(current);
    Value buffer = createBuffer(loc, type.getShape(), type.getElementType());
    storeTiles(b, loc, value, buffer);
    placements[value] = Placement{buffer, nullptr};
    return buffer;
  }
  // A register: stored once after its definition.
  Value &buffer = registerBuffers[value];
  if (!buffer) {
    OpBuilder b(value.getContext());
    b.setInsertionPointAfterValue(value);
    buffer = createBuffer(loc, type.getShape(), type.getElementType());
    SmallVector<Value> zeros(type.getRank(),
                             arith::ConstantIndexOp::create(b, loc, 0));
    storeTile(b, loc, value, buffer, zeros);
  }
  return buffer;
}

Value LayoutApplier::getContiguousBuffer(Location loc, Value value) {
  Value buffer = getBuffer(loc, value);
  if (cast<MemRefType>(buffer.getType()).getLayout().isIdentity())
    return buffer;
  auto type = cast<VectorType>(value.getType());
  OpBuilder b(current);
  Value copy = createBuffer(loc, type.getShape(), type.getElementType());
  storeTiles(b, loc, value, copy);
  return copy;
}

Value LayoutApplier::getTile(OpBuilder &b, Location loc, Value value,
                             ArrayRef<OpFoldResult> offsets,
                             ArrayRef<int64_t> shape) {
  auto type = cast<VectorType>(value.getType());
  auto tileType = VectorType::get(shape, type.getElementType());
  auto it = placements.find(value);
  if (it == placements.end()) {
    // A register (a value of one tile).
    if (shape == type.getShape())
      return value;
    SplatElementsAttr splat;
    if (matchPattern(value, m_Constant(&splat)))
      return arith::ConstantOp::create(
          b, loc,
          DenseElementsAttr::get(tileType, splat.getSplatValue<Attribute>()));
    SmallVector<int64_t> staticOffsets;
    for (OpFoldResult offset : offsets) {
      std::optional<int64_t> constant = getConstantIntValue(offset);
      if (!constant)
        break;
      staticOffsets.push_back(*constant);
    }
    if (staticOffsets.size() == offsets.size())
      return vector::ExtractStridedSliceOp::create(
          b, loc, value, staticOffsets, shape,
          SmallVector<int64_t>(shape.size(), 1));
    return loadTile(b, loc, getBuffer(loc, value), toValues(b, loc, offsets),
                    tileType);
  }
  if (Value buffer = it->second.buffer)
    return loadTile(b, loc, buffer, toValues(b, loc, offsets), tileType);

  // A lazy op, replayed on the tile.
  Operation *op = it->second.lazy;
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    auto splat = cast<SplatElementsAttr>(constant.getValue());
    return arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(tileType, splat.getSplatValue<Attribute>()));
  }
  if (auto load = dyn_cast<LoadOp>(op)) {
    Value mask = load.getMask()
                     ? getTile(b, loc, load.getMask(), offsets, shape)
                     : Value();
    return LoadOp::create(b, loc, tileType, load.getRef(),
                          offsetIndices(b, loc, load.getIndices(), offsets),
                          mask);
  }
  if (auto broadcast = dyn_cast<vector::BroadcastOp>(op)) {
    Value source = broadcast.getSource();
    auto sourceType = dyn_cast<VectorType>(source.getType());
    if (!sourceType)
      return vector::BroadcastOp::create(b, loc, tileType, source);
    // Source dimensions align with the trailing result dimensions; a unit
    // dimension that the broadcast stretches is read at 0.
    int64_t lead = type.getRank() - sourceType.getRank();
    SmallVector<OpFoldResult> sourceOffsets;
    SmallVector<int64_t> sourceShape;
    for (auto [i, size] : llvm::enumerate(sourceType.getShape())) {
      int64_t d = lead + i;
      if (size == 1 && type.getDimSize(d) != 1) {
        sourceOffsets.push_back(b.getIndexAttr(0));
        sourceShape.push_back(1);
      } else {
        sourceOffsets.push_back(offsets[d]);
        sourceShape.push_back(shape[d]);
      }
    }
    Value part = getTile(b, loc, source, sourceOffsets, sourceShape);
    if (ArrayRef<int64_t>(sourceShape) == shape)
      return part;
    return vector::BroadcastOp::create(b, loc, tileType, part);
  }
  if (isa<vector::StepOp>(op)) {
    Value step = vector::StepOp::create(b, loc, tileType);
    std::optional<int64_t> constant = getConstantIntValue(offsets[0]);
    if (constant && *constant == 0)
      return step;
    Value offset = vector::BroadcastOp::create(
        b, loc, tileType, getValueOrCreateConstantIndexOp(b, loc, offsets[0]));
    return arith::AddIOp::create(b, loc, step, offset);
  }
  if (isa<vector::CreateMaskOp, vector::ConstantMaskOp>(op)) {
    // The mask's bounds, moved to the tile (create_mask clamps them).
    SmallVector<Value> bounds;
    if (auto create = dyn_cast<vector::CreateMaskOp>(op))
      bounds = llvm::to_vector(create.getOperands());
    else
      for (int64_t size : cast<vector::ConstantMaskOp>(op).getMaskDimSizes())
        bounds.push_back(arith::ConstantIndexOp::create(b, loc, size));
    for (auto [bound, offset] : llvm::zip(bounds, offsets))
      bound = arith::SubIOp::create(
          b, loc, bound, getValueOrCreateConstantIndexOp(b, loc, offset));
    return vector::CreateMaskOp::create(b, loc, tileType, bounds);
  }
  // An elementwise op: the same op on the tiles of its operands. A costly
  // one (a transcendental function, a division) of a lane-replicated value
  // is computed on one column of the tile and broadcast along the lanes:
  // every element of a row is the same (flash attention's correction
  // exp(m_prev - m_next) of the running maximum, kept in (rows, 128)
  // scratch).
  if (shape.size() >= 2 && shape.back() > 1 &&
      (isa<math::MathDialect>(op->getDialect()) ||
       isa<arith::DivFOp, arith::RemFOp>(op)) &&
      isLaneReplicated(value)) {
    SmallVector<int64_t> column(shape);
    column.back() = 1;
    Value part = getTile(b, loc, value, offsets, column);
    return vector::BroadcastOp::create(b, loc, tileType, part);
  }
  OperationState state(loc, op->getName());
  for (Value operand : op->getOperands())
    state.addOperands(isa<VectorType>(operand.getType())
                          ? getTile(b, loc, operand, offsets, shape)
                          : operand);
  for (Type resultType : op->getResultTypes())
    state.addTypes(VectorType::get(shape, getElementTypeOrSelf(resultType)));
  state.propertiesAttr = op->getPropertiesAsAttribute();
  for (NamedAttribute attr : op->getDiscardableAttrs())
    if (attr.getName() != KernelDialect::getOutLayoutsAttrName())
      state.addAttribute(attr.getName(), attr.getValue());
  return b.create(state)->getResult(0);
}

void LayoutApplier::protectFrom(Location loc, Value value, Value target,
                                ValueRange indices) {
  Value base = getViewBase(target);
  auto type = cast<VectorType>(value.getType());
  // `preserving`: the tiles of `v` are read at the positions they are
  // written to (only elementwise ops between it and `value`).
  std::function<void(Value, bool)> visit = [&](Value v, bool preserving) {
    auto it = placements.find(v);
    if (it == placements.end())
      return;
    Placement placement = it->second;
    auto copy = [&]() {
      auto vType = cast<VectorType>(v.getType());
      OpBuilder b(current);
      Value buffer =
          createBuffer(loc, vType.getShape(), vType.getElementType());
      storeTiles(b, loc, v, buffer);
      placements[v] = Placement{buffer, nullptr};
    };
    if (placement.buffer) {
      if (getViewBase(placement.buffer) == base &&
          !(preserving && placement.buffer == target))
        copy();
      return;
    }
    Operation *op = placement.lazy;
    if (auto load = dyn_cast<LoadOp>(op)) {
      bool same = preserving && load.getRef() == target &&
                  llvm::equal(load.getIndices(), indices) &&
                  load.getType() == type;
      if (getViewBase(load.getRef()) == base && !same) {
        copy();
        return;
      }
      if (Value mask = load.getMask())
        visit(mask, preserving);
      return;
    }
    if (auto broadcast = dyn_cast<vector::BroadcastOp>(op)) {
      visit(broadcast.getSource(), false);
      return;
    }
    for (Value operand : op->getOperands())
      if (isa<VectorType>(operand.getType()))
        visit(operand, preserving);
  };
  visit(value, true);
}

//===----------------------------------------------------------------------===//
// Stores and reductions
//===----------------------------------------------------------------------===//

void LayoutApplier::rewriteStore(StoreOp op) {
  Location loc = op.getLoc();
  Value value = op.getValue(), mask = op.getMask();
  protectFrom(loc, value, op.getRef(), op.getIndices());
  if (mask)
    protectFrom(loc, mask, op.getRef(), op.getIndices());
  OpBuilder b(op);
  auto type = cast<VectorType>(value.getType());
  SmallVector<int64_t> tile = getStepShape(value);
  forEachTile(b, loc, type.getShape(), tile, {},
              [&](OpBuilder &nb, Location nl, ArrayRef<OpFoldResult> offsets,
                  ValueRange) {
                Value part = getTile(nb, nl, value, offsets, tile);
                Value partMask =
                    mask ? getTile(nb, nl, mask, offsets, tile) : Value();
                StoreOp::create(nb, nl, part, op.getRef(),
                                offsetIndices(nb, nl, op.getIndices(), offsets),
                                partMask);
                return SmallVector<Value>();
              });
  op.erase();
}

void LayoutApplier::rewriteReduction(Operation *op) {
  Location loc = op->getLoc();
  Value source, acc;
  vector::CombiningKind kind;
  SmallVector<bool> reduced;
  if (auto multi = dyn_cast<vector::MultiDimReductionOp>(op)) {
    source = multi.getSource();
    acc = multi.getAcc();
    kind = multi.getKind();
    reduced.assign(multi.getSourceVectorType().getRank(), false);
    for (int64_t d : multi.getReductionDims())
      reduced[d] = true;
  } else {
    auto reduction = cast<vector::ReductionOp>(op);
    source = reduction.getVector();
    acc = reduction.getAcc();
    kind = reduction.getKind();
    reduced = {true};
  }
  auto sourceType = cast<VectorType>(source.getType());
  Type element = sourceType.getElementType();
  SmallVector<int64_t> tile = getStepShape(source);
  SmallVector<int64_t> keptShape, keptTile, reducedShape, reducedTile;
  for (auto [d, size] : llvm::enumerate(sourceType.getShape())) {
    (reduced[d] ? reducedShape : keptShape).push_back(size);
    (reduced[d] ? reducedTile : keptTile).push_back(tile[d]);
  }
  Value result = op->getResult(0);
  bool outerLoops = keptShape != keptTile;
  Value buffer;
  if (isa<VectorType>(result.getType()) && (spans(result) || outerLoops))
    buffer = createBuffer(loc, keptShape, element);
  OpBuilder b(op);
  auto tileType = VectorType::get(tile, element);
  SmallVector<Value> parts = forEachTile(
      b, loc, keptShape, keptTile, {},
      [&](OpBuilder &nb, Location nl, ArrayRef<OpFoldResult> keptOffsets,
          ValueRange) {
        // The reduced tiles, combined elementwise.
        Value init = arith::ConstantOp::create(
            nb, nl,
            DenseElementsAttr::get(tileType, getNeutralElement(kind, element)));
        SmallVector<Value> combined = forEachTile(
            nb, nl, reducedShape, reducedTile, {init},
            [&](OpBuilder &rb, Location rl,
                ArrayRef<OpFoldResult> reducedOffsets, ValueRange args) {
              SmallVector<OpFoldResult> offsets;
              unsigned k = 0, r = 0;
              for (bool isReduced : reduced)
                offsets.push_back(isReduced ? reducedOffsets[r++]
                                            : keptOffsets[k++]);
              Value part = getTile(rb, rl, source, offsets, tile);
              return SmallVector<Value>{
                  vector::makeArithReduction(rb, rl, kind, part, args[0])};
            });
        // Then one reduction of the tile, with its part of the
        // accumulator.
        Value part;
        if (isa<vector::MultiDimReductionOp>(op)) {
          Value accPart = isa<VectorType>(acc.getType())
                              ? getTile(nb, nl, acc, keptOffsets, keptTile)
                              : acc;
          part = vector::MultiDimReductionOp::create(nb, nl, combined[0],
                                                     accPart, reduced, kind);
        } else {
          part =
              acc ? vector::ReductionOp::create(nb, nl, kind, combined[0], acc)
                  : vector::ReductionOp::create(nb, nl, kind, combined[0]);
        }
        if (!buffer)
          return SmallVector<Value>{part};
        storeTile(nb, nl, part, buffer, toValues(nb, nl, keptOffsets));
        return SmallVector<Value>();
      });
  if (!isa<VectorType>(result.getType())) {
    result.replaceAllUsesWith(parts[0]);
    return;
  }
  setResult(b, loc, result, buffer, buffer ? Value() : parts[0]);
}

//===----------------------------------------------------------------------===//
// Contractions and transposes
//===----------------------------------------------------------------------===//

/// The view of the block `load` (a lazy kernel.load) read, when its indices
/// are constants that keep it inside its buffer; else null.
static Value getStaticLoadView(OpBuilder &b, LoadOp load) {
  if (load.getMask())
    return nullptr;
  auto refType = cast<MemRefType>(load.getRef().getType());
  auto vectorType = cast<VectorType>(load.getType());
  int64_t lead = refType.getRank() - vectorType.getRank();
  SmallVector<OpFoldResult> offsets, sizes;
  for (auto [d, index] : llvm::enumerate(load.getIndices())) {
    std::optional<int64_t> constant = getConstantIntValue(index);
    int64_t size =
        static_cast<int64_t>(d) < lead ? 1 : vectorType.getDimSize(d - lead);
    if (!constant || *constant < 0 || *constant + size > refType.getDimSize(d))
      return nullptr;
    offsets.push_back(b.getIndexAttr(*constant));
    sizes.push_back(b.getIndexAttr(size));
  }
  return createView(b, load.getLoc(), load.getRef(), offsets, sizes, {},
                    vectorType.getShape());
}

void LayoutApplier::rewriteContraction(Operation *op) {
  auto contract = cast<vector::ContractionOp>(op);
  Location loc = contract.getLoc();
  OpBuilder b(op);
  DenseMap<Value, Value> operandBuffers;
  auto getOperandBuffer = [&](Value operand) -> Value {
    Value &buffer = operandBuffers[operand];
    if (buffer)
      return buffer;
    // A block read where it was loaded, if nothing wrote it since (a lazy
    // load, or one of one tile).
    auto it = placements.find(operand);
    auto load = operand.getDefiningOp<LoadOp>();
    bool readable = it != placements.end()
                        ? it->second.lazy == load.getOperation()
                        : load && load->getBlock() == op->getBlock() &&
                              !writesBetween(load, op);
    if (load && readable)
      if (Value view = getStaticLoadView(b, load))
        return buffer = view;
    return buffer = getBuffer(loc, operand);
  };
  Value lhs = getOperandBuffer(contract.getLhs());
  Value rhs = getOperandBuffer(contract.getRhs());
  Value result = contract.getResult();
  auto resultType = dyn_cast<VectorType>(result.getType());
  Type accElement = getElementTypeOrSelf(result.getType());
  // The accumulator buffer starts as the contraction's accumulator.
  Value accBuffer = createBuffer(
      loc, resultType ? resultType.getShape() : ArrayRef<int64_t>(),
      accElement);
  if (resultType)
    storeTiles(b, loc, contract.getAcc(), accBuffer);
  else
    memref::StoreOp::create(b, loc, contract.getAcc(), accBuffer, ValueRange());
  SmallVector<utils::IteratorType> iterators;
  for (vector::IteratorType kind : contract.getIteratorTypesArray())
    iterators.push_back(kind == vector::IteratorType::parallel
                            ? utils::IteratorType::parallel
                            : utils::IteratorType::reduction);
  vector::CombiningKind kind = contract.getKind();
  linalg::GenericOp::create(
      b, loc, ValueRange{lhs, rhs}, ValueRange{accBuffer},
      contract.getIndexingMapsArray(), iterators,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        // Operands narrower than the accumulator are extended (integers as
        // signed, as JAX's dot_general reads them).
        auto extend = [&](Value value) -> Value {
          if (value.getType() == accElement)
            return value;
          if (isa<FloatType>(accElement))
            return arith::ExtFOp::create(nb, nl, accElement, value);
          return arith::ExtSIOp::create(nb, nl, accElement, value);
        };
        Value x = extend(args[0]), y = extend(args[1]);
        Value product = isa<FloatType>(accElement)
                            ? arith::MulFOp::create(nb, nl, x, y).getResult()
                            : arith::MulIOp::create(nb, nl, x, y).getResult();
        linalg::YieldOp::create(
            nb, nl, vector::makeArithReduction(nb, nl, kind, product, args[2]));
      });
  if (!resultType) {
    result.replaceAllUsesWith(
        memref::LoadOp::create(b, loc, accBuffer, ValueRange()).getResult());
    return;
  }
  setResult(b, loc, result, accBuffer);
}

void LayoutApplier::rewriteTranspose(Operation *op) {
  auto transpose = cast<vector::TransposeOp>(op);
  Location loc = transpose.getLoc();
  Value source = getBuffer(loc, transpose.getVector());
  VectorType type = transpose.getResultVectorType();
  Value target = createBuffer(loc, type.getShape(), type.getElementType());
  OpBuilder b(op);
  linalg::TransposeOp::create(b, loc, source, target,
                              transpose.getPermutation());
  setResult(b, loc, transpose.getResult(), target);
}

//===----------------------------------------------------------------------===//
// Views: shape casts, extracts, inserts
//===----------------------------------------------------------------------===//

void LayoutApplier::rewriteShapeCast(Operation *op) {
  auto cast = llvm::cast<vector::ShapeCastOp>(op);
  Location loc = cast.getLoc();
  Value buffer = getContiguousBuffer(loc, cast.getSource());
  VectorType type = cast.getResultVectorType();
  OpBuilder b(op);
  // Row-major buffers: flattened, then expanded to the new shape.
  auto sourceType = llvm::cast<MemRefType>(buffer.getType());
  Value view = buffer;
  if (sourceType.getRank() != 1) {
    ReassociationIndices all =
        llvm::to_vector(llvm::seq<int64_t>(0, sourceType.getRank()));
    view = memref::CollapseShapeOp::create(b, loc, view,
                                           ArrayRef<ReassociationIndices>{all});
  }
  if (type.getRank() != 1) {
    ReassociationIndices all =
        llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
    auto viewType = MemRefType::get(
        type.getShape(), sourceType.getElementType(),
        MemRefLayoutAttrInterface(), sourceType.getMemorySpace());
    view = memref::ExpandShapeOp::create(b, loc, viewType, view,
                                         ArrayRef<ReassociationIndices>{all});
  }
  setResult(b, loc, cast.getResult(), view);
}

void LayoutApplier::rewriteExtract(Operation *op) {
  Location loc = op->getLoc();
  OpBuilder b(op);
  if (auto extract = dyn_cast<vector::ExtractOp>(op)) {
    Value buffer = getBuffer(loc, extract.getSource());
    SmallVector<OpFoldResult> position = extract.getMixedPosition();
    Value result = extract.getResult();
    auto resultType = dyn_cast<VectorType>(result.getType());
    if (!resultType || resultType.getRank() == 0) {
      Value scalar = fromStorage(
          b, loc,
          memref::LoadOp::create(b, loc, buffer, toValues(b, loc, position)),
          getElementTypeOrSelf(result.getType()));
      if (resultType)
        scalar = vector::BroadcastOp::create(b, loc, resultType, scalar);
      result.replaceAllUsesWith(scalar);
      return;
    }
    SmallVector<OpFoldResult> offsets(position),
        sizes(position.size(), b.getIndexAttr(1));
    for (int64_t size : resultType.getShape()) {
      offsets.push_back(b.getIndexAttr(0));
      sizes.push_back(b.getIndexAttr(size));
    }
    setResult(
        b, loc, result,
        createView(b, loc, buffer, offsets, sizes, {}, resultType.getShape()));
    return;
  }
  auto slice = cast<vector::ExtractStridedSliceOp>(op);
  Value buffer = getBuffer(loc, slice.getSource());
  VectorType sourceType = slice.getSourceVectorType();
  SmallVector<OpFoldResult> offsets, sizes, strides;
  SmallVector<int64_t> sliceOffsets =
      extractFromIntegerArrayAttr<int64_t>(slice.getOffsets());
  SmallVector<int64_t> sliceSizes =
      extractFromIntegerArrayAttr<int64_t>(slice.getSizes());
  SmallVector<int64_t> sliceStrides =
      extractFromIntegerArrayAttr<int64_t>(slice.getStrides());
  for (int64_t d = 0; d < sourceType.getRank(); ++d) {
    bool sliced = d < static_cast<int64_t>(sliceOffsets.size());
    offsets.push_back(b.getIndexAttr(sliced ? sliceOffsets[d] : 0));
    sizes.push_back(
        b.getIndexAttr(sliced ? sliceSizes[d] : sourceType.getDimSize(d)));
    strides.push_back(b.getIndexAttr(sliced ? sliceStrides[d] : 1));
  }
  setResult(b, loc, slice.getResult(),
            createView(b, loc, buffer, offsets, sizes, strides,
                       cast<VectorType>(slice.getType()).getShape()));
}

void LayoutApplier::rewriteInsert(Operation *op) {
  Location loc = op->getLoc();
  Value dest = op->getOperand(1), source = op->getOperand(0);
  auto type = cast<VectorType>(dest.getType());
  // A copy of the destination, with the source stored into its part.
  Value buffer = createBuffer(loc, type.getShape(), type.getElementType());
  OpBuilder b(op);
  storeTiles(b, loc, dest, buffer);
  SmallVector<OpFoldResult> offsets, sizes, strides;
  auto sourceType = dyn_cast<VectorType>(source.getType());
  if (auto insert = dyn_cast<vector::InsertOp>(op)) {
    offsets = insert.getMixedPosition();
    if (!sourceType || sourceType.getRank() == 0) {
      Value scalar = sourceType ? vector::ExtractOp::create(b, loc, source,
                                                            ArrayRef<int64_t>{})
                                      .getResult()
                                : source;
      memref::StoreOp::create(
          b, loc,
          toStorage(b, loc, scalar,
                    cast<MemRefType>(buffer.getType()).getElementType()),
          buffer, toValues(b, loc, offsets));
      setResult(b, loc, insert.getResult(), buffer);
      return;
    }
    sizes.assign(offsets.size(), b.getIndexAttr(1));
    for (int64_t size : sourceType.getShape()) {
      offsets.push_back(b.getIndexAttr(0));
      sizes.push_back(b.getIndexAttr(size));
    }
  } else {
    auto strided = cast<vector::InsertStridedSliceOp>(op);
    SmallVector<int64_t> sliceOffsets =
        extractFromIntegerArrayAttr<int64_t>(strided.getOffsets());
    SmallVector<int64_t> sliceStrides =
        extractFromIntegerArrayAttr<int64_t>(strided.getStrides());
    int64_t lead = type.getRank() - sourceType.getRank();
    for (int64_t d = 0; d < type.getRank(); ++d) {
      offsets.push_back(b.getIndexAttr(sliceOffsets[d]));
      sizes.push_back(
          b.getIndexAttr(d < lead ? 1 : sourceType.getDimSize(d - lead)));
      strides.push_back(b.getIndexAttr(d < lead ? 1 : sliceStrides[d - lead]));
    }
  }
  Value view = createView(b, loc, buffer, offsets, sizes, strides,
                          sourceType.getShape());
  storeTiles(b, loc, source, view);
  setResult(b, loc, op->getResult(0), buffer);
}

void LayoutApplier::rewriteConstant(Operation *op) {
  auto constant = cast<arith::ConstantOp>(op);
  auto type = cast<VectorType>(constant.getType());
  Location loc = constant.getLoc();
  // A private global of the value, copied into a layout buffer.
  auto module = body->getParentOfType<ModuleOp>();
  Type storage = getStorageType(type.getElementType());
  auto globalType = MemRefType::get(type.getShape(), storage);
  auto value = cast<DenseElementsAttr>(constant.getValue());
  if (storage != type.getElementType())
    value = value.mapValues(storage, [&](const APInt &bit) {
      return bit.zext(storage.getIntOrFloatBitWidth());
    });
  // The initial value of a memref.global is a tensor.
  value = value.reshape(RankedTensorType::get(type.getShape(), storage));
  OpBuilder mb(module.getBodyRegion());
  auto global = memref::GlobalOp::create(
      mb, loc, "__tessera_layout_constant", mb.getStringAttr("private"),
      globalType, value, /*constant=*/true, IntegerAttr());
  SymbolTable(module).insert(global);
  OpBuilder b(op);
  Value source =
      memref::GetGlobalOp::create(b, loc, globalType, global.getSymName());
  Value buffer = createBuffer(loc, type.getShape(), type.getElementType());
  memref::CopyOp::create(b, loc, source, buffer);
  setResult(b, loc, constant.getResult(), buffer);
}
