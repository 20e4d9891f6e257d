//===- SpmdVerifiers.cpp - verification of shardings in context -----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/SpmdVerifiers.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

EmitErrorFn mlir::tessera::spmd::getEmitErrorFn(Operation *op) {
  return [op](StringRef msg) { return op->emitOpError(msg); };
}

EmitErrorFn mlir::tessera::spmd::getEmitValueInRangeErrorFn(
    EmitErrorFn emitError, int64_t numValues, int64_t index) {
  return [=](StringRef msg) {
    if (numValues == 1)
      return emitError("- ") << msg;
    return emitError("") << index << " - " << msg;
  };
}

ManualAxisToOwner mlir::tessera::spmd::getParentManualAxes(Operation *op) {
  ManualAxisToOwner result;
  for (Operation *parent = op ? op->getParentOp() : nullptr; parent;
       parent = parent->getParentOp()) {
    auto manualAxes = parent->getAttrOfType<ManualAxesAttr>("manual_axes");
    if (!manualAxes)
      continue;
    for (StringAttr axis : manualAxes.getValue())
      result.try_emplace(axis.getValue(), parent);
  }
  return result;
}

LogicalResult mlir::tessera::spmd::verifyAxisRefList(
    ArrayRef<AxisRefAttr> axes, MeshAttr mesh, EmitErrorFn emitError,
    SmallVectorImpl<AxisRefAttr> &seen, bool minorPreSizes) {
  // Sub-axis sizes are checked later, over every list of the sharding (see
  // verifySubAxes), as Shardy does.
  AxisRefAttr prev;
  for (AxisRefAttr ref : axes) {
    if (!mesh.hasAxis(ref.getName()))
      return emitError("unknown axis name: \"") << ref.getName() << "\"";
    if (llvm::is_contained(seen, ref))
      return emitError("duplicate axis ref: ") << ref.toString();
    if (ref.getSubAxisInfo() && prev &&
        (minorPreSizes ? ref.canMerge(prev) : prev.canMerge(ref)))
      return emitError("two consecutive sub-axes can be merged: ")
             << prev.toString() << ", " << ref.toString();
    seen.push_back(ref);
    prev = ref;
  }
  return success();
}

LogicalResult mlir::tessera::spmd::verifySubAxes(ArrayRef<AxisRefAttr> allAxes,
                                                 MeshAttr mesh,
                                                 EmitErrorFn emitError) {
  // Group by axis name, in mesh order so that the message is deterministic;
  // within a name, sub-axes in mesh order.
  SmallVector<AxisRefAttr> sorted(allAxes);
  llvm::sort(sorted, [&](AxisRefAttr a, AxisRefAttr b) {
    return AxisRefAttr::lessInMesh(mesh, a, b);
  });
  for (size_t i = 0; i < sorted.size();) {
    size_t j = i;
    while (j < sorted.size() && sorted[j].getName() == sorted[i].getName())
      ++j;
    ArrayRef<AxisRefAttr> group = ArrayRef(sorted).slice(i, j - i);
    i = j;
    SmallVector<AxisRefAttr> subAxes = llvm::to_vector(llvm::make_filter_range(
        group, [](AxisRefAttr ref) { return bool(ref.getSubAxisInfo()); }));
    if (subAxes.empty())
      continue;
    StringRef name = group.front().getName();
    if (subAxes.size() != group.size())
      return emitError("both sub-axis and full-axis are used for axis name: "
                       "\"")
             << name << "\"";
    int64_t axisSize = mesh.getAxisSize(name);
    AxisRefAttr prev;
    for (AxisRefAttr ref : subAxes) {
      SubAxisInfoAttr info = ref.getSubAxisInfo();
      if (info.getPreSize() < 1)
        return emitError("sub-axis pre-size must be at least 1: ")
               << ref.toString();
      if (info.getSize() <= 1)
        return emitError("sub-axis sizes must be greater than 1: ")
               << ref.toString();
      if (axisSize % info.getNextPreSize() != 0)
        return emitError("sub-axis next pre-size ")
               << info.getNextPreSize()
               << " doesn't divide the size of the full axis " << axisSize
               << ": " << ref.toString();
      if (info.getSize() == axisSize)
        return emitError("sub-axis size is equal to the full axis size: ")
               << ref.toString();
      if (prev && prev.getSubAxisInfo().getNextPreSize() > info.getPreSize())
        return emitError("overlapping sub-axes: ")
               << prev.toString() << ", " << ref.toString();
      prev = ref;
    }
  }
  return success();
}

LogicalResult mlir::tessera::spmd::verifyTensorSharding(
    TensorShardingAttr sharding, Type type, MeshAttr mesh,
    EmitErrorFn emitError, bool checkDivisibility,
    const ManualAxisToOwner &manualAxes) {
  auto hasOnlyRankZero = [&] {
    return sharding.getRank() == 0 && sharding.getReplicatedAxes().empty() &&
           sharding.getUnreducedAxes().empty() &&
           sharding.getReducedAxes().empty();
  };
  if (mesh.isMaximal() || (!type && sharding.isFullyReplicated())) {
    if (!hasOnlyRankZero())
      return emitError("a maximal sharding can only have a sharding with "
                       "rank 0 and no replicated or unreduced axes.");
    return success();
  }
  auto shapedType = dyn_cast_or_null<ShapedType>(type);
  if (auto tupleType = dyn_cast_or_null<TupleType>(type)) {
    if (tupleType.size() != 1)
      return emitError("ops can only have a sharding for a tuple of size 1: ")
             << tupleType;
    shapedType = dyn_cast<ShapedType>(tupleType.getType(0));
  }
  if (!shapedType) {
    if (!hasOnlyRankZero()) {
      InFlightDiagnostic diag =
          emitError("non-shaped tensors can only have a sharding with rank 0 "
                    "and no replicated or unreduced axes.");
      if (type)
        diag << " type: " << type << ", sharding: " << sharding;
      return diag;
    }
    return success();
  }
  if (!shapedType.hasRank())
    return emitError("only ranked tensors can have a sharding. type: ") << type;
  if (sharding.getRank() != shapedType.getRank())
    return emitError("sharding doesn't match tensor rank: ")
           << sharding.getRank() << " != " << shapedType.getRank();

  SmallVector<AxisRefAttr> seen;
  for (auto [dim, dimSharding] : llvm::enumerate(sharding.getDimShardings())) {
    if (std::optional<int64_t> priority = dimSharding.getPriority()) {
      if (*priority < 0)
        return emitError("dim ") << dim << " has a negative priority";
      if (dimSharding.getIsClosed() && dimSharding.emptyAxes())
        return emitError("dim ")
               << dim << " is empty and closed but has a priority";
    }
    if (failed(verifyAxisRefList(dimSharding.getAxes(), mesh, emitError, seen)))
      return failure();
    int64_t dimSize = shapedType.getDimSize(dim);
    // Size-1 axes shard nothing (Shardy's size-0 tests use them).
    if (dimSize == 0 && dimSharding.getShardedSize(mesh) > 1)
      return emitError("dim ") << dim << " of size 0 cannot be sharded";
    if (checkDivisibility && !ShapedType::isDynamic(dimSize)) {
      int64_t shardedSize = dimSharding.getShardedSize(mesh);
      if (dimSize % shardedSize != 0)
        return emitError("dim ")
               << dim << " with size " << dimSize
               << " is not divisible by its sharded size " << shardedSize;
    }
  }

  // As Shardy does, the order is checked before the refs themselves.
  auto verifySorted = [&](ArrayRef<AxisRefAttr> refs,
                          StringRef kind) -> LogicalResult {
    if (!llvm::is_sorted(refs, [&](AxisRefAttr a, AxisRefAttr b) {
          return AxisRefAttr::lessInMesh(mesh, a, b);
        }))
      return emitError(kind) << " axes are not ordered w.r.t. mesh";
    return verifyAxisRefList(refs, mesh, emitError, seen);
  };
  if (failed(verifySorted(sharding.getReplicatedAxes(), "replicated")) ||
      failed(verifySorted(sharding.getUnreducedAxes(), "unreduced")) ||
      failed(verifySorted(sharding.getReducedAxes(), "reduced")))
    return failure();

  if (failed(verifySubAxes(seen, mesh, emitError)))
    return failure();

  for (AxisRefAttr ref : seen) {
    auto it = manualAxes.find(ref.getName());
    if (it == manualAxes.end())
      continue;
    InFlightDiagnostic diag =
        emitError("operates on axis \"")
        << ref.getName()
        << "\" which is already bound by a parent spmd.manual_computation op";
    diag.attachNote(it->second->getLoc())
        << "parent bounding this axis as manual";
    return diag;
  }
  return success();
}

LogicalResult mlir::tessera::spmd::verifyTensorSharding(
    TensorShardingAttr sharding, Type type, MeshAttr mesh,
    EmitErrorFn emitError, bool checkDivisibility) {
  return verifyTensorSharding(sharding, type, mesh, emitError,
                              checkDivisibility, ManualAxisToOwner());
}

LogicalResult mlir::tessera::spmd::verifyTensorSharding(
    TensorShardingAttr sharding, Type type, Operation *op,
    EmitErrorFn emitError, bool checkDivisibility,
    SymbolTableCollection *symbolTables) {
  MeshAttr mesh = sharding.getMesh(op, symbolTables);
  if (!mesh)
    return emitError("unknown mesh: ") << sharding.getMeshSymName();
  return verifyTensorSharding(sharding, type, mesh, emitError,
                              checkDivisibility, getParentManualAxes(op));
}

bool mlir::tessera::spmd::needsMeshLookup(TensorShardingAttr sharding) {
  return sharding && !sharding.getInlinedMesh();
}

LogicalResult mlir::tessera::spmd::verifyTensorShardingPerValue(
    TensorShardingPerValueAttr attr, TypeRange types, Operation *op,
    EmitErrorFn emitError, StringRef valueKind,
    SymbolTableCollection *symbolTables) {
  ArrayRef<TensorShardingAttr> shardings = attr.getShardings();
  // An op without results (e.g. one with side effects) may still say where
  // it runs: a single maximal or fully replicated sharding.
  if (types.empty() && shardings.size() == 1) {
    TensorShardingAttr sharding = shardings.front();
    MeshAttr mesh = sharding.getMesh(op, symbolTables);
    if ((mesh && mesh.isMaximal()) || sharding.isFullyReplicated()) {
      if (!mesh)
        return emitError(valueKind)
               << " - unknown mesh: " << sharding.getMeshSymName();
      return verifyTensorSharding(
          sharding, Type(), mesh,
          [&, valueKind](StringRef msg) {
            return emitError(valueKind) << " - " << msg;
          },
          /*checkDivisibility=*/false, getParentManualAxes(op));
    }
  }
  if (shardings.size() != types.size())
    return emitError(valueKind)
           << " shardings don't match number of values: " << shardings.size()
           << " shardings vs " << types.size() << " values";
  MeshAttr commonMesh;
  for (auto [i, entry] : llvm::enumerate(llvm::zip(shardings, types))) {
    auto [sharding, type] = entry;
    EmitErrorFn valueError = getEmitValueInRangeErrorFn(
        [&, valueKind](StringRef msg) {
          return emitError(valueKind) << " " << msg;
        },
        types.size(), i);
    if (failed(verifyTensorSharding(sharding, type, op, valueError,
                                    /*checkDivisibility=*/false, symbolTables)))
      return failure();
    MeshAttr mesh = sharding.getMesh(op, symbolTables);
    if (mesh.empty())
      continue;
    if (commonMesh && commonMesh != mesh)
      return emitError(valueKind) << " shardings can only be bound to the "
                                     "same mesh or an empty mesh.";
    commonMesh = mesh;
  }
  return success();
}

LogicalResult
mlir::tessera::spmd::verifyOneDeviceCount(Operation *symbolTableOp,
                                          bool inlinedMeshes) {
  MeshAttr first;
  Operation *firstOwner = nullptr;
  StringRef firstName;
  auto check = [&](MeshAttr mesh, Operation *owner,
                   StringRef name) -> LogicalResult {
    if (!mesh || mesh.empty() || mesh.isMaximal())
      return success();
    if (!first) {
      first = mesh;
      firstOwner = owner;
      firstName = name;
      return success();
    }
    if (mesh.getTotalSize() == first.getTotalSize())
      return success();
    InFlightDiagnostic diag = owner->emitOpError("has ")
                              << mesh.getTotalSize() << " devices but mesh ";
    if (firstName.empty())
      diag << first;
    else
      diag << "@" << firstName;
    diag << " has " << first.getTotalSize()
         << "; all non-maximal meshes of a module must have the same number "
            "of devices";
    diag.attachNote(firstOwner->getLoc()) << "mesh declared here";
    return diag;
  };
  if (!inlinedMeshes) {
    for (Region &region : symbolTableOp->getRegions())
      for (Block &block : region)
        for (auto meshOp : block.getOps<MeshOp>())
          if (failed(check(meshOp.getMesh(), meshOp, meshOp.getSymName())))
            return failure();
    return success();
  }
  WalkResult result = symbolTableOp->walk([&](Operation *op) {
    if (auto meshOp = dyn_cast<MeshOp>(op))
      return failed(check(meshOp.getMesh(), op, meshOp.getSymName()))
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    for (NamedAttribute attr : op->getAttrs()) {
      bool failedCheck = false;
      attr.getValue().walk([&](TensorShardingAttr sharding) {
        if (!failedCheck)
          failedCheck = failed(check(sharding.getInlinedMesh(), op, ""));
      });
      if (failedCheck)
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}
