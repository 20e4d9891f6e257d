//===- SpmdCollectiveOps.cpp - the global-view collectives ----------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Syntax, result shardings and verifiers of the global-view collectives
// (SpmdCollectiveOps.td). The sharding algebra they check is the one of
// CollectiveShardings.h; messages follow Shardy's wording.
//
//===----------------------------------------------------------------------===//

#include "SpmdOpsCommon.h"

#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"
#include "tessera/Dialect/Spmd/IR/SpmdVerifiers.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tessera::spmd;
using namespace mlir::tessera::spmd::detail;

/// Parses `<keyword>=<sharding>`, e.g. `out_sharding=<@mesh, [{"x"}, {}]>`.
static ParseResult parseKeywordSharding(OpAsmParser &parser, StringRef keyword,
                                        TensorShardingAttr &sharding) {
  if (parser.parseKeyword(keyword) || parser.parseEqual())
    return failure();
  sharding = dyn_cast_or_null<TensorShardingAttr>(
      TensorShardingAttr::parse(parser, Type()));
  return success(sharding != nullptr);
}

/// Parses the tail of a collective after its axes:
/// `%tensor (in_sharding=<...>)? out_sharding=<...> attr-dict : type`.
template <typename OpT>
static ParseResult parseCollectiveTail(OpAsmParser &parser,
                                       OperationState &result) {
  OpAsmParser::UnresolvedOperand tensor;
  TensorShardingAttr sharding;
  Type type;
  if (parser.parseOperand(tensor))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("in_sharding"))) {
    if (parser.parseEqual())
      return failure();
    auto inSharding = dyn_cast_or_null<TensorShardingAttr>(
        TensorShardingAttr::parse(parser, Type()));
    if (!inSharding)
      return failure();
    result.addAttribute(OpT::getInShardingAttrName(result.name), inSharding);
  }
  if (parseKeywordSharding(parser, "out_sharding", sharding))
    return failure();
  result.addAttribute(OpT::getOutShardingAttrName(result.name), sharding);
  if (parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(type) ||
      parser.resolveOperand(tensor, type, result.operands))
    return failure();
  result.addTypes(type);
  return success();
}

/// Prints the tail of a collective (see parseCollectiveTail).
template <typename OpT>
static void printCollectiveTail(OpAsmPrinter &printer, OpT op) {
  printer << " ";
  printer.printOperand(op->getOperand(0));
  if (TensorShardingAttr inSharding = op.getInShardingAttr()) {
    printer << " in_sharding=";
    inSharding.print(printer);
  }
  TensorShardingAttr outSharding = op.getOutSharding();
  ArrayRef<StringRef> elidedAttrs = OpT::getAttributeNames();
  printer << " out_sharding=";
  outSharding.print(printer);
  printer.printOptionalAttrDict(op->getAttrs(), elidedAttrs);
  printer << " : " << op->getResult(0).getType();
}

/// Prints ` kind` unless the kind is the default `sum`.
static void printReductionKindPrefix(OpAsmPrinter &printer,
                                     ReductionKind kind) {
  if (kind != ReductionKind::Sum)
    printer << " " << stringifyReductionKind(kind);
}

/// Parses the optional reduction kind keyword that starts an all_reduce or a
/// reduce_scatter (`max {"x"} ...`, `min [{}, {"y"}] ...`).
static ParseResult parseOptionalReductionKind(OpAsmParser &parser,
                                              OperationState &result,
                                              StringAttr kindName) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (failed(parser.parseOptionalKeyword(&keyword)))
    return success();
  std::optional<ReductionKind> kind = symbolizeReductionKind(keyword);
  if (!kind)
    return parser.emitError(loc, "unknown reduction kind '")
           << keyword << "', expected 'sum', 'max' or 'min'";
  result.addAttribute(kindName,
                      ReductionKindAttr::get(parser.getContext(), *kind));
  return success();
}

/// Parses a collective whose axes are one list per dimension:
/// `[{"x"}, {}] %tensor ...`, the list stored under `axesName`.
template <typename OpT>
static ParseResult parseAxesPerDimCollective(OpAsmParser &parser,
                                             OperationState &result,
                                             StringAttr axesName) {
  ListOfAxisRefListsAttr axes;
  if (parseListOfAxisRefListsBody(parser, axes))
    return failure();
  result.addAttribute(axesName, axes);
  return parseCollectiveTail<OpT>(parser, result);
}

/// Prints a collective parsed by parseAxesPerDimCollective.
template <typename OpT>
static void printAxesPerDimCollective(OpAsmPrinter &printer, OpT op,
                                      ListOfAxisRefListsAttr axes) {
  printer << " ";
  printListOfAxisRefListsBody(printer, axes);
  printCollectiveTail(printer, op);
}

ParseResult AllGatherOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseAxesPerDimCollective<AllGatherOp>(
      parser, result, getGatheringAxesAttrName(result.name));
}

void AllGatherOp::print(OpAsmPrinter &printer) {
  printAxesPerDimCollective(printer, *this, getGatheringAxes());
}

ParseResult AllSliceOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseAxesPerDimCollective<AllSliceOp>(
      parser, result, getSlicingAxesAttrName(result.name));
}

void AllSliceOp::print(OpAsmPrinter &printer) {
  printAxesPerDimCollective(printer, *this, getSlicingAxes());
}

ParseResult AllToAllOp::parse(OpAsmParser &parser, OperationState &result) {
  AllToAllParamListAttr params;
  if (parseAllToAllParamListBody(parser, params))
    return failure();
  result.addAttribute(getParamsAttrName(result.name), params);
  return parseCollectiveTail<AllToAllOp>(parser, result);
}

void AllToAllOp::print(OpAsmPrinter &printer) {
  printer << " ";
  printAllToAllParamListBody(printer, getParams());
  printCollectiveTail(printer, *this);
}

ParseResult AllReduceOp::parse(OpAsmParser &parser, OperationState &result) {
  if (parseOptionalReductionKind(parser, result,
                                 getReductionKindAttrName(result.name)))
    return failure();
  AxisRefListAttr axes;
  if (parseAxisRefListBody(parser, axes))
    return failure();
  result.addAttribute(getReductionAxesAttrName(result.name), axes);
  return parseCollectiveTail<AllReduceOp>(parser, result);
}

void AllReduceOp::print(OpAsmPrinter &printer) {
  printReductionKindPrefix(printer, getReductionKind());
  printer << " ";
  printAxisRefListBody(printer, getReductionAxes());
  printCollectiveTail(printer, *this);
}

ParseResult ReduceScatterOp::parse(OpAsmParser &parser,
                                   OperationState &result) {
  if (parseOptionalReductionKind(parser, result,
                                 getReductionKindAttrName(result.name)) ||
      parser.parseLSquare())
    return failure();
  SmallVector<AxisRefListAttr> lists;
  auto parseDims = [&]() -> ParseResult {
    if (succeeded(parser.parseOptionalRSquare()))
      return success();
    do {
      AxisRefListAttr list;
      if (parseAxisRefListBody(parser, list))
        return failure();
      lists.push_back(list);
    } while (succeeded(parser.parseOptionalComma()));
    return parser.parseRSquare();
  };
  if (parseDims())
    return failure();
  result.addAttribute(getReduceScatterAxesAttrName(result.name),
                      ListOfAxisRefListsAttr::get(parser.getContext(), lists));
  return parseCollectiveTail<ReduceScatterOp>(parser, result);
}

void ReduceScatterOp::print(OpAsmPrinter &printer) {
  printReductionKindPrefix(printer, getReductionKind());
  printer << " ";
  printListOfAxisRefListsBody(printer, getReduceScatterAxes());
  printCollectiveTail(printer, *this);
}

ParseResult ShardedToUnreducedOp::parse(OpAsmParser &parser,
                                        OperationState &result) {
  return parseAxesPerDimCollective<ShardedToUnreducedOp>(
      parser, result, getAxesAttrName(result.name));
}

void ShardedToUnreducedOp::print(OpAsmPrinter &printer) {
  printAxesPerDimCollective(printer, *this, getAxes());
}

ParseResult ReplicatedToUnreducedOp::parse(OpAsmParser &parser,
                                           OperationState &result) {
  AxisRefListAttr axes;
  if (parseAxisRefListBody(parser, axes))
    return failure();
  result.addAttribute(getAxesAttrName(result.name), axes);
  return parseCollectiveTail<ReplicatedToUnreducedOp>(parser, result);
}

void ReplicatedToUnreducedOp::print(OpAsmPrinter &printer) {
  printer << " ";
  printAxisRefListBody(printer, getAxes());
  printCollectiveTail(printer, *this);
}

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
static LogicalResult
verifyInferredSharding(Operation *op, FailureOr<TensorShardingAttr> expected,
                       const std::string &inferError,
                       TensorShardingAttr outSharding) {
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

/// The verifier of a collective with one axis list per dimension that moves
/// no unreduced axes (all_gather, all_slice): the common checks, the axis
/// lists, and `out_sharding` against what `infer` derives.
static LogicalResult verifyAxesPerDimCollective(
    Operation *op, TensorShardingAttr inSharding,
    TensorShardingAttr outSharding, ArrayRef<AxisRefListAttr> axesPerDim,
    bool allowMissingOperandSharding,
    FailureOr<TensorShardingAttr> (*infer)(TensorShardingAttr,
                                           ArrayRef<AxisRefListAttr>, MeshAttr,
                                           std::string *),
    SymbolTableCollection *symbolTables) {
  FailureOr<CollectiveContext> ctx =
      verifyCollective(op, inSharding, outSharding, allowMissingOperandSharding,
                       /*allowDifferentMeshes=*/false, symbolTables);
  if (failed(ctx))
    return failure();
  if (failed(verifyAxesPerDim(op, axesPerDim, outSharding, ctx->mesh)))
    return failure();
  std::string error;
  if (failed(verifyInferredSharding(
          op, infer(ctx->operandSharding, axesPerDim, ctx->mesh, &error), error,
          outSharding)))
    return failure();
  return verifyUnreducedKept(op, *ctx, outSharding);
}

LogicalResult
AllGatherOp::verifyWithMeshes(SymbolTableCollection *symbolTables) {
  return verifyAxesPerDimCollective(
      getOperation(), getInShardingAttr(), getOutSharding(),
      getGatheringAxes().getValue(), /*allowMissingOperandSharding=*/false,
      inferAllGatherSharding, symbolTables);
}

LogicalResult
AllSliceOp::verifyWithMeshes(SymbolTableCollection *symbolTables) {
  return verifyAxesPerDimCollective(
      getOperation(), getInShardingAttr(), getOutSharding(),
      getSlicingAxes().getValue(), /*allowMissingOperandSharding=*/true,
      inferAllSliceSharding, symbolTables);
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
  if (ctx->mesh.getTotalSize() != ctx->operandMesh.getTotalSize())
    return (emitOpError("result mesh has a different number of devices than "
                        "operand mesh: ")
            << ctx->mesh.getTotalSize()
            << " != " << ctx->operandMesh.getTotalSize())
               .attachNote(getTensor().getLoc())
           << "operand mesh: " << ctx->operandMesh;
  if (!ctx->mesh.hasSameAxes(ctx->operandMesh)) {
    // A mesh of other axes (Tessera's extension: Shardy permutes only
    // between device orders of the same axes): partial sums must stay
    // partial over the same devices, the operand's unreduced axes as the
    // result mesh spells them.
    std::string error;
    if (failed(verifyCollectivePermuteSharding(ctx->operandSharding,
                                               ctx->operandMesh, outSharding,
                                               ctx->mesh, &error)))
      return emitOpError(error);
    if (ctx->operandSharding.getUnreducedAxes().empty() &&
        outSharding.getUnreducedAxes().empty())
      return success();
    FailureOr<TensorShardingAttr> translated =
        translateShardingToMesh(ctx->operandSharding, ctx->operandMesh,
                                outSharding.getMeshOrRef(), ctx->mesh);
    if (failed(translated) ||
        translated->getUnreducedAxes() != outSharding.getUnreducedAxes() ||
        translated->getUnreducedKind() != outSharding.getUnreducedKind())
      return emitOpError("result unreduced axes ")
             << formatAxisList(outSharding.getUnreducedAxes())
             << " are not the operand's unreduced axes "
             << formatAxisList(ctx->operandSharding.getUnreducedAxes())
             << " on the result mesh";
    return success();
  }
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
  return verifyUnreducedChange(op, ctx->operandSharding, outSharding, ctx->mesh,
                               /*introducedKind=*/std::nullopt,
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
  return verifyInferredSharding(op,
                                inferAllSliceSharding(ctx->operandSharding,
                                                      axesPerDim, ctx->mesh,
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

LogicalResult
ReplicatedToUnreducedOp::verifyWithMeshes(SymbolTableCollection *symbolTables) {
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
