//===- Partition.cpp - the per-device program of a global-view module -----===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// After spmd-insert-reshards and spmd-reshard-to-collectives every op's
// operands and results agree on one factor sharding, so each op computes its
// local block from local blocks: the pass gives every value its local type
// (in place), turns the global-view collectives into `comm` ones, fixes the
// few ops whose attributes spell shapes or global positions, inlines manual
// computations, and records each function's global interface.
//
// Inside a manual computation a value's type is already divided by the
// manual axes and its sharding names only the free axes, so "type divided by
// the axes of its sharding" is the local type everywhere.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Comm/IR/CommOps.h"
#include "tessera/Dialect/Spmd/IR/CollectiveShardings.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"
#include "tessera/Dialect/Spmd/Transforms/Passes.h"
#include "tessera/Dialect/Spmd/Transforms/TensorValues.h"
#include "tessera/Dialect/Spmd/Transforms/TensorWalk.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <map>

namespace mlir::tessera::spmd {
#define GEN_PASS_DEF_SPMDPARTITIONPASS
#include "tessera/Dialect/Spmd/Transforms/Passes.h.inc"

namespace {

constexpr StringLiteral kPerDeviceAttrName = "tessera.per_device";
constexpr StringLiteral kGlobalTypeAttrName = "spmd.global_type";
constexpr StringLiteral kGlobalShardingAttrName = "spmd.global_sharding";

/// The global-view collectives spmd-partition lowers to comm ops.
bool isGlobalCollective(Operation *op) {
  return isa<AllGatherOp, AllSliceOp, AllToAllOp, CollectivePermuteOp,
             AllReduceOp, ReduceScatterOp, ShardedToUnreducedOp,
             ReplicatedToUnreducedOp>(op);
}

int64_t productOf(ArrayRef<AxisRefAttr> axes, MeshAttr mesh) {
  int64_t size = 1;
  for (AxisRefAttr axis : axes)
    size *= axis.getSize(mesh);
  return size;
}

/// The `comm` form of `axes`. A sub-axis `"x":(m)k` of the sharding
/// grammar is the part of size k after the more major parts of product m;
/// `comm` names a part by the product of the parts *minor* to it, which is
/// size("x") / (m * k).
SmallVector<AxisRefAttr> toCommAxes(ArrayRef<AxisRefAttr> axes, MeshAttr mesh) {
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

comm::ReductionKind toComm(ReductionKind kind) {
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
int64_t getBlockIndex(ArrayRef<AxisRefAttr> axes, ArrayRef<int64_t> coords,
                      MeshAttr mesh) {
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
std::pair<SmallVector<int64_t>, SmallVector<int64_t>>
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

class Partitioner {
public:
  explicit Partitioner(ModuleOp module)
      : module(module), ctx(module.getContext()), rewriter(ctx) {
    for (StringRef name : {StringRef(SpmdDialect::kShardingAttrName),
                           StringRef(SpmdDialect::kOutShardingAttrName),
                           StringRef(SpmdDialect::kShardingRuleAttrName),
                           StringRef("spmd.sharding_origins")})
      globalViewAttrs.push_back(StringAttr::get(ctx, name));
  }

  LogicalResult run();

private:
  /// The mesh of `sharding` and its symbol, or failure (reported at `op`).
  FailureOr<std::pair<FlatSymbolRefAttr, MeshAttr>>
  resolve(TensorShardingAttr sharding, Operation *op);

  /// The local type of a value of type `type` sharded by `sharding` (a
  /// dimension the axes do not divide is padded to ceil(n / parts)), or
  /// failure with a diagnostic at `op`. `padded`, when given, tells
  /// whether a dimension was padded.
  FailureOr<Type> getLocalType(Type type, TensorShardingAttr sharding,
                               Operation *op, StringRef what,
                               bool *padded = nullptr);

  /// `comm.axis_index` over `axes` times `blockSize`, as an index.
  Value offsetOf(Location loc, FlatSymbolRefAttr meshRef, MeshAttr mesh,
                 ArrayRef<AxisRefAttr> axes, int64_t blockSize);

  /// The local block of `value` after slicing dimension d by `axes[d]`.
  Value sliceLocal(Location loc, Value value, FlatSymbolRefAttr meshRef,
                   MeshAttr mesh, ArrayRef<SmallVector<AxisRefAttr>> axes);

  /// Dimensions that one of two shardings does not divide change layout
  /// through the whole dimension: gatherWhole makes dimension `d` (of
  /// global size `size`), sharded by `from`, whole on every device (an
  /// all-gather with its padding cut off); sliceWhole pads it with zeros to a
  /// multiple of the parts of `to` and takes each device's block. Every
  /// gather of a collective comes before its slices.
  Value gatherWhole(Location loc, Value value, int64_t d, int64_t size,
                    ArrayRef<AxisRefAttr> from, FlatSymbolRefAttr ref,
                    MeshAttr mesh);
  Value sliceWhole(Location loc, Value value, int64_t d, int64_t size,
                   ArrayRef<AxisRefAttr> to, FlatSymbolRefAttr ref,
                   MeshAttr mesh);

  /// `value` with dimension `d` cut to `size` elements from `offset`.
  Value sliceDim(Location loc, Value value, int64_t d, OpFoldResult offset,
                 int64_t size);

  /// Inlines `manuals` (in pre-order); `collectives` are all the
  /// collectives of their function.
  LogicalResult inlineManualComputations(ArrayRef<ManualComputationOp> manuals,
                                         ArrayRef<Operation *> collectives);
  /// Slices the sharded non-splat constants among `constants`; sets
  /// `changed` when it adds ops.
  LogicalResult materializeConstants(ArrayRef<arith::ConstantOp> constants,
                                     bool &changed);
  /// Gives the arguments of `func` and the results and region arguments
  /// of `ops` (the ops of `func` outside linalg bodies) their local types.
  LogicalResult retype(func::FuncOp func, ArrayRef<Operation *> ops);
  LogicalResult lowerCollective(Operation *op);
  LogicalResult fixShapeOps(Operation *op);
  LogicalResult fixLinalgIndices(linalg::LinalgOp op);
  /// Removes the `spmd.sharding` of every argument and result.
  void stripShardings(func::FuncOp func);
  void recordInterface(func::FuncOp func,
                       ArrayRef<TensorShardingAttr> argShardings,
                       ArrayRef<TensorShardingAttr> resultShardings,
                       ArrayRef<Type> argTypes, ArrayRef<Type> resultTypes);

  ModuleOp module;
  MLIRContext *ctx;
  IRRewriter rewriter;
  MeshResolver meshes;
  /// The global view of a sharded value: its type before `retype` and its
  /// sharding. Collectives and padded reductions read dimension sizes and
  /// axes from it; a lowered collective's local value inherits the entry.
  /// Kept for the results of collectives and for padded values only (the
  /// others have no use for it, and a large module has many).
  struct GlobalView {
    Type type;
    TensorShardingAttr sharding;
    /// Whether a dimension the sharding does not divide is padded.
    bool padded = false;
  };
  DenseMap<Value, GlobalView> globals;
  /// Per named linalg op (one its region builder makes the body of, unlike
  /// linalg.generic, map and reduce): whether that body reads linalg.index.
  /// Every op of the name has the same body, so the first one tells.
  DenseMap<OperationName, bool> namedBodyReadsIndex;

  /// The sharding of `value`, also for the local value of a lowered
  /// collective.
  TensorShardingAttr shardingOf(Value value) {
    if (TensorShardingAttr sharding = getSharding(value))
      return sharding;
    return globals.lookup(value).sharding;
  }

  /// Removes the attributes that describe the global view from `op`.
  void stripGlobalView(Operation *op) {
    // The raw dictionary holds the discardable attributes (and for ops
    // without properties the inherent ones, which stay); many ops share
    // one, so each is rewritten once.
    DictionaryAttr before = op->getRawDictionaryAttrs();
    if (before.empty())
      return;
    auto [it, inserted] = strippedAttrs.try_emplace(before);
    if (inserted) {
      NamedAttrList attrs(before);
      for (StringAttr name : globalViewAttrs)
        attrs.erase(name);
      it->second = attrs.getDictionary(ctx);
    }
    if (it->second != before)
      op->setDiscardableAttrs(it->second);
  }
  /// The names of those attributes.
  SmallVector<StringAttr, 4> globalViewAttrs;
  /// Raw attribute dictionaries and what stripGlobalView makes of them.
  DenseMap<DictionaryAttr, DictionaryAttr> strippedAttrs;

  /// Replaces a lowered collective by its local value.
  void replaceCollective(Operation *op, Value value);

  /// Cuts the inputs of `op` to the valid part of every reduction dimension
  /// whose block is padded, so that padding is never reduced over.
  LogicalResult cutPaddedReductions(linalg::LinalgOp op);
};

FailureOr<std::pair<FlatSymbolRefAttr, MeshAttr>>
Partitioner::resolve(TensorShardingAttr sharding, Operation *op) {
  FlatSymbolRefAttr ref = sharding.getMeshSymName();
  if (!ref)
    return op->emitOpError("has a sharding with an inlined mesh; run "
                           "spmd-lift-inlined-meshes first");
  MeshAttr mesh = meshes.get(sharding, op);
  if (!mesh)
    return op->emitOpError("has a sharding whose mesh ")
           << ref << " cannot be resolved";
  return std::make_pair(ref, mesh);
}

FailureOr<Type> Partitioner::getLocalType(Type type,
                                          TensorShardingAttr sharding,
                                          Operation *op, StringRef what,
                                          bool *padded) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !sharding)
    return type;
  auto resolved = resolve(sharding, op);
  if (failed(resolved))
    return failure();
  MeshAttr mesh = resolved->second;
  if (sharding.getRank() != tensor.getRank())
    return op->emitOpError()
           << what << " has a sharding of rank " << sharding.getRank()
           << " for a tensor of rank " << tensor.getRank();
  SmallVector<int64_t> shape(tensor.getShape());
  for (int64_t d = 0; d < tensor.getRank(); ++d) {
    int64_t parts = productOf(sharding.getDimSharding(d).getAxes(), mesh);
    if (parts == 1)
      continue;
    // A dynamic dimension stays dynamic: its local size is known when the
    // program runs (the runtime checks that it divides).
    if (ShapedType::isDynamic(shape[d]))
      continue;
    // A dimension the axes do not divide is padded at the end: every
    // device holds ceil(n / parts) elements, the last ones past n unused.
    if (padded && shape[d] % parts != 0)
      *padded = true;
    shape[d] = llvm::divideCeil(shape[d], parts);
  }
  return tensor.clone(shape);
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

LogicalResult
Partitioner::inlineManualComputations(ArrayRef<ManualComputationOp> manuals,
                                      ArrayRef<Operation *> collectives) {
  if (manuals.empty())
    return success();
  // Collectives inside bodies read their input sharding from the global
  // view; pin it before the bodies' arguments disappear.
  for (Operation *op : collectives) {
    if (op->getAttr("in_sharding"))
      continue;
    if (TensorShardingAttr sharding = getSharding(op->getOperand(0)))
      op->setAttr("in_sharding", sharding);
  }
  for (ManualComputationOp manual : manuals) {
    Block &body = manual.getBody().front();
    Operation *terminator = body.getTerminator();
    SmallVector<Value> results;
    for (Value value : terminator->getOperands()) {
      auto arg = dyn_cast<BlockArgument>(value);
      results.push_back(arg && arg.getOwner() == &body
                            ? manual->getOperand(arg.getArgNumber())
                            : value);
    }
    rewriter.eraseOp(terminator);
    rewriter.inlineBlockBefore(&body, manual, manual->getOperands());
    // Users of the results read the global sharding from the collectives'
    // pinned in_sharding; keep the value's own (local-view) sharding.
    rewriter.replaceOp(manual, results);
  }
  return success();
}

LogicalResult
Partitioner::materializeConstants(ArrayRef<arith::ConstantOp> constants,
                                  bool &changed) {
  for (arith::ConstantOp op : constants) {
    TensorShardingAttr sharding = getSharding(op.getResult());
    auto attr = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!sharding || !attr || attr.isSplat())
      continue;
    auto resolved = resolve(sharding, op);
    if (failed(resolved))
      return failure();
    auto local = getLocalType(op.getType(), sharding, op, "result");
    if (failed(local))
      return failure();
    if (*local == op.getType())
      continue;
    // The whole constant, and each device's block of it.
    changed = true;
    op->removeAttr(SpmdDialect::kShardingAttrName);
    rewriter.setInsertionPointAfter(op);
    SmallVector<OpOperand *> uses(llvm::make_pointer_range(op->getUses()));
    // Dimensions the axes do not divide are padded and sliced one by one.
    auto type = cast<RankedTensorType>(op.getType());
    Value block = op.getResult();
    SmallVector<SmallVector<AxisRefAttr>> axes;
    for (auto [d, dim] : llvm::enumerate(sharding.getDimShardings())) {
      axes.emplace_back(dim.getAxes());
      if (type.getDimSize(d) % productOf(dim.getAxes(), resolved->second) == 0)
        continue;
      block = sliceWhole(op.getLoc(), block, d, type.getDimSize(d),
                         dim.getAxes(), resolved->first, resolved->second);
      axes.back().clear();
    }
    block =
        sliceLocal(op.getLoc(), block, resolved->first, resolved->second, axes);
    for (OpOperand *use : uses)
      use->set(block);
  }
  return success();
}

LogicalResult Partitioner::retype(func::FuncOp func,
                                  ArrayRef<Operation *> ops) {
  // Each value is visited once. The results of ops without regions are
  // retyped at once; block arguments and the results of region ops wait
  // until all are visited (the data-flow edges of control flow, which give
  // block arguments their shardings, compare the types of its values).
  struct Update {
    Value value;
    Type local;
  };
  SmallVector<Update> deferred;
  // The local type of each (global type, sharding) pair, and whether it is
  // padded: a large function has few distinct pairs. (All values of `func`
  // resolve their meshes in the same symbol table.)
  struct Local {
    Type type;
    bool padded;
  };
  DenseMap<std::pair<Type, Attribute>, Local> locals;
  auto visit = [&](Value value, Operation *anchor, StringRef what) {
    TensorShardingAttr sharding = getSharding(value);
    if (!sharding)
      return success();
    Type global = value.getType();
    auto [it, inserted] = locals.try_emplace({global, sharding});
    if (inserted) {
      bool padded = false;
      auto local = getLocalType(global, sharding, anchor, what, &padded);
      if (failed(local))
        return failure();
      it->second = {*local, padded};
    }
    auto [local, padded] = it->second;
    if (local == global)
      return success();
    if (padded || (isa<OpResult>(value) && isGlobalCollective(anchor)))
      globals.try_emplace(value, GlobalView{global, sharding, padded});
    if (isa<BlockArgument>(value) || anchor->getNumRegions() != 0)
      deferred.push_back({value, local});
    else
      value.setType(local);
    return success();
  };
  for (BlockArgument arg : func.getArguments())
    if (failed(visit(arg, func, "argument")))
      return failure();
  for (auto [i, op] : llvm::enumerate(ops)) {
    prefetchOp(ops, i + 2);
    for (OpResult result : op->getResults())
      if (failed(visit(result, op, "result")))
        return failure();
    if (op->getNumRegions() == 0 || isa<linalg::LinalgOp>(op))
      continue;
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (failed(visit(arg, op, "region argument")))
            return failure();
  }
  for (Update &update : deferred)
    update.value.setType(update.local);
  return success();
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

LogicalResult Partitioner::cutPaddedReductions(linalg::LinalgOp op) {
  // Most ops have no padded operand.
  if (llvm::none_of(op->getOperands(),
                    [&](Value value) { return globals.lookup(value).padded; }))
    return success();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  // Per padded reduction dimension: the number of valid elements in this
  // device's block, min(block, max(0, size - index * block)).
  DenseMap<int64_t, Value> valid;
  for (OpOperand *operand : op.getDpsInputOperands()) {
    auto view = globals.lookup(operand->get());
    auto global = dyn_cast_or_null<RankedTensorType>(view.type);
    if (!global || !view.sharding)
      continue;
    AffineMap map = op.getMatchingIndexingMap(operand);
    for (auto [d, expr] : llvm::enumerate(map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim ||
          iterators[dim.getPosition()] != utils::IteratorType::reduction ||
          valid.count(dim.getPosition()))
        continue;
      int64_t size = global.getDimSize(d);
      ArrayRef<AxisRefAttr> axes = view.sharding.getDimSharding(d).getAxes();
      auto resolved = resolve(view.sharding, op);
      if (failed(resolved))
        return failure();
      int64_t parts = productOf(axes, resolved->second);
      if (ShapedType::isDynamic(size) || size % parts == 0)
        continue;
      Location loc = op.getLoc();
      int64_t block = llvm::divideCeil(size, parts);
      rewriter.setInsertionPoint(op);
      Value offset =
          offsetOf(loc, resolved->first, resolved->second, axes, block);
      Value rest = arith::SubIOp::create(
          rewriter, loc, arith::ConstantIndexOp::create(rewriter, loc, size),
          offset);
      rest = arith::MaxSIOp::create(
          rewriter, loc, rest,
          arith::ConstantIndexOp::create(rewriter, loc, 0));
      valid[dim.getPosition()] = arith::MinSIOp::create(
          rewriter, loc, rest,
          arith::ConstantIndexOp::create(rewriter, loc, block));
    }
  }
  if (valid.empty())
    return success();
  for (OpOperand *operand : op.getDpsInputOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand->get().getType());
    if (!type)
      continue;
    AffineMap map = op.getMatchingIndexingMap(operand);
    SmallVector<int64_t> shape(type.getShape());
    SmallVector<OpFoldResult> offsets, sizes, strides;
    bool cut = false;
    for (int64_t d = 0; d < map.getNumResults(); ++d) {
      AffineExpr expr = map.getResult(d);
      offsets.push_back(rewriter.getIndexAttr(0));
      strides.push_back(rewriter.getIndexAttr(1));
      sizes.push_back(rewriter.getIndexAttr(shape[d]));
      if (ShapedType::isDynamic(shape[d]))
        sizes.back() =
            tensor::DimOp::create(rewriter, op.getLoc(), operand->get(), d)
                .getResult();
      bool padded = llvm::any_of(valid, [&](const auto &entry) {
        return expr.isFunctionOfDim(entry.first);
      });
      if (!padded)
        continue;
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim)
        return op->emitOpError("reduces over a padded dimension through an "
                               "index expression, which spmd-partition does "
                               "not support");
      sizes.back() = valid.lookup(dim.getPosition());
      shape[d] = ShapedType::kDynamic;
      cut = true;
    }
    if (!cut)
      continue;
    operand->set(tensor::ExtractSliceOp::create(
        rewriter, op.getLoc(), type.clone(shape), operand->get(), offsets,
        sizes, strides));
  }
  return success();
}

LogicalResult Partitioner::fixShapeOps(Operation *op) {
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    auto attr = dyn_cast<DenseElementsAttr>(constant.getValue());
    if (!attr || attr.getType() == constant.getType())
      return success();
    if (!attr.isSplat())
      return op->emitOpError("has a sharded non-splat value that was not "
                             "sliced");
    constant.setValueAttr(
        attr.resizeSplat(cast<ShapedType>(constant.getType())));
    return success();
  }
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
    auto type = expand.getResultType();
    if (!type.hasStaticShape())
      return success();
    expand.setStaticOutputShape(type.getShape());
    return success();
  }
  auto fixSizes = [&](auto sliceOp, RankedTensorType full,
                      RankedTensorType block,
                      ArrayRef<int64_t> oldSizes) -> LogicalResult {
    // Non-rank-reducing slices: a dimension taken whole is the one that may
    // be sharded.
    if (full.getRank() != block.getRank())
      return success();
    SmallVector<int64_t> sizes(oldSizes);
    bool changed = false;
    for (int64_t d = 0; d < full.getRank(); ++d) {
      if (ShapedType::isDynamic(sizes[d]) || sizes[d] == block.getDimSize(d))
        continue;
      sizes[d] = block.getDimSize(d);
      changed = true;
    }
    if (changed)
      sliceOp.setStaticSizes(sizes);
    return success();
  };
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
    return fixSizes(slice, slice.getSourceType(), slice.getResultType(),
                    slice.getStaticSizes());
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(op))
    return fixSizes(insert, insert.getDestType(), insert.getSourceType(),
                    insert.getStaticSizes());
  return success();
}

/// The first block of `op`'s first region, if any.
static Block *firstBlock(Operation *op) {
  if (op->getNumRegions() == 0 || op->getRegion(0).empty())
    return nullptr;
  return &op->getRegion(0).front();
}

LogicalResult Partitioner::fixLinalgIndices(linalg::LinalgOp op) {
  // Bodies are separate allocations, rarely in cache in a large module: the
  // body of a named op is scanned once per name.
  bool *readsIndex = nullptr;
  if (op.getRegionBuilder()) {
    auto [it, inserted] = namedBodyReadsIndex.try_emplace(op->getName(), false);
    if (!inserted && !it->second)
      return success();
    readsIndex = &it->second;
  }
  // (Most bodies are a few ops without regions: they are scanned directly.)
  SmallVector<linalg::IndexOp> indices;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (Operation &nested : block) {
        if (auto index = dyn_cast<linalg::IndexOp>(nested))
          indices.push_back(index);
        else if (nested.getNumRegions() != 0)
          nested.walk([&](linalg::IndexOp index) { indices.push_back(index); });
      }
  if (readsIndex)
    *readsIndex = !indices.empty();
  if (indices.empty())
    return success();
  // The sharding of each loop dimension, from an operand or result that
  // indexes it directly.
  int64_t numLoops = op.getNumLoops();
  SmallVector<SmallVector<AxisRefAttr>> loopAxes(numLoops);
  SmallVector<int64_t> loopBlock(numLoops, 0);
  FlatSymbolRefAttr meshRef;
  MeshAttr loopMesh;
  for (OpOperand &operand : op->getOpOperands()) {
    Value value = operand.get();
    if (op.isDpsInit(&operand))
      value = op.getTiedOpResult(&operand);
    TensorShardingAttr sharding = shardingOf(value);
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!sharding || !type)
      continue;
    auto resolved = resolve(sharding, op);
    if (failed(resolved))
      return failure();
    meshRef = resolved->first;
    loopMesh = resolved->second;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (auto [d, expr] : llvm::enumerate(map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim || d >= static_cast<size_t>(sharding.getRank()))
        continue;
      ArrayRef<AxisRefAttr> axes = sharding.getDimSharding(d).getAxes();
      if (axes.empty() || !loopAxes[dim.getPosition()].empty())
        continue;
      loopAxes[dim.getPosition()].assign(axes.begin(), axes.end());
      loopBlock[dim.getPosition()] = type.getDimSize(d);
    }
  }
  for (linalg::IndexOp index : indices) {
    int64_t dim = index.getDim();
    if (loopAxes[dim].empty())
      continue;
    if (ShapedType::isDynamic(loopBlock[dim]))
      return index.emitOpError("reads the index of a sharded dynamic "
                               "dimension, which spmd-partition does not "
                               "support");
    // The offset is computed before the op (it is the same for the whole
    // block) and added to the index inside the body.
    rewriter.setInsertionPoint(op);
    Value offset = offsetOf(index.getLoc(), meshRef, loopMesh, loopAxes[dim],
                            loopBlock[dim]);
    rewriter.setInsertionPointAfter(index);
    auto sum = arith::AddIOp::create(rewriter, index.getLoc(), index, offset);
    index.getResult().replaceAllUsesExcept(sum, sum);
  }
  return success();
}

void Partitioner::stripShardings(func::FuncOp func) {
  auto strip = [&](ArrayRef<DictionaryAttr> old) {
    SmallVector<DictionaryAttr> dicts;
    for (DictionaryAttr dict : old) {
      NamedAttrList attrs(dict ? dict : DictionaryAttr::get(ctx));
      attrs.erase(SpmdDialect::kShardingAttrName);
      dicts.push_back(attrs.getDictionary(ctx));
    }
    return dicts;
  };
  SmallVector<DictionaryAttr> args, results;
  func.getAllArgAttrs(args);
  func.getAllResultAttrs(results);
  func.setAllArgAttrs(strip(args));
  func.setAllResultAttrs(strip(results));
}

void Partitioner::recordInterface(func::FuncOp func,
                                  ArrayRef<TensorShardingAttr> argShardings,
                                  ArrayRef<TensorShardingAttr> resultShardings,
                                  ArrayRef<Type> argTypes,
                                  ArrayRef<Type> resultTypes) {
  // A replicated sharding stands for an unannotated tensor.
  Attribute meshRef;
  for (TensorShardingAttr sharding : argShardings)
    if (sharding && !meshRef)
      meshRef = sharding.getMeshOrRef();
  for (TensorShardingAttr sharding : resultShardings)
    if (sharding && !meshRef)
      meshRef = sharding.getMeshOrRef();
  if (!meshRef)
    return stripShardings(func);
  auto complete = [&](ArrayRef<TensorShardingAttr> shardings,
                      ArrayRef<Type> types) {
    SmallVector<TensorShardingAttr> all;
    for (auto [sharding, type] : llvm::zip(shardings, types)) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      all.push_back(
          sharding ? sharding
                   : TensorShardingAttr::getReplicated(
                         ctx, meshRef, tensor ? tensor.getRank() : 0, true));
    }
    return TensorShardingPerValueAttr::get(ctx, all);
  };
  func->setAttr(kPerDeviceAttrName,
                ArrayAttr::get(ctx, {complete(argShardings, argTypes),
                                     complete(resultShardings, resultTypes)}));
  // One update of each attribute array (per-argument updates would rebuild
  // the array once per argument).
  // Many arguments have the same attributes, type and sharding: each new
  // dictionary is built once.
  DenseMap<std::tuple<Attribute, Type, Attribute>, DictionaryAttr> rebuilt;
  auto rebuild = [&](ArrayRef<DictionaryAttr> old, ArrayRef<Type> types,
                     ArrayRef<TensorShardingAttr> shardings) {
    SmallVector<DictionaryAttr> dicts;
    for (auto [i, type] : llvm::enumerate(types)) {
      DictionaryAttr before =
          i < old.size() && old[i] ? old[i] : DictionaryAttr::get(ctx);
      auto [it, inserted] =
          rebuilt.try_emplace(std::make_tuple(before, type, shardings[i]));
      if (inserted) {
        NamedAttrList attrs(before);
        attrs.erase(SpmdDialect::kShardingAttrName);
        attrs.set(kGlobalTypeAttrName, TypeAttr::get(type));
        if (shardings[i])
          attrs.set(kGlobalShardingAttrName, shardings[i]);
        it->second = attrs.getDictionary(ctx);
      }
      dicts.push_back(it->second);
    }
    return dicts;
  };
  SmallVector<DictionaryAttr> oldArgs, oldResults;
  func.getAllArgAttrs(oldArgs);
  func.getAllResultAttrs(oldResults);
  func.setAllArgAttrs(rebuild(oldArgs, argTypes, argShardings));
  func.setAllResultAttrs(rebuild(oldResults, resultTypes, resultShardings));
}

LogicalResult Partitioner::run() {
  // Only func.func bodies are partitioned: sharded code anywhere else would
  // stay global.
  for (Operation &top : module.getBody()->getOperations()) {
    if (isa<func::FuncOp, MeshOp>(top))
      continue;
    WalkResult outside = top.walk([&](Operation *op) {
      if (isa<MeshOp>(op) || (!isa_and_nonnull<SpmdDialect>(op->getDialect()) &&
                              !op->hasAttr(SpmdDialect::kShardingAttrName)))
        return WalkResult::advance();
      op->emitOpError("is outside a func.func: spmd-partition partitions "
                      "func.func bodies only");
      return WalkResult::interrupt();
    });
    if (outside.wasInterrupted())
      return failure();
  }
  SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
  for (func::FuncOp func : funcs) {
    if (func.isExternal())
      continue;
    // The global interface, before anything changes.
    SmallVector<TensorShardingAttr> argShardings, resultShardings;
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      argShardings.push_back(getSharding(func.getArgument(i)));
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      resultShardings.push_back(getFuncResultSharding(func, i));
    SmallVector<Type> argTypes(func.getArgumentTypes());
    SmallVector<Type> resultTypes(func.getResultTypes());

    // The ops the steps before retyping need, in one walk.
    SmallVector<ManualComputationOp> manuals;
    SmallVector<arith::ConstantOp> constants;
    SmallVector<Operation *> collectives;
    // Every op of the function outside linalg bodies, in pre-order.
    SmallVector<Operation *> ops;
    WalkResult leftovers =
        walkTensorOps(func, WalkOrder::PreOrder, [&](Operation *op) {
          ops.push_back(op);
          // Everything must have been resharded and lowered to
          // collectives.
          if (isa<ReshardOp, ShardingConstraintOp, PropagationBarrierOp>(op)) {
            op->emitOpError("must be removed before spmd-partition (run "
                            "spmd-insert-reshards and "
                            "spmd-reshard-to-collectives first)");
            return WalkResult::interrupt();
          }
          if (isa<AutoAxesOp, ExplicitAxesOp>(op)) {
            op->emitOpError("is not supported by spmd-partition");
            return WalkResult::interrupt();
          }
          if (auto manual = dyn_cast<ManualComputationOp>(op))
            manuals.push_back(manual);
          else if (auto constant = dyn_cast<arith::ConstantOp>(op))
            constants.push_back(constant);
          else if (isGlobalCollective(op))
            collectives.push_back(op);
          return WalkResult::advance();
        });
    if (leftovers.wasInterrupted())
      return failure();
    if (failed(inlineManualComputations(manuals, collectives)))
      return failure();
    // Manual computations (parents of resolved ops) are gone.
    meshes.clear();
    bool changed = !manuals.empty();
    if (failed(materializeConstants(constants, changed)))
      return failure();
    if (changed) {
      ops.clear();
      walkTensorOps(func, WalkOrder::PreOrder, [&](Operation *op) {
        ops.push_back(op);
        return WalkResult::advance();
      });
    }
    if (failed(retype(func, ops)))
      return failure();
    // The ops that stay (lowered collectives are replaced) are moved to the
    // front of `ops`.
    size_t numKept = 0;
    for (size_t i = 0, e = ops.size(); i < e; ++i) {
      Operation *op = ops[i];
      // The ops ahead are loaded while this one is processed (with their
      // operands), and so are the bodies fixLinalgIndices scans, in stages:
      // each of a body's block, first op and second op is known only once
      // the one before it is loaded. (Processing an op erases no other op.)
      prefetchOp(ops, i + 6);
      if (i + 4 < e) {
        // (An op's operands follow its properties and regions.)
        const char *at = reinterpret_cast<const char *>(ops[i + 4]);
        __builtin_prefetch(at + 128);
        __builtin_prefetch(at + 192);
        if (Block *body = firstBlock(ops[i + 4]))
          __builtin_prefetch(body);
      }
      if (i + 2 < e)
        if (Block *body = firstBlock(ops[i + 2]); body && !body->empty())
          prefetchOp(&body->front());
      if (i + 1 < e)
        if (Block *body = firstBlock(ops[i + 1]); body && !body->empty())
          if (Operation *second = body->front().getNextNode())
            prefetchOp(second);
      if (isGlobalCollective(op)) {
        if (failed(lowerCollective(op)))
          return failure();
        continue;
      }
      ops[numKept++] = op;
      if (failed(fixShapeOps(op)))
        return failure();
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
        if (failed(fixLinalgIndices(linalgOp)) ||
            failed(cutPaddedReductions(linalgOp)))
          return failure();
    }
    recordInterface(func, argShardings, resultShardings, argTypes, resultTypes);
    func.setFunctionType(FunctionType::get(
        ctx, func.getBody().front().getArgumentTypes(),
        func.getBody().front().getTerminator()->getOperandTypes()));
    // The function is local now: the shardings that described the global
    // view go (the function keeps its own as spmd.global_sharding).
    for (size_t i = 0; i < numKept; ++i) {
      prefetchOp(ArrayRef(ops).take_front(numKept), i + 2);
      stripGlobalView(ops[i]);
    }
  }
  // Other ops outside these functions, and external functions.
  for (Operation &op : module.getOps()) {
    auto func = dyn_cast<func::FuncOp>(op);
    if (func && !func.isExternal())
      continue;
    walkTensorOps(&op, WalkOrder::PostOrder, [&](Operation *nested) {
      stripGlobalView(nested);
      return WalkResult::advance();
    });
    stripGlobalView(&op);
    if (func)
      stripShardings(func);
  }
  return success();
}

struct SpmdPartitionPass
    : public impl::SpmdPartitionPassBase<SpmdPartitionPass> {
  void runOnOperation() override {
    Partitioner partitioner(getOperation());
    if (failed(partitioner.run()))
      signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tessera::spmd
