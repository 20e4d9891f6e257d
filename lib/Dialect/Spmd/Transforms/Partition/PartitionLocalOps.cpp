//===- PartitionLocalOps.cpp - local types and local ops --------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// spmd-partition's local types (PartitionState, GlobalToLocalTypeConverter)
// and the local form of every op but the collectives: the one an op's
// PartitionOpInterface builds, or the op with its local types in place (and
// its regions' tensor arguments).
//
//===----------------------------------------------------------------------===//

#include "GlobalToLocal.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::tessera::spmd::detail {

int64_t productOf(ArrayRef<AxisRefAttr> axes, MeshAttr mesh) {
  int64_t size = 1;
  for (AxisRefAttr axis : axes)
    size *= axis.getSize(mesh);
  return size;
}

//===----------------------------------------------------------------------===//
// PartitionState
//===----------------------------------------------------------------------===//

TensorShardingAttr PartitionState::getSharding(Value value) {
  // Block arguments were recorded before their blocks changed.
  if (isa<BlockArgument>(value))
    return blockArguments.lookup(value).first;
  // Values that replaced global-view values carry no attribute.
  if (!replacedShardings.empty())
    if (TensorShardingAttr sharding = replacedShardings.lookup(value))
      return sharding;
  return spmd::getSharding(value);
}

void PartitionState::recordBlockArgument(BlockArgument arg) {
  if (TensorShardingAttr sharding = spmd::getSharding(arg))
    blockArguments[arg] = {sharding, arg.getOwner()->getParentOp()};
}

Type PartitionState::getGlobalType(Value value) {
  if (Type global = paddedGlobalTypes.lookup(value))
    return global;
  auto tensor = dyn_cast<RankedTensorType>(value.getType());
  TensorShardingAttr sharding = getSharding(value);
  if (!tensor || !sharding)
    return value.getType();
  // The local type of an unpadded value times its parts is its global one.
  MeshAttr mesh = meshes.get(sharding, value.getParentRegion()->getParentOp());
  if (!mesh || sharding.getRank() != tensor.getRank())
    return value.getType();
  SmallVector<int64_t> shape(tensor.getShape());
  for (int64_t d = 0; d < tensor.getRank(); ++d)
    if (!ShapedType::isDynamic(shape[d]))
      shape[d] *= productOf(sharding.getDimSharding(d).getAxes(), mesh);
  return tensor.clone(shape);
}

FailureOr<std::pair<FlatSymbolRefAttr, MeshAttr>>
PartitionState::resolveMesh(TensorShardingAttr sharding, Operation *op) {
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

FailureOr<std::pair<Type, bool>>
PartitionState::getLocalType(Type type, TensorShardingAttr sharding,
                             Operation *op, StringRef what) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !sharding)
    return std::make_pair(type, false);
  auto it = locals.find({type, sharding});
  if (it != locals.end())
    return std::make_pair(it->second.type, it->second.padded);
  auto resolved = resolveMesh(sharding, op);
  if (failed(resolved))
    return failure();
  MeshAttr mesh = resolved->second;
  // Every device holds a value on a maximal (single-device) mesh whole
  // (spmd-insert-reshards).
  if (mesh.isMaximal() || mesh.empty())
    return std::make_pair(type, false);
  if (sharding.getRank() != tensor.getRank())
    return op->emitOpError()
           << what << " has a sharding of rank " << sharding.getRank()
           << " for a tensor of rank " << tensor.getRank();
  SmallVector<int64_t> shape(tensor.getShape());
  bool padded = false;
  for (int64_t d = 0; d < tensor.getRank(); ++d) {
    int64_t parts = productOf(sharding.getDimSharding(d).getAxes(), mesh);
    // A dynamic dimension stays dynamic: its local size is known when the
    // program runs (the runtime checks that it divides).
    if (parts == 1 || ShapedType::isDynamic(shape[d]))
      continue;
    // A dimension the axes do not divide is padded at the end: every
    // device holds ceil(n / parts) elements, the last ones past n unused.
    padded |= shape[d] % parts != 0;
    shape[d] = llvm::divideCeil(shape[d], parts);
  }
  Type local = tensor.clone(shape);
  locals[{type, sharding}] = {local, padded};
  return std::make_pair(local, padded);
}

Type PartitionState::getLocalType(Value value) {
  Operation *anchor;
  StringRef what;
  if (isa<BlockArgument>(value)) {
    anchor = blockArguments.lookup(value).second;
    if (!anchor)
      return value.getType();
    what = isa<FunctionOpInterface>(anchor) ? "argument" : "region argument";
  } else {
    anchor = value.getDefiningOp();
    what = "result";
  }
  FailureOr<std::pair<Type, bool>> local =
      getLocalType(value.getType(), getSharding(value), anchor, what);
  if (failed(local))
    return Type();
  if (local->second)
    paddedGlobalTypes[value] = value.getType();
  return local->first;
}

void PartitionState::replaced(Value global, Value local) {
  if (TensorShardingAttr sharding = getSharding(global))
    replacedShardings[local] = sharding;
  if (Type type = paddedGlobalTypes.lookup(global))
    paddedGlobalTypes[local] = type;
}

bool PartitionState::isPadded(Value value) {
  return paddedGlobalTypes.count(value);
}

GlobalToLocalTypeConverter::GlobalToLocalTypeConverter(PartitionState &state)
    : state(state) {
  addConversion([](Type type) { return type; });
  addConversion([this](Value value) -> std::optional<Type> {
    if (!isa<RankedTensorType>(value.getType()))
      return std::nullopt;
    return getLocalType(value);
  });
}

Type GlobalToLocalTypeConverter::getLocalType(Value value) const {
  if (!isa<RankedTensorType>(value.getType()))
    return value.getType();
  return state.getLocalType(value);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// The local types of `op`'s results, or failure after a diagnostic.
static FailureOr<SmallVector<Type>>
getLocalResultTypes(Operation *op,
                    const GlobalToLocalTypeConverter &converter) {
  SmallVector<Type> types;
  for (OpResult result : op->getResults()) {
    Type local = converter.getLocalType(result);
    if (!local)
      return failure();
    types.push_back(local);
  }
  return types;
}

LogicalResult partitionLocalForm(PartitionOpInterface op,
                                 const GlobalToLocalTypeConverter &converter,
                                 PartitionState &state,
                                 PatternRewriter &rewriter) {
  FailureOr<SmallVector<Type>> types = getLocalResultTypes(op, converter);
  if (failed(types))
    return failure();
  rewriter.setInsertionPoint(op);
  FailureOr<SmallVector<Value>> values = op.partition(state, rewriter, *types);
  if (failed(values))
    return failure();
  if (llvm::equal(*values, op->getResults()))
    return success();
  for (auto [result, value] : llvm::zip_equal(op->getResults(), *values))
    state.replaced(result, value);
  rewriter.replaceOp(op, *values);
  return success();
}

LogicalResult setLocalTypes(Operation *op,
                            const GlobalToLocalTypeConverter &converter) {
  // Results first, then the tensor arguments of regions (control flow);
  // nothing changes before every type is known.
  SmallVector<std::pair<Value, Type>> updates;
  auto visit = [&](Value value) {
    if (!isa<RankedTensorType>(value.getType()))
      return success();
    Type local = converter.getLocalType(value);
    if (!local)
      return failure();
    if (local != value.getType())
      updates.emplace_back(value, local);
    return success();
  };
  for (OpResult result : op->getResults())
    if (failed(visit(result)))
      return failure();
  if (op->getNumRegions() != 0 && !isa<linalg::LinalgOp>(op))
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (failed(visit(arg)))
            return failure();
  for (auto [value, type] : updates)
    value.setType(type);
  return success();
}

} // namespace mlir::tessera::spmd::detail
