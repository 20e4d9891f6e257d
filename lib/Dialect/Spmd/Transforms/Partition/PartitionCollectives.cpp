//===- PartitionCollectives.cpp - collectives to comm ops -------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// spmd-partition's lowering of the global-view collectives (all_gather,
// all_slice, all_to_all, collective_permute, all_reduce, reduce_scatter,
// sharded_to_unreduced, replicated_to_unreduced) to `comm` collectives and
// slices of each device's block, with the padding of dimensions the axes do
// not divide.
//
//===----------------------------------------------------------------------===//

#include "Partitioner.h"

#include "tessera/Dialect/Comm/IR/CommOps.h"
#include "tessera/Dialect/Spmd/IR/CollectiveShardings.h"
#include "tessera/Dialect/Spmd/Transforms/TensorValues.h"

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

/// The pairs of a `comm.permute` over every axis of `toMesh` (logical
/// positions) that moves each device's block of a tensor sharded by `from`
/// on `fromMesh` to a device that holds it under `to` on `toMesh`. The meshes
/// have the same axes, possibly another device order; both shardings shard
/// every dimension into as many parts. A device that already holds the
/// block it needs keeps it; the other holders of a block are matched in
/// order with the other devices that need it.
static std::pair<SmallVector<int64_t>, SmallVector<int64_t>>
getPermutePairs(TensorShardingAttr from, MeshAttr fromMesh,
                TensorShardingAttr to, MeshAttr toMesh) {
  SmallVector<int64_t> sizes;
  for (MeshAxisAttr axis : toMesh.getAxes())
    sizes.push_back(axis.getSize());
  int64_t numDevices = toMesh.getTotalSize();
  SmallVector<int64_t> fromIds = fromMesh.getDeviceIdsOrIota();
  SmallVector<int64_t> toIds = toMesh.getDeviceIdsOrIota();
  // The position in `toMesh` of each device id.
  DenseMap<int64_t, int64_t> toPosition;
  for (auto [position, id] : llvm::enumerate(toIds))
    toPosition[id] = position;
  // Blocks -> positions (in `toMesh`) of the devices that hold or need them.
  std::map<SmallVector<int64_t>, SmallVector<int64_t>> holders, needers;
  SmallVector<int64_t> coords(sizes.size());
  for (int64_t position = 0; position < numDevices; ++position) {
    int64_t rest = position;
    for (size_t a = sizes.size(); a-- > 0;) {
      coords[a] = rest % sizes[a];
      rest /= sizes[a];
    }
    SmallVector<int64_t> held, needed;
    for (int64_t d = 0; d < from.getRank(); ++d) {
      held.push_back(
          getBlockIndex(from.getDimSharding(d).getAxes(), coords, fromMesh));
      needed.push_back(
          getBlockIndex(to.getDimSharding(d).getAxes(), coords, toMesh));
    }
    holders[held].push_back(toPosition.lookup(fromIds[position]));
    needers[needed].push_back(position);
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

Value Partitioner::offsetOf(Location loc, FlatSymbolRefAttr meshRef,
                            MeshAttr mesh, ArrayRef<AxisRefAttr> axes,
                            int64_t blockSize) {
  Value index = comm::AxisIndexOp::create(
      rewriter, loc, rewriter.getIndexType(), meshRef, toCommAxes(axes, mesh));
  Value size = arith::ConstantIndexOp::create(rewriter, loc, blockSize);
  return arith::MulIOp::create(rewriter, loc, index, size);
}

Value Partitioner::sliceLocal(Location loc, Value value,
                              FlatSymbolRefAttr meshRef, MeshAttr mesh,
                              ArrayRef<SmallVector<AxisRefAttr>> axes) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<OpFoldResult> offsets, sizes, strides;
  bool any = false;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    int64_t parts = productOf(axes[d], mesh);
    strides.push_back(rewriter.getIndexAttr(1));
    if (parts == 1) {
      sizes.push_back(rewriter.getIndexAttr(shape[d]));
      if (ShapedType::isDynamic(shape[d]))
        sizes.back() =
            tensor::DimOp::create(rewriter, loc, value, d).getResult();
      offsets.push_back(rewriter.getIndexAttr(0));
      continue;
    }
    any = true;
    Value index =
        comm::AxisIndexOp::create(rewriter, loc, rewriter.getIndexType(),
                                  meshRef, toCommAxes(axes[d], mesh));
    Value size;
    if (ShapedType::isDynamic(shape[d])) {
      Value whole = tensor::DimOp::create(rewriter, loc, value, d);
      Value count = arith::ConstantIndexOp::create(rewriter, loc, parts);
      size = arith::DivUIOp::create(rewriter, loc, whole, count);
      sizes.push_back(size);
    } else {
      shape[d] /= parts;
      size = arith::ConstantIndexOp::create(rewriter, loc, shape[d]);
      sizes.push_back(rewriter.getIndexAttr(shape[d]));
    }
    offsets.push_back(
        arith::MulIOp::create(rewriter, loc, index, size).getResult());
  }
  if (!any)
    return value;
  return tensor::ExtractSliceOp::create(rewriter, loc, type.clone(shape), value,
                                        offsets, sizes, strides);
}

Value Partitioner::sliceDim(Location loc, Value value, int64_t d,
                            OpFoldResult offset, int64_t size) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<OpFoldResult> offsets, sizes, strides;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    offsets.push_back(i == d ? offset : rewriter.getIndexAttr(0));
    sizes.push_back(rewriter.getIndexAttr(i == d ? size : shape[i]));
    strides.push_back(rewriter.getIndexAttr(1));
  }
  shape[d] = size;
  return tensor::ExtractSliceOp::create(rewriter, loc, type.clone(shape), value,
                                        offsets, sizes, strides);
}

Value Partitioner::gatherWhole(Location loc, Value value, int64_t d,
                               int64_t size, ArrayRef<AxisRefAttr> from,
                               FlatSymbolRefAttr ref, MeshAttr mesh) {
  if (from.empty())
    return value;
  auto type = cast<RankedTensorType>(value.getType());
  int64_t block = type.getDimSize(d);
  SmallVector<int64_t> shape(type.getShape());
  shape[d] = block * productOf(from, mesh);
  value = comm::AllGatherOp::create(rewriter, loc, type.clone(shape), value,
                                    ref, toCommAxes(from, mesh), d);
  if (shape[d] != size)
    value = sliceDim(loc, value, d, rewriter.getIndexAttr(0), size);
  return value;
}

Value Partitioner::sliceWhole(Location loc, Value value, int64_t d,
                              int64_t size, ArrayRef<AxisRefAttr> to,
                              FlatSymbolRefAttr ref, MeshAttr mesh) {
  if (to.empty())
    return value;
  int64_t parts = productOf(to, mesh);
  int64_t block = llvm::divideCeil(size, parts);
  if (block * parts != size) {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape[d] = block * parts;
    Value zero = arith::ConstantOp::create(
        rewriter, loc, rewriter.getZeroAttr(type.getElementType()));
    value = tensor::createPadHighOp(type.clone(shape), value, zero,
                                    /*nofold=*/false, loc, rewriter);
  }
  return sliceDim(loc, value, d, offsetOf(loc, ref, mesh, to, block), block);
}

LogicalResult Partitioner::lowerCollective(Operation *op) {
  Location loc = op->getLoc();
  Value input = op->getOperand(0);
  auto in = op->getAttrOfType<TensorShardingAttr>("in_sharding");
  auto out = op->getAttrOfType<TensorShardingAttr>("out_sharding");
  if (!out)
    return op->emitOpError("has no out_sharding");
  auto outResolved = resolve(out, op);
  if (failed(outResolved))
    return failure();
  FlatSymbolRefAttr meshRef = outResolved->first;
  MeshAttr mesh = outResolved->second;
  rewriter.setInsertionPoint(op);
  auto type = cast<RankedTensorType>(input.getType());
  Value value = input;
  if (isa<ShardedToUnreducedOp, ReplicatedToUnreducedOp>(op) &&
      !type.hasStaticShape())
    return op->emitOpError("on a dynamically shaped tensor is not supported "
                           "by spmd-partition");

  // Gathers dimension d over `axes` (a suffix of its axes).
  auto gather = [&](int64_t d, ArrayRef<AxisRefAttr> axes,
                    FlatSymbolRefAttr ref, MeshAttr on) {
    if (axes.empty())
      return;
    auto current = cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> shape(current.getShape());
    if (!ShapedType::isDynamic(shape[d]))
      shape[d] *= productOf(axes, on);
    value = comm::AllGatherOp::create(rewriter, loc, current.clone(shape),
                                      value, ref, toCommAxes(axes, on), d);
  };
  // The input's sharding and mesh (the output's unless a permute moves
  // the tensor to another device order).
  TensorShardingAttr source = in ? in : getSharding(input);
  FlatSymbolRefAttr sourceRef = meshRef;
  MeshAttr sourceMesh = mesh;
  if (source) {
    auto inResolved = resolve(source, op);
    if (failed(inResolved))
      return failure();
    std::tie(sourceRef, sourceMesh) = *inResolved;
  }
  auto axesIn = [&](int64_t d) -> ArrayRef<AxisRefAttr> {
    return source ? source.getDimSharding(d).getAxes()
                  : ArrayRef<AxisRefAttr>();
  };
  // Dimensions one side does not divide whose layout changes move through
  // the whole dimension (relayoutDim); the others take the collective's
  // own path below.
  Type globalType = globals.lookup(op->getResult(0)).type;
  ArrayRef<int64_t> global =
      cast<RankedTensorType>(globalType ? globalType
                                        : op->getResult(0).getType())
          .getShape();
  llvm::BitVector padded(type.getRank());
  for (int64_t d = 0; d < type.getRank(); ++d) {
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
  // Lists of axes per dimension; those of padded dimensions emptied.
  auto listsOf = [&](ListOfAxisRefListsAttr lists) {
    SmallVector<SmallVector<AxisRefAttr>> result;
    for (auto [d, list] : llvm::enumerate(lists.getValue())) {
      result.emplace_back(list.getValue());
      if (padded.test(d))
        result.back().clear();
    }
    return result;
  };

  auto relayoutPadded = [&]() {
    for (int64_t d : padded.set_bits())
      value = gatherWhole(loc, value, d, global[d], axesIn(d), sourceRef,
                          sourceMesh);
    for (int64_t d : padded.set_bits())
      value = sliceWhole(loc, value, d, global[d],
                         out.getDimSharding(d).getAxes(), meshRef, mesh);
  };

  if (auto allGather = dyn_cast<AllGatherOp>(op)) {
    relayoutPadded();
    for (auto [d, list] :
         llvm::enumerate(listsOf(allGather.getGatheringAxes())))
      gather(d, list, meshRef, mesh);
  } else if (auto allSlice = dyn_cast<AllSliceOp>(op)) {
    relayoutPadded();
    value = sliceLocal(loc, value, meshRef, mesh,
                       listsOf(allSlice.getSlicingAxes()));
  } else if (auto allToAll = dyn_cast<AllToAllOp>(op)) {
    // A move that touches a padded dimension goes through both dimensions
    // whole.
    for (AllToAllParamAttr param : allToAll.getParams().getValue())
      if (padded.test(param.getSrcDim()) || padded.test(param.getTgtDim())) {
        padded.set(param.getSrcDim());
        padded.set(param.getTgtDim());
      }
    relayoutPadded();
    for (AllToAllParamAttr param : allToAll.getParams().getValue()) {
      if (padded.test(param.getSrcDim()))
        continue;
      auto current = cast<RankedTensorType>(value.getType());
      SmallVector<int64_t> shape(current.getShape());
      int64_t parts = productOf(param.getAxes(), mesh);
      if (!ShapedType::isDynamic(shape[param.getSrcDim()]))
        shape[param.getSrcDim()] *= parts;
      if (!ShapedType::isDynamic(shape[param.getTgtDim()]))
        shape[param.getTgtDim()] /= parts;
      value =
          comm::AllToAllOp::create(rewriter, loc, current.clone(shape), value,
                                   meshRef, toCommAxes(param.getAxes(), mesh),
                                   param.getTgtDim(), param.getSrcDim());
    }
  } else if (auto allReduce = dyn_cast<AllReduceOp>(op)) {
    SmallVector<AxisRefAttr> axes(allReduce.getReductionAxes().getValue());
    if (!axes.empty())
      value = comm::AllReduceOp::create(rewriter, loc, value,
                                        toComm(allReduce.getReductionKind()),
                                        meshRef, toCommAxes(axes, mesh));
  } else if (auto reduceScatter = dyn_cast<ReduceScatterOp>(op)) {
    SmallVector<SmallVector<AxisRefAttr>> lists =
        listsOf(reduceScatter.getReduceScatterAxes());
    SmallVector<AxisRefAttr> all;
    SmallVector<int64_t> scattered;
    for (auto [d, list] :
         llvm::enumerate(reduceScatter.getReduceScatterAxes().getValue())) {
      llvm::append_range(all, list.getValue());
      if (!list.getValue().empty())
        scattered.push_back(d);
    }
    comm::ReductionKind kind = toComm(reduceScatter.getReductionKind());
    if (scattered.size() == 1 && !padded.any()) {
      // One dimension: the runtime's reduce-scatter.
      int64_t d = scattered.front();
      SmallVector<int64_t> shape(type.getShape());
      if (!ShapedType::isDynamic(shape[d]))
        shape[d] /= productOf(lists[d], mesh);
      value = comm::ReduceScatterOp::create(rewriter, loc, type.clone(shape),
                                            kind, value, meshRef,
                                            toCommAxes(lists[d], mesh), d);
      replaceCollective(op, value);
      return success();
    }
    sortAndMergeAxes(all, mesh);
    if (!all.empty())
      value = comm::AllReduceOp::create(rewriter, loc, value, kind, meshRef,
                                        toCommAxes(all, mesh));
    // Reduced, the input holds the whole of what it will be sliced from.
    relayoutPadded();
    value = sliceLocal(loc, value, meshRef, mesh, lists);
  } else if (isa<CollectivePermuteOp>(op) && source &&
             source.getUnreducedAxes().empty()) {
    // Every dimension keeps its number of parts: each device sends its
    // block to one device that holds it under the output's sharding (on the
    // output's mesh, which may order the devices differently).
    auto [sources, targets] = getPermutePairs(source, sourceMesh, out, mesh);
    bool identity = llvm::all_of(llvm::zip(sources, targets), [](auto pair) {
      return std::get<0>(pair) == std::get<1>(pair);
    });
    if (!identity) {
      SmallVector<AxisRefAttr> all;
      for (MeshAxisAttr axis : mesh.getAxes())
        all.push_back(AxisRefAttr::get(ctx, axis.getName()));
      value = comm::PermuteOp::create(rewriter, loc, value, meshRef, all,
                                      sources, targets);
    }
  } else if (isa<CollectivePermuteOp>(op)) {
    // Partial sums on another device order: gather everything on the
    // input's mesh, slice on the output's.
    relayoutPadded();
    SmallVector<SmallVector<AxisRefAttr>> lists;
    for (auto [d, dim] : llvm::enumerate(out.getDimShardings())) {
      if (!padded.test(d))
        gather(d, axesIn(d), sourceRef, sourceMesh);
      lists.emplace_back(padded.test(d) ? ArrayRef<AxisRefAttr>()
                                        : dim.getAxes());
    }
    value = sliceLocal(loc, value, meshRef, mesh, lists);
  } else if (auto toUnreduced = dyn_cast<ShardedToUnreducedOp>(op)) {
    // A padded dimension is gathered whole and sliced again, so it is the
    // same on every device of its unreduced axes: the first keeps it, the
    // others hold zeros.
    relayoutPadded();
    SmallVector<AxisRefAttr> kept;
    for (auto [d, list] : llvm::enumerate(toUnreduced.getAxes().getValue()))
      if (padded.test(d))
        llvm::append_range(kept, list.getValue());
    type = cast<RankedTensorType>(value.getType());
    if (!kept.empty()) {
      sortAndMergeAxes(kept, mesh);
      Value index =
          comm::AxisIndexOp::create(rewriter, loc, rewriter.getIndexType(),
                                    meshRef, toCommAxes(kept, mesh));
      Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value first = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq, index, zero);
      Value zeros = arith::ConstantOp::create(rewriter, loc, type,
                                              rewriter.getZeroAttr(type));
      value = arith::SelectOp::create(rewriter, loc, first, value, zeros);
    }
    // Each device's block in place, zeros elsewhere.
    SmallVector<SmallVector<AxisRefAttr>> lists =
        listsOf(toUnreduced.getAxes());
    if (llvm::all_of(lists, [](const auto &list) { return list.empty(); })) {
      replaceCollective(op, value);
      return success();
    }
    SmallVector<int64_t> shape(type.getShape());
    SmallVector<OpFoldResult> offsets, sizes, strides;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      int64_t parts = productOf(lists[d], mesh);
      sizes.push_back(rewriter.getIndexAttr(shape[d]));
      strides.push_back(rewriter.getIndexAttr(1));
      offsets.push_back(
          parts == 1
              ? OpFoldResult(rewriter.getIndexAttr(0))
              : OpFoldResult(offsetOf(loc, meshRef, mesh, lists[d], shape[d])));
      shape[d] *= parts;
    }
    auto wide = type.clone(shape);
    Value zeros = arith::ConstantOp::create(rewriter, loc, wide,
                                            rewriter.getZeroAttr(wide));
    value = tensor::InsertSliceOp::create(rewriter, loc, value, zeros, offsets,
                                          sizes, strides);
  } else if (auto toUnreduced = dyn_cast<ReplicatedToUnreducedOp>(op)) {
    // The value on the first device of each group, zeros on the others;
    // zeros everywhere already are.
    if (isZeroSplat(value)) {
      replaceCollective(op, value);
      return success();
    }
    Value index = comm::AxisIndexOp::create(
        rewriter, loc, rewriter.getIndexType(), meshRef,
        toCommAxes(toUnreduced.getAxes().getValue(), mesh));
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        index, zero);
    Value zeros = arith::ConstantOp::create(rewriter, loc, type,
                                            rewriter.getZeroAttr(type));
    value = arith::SelectOp::create(rewriter, loc, first, value, zeros);
  } else {
    return op->emitOpError("is not a collective spmd-partition can lower");
  }
  if (value.getType() != op->getResult(0).getType())
    return op->emitOpError("lowers to a local type ")
           << value.getType() << " but its result is "
           << op->getResult(0).getType();
  replaceCollective(op, value);
  return success();
}

void Partitioner::replaceCollective(Operation *op, Value value) {
  auto it = globals.find(op->getResult(0));
  if (it != globals.end()) {
    GlobalView view = it->second;
    globals.erase(it);
    globals[value] = view;
  }
  rewriter.replaceOp(op, value);
}

} // namespace mlir::tessera::spmd::detail
