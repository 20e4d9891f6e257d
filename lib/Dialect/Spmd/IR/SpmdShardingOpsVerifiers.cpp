//===- SpmdShardingOpsVerifiers.cpp - verifiers of the spmd sharding ops --===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Verifiers of sharding_constraint, reshard, manual_computation, auto_axes,
// explicit_axes, sharding_group, propagation_barrier and the global-view
// collectives. Messages follow Shardy's (and JAX's, for auto/explicit axes)
// wording so that users of those systems recognize them.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/CollectiveShardings.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"
#include "tessera/Dialect/Spmd/IR/SpmdVerifiers.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

/// Checks the unreduced axes from `source` (the input sharding, may be null)
/// to `target` on `mesh` (see spmd::verifyUnreducedAxesTransition).
static LogicalResult
verifyUnreducedChange(Operation *op, TensorShardingAttr source,
                      TensorShardingAttr target, MeshAttr mesh,
                      std::optional<ReductionKind> introducedKind,
                      std::optional<ReductionKind> removedKind) {
  std::string error;
  if (failed(verifyUnreducedAxesTransition(source, target, mesh,
                                           introducedKind, removedKind,
                                           &error)))
    return op->emitOpError(error);
  return success();
}

/// A reshard or sharding constraint to `target` may reduce any unreduced
/// axis of its operand's sharding and introduce new `sum`-unreduced axes; the
/// axes that stay unreduced keep their kind.
static LogicalResult verifyReshardUnreduced(Operation *op, Value input,
                                            TensorShardingAttr target,
                                            SymbolTableCollection *tables) {
  TensorShardingAttr source = getSharding(input);
  if (!source)
    return success();
  MeshAttr mesh = target.getMesh(op, tables);
  if (!mesh || mesh != getMesh(source, input, tables))
    return success();
  return verifyUnreducedChange(op, source, target, mesh, ReductionKind::Sum,
                               source.getUnreducedKind());
}

/// JAX's capitalized name of an axis type (`Explicit`, `Auto`, `Manual`).
static StringRef getJaxAxisTypeName(AxisType type) {
  switch (type) {
  case AxisType::Explicit:
    return "Explicit";
  case AxisType::Auto:
    return "Auto";
  case AxisType::Manual:
    return "Manual";
  }
  llvm_unreachable("unknown axis type");
}

//===----------------------------------------------------------------------===//
// ShardingConstraintOp / ReshardOp / PropagationBarrierOp
//===----------------------------------------------------------------------===//

LogicalResult
ShardingConstraintOp::verifyWithMeshes(SymbolTableCollection *symbolTables) {
  if (failed(verifyTensorSharding(getSharding(), getType(), getOperation(),
                                  getEmitErrorFn(getOperation()),
                                  /*checkDivisibility=*/false, symbolTables)))
    return failure();
  return verifyReshardUnreduced(getOperation(), getInput(), getSharding(),
                                symbolTables);
}

LogicalResult
ReshardOp::verifyWithMeshes(SymbolTableCollection *symbolTables) {
  if (failed(verifyTensorSharding(getSharding(), getType(), getOperation(),
                                  getEmitErrorFn(getOperation()),
                                  /*checkDivisibility=*/false, symbolTables)))
    return failure();
  return verifyReshardUnreduced(getOperation(), getInput(), getSharding(),
                                symbolTables);
}

LogicalResult PropagationBarrierOp::verify() {
  if (getAllowedDirection() == PropagationDirection::BOTH)
    return emitOpError("cannot specify `BOTH` as the direction. Not blocking "
                       "propagation direction makes the op redundant");
  return success();
}

//===----------------------------------------------------------------------===//
// ManualComputationOp
//===----------------------------------------------------------------------===//

/// Verifies the operands (or results) of a manual computation against its
/// region arguments (or returned values): counts, the order of manual and
/// free axes, no split manual axes, divisibility and local shapes.
static LogicalResult verifyManualComputationValues(
    ManualComputationOp op, TypeRange globalTypes, TypeRange localTypes,
    TensorShardingPerValueAttr shardings, StringRef valueKind,
    SymbolTableCollection *symbolTables) {
  if (globalTypes.size() != localTypes.size())
    return op.emitOpError("number of op ")
           << valueKind << "s and region " << valueKind
           << "s must match. Op has " << globalTypes.size() << " op "
           << valueKind << "s and " << localTypes.size() << " region "
           << valueKind << "s";

  ManualAxesAttr manualAxes = op.getManualAxes();
  auto isManual = [&](AxisRefAttr ref) {
    return manualAxes.contains(ref.getName());
  };
  for (auto [index, entry] : llvm::enumerate(llvm::zip_equal(
           globalTypes, localTypes, shardings.getShardings()))) {
    auto [globalType, localType, sharding] = entry;
    MeshAttr mesh = sharding.getMesh(op, symbolTables);
    if (mesh.isMaximal())
      return op.emitOpError(valueKind)
             << " sharding at index " << index
             << " is a maximal sharding, which is not supported by "
                "spmd.manual_computation";

    for (auto [dim, dimSharding] :
         llvm::enumerate(sharding.getDimShardings())) {
      ArrayRef<AxisRefAttr> axes = dimSharding.getAxes();
      const AxisRefAttr *firstFree = llvm::find_if_not(axes, isManual);
      const AxisRefAttr *manualAfterFree =
          std::find_if(firstFree, axes.end(), isManual);
      if (manualAfterFree != axes.end())
        return op.emitOpError(valueKind)
               << " sharding at index " << index
               << " must have all manual axes come before free axes in its "
                  "dimension sharding at index "
               << dim << ". Saw manual axis " << manualAfterFree->toString()
               << " after free axis " << (manualAfterFree - 1)->toString();
    }

    if (llvm::any_of(sharding.getAllAxisRefs(), [&](AxisRefAttr ref) {
          return ref.getSubAxisInfo() && isManual(ref);
        })) {
      InFlightDiagnostic diag = op.emitOpError(valueKind)
                                << " sharding at index " << index
                                << " cannot use a manual axis as a sub/split "
                                   "axis. Saw manual axes {";
      llvm::interleaveComma(manualAxes.getValue(), diag,
                            [&](StringAttr name) { diag << name.getValue(); });
      return diag << "} and sharding " << sharding;
    }

    // Values that are not tensors (tokens, say) have a rank-0 sharding and
    // pass through unchanged.
    auto globalTensor = dyn_cast<RankedTensorType>(globalType);
    if (!globalTensor) {
      if (globalType != localType)
        return op.emitOpError(valueKind)
               << " type and region " << valueKind << " type at index "
               << index << " must match for a value that is not a ranked "
               << "tensor: " << globalType << " vs " << localType;
      continue;
    }
    SmallVector<int64_t> localShape;
    for (auto [dimSize, dimSharding] :
         llvm::zip_equal(globalTensor.getShape(), sharding.getDimShardings())) {
      if (ShapedType::isDynamic(dimSize)) {
        localShape.push_back(ShapedType::kDynamic);
        continue;
      }
      int64_t manualSize = 1;
      for (AxisRefAttr ref : dimSharding.getAxes())
        if (isManual(ref) &&
            llvm::MulOverflow(manualSize, ref.getSize(mesh), manualSize))
          return op.emitOpError(valueKind)
                 << " dimension is sharded over manual axes whose sizes "
                    "overflow a 64-bit integer";
      if (dimSize % manualSize != 0)
        return op.emitOpError(valueKind)
               << " dimension size " << dimSize
               << " is not divisible by the manual axes size " << manualSize;
      localShape.push_back(dimSize / manualSize);
    }
    auto expectedLocalType =
        RankedTensorType::get(localShape, globalTensor.getElementType());
    if (expectedLocalType != localType)
      return op.emitOpError(valueKind)
             << " shape, corresponding sharding, and region " << valueKind
             << " shape at index " << index
             << " must match. Expected local shape " << expectedLocalType
             << ", actual local shape " << localType;
  }
  return success();
}

LogicalResult
ManualComputationOp::verifyWithMeshes(SymbolTableCollection *symbolTables) {
  Operation *op = getOperation();
  ManualAxisToOwner parentManualAxes = getParentManualAxes(op);
  llvm::SmallDenseSet<StringRef> seenAxes;
  for (StringAttr axis : getManualAxes().getValue()) {
    if (auto it = parentManualAxes.find(axis.getValue());
        it != parentManualAxes.end()) {
      InFlightDiagnostic diag = emitOpError("operates on axis \"")
                                << axis.getValue()
                                << "\" which is already bound by a parent "
                                   "spmd.manual_computation op";
      diag.attachNote(it->second->getLoc())
          << "parent bounding this axis as manual";
      return diag;
    }
    if (!seenAxes.insert(axis.getValue()).second)
      return emitOpError("duplicate manual axis: \"")
             << axis.getValue() << "\"";
  }

  ArrayRef<TensorShardingAttr> inShardings = getInShardings().getShardings();
  ArrayRef<TensorShardingAttr> outShardings = getOutShardings().getShardings();
  if (inShardings.empty() && outShardings.empty() &&
      !getManualAxes().getValue().empty())
    return emitOpError("cannot have manual_axes when there are no "
                       "input/output shardings");

  EmitErrorFn emitError = getEmitErrorFn(op);
  if (failed(verifyTensorShardingPerValue(getInShardings(), getOperandTypes(),
                                          op, emitError, "operand",
                                          symbolTables)) ||
      failed(verifyTensorShardingPerValue(getOutShardings(), getResultTypes(),
                                          op, emitError, "result",
                                          symbolTables)))
    return failure();

  // All shardings (in and out) use one mesh, or the empty mesh.
  MeshAttr commonMesh;
  for (TensorShardingAttr sharding :
       llvm::concat<const TensorShardingAttr>(inShardings, outShardings)) {
    MeshAttr mesh = sharding.getMesh(op, symbolTables);
    if (mesh.empty())
      continue;
    if (commonMesh && commonMesh != mesh)
      return emitOpError("all in and out shardings must be bound to the same "
                         "mesh or an empty mesh.");
    commonMesh = mesh;
  }
  for (StringAttr axis : getManualAxes().getValue())
    if (!commonMesh || !commonMesh.hasAxis(axis.getValue()))
      return emitOpError("unknown manual axis: \"") << axis.getValue() << "\"";

  Operation *terminator = getBody().front().getTerminator();
  return failure(failed(verifyManualComputationValues(
                     *this, getOperandTypes(), getBody().getArgumentTypes(),
                     getInShardings(), "operand", symbolTables)) ||
                 failed(verifyManualComputationValues(
                     *this, getResultTypes(), terminator->getOperandTypes(),
                     getOutShardings(), "result", symbolTables)));
}

//===----------------------------------------------------------------------===//
// AutoAxesOp / ExplicitAxesOp
//===----------------------------------------------------------------------===//

/// Verifies that the region arguments and returned values of an
/// auto_axes/explicit_axes op have exactly the operand and result types.
static LogicalResult verifyGlobalRegionTypes(Operation *op) {
  Block &body = op->getRegion(0).front();
  auto check = [&](TypeRange inner, TypeRange outer, StringRef innerName,
                   StringRef outerName) -> LogicalResult {
    if (inner.size() != outer.size())
      return op->emitOpError("number of ")
             << innerName << "s must match the number of " << outerName
             << "s: " << inner.size() << " != " << outer.size();
    for (auto [i, types] : llvm::enumerate(llvm::zip_equal(inner, outer))) {
      auto [innerType, outerType] = types;
      if (innerType != outerType)
        return op->emitOpError("expected the type of the ")
               << i << "'th " << innerName
               << " to match the type of the corresponding " << outerName
               << ": " << innerType << " vs " << outerType;
    }
    return success();
  };
  return failure(
      failed(check(body.getArgumentTypes(), op->getOperandTypes(),
                   "block argument", "operand")) ||
      failed(check(body.getTerminator()->getOperandTypes(),
                   op->getResultTypes(), "returned value", "result")));
}

/// Verifies an auto_axes (`isAuto`) or explicit_axes op: its region types,
/// its required shardings, the listed axes and the axis types the shardings
/// may use.
static LogicalResult verifyAxesRegionOp(Operation *op, ArrayAttr axes,
                                        TensorShardingPerValueAttr shardings,
                                        bool isAuto,
                                        SymbolTableCollection *symbolTables) {
  if (failed(verifyGlobalRegionTypes(op)))
    return failure();

  StringRef keyword = isAuto ? "out_shardings" : "in_shardings";
  StringRef valueKind = isAuto ? "result" : "operand";
  StringRef opName = op->getName().getStringRef();
  if (!shardings)
    return op->emitOpError("Missing required keyword argument: '")
           << keyword << "'";
  TypeRange types = isAuto ? TypeRange(op->getResultTypes())
                           : TypeRange(op->getOperandTypes());
  if (failed(verifyTensorShardingPerValue(shardings, types, op,
                                          getEmitErrorFn(op), valueKind,
                                          symbolTables)))
    return failure();

  MeshAttr mesh;
  for (TensorShardingAttr sharding : shardings.getShardings()) {
    MeshAttr shardingMesh = sharding.getMesh(op, symbolTables);
    if (!shardingMesh.empty() && !shardingMesh.isMaximal()) {
      mesh = shardingMesh;
      break;
    }
  }
  if (!mesh) {
    if (axes.empty())
      return success();
    return op->emitOpError("cannot have axes when there are no ")
           << keyword << " on a mesh with axes";
  }

  llvm::SmallDenseSet<StringRef> listed;
  for (Attribute attr : axes) {
    StringRef name = cast<StringAttr>(attr).getValue();
    if (!mesh.hasAxis(name))
      return op->emitOpError("unknown axis name: \"") << name << "\"";
    if (!listed.insert(name).second)
      return op->emitOpError("duplicate axis name: \"") << name << "\"";
    Operation *owner = nullptr;
    if (getAxisTypeAt(op, mesh, name, &owner) == AxisType::Manual) {
      InFlightDiagnostic diag =
          op->emitOpError("Going from `Manual` AxisType to `Auto` or "
                          "`Explicit` AxisType is not allowed (axis \"")
          << name << "\" is manual here)";
      if (owner)
        diag.attachNote(owner->getLoc())
            << "axis \"" << name << "\" made manual here";
      return diag;
    }
  }

  // Outside the op (auto_axes' out_shardings) or inside it (explicit_axes'
  // in_shardings), the shardings may only use explicit axes.
  MeshAttr typedMesh = getMeshWithAxisTypesAt(op, mesh);
  if (!isAuto)
    typedMesh =
        typedMesh.withAxisTypes(llvm::to_vector(listed), AxisType::Explicit);
  for (auto [index, sharding] : llvm::enumerate(shardings.getShardings())) {
    for (AxisRefAttr ref : sharding.getAllAxisRefs()) {
      AxisType type = typedMesh.getAxisType(ref.getName());
      if (type == AxisType::Explicit)
        continue;
      return op->emitOpError(keyword)
             << " passed to " << opName
             << " cannot contain axis names that are of type Auto or "
                "Manual. Got sharding "
             << sharding << " at index " << index << " with axis name: \""
             << ref.getName() << "\" of type: " << getJaxAxisTypeName(type);
    }
  }
  return success();
}

LogicalResult
AutoAxesOp::verifyWithMeshes(SymbolTableCollection *symbolTables) {
  return verifyAxesRegionOp(getOperation(), getAxes(), getOutShardingsAttr(),
                            /*isAuto=*/true, symbolTables);
}

LogicalResult
ExplicitAxesOp::verifyWithMeshes(SymbolTableCollection *symbolTables) {
  return verifyAxesRegionOp(getOperation(), getAxes(), getInShardingsAttr(),
                            /*isAuto=*/false, symbolTables);
}

//===----------------------------------------------------------------------===//
// ShardingGroupOp
//===----------------------------------------------------------------------===//

LogicalResult ShardingGroupOp::verify() {
  int64_t groupId = getGroupIdAttr().getInt();
  if (groupId < 0)
    return emitOpError("group_id must be non-negative, got: ") << groupId;

  // Compare with the first member of the group that comes before this op in
  // the enclosing symbol table (module); each violation is reported once, on
  // the later member.
  Operation *root = SymbolTable::getNearestSymbolTable(getOperation());
  if (!root)
    return success();
  auto scope = (*this)->getParentOfType<ManualComputationOp>();
  ShardingGroupOp first;
  root->walk([&](ShardingGroupOp other) {
    if (other == *this)
      return WalkResult::interrupt();
    if (other.getGroupIdAttr().getInt() != groupId)
      return WalkResult::advance();
    first = other;
    return WalkResult::interrupt();
  });
  if (!first)
    return success();
  if (first->getParentOfType<ManualComputationOp>() != scope)
    return (emitOpError("ShardingGroupOps values cannot cross "
                        "ManualComputationOp boundaries for groupId: ")
            << groupId)
               .attachNote(first.getLoc())
           << "first member of the group";
  if (first.getInput().getType().getShape() != getInput().getType().getShape())
    return (emitOpError("ShardingGroupOps values must have the same shape for "
                        "groupId: ")
            << groupId)
               .attachNote(first.getLoc())
           << "first member of the group";
  return success();
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

namespace {
/// What every collective verifier starts from.
struct CollectiveContext {
  /// The input sharding: `in_sharding`, else the operand's sharding (a fully
  /// replicated one when it has none and the op allows that).
  TensorShardingAttr operandSharding;
  /// The meshes of `out_sharding` and of the input sharding.
  MeshAttr mesh, operandMesh;
};
} // namespace

/// The checks shared by all collectives:
/// 1. the input sharding is `inSharding` when given (checked like
///    `outSharding`), else the operand's sharding; without either, the op
///    fails unless `allowMissingOperandSharding`, in which case the input is
///    fully replicated on the mesh of `outSharding`;
/// 2. `outSharding` is valid for the result type;
/// 3. the result mesh equals the input mesh (unless `allowDifferentMeshes`);
/// 4. both shardings have the same rank.
static FailureOr<CollectiveContext>
verifyCollective(Operation *op, TensorShardingAttr inSharding,
                 TensorShardingAttr outSharding,
                 bool allowMissingOperandSharding, bool allowDifferentMeshes,
                 SymbolTableCollection *symbolTables) {
  Value operand = op->getOperand(0);
  Type resultType = op->getResult(0).getType();
  CollectiveContext ctx;
  ctx.operandSharding = inSharding ? inSharding : getSharding(operand);
  if (!ctx.operandSharding) {
    if (!allowMissingOperandSharding)
      return op->emitOpError("collective on operand without sharding");
    ctx.operandSharding = TensorShardingAttr::getReplicated(
        op->getContext(), outSharding.getMeshOrRef(),
        cast<RankedTensorType>(resultType).getRank(), /*closed=*/true);
  }

  if (failed(verifyTensorSharding(outSharding, resultType, op,
                                  getEmitErrorFn(op),
                                  /*checkDivisibility=*/false, symbolTables)))
    return failure();

  ctx.mesh = outSharding.getMesh(op, symbolTables);
  if (inSharding) {
    if (failed(verifyTensorSharding(
            inSharding, operand.getType(), op,
            [op](StringRef msg) {
              return op->emitOpError("in_sharding - ") << msg;
            },
            /*checkDivisibility=*/false, symbolTables)))
      return failure();
    ctx.operandMesh = inSharding.getMesh(op, symbolTables);
  } else {
    ctx.operandMesh = getMesh(ctx.operandSharding, operand, symbolTables);
    if (!ctx.operandMesh)
      return op->emitOpError("operand sharding refers to an unknown mesh: ")
             << ctx.operandSharding.getMeshSymName();
    // The operand's sharding is normally verified where it is defined, but
    // the defining op may not have been verified yet; the algebra below
    // needs a valid sharding.
    if (failed(verifyTensorSharding(
            ctx.operandSharding, operand.getType(), ctx.operandMesh,
            [op](StringRef msg) {
              return op->emitOpError("operand sharding - ") << msg;
            })))
      return failure();
  }
  if (!allowDifferentMeshes && ctx.mesh != ctx.operandMesh)
    return (op->emitOpError("result mesh does not match operand mesh")
                .attachNote(operand.getLoc())
            << "operand mesh: " << ctx.operandMesh);

  if (outSharding.getRank() != ctx.operandSharding.getRank())
    return op->emitOpError("result sharding has rank ")
           << outSharding.getRank() << " but operand sharding has rank "
           << ctx.operandSharding.getRank();
  return ctx;
}

/// Verifies a list of axis lists (one per dimension) of a collective: every
/// list is valid for `mesh`, no ref appears twice across lists, sub-axes do
/// not overlap, and there is one list per dimension of `outSharding`.
static LogicalResult verifyAxesPerDim(Operation *op,
                                      ArrayRef<AxisRefListAttr> axesPerDim,
                                      TensorShardingAttr outSharding,
                                      MeshAttr mesh) {
  EmitErrorFn emitError = getEmitErrorFn(op);
  SmallVector<AxisRefAttr> seen;
  for (AxisRefListAttr list : axesPerDim)
    if (failed(verifyAxisRefList(list.getValue(), mesh, emitError, seen)))
      return failure();
  if (failed(verifySubAxes(seen, mesh, emitError)))
    return failure();
  if (static_cast<int64_t>(axesPerDim.size()) != outSharding.getRank())
    return op->emitOpError("result sharding has rank ")
           << outSharding.getRank() << " but collective axes has rank "
           << axesPerDim.size();
  return success();
}

/// Checks `out_sharding` against `expected`, the result sharding that one of
/// the infer*Sharding functions computed (or the error it reported).
static LogicalResult verifyInferredSharding(
    Operation *op, FailureOr<TensorShardingAttr> expected,
    const std::string &inferError, TensorShardingAttr outSharding) {
  if (failed(expected))
    return op->emitOpError(inferError);
  std::string error;
  if (failed(verifyCollectiveResultSharding(*expected, outSharding, &error)))
    return op->emitOpError(error);
  return success();
}

/// Verifies a list of axes that must be sorted in mesh order (`<kind> axes
/// are not ordered w.r.t. mesh`) besides being valid.
static LogicalResult verifySortedAxes(Operation *op, ArrayRef<AxisRefAttr> axes,
                                      MeshAttr mesh, StringRef kind) {
  if (!llvm::is_sorted(axes, [&](AxisRefAttr a, AxisRefAttr b) {
        return AxisRefAttr::lessInMesh(mesh, a, b);
      }))
    return op->emitOpError(kind) << " axes are not ordered w.r.t. mesh";
  EmitErrorFn emitError = getEmitErrorFn(op);
  SmallVector<AxisRefAttr> seen;
  if (failed(verifyAxisRefList(axes, mesh, emitError, seen)))
    return failure();
  return verifySubAxes(seen, mesh, emitError);
}

/// The unreduced axes of a collective that neither reduces nor introduces
/// any: they pass through unchanged, with their kind.
static LogicalResult verifyUnreducedKept(Operation *op,
                                         const CollectiveContext &ctx,
                                         TensorShardingAttr outSharding) {
  return verifyUnreducedChange(op, ctx.operandSharding, outSharding, ctx.mesh,
                               /*introducedKind=*/std::nullopt,
                               /*removedKind=*/std::nullopt);
}

LogicalResult
AllGatherOp::verifyWithMeshes(SymbolTableCollection *symbolTables) {
  Operation *op = getOperation();
  FailureOr<CollectiveContext> ctx = verifyCollective(
      op, getInShardingAttr(), getOutSharding(), /*allowMissing=*/false,
      /*allowDifferentMeshes=*/false, symbolTables);
  if (failed(ctx))
    return failure();
  ArrayRef<AxisRefListAttr> axesPerDim = getGatheringAxes().getValue();
  if (failed(verifyAxesPerDim(op, axesPerDim, getOutSharding(), ctx->mesh)))
    return failure();
  std::string error;
  if (failed(verifyInferredSharding(
          op,
          inferAllGatherSharding(ctx->operandSharding, axesPerDim, ctx->mesh,
                                 &error),
          error, getOutSharding())))
    return failure();
  return verifyUnreducedKept(op, *ctx, getOutSharding());
}

LogicalResult
AllSliceOp::verifyWithMeshes(SymbolTableCollection *symbolTables) {
  Operation *op = getOperation();
  FailureOr<CollectiveContext> ctx = verifyCollective(
      op, getInShardingAttr(), getOutSharding(), /*allowMissing=*/true,
      /*allowDifferentMeshes=*/false, symbolTables);
  if (failed(ctx))
    return failure();
  ArrayRef<AxisRefListAttr> axesPerDim = getSlicingAxes().getValue();
  if (failed(verifyAxesPerDim(op, axesPerDim, getOutSharding(), ctx->mesh)))
    return failure();
  std::string error;
  if (failed(verifyInferredSharding(
          op,
          inferAllSliceSharding(ctx->operandSharding, axesPerDim, ctx->mesh,
                                &error),
          error, getOutSharding())))
    return failure();
  return verifyUnreducedKept(op, *ctx, getOutSharding());
}

LogicalResult
AllToAllOp::verifyWithMeshes(SymbolTableCollection *symbolTables) {
  Operation *op = getOperation();
  FailureOr<CollectiveContext> ctx = verifyCollective(
      op, getInShardingAttr(), getOutSharding(), /*allowMissing=*/false,
      /*allowDifferentMeshes=*/false, symbolTables);
  if (failed(ctx))
    return failure();
  ArrayRef<AllToAllParamAttr> params = getParams().getValue();
  SmallVector<AxisRefAttr> seenAxes;
  EmitErrorFn emitError = getEmitErrorFn(op);
  for (AllToAllParamAttr param : params)
    if (failed(
            verifyAxisRefList(param.getAxes(), ctx->mesh, emitError, seenAxes)))
      return failure();
  if (failed(verifySubAxes(seenAxes, ctx->mesh, emitError)))
    return failure();
  std::string error;
  FailureOr<TensorShardingAttr> expected =
      inferAllToAllSharding(ctx->operandSharding, params, ctx->mesh, &error);
  if (failed(expected))
    return emitOpError(error);
  // Compare the dimensions in the order the parameters move axes (source,
  // then target, parameter by parameter), then the untouched ones.
  TensorShardingAttr outSharding = getOutSharding();
  SmallVector<int64_t> order;
  for (AllToAllParamAttr param : params) {
    order.push_back(param.getSrcDim());
    order.push_back(param.getTgtDim());
  }
  for (int64_t dim = 0, rank = outSharding.getRank(); dim < rank; ++dim)
    if (!llvm::is_contained(order, dim))
      order.push_back(dim);
  for (int64_t dim : order) {
    ArrayRef<AxisRefAttr> axes = expected->getDimSharding(dim).getAxes();
    if (axes != outSharding.getDimSharding(dim).getAxes())
      return emitOpError("result sharding doesn't match expected sharding ")
             << formatAxisList(axes) << " on dimension " << dim;
  }
  return verifyUnreducedKept(op, *ctx, outSharding);
}

LogicalResult
CollectivePermuteOp::verifyWithMeshes(SymbolTableCollection *symbolTables) {
  FailureOr<CollectiveContext> ctx = verifyCollective(
      getOperation(), getInShardingAttr(), getOutSharding(),
      /*allowMissing=*/false, /*allowDifferentMeshes=*/true, symbolTables);
  if (failed(ctx))
    return failure();
  TensorShardingAttr outSharding = getOutSharding();
  if (!ctx->mesh.hasSameAxes(ctx->operandMesh))
    return (emitOpError("result mesh has different axes than operand mesh")
                .attachNote(getTensor().getLoc())
            << "operand mesh: " << ctx->operandMesh);
  if (outSharding.getMeshOrRef() != ctx->operandSharding.getMeshOrRef() &&
      ctx->mesh.getDeviceIdsOrIota() == ctx->operandMesh.getDeviceIdsOrIota())
    return (emitOpError("result mesh name is different but same device ids "
                        "as operand")
                .attachNote(getTensor().getLoc())
            << "operand mesh: " << ctx->operandMesh);
  std::string error;
  if (failed(verifyCollectivePermuteSharding(ctx->operandSharding,
                                             ctx->operandMesh, outSharding,
                                             ctx->mesh, &error)))
    return emitOpError(error);
  return verifyUnreducedKept(getOperation(), *ctx, outSharding);
}

LogicalResult
AllReduceOp::verifyWithMeshes(SymbolTableCollection *symbolTables) {
  Operation *op = getOperation();
  FailureOr<CollectiveContext> ctx = verifyCollective(
      op, getInShardingAttr(), getOutSharding(), /*allowMissing=*/true,
      /*allowDifferentMeshes=*/false, symbolTables);
  if (failed(ctx))
    return failure();
  TensorShardingAttr outSharding = getOutSharding();
  // 1. The dimensions are unchanged (unreduced and replicated axes aside).
  for (auto [inDim, outDim] :
       llvm::zip_equal(ctx->operandSharding.getDimShardings(),
                       outSharding.getDimShardings()))
    if (inDim.getAxes() != outDim.getAxes())
      return emitOpError("operand and result shardings are not equivalent");
  // 2. Valid reduction axes, in mesh order.
  ArrayRef<AxisRefAttr> reductionAxes = getReductionAxes().getValue();
  if (failed(verifySortedAxes(op, reductionAxes, ctx->mesh, "reduction")))
    return failure();
  // 3. No reduction axis shards the operand or is explicitly replicated,
  // and none stays unreduced in the result.
  SmallVector<AxisRefAttr> shardedOrReplicated;
  for (DimensionShardingAttr dim : ctx->operandSharding.getDimShardings())
    llvm::append_range(shardedOrReplicated, dim.getAxes());
  llvm::append_range(shardedOrReplicated,
                     ctx->operandSharding.getReplicatedAxes());
  for (AxisRefAttr axis : reductionAxes) {
    auto overlapsAxis = [&](AxisRefAttr other) { return other.overlaps(axis); };
    if (llvm::any_of(shardedOrReplicated, overlapsAxis))
      return emitOpError("reduction axis ")
             << axis.toString()
             << " overlaps with operand dimension sharding or replicated axes";
    if (llvm::any_of(outSharding.getUnreducedAxes(), overlapsAxis))
      return emitOpError("reduction axis ")
             << axis.toString() << " overlaps with result unreduced axes";
  }
  // 4. Unreduced axes may only be reduced, with this op's kind.
  return verifyUnreducedChange(op, ctx->operandSharding, outSharding,
                               ctx->mesh, /*introducedKind=*/std::nullopt,
                               getReductionKind());
}

LogicalResult
ReduceScatterOp::verifyWithMeshes(SymbolTableCollection *symbolTables) {
  Operation *op = getOperation();
  FailureOr<CollectiveContext> ctx = verifyCollective(
      op, getInShardingAttr(), getOutSharding(), /*allowMissing=*/true,
      /*allowDifferentMeshes=*/false, symbolTables);
  if (failed(ctx))
    return failure();
  if (failed(verifyUnreducedChange(op, ctx->operandSharding, getOutSharding(),
                                   ctx->mesh, /*introducedKind=*/std::nullopt,
                                   getReductionKind())))
    return failure();
  ArrayRef<AxisRefListAttr> axesPerDim = getReduceScatterAxes().getValue();
  if (failed(verifyAxesPerDim(op, axesPerDim, getOutSharding(), ctx->mesh)))
    return failure();
  // The dimensions only: which unreduced axes the op reduces was checked
  // above.
  std::string error;
  return verifyInferredSharding(
      op,
      inferAllSliceSharding(ctx->operandSharding, axesPerDim, ctx->mesh,
                            &error),
      error, getOutSharding());
}

LogicalResult
ShardedToUnreducedOp::verifyWithMeshes(SymbolTableCollection *symbolTables) {
  Operation *op = getOperation();
  TensorShardingAttr outSharding = getOutSharding();
  if (!outSharding.getUnreducedAxes().empty() &&
      outSharding.getUnreducedKind() != ReductionKind::Sum)
    return emitOpError("out_sharding reduction_op must be SUM");
  FailureOr<CollectiveContext> ctx = verifyCollective(
      op, getInShardingAttr(), outSharding, /*allowMissing=*/false,
      /*allowDifferentMeshes=*/false, symbolTables);
  if (failed(ctx))
    return failure();
  ArrayRef<AxisRefListAttr> axesPerDim = getAxes().getValue();
  if (failed(verifyAxesPerDim(op, axesPerDim, outSharding, ctx->mesh)))
    return failure();
  std::string error;
  FailureOr<TensorShardingAttr> expected = inferShardedToUnreducedSharding(
      ctx->operandSharding, axesPerDim, ctx->mesh, &error);
  if (failed(verifyInferredSharding(op, expected, error, outSharding)))
    return failure();
  if (expected->getUnreducedAxes() != outSharding.getUnreducedAxes())
    return emitOpError("out_unreduced_axes should be in_unreduced_axes + "
                       "sharded_to_unreduced_axes");
  return success();
}

LogicalResult ReplicatedToUnreducedOp::verifyWithMeshes(
    SymbolTableCollection *symbolTables) {
  Operation *op = getOperation();
  TensorShardingAttr outSharding = getOutSharding();
  if (!outSharding.getUnreducedAxes().empty() &&
      outSharding.getUnreducedKind() != ReductionKind::Sum)
    return emitOpError("out_sharding reduction_op must be SUM");
  FailureOr<CollectiveContext> ctx = verifyCollective(
      op, getInShardingAttr(), outSharding, /*allowMissing=*/false,
      /*allowDifferentMeshes=*/false, symbolTables);
  if (failed(ctx))
    return failure();
  for (auto [inDim, outDim] :
       llvm::zip_equal(ctx->operandSharding.getDimShardings(),
                       outSharding.getDimShardings()))
    if (inDim.getAxes() != outDim.getAxes())
      return emitOpError(
          "input and output must share the same dimension shardings");
  ArrayRef<AxisRefAttr> axes = getAxes().getValue();
  if (axes.empty())
    return emitOpError("r2u axes must not be empty");
  if (failed(verifySortedAxes(op, axes, ctx->mesh, "r2u")))
    return failure();
  std::string error;
  FailureOr<TensorShardingAttr> expected = inferReplicatedToUnreducedSharding(
      ctx->operandSharding, axes, ctx->mesh, &error);
  if (failed(expected))
    return emitOpError(error);
  if (expected->getUnreducedAxes() != outSharding.getUnreducedAxes())
    return emitOpError(
        "out_unreduced_axes should be in_unreduced_axes + r2u_axes");
  return success();
}

//===----------------------------------------------------------------------===//
// Verification entry points
//===----------------------------------------------------------------------===//

/// `verify` of an op whose checks resolve meshes: inside a symbol table they
/// run later, from `verifySymbolUses` with the module's shared symbol tables.
template <typename OpT>
static LogicalResult verifyUnlessInSymbolTable(OpT op) {
  if (op->template getParentWithTrait<OpTrait::SymbolTable>())
    return success();
  return op.verifyWithMeshes(/*symbolTables=*/nullptr);
}

LogicalResult ShardingConstraintOp::verify() { return verifyUnlessInSymbolTable(*this); }
LogicalResult
ShardingConstraintOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyWithMeshes(&symbolTables);
}

LogicalResult ReshardOp::verify() { return verifyUnlessInSymbolTable(*this); }
LogicalResult
ReshardOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyWithMeshes(&symbolTables);
}

LogicalResult ManualComputationOp::verify() { return verifyUnlessInSymbolTable(*this); }
LogicalResult
ManualComputationOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyWithMeshes(&symbolTables);
}

LogicalResult AutoAxesOp::verify() { return verifyUnlessInSymbolTable(*this); }
LogicalResult
AutoAxesOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyWithMeshes(&symbolTables);
}

LogicalResult ExplicitAxesOp::verify() { return verifyUnlessInSymbolTable(*this); }
LogicalResult
ExplicitAxesOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyWithMeshes(&symbolTables);
}

LogicalResult AllGatherOp::verify() { return verifyUnlessInSymbolTable(*this); }
LogicalResult
AllGatherOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyWithMeshes(&symbolTables);
}

LogicalResult AllSliceOp::verify() { return verifyUnlessInSymbolTable(*this); }
LogicalResult
AllSliceOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyWithMeshes(&symbolTables);
}

LogicalResult AllToAllOp::verify() { return verifyUnlessInSymbolTable(*this); }
LogicalResult
AllToAllOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyWithMeshes(&symbolTables);
}

LogicalResult CollectivePermuteOp::verify() { return verifyUnlessInSymbolTable(*this); }
LogicalResult
CollectivePermuteOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyWithMeshes(&symbolTables);
}

LogicalResult AllReduceOp::verify() { return verifyUnlessInSymbolTable(*this); }
LogicalResult
AllReduceOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyWithMeshes(&symbolTables);
}

LogicalResult ReduceScatterOp::verify() { return verifyUnlessInSymbolTable(*this); }
LogicalResult
ReduceScatterOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyWithMeshes(&symbolTables);
}
LogicalResult ShardedToUnreducedOp::verify() {
  return verifyUnlessInSymbolTable(*this);
}
LogicalResult
ShardedToUnreducedOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyWithMeshes(&symbolTables);
}

LogicalResult ReplicatedToUnreducedOp::verify() {
  return verifyUnlessInSymbolTable(*this);
}
LogicalResult ReplicatedToUnreducedOp::verifySymbolUses(
    SymbolTableCollection &symbolTables) {
  return verifyWithMeshes(&symbolTables);
}
