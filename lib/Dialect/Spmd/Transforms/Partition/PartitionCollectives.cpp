//===- PartitionCollectives.cpp - collectives to comm ops -------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// spmd-partition's patterns of the global-view collectives (all_gather,
// all_slice, all_to_all, collective_permute, all_reduce, reduce_scatter,
// sharded_to_unreduced, replicated_to_unreduced): `comm` collectives and
// slices of each device's block, with the padding of dimensions the axes do
// not divide; and the index arithmetic of a device's block they share with
// the op hooks (PartitionState).
//
//===----------------------------------------------------------------------===//

#include "FactorChoice.h"
#include "GlobalToLocal.h"

#include "tessera/Dialect/Comm/IR/CommOps.h"
#include "tessera/Dialect/Spmd/IR/CollectiveShardings.h"
#include "tessera/Dialect/Spmd/Transforms/TensorValues.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"

#include <map>

namespace mlir::tessera::spmd::detail {

/// The `comm` form of `axes`. A sub-axis `"x":(m)k` of the sharding
/// grammar is the part of size k after the more major parts of product m;
/// `comm` names a part by the product of the parts *minor* to it, which is
/// size("x") / (m * k).
static SmallVector<AxisRefAttr> toCommAxes(ArrayRef<AxisRefAttr> axes,
                                           MeshAttr mesh) {
  SmallVector<AxisRefAttr> result;
  for (AxisRefAttr axis : axes) {
    if (!axis.getSubAxisInfo()) {
      result.push_back(axis);
      continue;
    }
    int64_t full = mesh.getAxisSize(axis.getName());
    int64_t size = axis.getSize(mesh);
    result.push_back(AxisRefAttr::get(axis.getContext(), axis.getName(),
                                      full / (axis.getPreSize() * size), size));
  }
  return result;
}

static comm::ReductionKind toComm(ReductionKind kind) {
  switch (kind) {
  case ReductionKind::Sum:
    return comm::ReductionKind::Sum;
  case ReductionKind::Max:
    return comm::ReductionKind::Max;
  case ReductionKind::Min:
    return comm::ReductionKind::Min;
  }
  llvm_unreachable("unknown reduction kind");
}

/// The index of the block of dimension sharded by `axes` that the device at
/// logical coordinates `coords` of `mesh` holds.
static int64_t getBlockIndex(ArrayRef<AxisRefAttr> axes,
                             ArrayRef<int64_t> coords, MeshAttr mesh) {
  int64_t index = 0;
  for (AxisRefAttr axis : toCommAxes(axes, mesh)) {
    int64_t size = axis.getSize(mesh);
    int64_t minor = axis.getSubAxisInfo() ? axis.getPreSize() : 1;
    index = index * size +
            (coords[*mesh.getAxisIndex(axis.getName())] / minor) % size;
  }
  return index;
}

/// The logical coordinates in `mesh` of the device at `position`.
static SmallVector<int64_t> getCoords(MeshAttr mesh, int64_t position) {
  SmallVector<int64_t> coords(mesh.getAxes().size());
  for (size_t a = coords.size(); a-- > 0;) {
    int64_t size = mesh.getAxes()[a].getSize();
    coords[a] = position % size;
    position /= size;
  }
  return coords;
}

/// What the device at `coords` of `mesh` holds of a tensor sharded by
/// `sharding`: its block index in every dimension, then the index of its
/// partial sum among those of its unreduced axes.
static SmallVector<int64_t> getHeldPart(TensorShardingAttr sharding,
                                        ArrayRef<int64_t> coords,
                                        MeshAttr mesh) {
  SmallVector<int64_t> part;
  for (DimensionShardingAttr dim : sharding.getDimShardings())
    part.push_back(getBlockIndex(dim.getAxes(), coords, mesh));
  part.push_back(getBlockIndex(sharding.getUnreducedAxes(), coords, mesh));
  return part;
}

/// The pairs of a `comm.permute` over every axis of `toMesh` (logical
/// positions) that moves each device's block of a tensor sharded by `from`
/// on `fromMesh` to a device that holds it under `to` on `toMesh`. The meshes
/// have as many devices (the same axes in another device order, or other
/// axes); both shardings shard every dimension into as many parts, and
/// have as many partial sums (the same unreduced axes, or their translation
/// to `toMesh`): the partial sum of index i of a block goes to a device
/// that needs that index, so each group of the target's unreduced axes
/// receives one of every index. (A value's data depends only on the
/// coordinates of the axes its sharding names: devices that differ in
/// other axes hold the same partial sums.) A device that already holds the
/// block it needs keeps it; the other holders of a block are matched in
/// order with the other devices that need it.
static std::pair<SmallVector<int64_t>, SmallVector<int64_t>>
getPermutePairs(TensorShardingAttr from, MeshAttr fromMesh,
                TensorShardingAttr to, MeshAttr toMesh) {
  int64_t numDevices = toMesh.getTotalSize();
  SmallVector<int64_t> fromIds = fromMesh.getDeviceIdsOrIota();
  SmallVector<int64_t> toIds = toMesh.getDeviceIdsOrIota();
  // The position in `toMesh` of each device id.
  DenseMap<int64_t, int64_t> toPosition;
  for (auto [position, id] : llvm::enumerate(toIds))
    toPosition[id] = position;
  // Blocks -> positions (in `toMesh`) of the devices that hold or need them.
  std::map<SmallVector<int64_t>, SmallVector<int64_t>> holders, needers;
  for (int64_t position = 0; position < numDevices; ++position) {
    holders[getHeldPart(from, getCoords(fromMesh, position), fromMesh)]
        .push_back(toPosition.lookup(fromIds[position]));
    needers[getHeldPart(to, getCoords(toMesh, position), toMesh)].push_back(
        position);
  }
  SmallVector<int64_t> sources, targets;
  for (auto &[block, needing] : needers) {
    SmallVector<int64_t> &holding = holders[block];
    SmallVector<int64_t> restFrom, restTo;
    for (int64_t position : holding)
      if (!llvm::is_contained(needing, position))
        restFrom.push_back(position);
    for (int64_t position : needing) {
      if (llvm::is_contained(holding, position)) {
        sources.push_back(position);
        targets.push_back(position);
      } else {
        restTo.push_back(position);
      }
    }
    for (auto [source, target] : llvm::zip(restFrom, restTo)) {
      sources.push_back(source);
      targets.push_back(target);
    }
  }
  return {sources, targets};
}

//===----------------------------------------------------------------------===//
// The index arithmetic of a device's block
//===----------------------------------------------------------------------===//

Value PartitionState::buildBlockOffset(OpBuilder &b, Location loc,
                                       FlatSymbolRefAttr meshRef, MeshAttr mesh,
                                       ArrayRef<AxisRefAttr> axes,
                                       int64_t blockSize) {
  Value index = comm::AxisIndexOp::create(b, loc, b.getIndexType(), meshRef,
                                          toCommAxes(axes, mesh));
  Value size = arith::ConstantIndexOp::create(b, loc, blockSize);
  return arith::MulIOp::create(b, loc, index, size);
}

Value PartitionState::sliceLocal(OpBuilder &b, Location loc, Value value,
                                 FlatSymbolRefAttr meshRef, MeshAttr mesh,
                                 ArrayRef<SmallVector<AxisRefAttr>> axes) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<OpFoldResult> offsets, sizes, strides;
  bool any = false;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    int64_t parts = productOf(axes[d], mesh);
    strides.push_back(b.getIndexAttr(1));
    if (parts == 1) {
      sizes.push_back(b.getIndexAttr(shape[d]));
      if (ShapedType::isDynamic(shape[d]))
        sizes.back() = tensor::DimOp::create(b, loc, value, d).getResult();
      offsets.push_back(b.getIndexAttr(0));
      continue;
    }
    any = true;
    Value index = comm::AxisIndexOp::create(b, loc, b.getIndexType(), meshRef,
                                            toCommAxes(axes[d], mesh));
    Value size;
    if (ShapedType::isDynamic(shape[d])) {
      Value whole = tensor::DimOp::create(b, loc, value, d);
      Value count = arith::ConstantIndexOp::create(b, loc, parts);
      size = arith::DivUIOp::create(b, loc, whole, count);
      sizes.push_back(size);
    } else {
      shape[d] /= parts;
      size = arith::ConstantIndexOp::create(b, loc, shape[d]);
      sizes.push_back(b.getIndexAttr(shape[d]));
    }
    offsets.push_back(arith::MulIOp::create(b, loc, index, size).getResult());
  }
  if (!any)
    return value;
  return tensor::ExtractSliceOp::create(b, loc, type.clone(shape), value,
                                        offsets, sizes, strides);
}

Value PartitionState::sliceDim(OpBuilder &b, Location loc, Value value,
                               int64_t d, OpFoldResult offset, int64_t size) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<OpFoldResult> offsets, sizes, strides;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    offsets.push_back(i == d ? offset : b.getIndexAttr(0));
    sizes.push_back(b.getIndexAttr(i == d ? size : shape[i]));
    strides.push_back(b.getIndexAttr(1));
  }
  shape[d] = size;
  return tensor::ExtractSliceOp::create(b, loc, type.clone(shape), value,
                                        offsets, sizes, strides);
}

Value PartitionState::gatherWhole(OpBuilder &b, Location loc, Value value,
                                  int64_t d, int64_t size,
                                  ArrayRef<AxisRefAttr> from,
                                  FlatSymbolRefAttr ref, MeshAttr mesh) {
  if (from.empty())
    return value;
  auto type = cast<RankedTensorType>(value.getType());
  int64_t block = type.getDimSize(d);
  SmallVector<int64_t> shape(type.getShape());
  shape[d] = block * productOf(from, mesh);
  // Padded blocks move only their valid part: the gather stops at `size`.
  std::optional<int64_t> valid;
  if (!ShapedType::isDynamic(block) && !ShapedType::isDynamic(size) &&
      size > 0 && size < shape[d])
    valid = shape[d] = size;
  value = comm::AllGatherOp::create(b, loc, type.clone(shape), value, ref,
                                    toCommAxes(from, mesh), d, valid);
  if (shape[d] != size)
    value = sliceDim(b, loc, value, d, b.getIndexAttr(0), size);
  return value;
}

Value PartitionState::sliceWhole(OpBuilder &b, Location loc, Value value,
                                 int64_t d, int64_t size,
                                 ArrayRef<AxisRefAttr> to,
                                 FlatSymbolRefAttr ref, MeshAttr mesh) {
  if (to.empty())
    return value;
  int64_t parts = productOf(to, mesh);
  int64_t block = llvm::divideCeil(size, parts);
  if (block * parts != size) {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape[d] = block * parts;
    Value zero =
        arith::ConstantOp::create(b, loc, b.getZeroAttr(type.getElementType()));
    value = tensor::createPadHighOp(type.clone(shape), value, zero,
                                    /*nofold=*/false, loc, b);
  }
  return sliceDim(b, loc, value, d,
                  buildBlockOffset(b, loc, ref, mesh, to, block), block);
}

FailureOr<Value> PartitionState::buildLocalBlock(OpBuilder &b, Location loc,
                                                 Value whole,
                                                 TensorShardingAttr sharding,
                                                 Operation *op) {
  auto resolved = resolveMesh(sharding, op);
  if (failed(resolved))
    return failure();
  auto [ref, mesh] = *resolved;
  // Dimensions the axes do not divide are padded and sliced one by one.
  auto type = cast<RankedTensorType>(whole.getType());
  Value block = whole;
  SmallVector<SmallVector<AxisRefAttr>> axes;
  for (auto [d, dim] : llvm::enumerate(sharding.getDimShardings())) {
    axes.emplace_back(dim.getAxes());
    if (ShapedType::isDynamic(type.getDimSize(d)) ||
        type.getDimSize(d) % productOf(dim.getAxes(), mesh) == 0)
      continue;
    block = sliceWhole(b, loc, block, d, type.getDimSize(d), dim.getAxes(), ref,
                       mesh);
    axes.back().clear();
  }
  return sliceLocal(b, loc, block, ref, mesh, axes);
}

//===----------------------------------------------------------------------===//
// Halo exchange
//===----------------------------------------------------------------------===//

/// The rows [p * step + first, p * step + first + window) of dimension `dim`
/// for device p along `axes` (`input` is its block of that dimension):
/// its own block extended by the rows the neighbours before and after it
/// hold (`comm.permute`s of slices of their blocks, one per hop; the most
/// any device needs on each side), then cut to its window. Rows outside the
/// dimension are `padding` (a scalar), or zeros when it is null.
static Value extendBlock(PartitionState &state, OpBuilder &b, Location loc,
                         Value input, int64_t dim, FlatSymbolRefAttr meshRef,
                         MeshAttr mesh, ArrayRef<AxisRefAttr> axes,
                         int64_t step, int64_t first, int64_t window,
                         Value padding) {
  int64_t parts = productOf(axes, mesh);
  int64_t block = cast<RankedTensorType>(input.getType()).getDimSize(dim);
  // Device p holds [p * block, (p + 1) * block); the extended block holds
  // `left` rows before it and `right` after.
  int64_t left = 0, right = 0;
  for (int64_t p = 0; p < parts; ++p) {
    left = std::max(left, p * block - (p * step + first));
    right = std::max(right, p * step + first + window - (p + 1) * block);
  }
  SmallVector<AxisRefAttr> commAxes = toCommAxes(axes, mesh);
  Value index;
  auto getIndex = [&] {
    if (!index)
      index = comm::AxisIndexOp::create(b, loc, b.getIndexType(), meshRef,
                                        commAxes);
    return index;
  };
  // `piece` of the device `hops` blocks before (after, when negative)
  // along the axes; the first (last) devices, which have none there,
  // receive zeros, or `padding`.
  auto receive = [&](Value piece, int64_t hops) -> Value {
    SmallVector<int64_t> sources, targets;
    for (int64_t q = 0; q < parts; ++q)
      if (q + hops >= 0 && q + hops < parts) {
        sources.push_back(q);
        targets.push_back(q + hops);
      }
    Value received = comm::PermuteOp::create(b, loc, piece, meshRef, commAxes,
                                             sources, targets);
    if (!padding)
      return received;
    Value inside = arith::CmpIOp::create(
        b, loc,
        hops > 0 ? arith::CmpIPredicate::sge : arith::CmpIPredicate::slt,
        getIndex(),
        arith::ConstantIndexOp::create(b, loc, hops > 0 ? hops : parts + hops));
    Value pads = tensor::SplatOp::create(b, loc, piece.getType(), padding);
    return arith::SelectOp::create(b, loc, inside, received, pads);
  };
  SmallVector<Value> pieces;
  // The end of each block before, farthest first; then the beginning of
  // each block after, nearest first.
  for (int64_t k = llvm::divideCeil(left, block); k >= 1; --k) {
    int64_t size = std::min(block, left - (k - 1) * block);
    pieces.push_back(receive(
        state.sliceDim(b, loc, input, dim, b.getIndexAttr(block - size), size),
        k));
  }
  pieces.push_back(input);
  int64_t rightHops = llvm::divideCeil(right, block);
  for (int64_t k = 1; k <= rightHops; ++k) {
    int64_t size = std::min(block, right - (k - 1) * block);
    pieces.push_back(receive(
        state.sliceDim(b, loc, input, dim, b.getIndexAttr(0), size), -k));
  }
  Value extended = input;
  if (pieces.size() > 1)
    extended = tensor::ConcatOp::create(b, loc, dim, pieces);
  // This device's window starts at left + first - p * (block - step) in
  // the extended block.
  int64_t shift = block - step;
  int64_t base = left + first;
  if (shift != 0) {
    Value scaled = arith::MulIOp::create(
        b, loc, getIndex(),
        arith::ConstantIndexOp::create(b, loc, std::abs(shift)));
    Value start = arith::ConstantIndexOp::create(b, loc, base);
    Value offset =
        shift > 0 ? arith::SubIOp::create(b, loc, start, scaled).getResult()
                  : arith::AddIOp::create(b, loc, start, scaled).getResult();
    return state.sliceDim(b, loc, extended, dim, offset, window);
  }
  if (base != 0 || left + block + right != window)
    return state.sliceDim(b, loc, extended, dim, b.getIndexAttr(base), window);
  return extended;
}

/// The axes of dimension `d` of `sharding` (on `from`) other than those of
/// size 1 (a single-device reference keeps their names), as axes of `to`:
/// an input of a windowed op or a pad may be on another mesh of the same
/// devices (a reshard between the two moved no data, so the partitioner
/// gave the op the input's value), whose axes cover the same digits of a
/// device's position as those of `to`. Failure when the meshes order their
/// devices differently or the axes do not fall on `to`'s.
static FailureOr<SmallVector<AxisRefAttr>>
getBlockAxesOn(TensorShardingAttr sharding, int64_t d, MeshAttr from,
               MeshAttr to) {
  SmallVector<AxisRefAttr> axes;
  if (!sharding || d >= sharding.getRank())
    return axes;
  for (AxisRefAttr axis : sharding.getDimSharding(d).getAxes())
    if (axis.getSize(from) != 1)
      axes.push_back(axis);
  if (from == to || axes.empty())
    return axes;
  if (from.getDeviceIdsOrIota() != to.getDeviceIdsOrIota())
    return failure();
  FailureOr<SmallVector<AxisRefAttr>> translated =
      translateAxisRefsToMesh(axes, from, to);
  if (failed(translated))
    return failure();
  SmallVector<AxisRefAttr> nontrivial;
  for (AxisRefAttr axis : *translated)
    if (axis.getSize(to) != 1)
      nontrivial.push_back(axis);
  return nontrivial;
}

LogicalResult exchangeHalos(linalg::LinalgOp op, PartitionState &state,
                            RewriterBase &rewriter) {
  // (Named ops other than convolutions and poolings read no windows; most
  // ops are those, so their maps are not built.)
  if (op->getNumResults() == 0 ||
      !isa<linalg::GenericOp, linalg::ConvolutionOpInterface>(*op) ||
      op.hasOnlyProjectedPermutations())
    return success();
  SmallVector<WindowedDim> windowed = getWindowedDims(op);
  if (windowed.empty())
    return success();
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  // (The results still have their global types and shardings.)
  OpResult result = op->getResult(0);
  TensorShardingAttr outSharding = state.getSharding(result);
  auto outType = cast<RankedTensorType>(result.getType());
  AffineMap outMap = op.getIndexingMapMatchingResult(result);
  SmallVector<int64_t> loopSizes = op.getStaticLoopRanges();
  for (const WindowedDim &w : windowed) {
    // The output dimension the window's output loop indexes, and its axes.
    std::optional<unsigned> outDim =
        outMap.getResultPosition(getAffineDimExpr(w.outLoop, ctx));
    if (!outDim)
      continue;
    // The axes of the input's and output's dimensions, on the output's
    // mesh (an input an earlier exchange extended has no sharding).
    Value input = op->getOperand(w.operand);
    TensorShardingAttr inSharding = state.getSharding(input);
    MeshAttr mesh, inMesh;
    for (auto [sharding, on] :
         {std::pair(outSharding, &mesh), std::pair(inSharding, &inMesh)}) {
      if (!sharding)
        continue;
      auto resolved = state.resolveMesh(sharding, op);
      if (failed(resolved))
        return failure();
      *on = resolved->second;
    }
    FailureOr<SmallVector<AxisRefAttr>> outAxes =
        getBlockAxesOn(outSharding, *outDim, mesh, mesh);
    FailureOr<SmallVector<AxisRefAttr>> inAxes =
        getBlockAxesOn(inSharding, w.dim, inMesh, mesh ? mesh : inMesh);
    if (failed(outAxes) ||
        (inSharding && (failed(inAxes) || *inAxes != *outAxes)))
      return op->emitOpError("reads dimension ")
             << w.dim << " of operand " << w.operand
             << " through a window and shards it otherwise than output "
                "dimension "
             << *outDim << " (run spmd-insert-reshards first)";
    SmallVector<AxisRefAttr> axes = std::move(*outAxes);
    if (axes.empty())
      continue;
    FlatSymbolRefAttr meshRef = outSharding.getMeshSymName();
    int64_t parts = productOf(axes, mesh);
    int64_t outSize = outType.getDimSize(*outDim);
    int64_t block = cast<RankedTensorType>(input.getType()).getDimSize(w.dim);
    int64_t windowSize = loopSizes[w.windowLoop];
    // (A padded input's windows never read past its end.)
    if (ShapedType::isDynamic(outSize) || ShapedType::isDynamic(block) ||
        ShapedType::isDynamic(windowSize) || outSize % parts != 0)
      return op->emitOpError("reads dimension ")
             << w.dim << " of operand " << w.operand
             << " through a window whose output dimension " << *outDim
             << " its sharding does not divide into equal blocks, which "
                "spmd-partition does not support";
    // Device p computes the outputs [p * outBlock, (p + 1) * outBlock),
    // which read the input [p * step, p * step + window).
    int64_t outBlock = outSize / parts;
    rewriter.setInsertionPoint(op);
    Value extended = extendBlock(state, rewriter, loc, input, w.dim, meshRef,
                                 mesh, axes, outBlock * w.stride, /*first=*/0,
                                 (outBlock - 1) * w.stride +
                                     (windowSize - 1) * w.dilation + 1,
                                 /*padding=*/Value());
    rewriter.modifyOpInPlace(op, [&] { op->setOperand(w.operand, extended); });
  }
  return success();
}

FailureOr<bool> exchangePadHalos(tensor::PadOp pad, PartitionState &state,
                                 const GlobalToLocalTypeConverter &converter,
                                 RewriterBase &rewriter) {
  Value result = pad.getResult();
  TensorShardingAttr outSharding = state.getSharding(result);
  if (!outSharding || !pad.getLow().empty() || !pad.getHigh().empty())
    return false;
  Value padding = pad.getConstantPaddingValue();
  auto resolved = state.resolveMesh(outSharding, pad);
  if (failed(resolved))
    return failure();
  auto [meshRef, mesh] = *resolved;
  Value source = pad.getSource();
  TensorShardingAttr inSharding = state.getSharding(source);
  MeshAttr inMesh;
  if (inSharding) {
    auto inResolved = state.resolveMesh(inSharding, pad);
    if (failed(inResolved))
      return failure();
    inMesh = inResolved->second;
  }
  auto globalType = cast<RankedTensorType>(result.getType());
  SmallVector<int64_t> low(pad.getStaticLow()), high(pad.getStaticHigh());
  Location loc = pad.getLoc();
  Value value = source;
  bool exchanged = false;
  for (int64_t d = 0; d < globalType.getRank(); ++d) {
    if (low[d] == 0 && high[d] == 0)
      continue;
    SmallVector<AxisRefAttr> axes = *getBlockAxesOn(outSharding, d, mesh, mesh);
    FailureOr<SmallVector<AxisRefAttr>> inAxes =
        getBlockAxesOn(inSharding, d, inMesh, mesh);
    if (inSharding && (failed(inAxes) || *inAxes != axes))
      return pad->emitOpError("pads dimension ")
             << d
             << " and shards it otherwise than its result (run "
                "spmd-insert-reshards first)";
    if (axes.empty())
      continue;
    int64_t parts = productOf(axes, mesh);
    int64_t outSize = globalType.getDimSize(d);
    int64_t block = cast<RankedTensorType>(value.getType()).getDimSize(d);
    if (!padding || ShapedType::isDynamic(outSize) ||
        ShapedType::isDynamic(block) ||
        block * parts != outSize - low[d] - high[d])
      return pad->emitOpError("pads dimension ")
             << d
             << " of a source sharded into unequal blocks or with a padding "
                "value that is not constant, which spmd-partition does not "
                "support";
    if (!exchanged) {
      rewriter.setInsertionPoint(pad);
      // The padding value may be a constant of the pad's body.
      if (Operation *def = padding.getDefiningOp(); def && pad->isAncestor(def))
        padding = rewriter.clone(*def)->getResult(0);
    }
    // The result's block p is the source's rows [p * outBlock - low, ...):
    // a window of one row (the result may be padded: ceil-sized blocks).
    int64_t outBlock = llvm::divideCeil(outSize, parts);
    value = extendBlock(state, rewriter, loc, value, d, meshRef, mesh, axes,
                        outBlock, -low[d], outBlock, padding);
    low[d] = high[d] = 0;
    exchanged = true;
  }
  if (!exchanged)
    return false;
  Type local = converter.getLocalType(result);
  if (!local)
    return failure();
  if (llvm::any_of(low, [](int64_t n) { return n != 0; }) ||
      llvm::any_of(high, [](int64_t n) { return n != 0; })) {
    // The dimensions left are padded as before.
    auto rest = cast<tensor::PadOp>(rewriter.clone(*pad));
    rewriter.modifyOpInPlace(rest, [&] {
      // (The global view's attributes stay with the pad.)
      rest->setDiscardableAttrs(DictionaryAttr::get(rest->getContext()));
      rest.getSourceMutable().assign(value);
      rest.setStaticLow(low);
      rest.setStaticHigh(high);
      rest.getResult().setType(cast<RankedTensorType>(local));
    });
    value = rest.getResult();
  }
  if (value.getType() != local)
    return pad->emitOpError("lowers to a local type ")
           << value.getType() << " but its result is " << local;
  state.replaced(result, value);
  rewriter.replaceOp(pad, value);
  return true;
}

//===----------------------------------------------------------------------===//
// The collectives
//===----------------------------------------------------------------------===//

namespace {

/// What the lowering of a collective works on: its input's local block
/// (`value`, changed as the lowering goes), its input's and output's
/// shardings and meshes, and the dimensions that one side does not divide
/// and whose layout changes (moved through the whole dimension).
struct CollectiveLowering {
  PartitionState &state;
  OpBuilder &b;
  Operation *op;
  Location loc;
  Value value;
  TensorShardingAttr out, source;
  FlatSymbolRefAttr meshRef, sourceRef;
  MeshAttr mesh, sourceMesh;
  ArrayRef<int64_t> global;
  llvm::BitVector padded;

  CollectiveLowering(PartitionState &state, OpBuilder &b, Operation *op,
                     Value input)
      : state(state), b(b), op(op), loc(op->getLoc()), value(input) {}

  /// Resolves the meshes and finds the padded dimensions; fails (with an
  /// error) before anything is built.
  LogicalResult init() {
    auto in = op->getAttrOfType<TensorShardingAttr>("in_sharding");
    out = op->getAttrOfType<TensorShardingAttr>("out_sharding");
    if (!out)
      return op->emitOpError("has no out_sharding");
    auto outResolved = state.resolveMesh(out, op);
    if (failed(outResolved))
      return failure();
    std::tie(meshRef, mesh) = *outResolved;
    // The input's sharding and mesh (the output's unless a permute moves
    // the tensor to another device order).
    source = in ? in : state.getSharding(op->getOperand(0));
    sourceRef = meshRef;
    sourceMesh = mesh;
    if (source) {
      auto inResolved = state.resolveMesh(source, op);
      if (failed(inResolved))
        return failure();
      std::tie(sourceRef, sourceMesh) = *inResolved;
    }
    global = cast<RankedTensorType>(op->getResult(0).getType()).getShape();
    int64_t rank = global.size();
    padded.resize(rank);
    for (int64_t d = 0; d < rank; ++d) {
      if (ShapedType::isDynamic(global[d]))
        continue;
      ArrayRef<AxisRefAttr> from = axesIn(d);
      ArrayRef<AxisRefAttr> to = out.getDimSharding(d).getAxes();
      if (from == to && sourceMesh == mesh)
        continue;
      if (global[d] % productOf(from, sourceMesh) != 0 ||
          global[d] % productOf(to, mesh) != 0)
        padded.set(d);
    }
    return success();
  }

  ArrayRef<AxisRefAttr> axesIn(int64_t d) const {
    return source ? source.getDimSharding(d).getAxes()
                  : ArrayRef<AxisRefAttr>();
  }

  /// Lists of axes per dimension; those of padded dimensions emptied.
  SmallVector<SmallVector<AxisRefAttr>>
  listsOf(ListOfAxisRefListsAttr lists) const {
    SmallVector<SmallVector<AxisRefAttr>> result;
    for (auto [d, list] : llvm::enumerate(lists.getValue())) {
      result.emplace_back(list.getValue());
      if (padded.test(d))
        result.back().clear();
    }
    return result;
  }

  /// Gathers dimension d over `axes` (a suffix of its axes).
  void gather(int64_t d, ArrayRef<AxisRefAttr> axes, FlatSymbolRefAttr ref,
              MeshAttr on) {
    if (axes.empty())
      return;
    auto current = cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> shape(current.getShape());
    if (!ShapedType::isDynamic(shape[d]))
      shape[d] *= productOf(axes, on);
    value = comm::AllGatherOp::create(b, loc, current.clone(shape), value, ref,
                                      toCommAxes(axes, on), d);
  }

  /// Moves the padded dimensions through their whole size: gathers, then
  /// slices to the output's blocks.
  void relayoutPadded() {
    for (int64_t d : padded.set_bits())
      value = state.gatherWhole(b, loc, value, d, global[d], axesIn(d),
                                sourceRef, sourceMesh);
    for (int64_t d : padded.set_bits())
      value = state.sliceWhole(b, loc, value, d, global[d],
                               out.getDimSharding(d).getAxes(), meshRef, mesh);
  }

  /// `comm.axis_index` over `axes` == 0: the first device of each group.
  Value isFirstOfGroup(ArrayRef<AxisRefAttr> axes) {
    Value index = comm::AxisIndexOp::create(b, loc, b.getIndexType(), meshRef,
                                            toCommAxes(axes, mesh));
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, index, zero);
  }
};

/// The pattern of a global-view collective `OpTy`: `lower` builds the local
/// value from a CollectiveLowering.
template <typename OpTy>
class CollectivePattern : public OpRewritePattern<OpTy> {
public:
  CollectivePattern(GlobalToLocalTypeConverter &converter,
                    PartitionState &state)
      : OpRewritePattern<OpTy>(state.getContext(), /*benefit=*/2),
        converter(converter), state(state) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Type local = converter.getLocalType(op->getResult(0));
    if (!local || failed(check(op)))
      return failure();
    rewriter.setInsertionPoint(op);
    CollectiveLowering lowering(state, rewriter, op, op->getOperand(0));
    if (failed(lowering.init()))
      return failure();
    lower(op, lowering);
    if (lowering.value.getType() != local)
      return op->emitOpError("lowers to a local type ")
             << lowering.value.getType() << " but its result is " << local;
    state.replaced(op->getResult(0), lowering.value);
    rewriter.replaceOp(op, lowering.value);
    return success();
  }

protected:
  /// Checks what the lowering cannot do, before anything is built.
  virtual LogicalResult check(OpTy op) const { return success(); }
  /// Builds the local value.
  virtual void lower(OpTy op, CollectiveLowering &l) const = 0;

  GlobalToLocalTypeConverter &converter;
  PartitionState &state;
};

struct AllGatherPattern : CollectivePattern<AllGatherOp> {
  using CollectivePattern::CollectivePattern;
  void lower(AllGatherOp op, CollectiveLowering &l) const override {
    l.relayoutPadded();
    for (auto [d, list] : llvm::enumerate(l.listsOf(op.getGatheringAxes())))
      l.gather(d, list, l.meshRef, l.mesh);
  }
};

struct AllSlicePattern : CollectivePattern<AllSliceOp> {
  using CollectivePattern::CollectivePattern;
  void lower(AllSliceOp op, CollectiveLowering &l) const override {
    l.relayoutPadded();
    l.value = state.sliceLocal(l.b, l.loc, l.value, l.meshRef, l.mesh,
                               l.listsOf(op.getSlicingAxes()));
  }
};

struct AllToAllPattern : CollectivePattern<AllToAllOp> {
  using CollectivePattern::CollectivePattern;
  void lower(AllToAllOp op, CollectiveLowering &l) const override {
    // A move that touches a padded dimension goes through both dimensions
    // whole.
    for (AllToAllParamAttr param : op.getParams().getValue())
      if (l.padded.test(param.getSrcDim()) ||
          l.padded.test(param.getTgtDim())) {
        l.padded.set(param.getSrcDim());
        l.padded.set(param.getTgtDim());
      }
    l.relayoutPadded();
    for (AllToAllParamAttr param : op.getParams().getValue()) {
      if (l.padded.test(param.getSrcDim()))
        continue;
      auto current = cast<RankedTensorType>(l.value.getType());
      SmallVector<int64_t> shape(current.getShape());
      int64_t parts = productOf(param.getAxes(), l.mesh);
      if (!ShapedType::isDynamic(shape[param.getSrcDim()]))
        shape[param.getSrcDim()] *= parts;
      if (!ShapedType::isDynamic(shape[param.getTgtDim()]))
        shape[param.getTgtDim()] /= parts;
      l.value = comm::AllToAllOp::create(l.b, l.loc, current.clone(shape),
                                         l.value, l.meshRef,
                                         toCommAxes(param.getAxes(), l.mesh),
                                         param.getTgtDim(), param.getSrcDim());
    }
  }
};

struct AllReducePattern : CollectivePattern<AllReduceOp> {
  using CollectivePattern::CollectivePattern;
  void lower(AllReduceOp op, CollectiveLowering &l) const override {
    SmallVector<AxisRefAttr> axes(op.getReductionAxes().getValue());
    if (!axes.empty())
      l.value = comm::AllReduceOp::create(l.b, l.loc, l.value,
                                          toComm(op.getReductionKind()),
                                          l.meshRef, toCommAxes(axes, l.mesh));
  }
};

struct ReduceScatterPattern : CollectivePattern<ReduceScatterOp> {
  using CollectivePattern::CollectivePattern;
  void lower(ReduceScatterOp op, CollectiveLowering &l) const override {
    SmallVector<SmallVector<AxisRefAttr>> lists =
        l.listsOf(op.getReduceScatterAxes());
    SmallVector<AxisRefAttr> all;
    SmallVector<int64_t> scattered;
    for (auto [d, list] :
         llvm::enumerate(op.getReduceScatterAxes().getValue())) {
      llvm::append_range(all, list.getValue());
      if (!list.getValue().empty())
        scattered.push_back(d);
    }
    comm::ReductionKind kind = toComm(op.getReductionKind());
    if (scattered.size() == 1 && !l.padded.any()) {
      // One dimension: the runtime's reduce-scatter.
      int64_t d = scattered.front();
      auto type = cast<RankedTensorType>(l.value.getType());
      SmallVector<int64_t> shape(type.getShape());
      if (!ShapedType::isDynamic(shape[d]))
        shape[d] /= productOf(lists[d], l.mesh);
      l.value = comm::ReduceScatterOp::create(l.b, l.loc, type.clone(shape),
                                              kind, l.value, l.meshRef,
                                              toCommAxes(lists[d], l.mesh), d);
      return;
    }
    sortAndMergeAxes(all, l.mesh);
    if (!all.empty())
      l.value = comm::AllReduceOp::create(l.b, l.loc, l.value, kind, l.meshRef,
                                          toCommAxes(all, l.mesh));
    // Reduced, the input holds the whole of what it will be sliced from.
    l.relayoutPadded();
    l.value = state.sliceLocal(l.b, l.loc, l.value, l.meshRef, l.mesh, lists);
  }
};

/// Whether a permute from `from` on `fromMesh` to `to` on `toMesh` can move
/// blocks device to device: as many partial sums on both sides (none, or
/// unreduced axes of the same total size).
static bool permutesPartialSums(TensorShardingAttr from, MeshAttr fromMesh,
                                TensorShardingAttr to, MeshAttr toMesh) {
  auto count = [](TensorShardingAttr sharding, MeshAttr mesh) {
    int64_t parts = 1;
    for (AxisRefAttr axis : sharding.getUnreducedAxes())
      parts *= axis.getSize(mesh);
    return parts;
  };
  return count(from, fromMesh) == count(to, toMesh) &&
         (from.getUnreducedAxes().empty() ||
          from.getUnreducedKind() == to.getUnreducedKind());
}

struct CollectivePermutePattern : CollectivePattern<CollectivePermuteOp> {
  using CollectivePattern::CollectivePattern;
  void lower(CollectivePermuteOp op, CollectiveLowering &l) const override {
    if (l.source &&
        permutesPartialSums(l.source, l.sourceMesh, l.out, l.mesh)) {
      // Every dimension keeps its number of parts: each device sends its
      // block (its partial sum, when unreduced) to one device that holds it
      // under the output's sharding (on the output's mesh, which may order
      // the devices differently or have other axes).
      auto [sources, targets] =
          getPermutePairs(l.source, l.sourceMesh, l.out, l.mesh);
      bool identity = llvm::all_of(llvm::zip(sources, targets), [](auto pair) {
        return std::get<0>(pair) == std::get<1>(pair);
      });
      if (identity)
        return;
      SmallVector<AxisRefAttr> all;
      for (MeshAxisAttr axis : l.mesh.getAxes())
        all.push_back(AxisRefAttr::get(op.getContext(), axis.getName()));
      l.value = comm::PermuteOp::create(l.b, l.loc, l.value, l.meshRef, all,
                                        sources, targets);
      return;
    }
    // Partial sums on another device order: gather everything on the
    // input's mesh, slice on the output's.
    l.relayoutPadded();
    SmallVector<SmallVector<AxisRefAttr>> lists;
    for (auto [d, dim] : llvm::enumerate(l.out.getDimShardings())) {
      if (!l.padded.test(d))
        l.gather(d, l.axesIn(d), l.sourceRef, l.sourceMesh);
      lists.emplace_back(l.padded.test(d) ? ArrayRef<AxisRefAttr>()
                                          : dim.getAxes());
    }
    l.value = state.sliceLocal(l.b, l.loc, l.value, l.meshRef, l.mesh, lists);
  }
};

struct ShardedToUnreducedPattern : CollectivePattern<ShardedToUnreducedOp> {
  using CollectivePattern::CollectivePattern;
  LogicalResult check(ShardedToUnreducedOp op) const override {
    if (!cast<RankedTensorType>(op->getOperand(0).getType()).hasStaticShape())
      return op->emitOpError("on a dynamically shaped tensor is not "
                             "supported by spmd-partition");
    return success();
  }
  void lower(ShardedToUnreducedOp op, CollectiveLowering &l) const override {
    // A padded dimension is gathered whole and sliced again, so it is the
    // same on every device of its unreduced axes: the first keeps it, the
    // others hold zeros.
    l.relayoutPadded();
    SmallVector<AxisRefAttr> kept;
    for (auto [d, list] : llvm::enumerate(op.getAxes().getValue()))
      if (l.padded.test(d))
        llvm::append_range(kept, list.getValue());
    auto type = cast<RankedTensorType>(l.value.getType());
    if (!kept.empty()) {
      sortAndMergeAxes(kept, l.mesh);
      Value first = l.isFirstOfGroup(kept);
      Value zeros =
          arith::ConstantOp::create(l.b, l.loc, type, l.b.getZeroAttr(type));
      l.value = arith::SelectOp::create(l.b, l.loc, first, l.value, zeros);
    }
    // Each device's block in place, zeros elsewhere.
    SmallVector<SmallVector<AxisRefAttr>> lists = l.listsOf(op.getAxes());
    if (llvm::all_of(lists, [](const auto &list) { return list.empty(); }))
      return;
    SmallVector<int64_t> shape(type.getShape());
    SmallVector<OpFoldResult> offsets, sizes, strides;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      int64_t parts = productOf(lists[d], l.mesh);
      sizes.push_back(l.b.getIndexAttr(shape[d]));
      strides.push_back(l.b.getIndexAttr(1));
      offsets.push_back(
          parts == 1 ? OpFoldResult(l.b.getIndexAttr(0))
                     : OpFoldResult(state.buildBlockOffset(
                           l.b, l.loc, l.meshRef, l.mesh, lists[d], shape[d])));
      shape[d] *= parts;
    }
    auto wide = type.clone(shape);
    Value zeros =
        arith::ConstantOp::create(l.b, l.loc, wide, l.b.getZeroAttr(wide));
    l.value = tensor::InsertSliceOp::create(l.b, l.loc, l.value, zeros, offsets,
                                            sizes, strides);
  }
};

struct ReplicatedToUnreducedPattern
    : CollectivePattern<ReplicatedToUnreducedOp> {
  using CollectivePattern::CollectivePattern;
  LogicalResult check(ReplicatedToUnreducedOp op) const override {
    if (!cast<RankedTensorType>(op->getOperand(0).getType()).hasStaticShape())
      return op->emitOpError("on a dynamically shaped tensor is not "
                             "supported by spmd-partition");
    return success();
  }
  void lower(ReplicatedToUnreducedOp op, CollectiveLowering &l) const override {
    // The value on the first device of each group, zeros on the others;
    // zeros everywhere already are.
    if (isZeroSplat(l.value))
      return;
    auto type = cast<RankedTensorType>(l.value.getType());
    Value first = l.isFirstOfGroup(op.getAxes().getValue());
    Value zeros =
        arith::ConstantOp::create(l.b, l.loc, type, l.b.getZeroAttr(type));
    l.value = arith::SelectOp::create(l.b, l.loc, first, l.value, zeros);
  }
};

} // namespace

void populateCollectivePartitionPatterns(RewritePatternSet &patterns,
                                         GlobalToLocalTypeConverter &converter,
                                         PartitionState &state) {
  patterns.add<AllGatherPattern, AllSlicePattern, AllToAllPattern,
               AllReducePattern, ReduceScatterPattern, CollectivePermutePattern,
               ShardedToUnreducedPattern, ReplicatedToUnreducedPattern>(
      converter, state);
}

} // namespace mlir::tessera::spmd::detail
