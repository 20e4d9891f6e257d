//===- SpmdShardingOps.cpp - spmd sharding ops: syntax and interfaces -----===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Parsers and printers of the spmd ops with a custom assembly format, and
// their ResultShardingOpInterface methods. The op definitions themselves are
// generated into SpmdOps.cpp; verifiers are in SpmdShardingOpsVerifiers.cpp.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

//===----------------------------------------------------------------------===//
// Shared syntax helpers
//===----------------------------------------------------------------------===//

/// Parses `<keyword>=<sharding>`, e.g. `out_sharding=<@mesh, [{"x"}, {}]>`.
static ParseResult parseKeywordSharding(OpAsmParser &parser, StringRef keyword,
                                        TensorShardingAttr &sharding) {
  if (parser.parseKeyword(keyword) || parser.parseEqual())
    return failure();
  sharding = dyn_cast_or_null<TensorShardingAttr>(
      TensorShardingAttr::parse(parser, Type()));
  return success(sharding != nullptr);
}

/// Parses `[<sharding>, ...]` (possibly empty).
static ParseResult parseShardingList(OpAsmParser &parser,
                                     TensorShardingPerValueAttr &result) {
  SmallVector<TensorShardingAttr> shardings;
  if (parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Square, [&]() -> ParseResult {
            auto sharding = dyn_cast_or_null<TensorShardingAttr>(
                TensorShardingAttr::parse(parser, Type()));
            if (!sharding)
              return failure();
            shardings.push_back(sharding);
            return success();
          }))
    return failure();
  result = TensorShardingPerValueAttr::get(parser.getContext(), shardings);
  return success();
}

/// Prints `[<sharding>, ...]`.
static void printShardingList(OpAsmPrinter &printer,
                              TensorShardingPerValueAttr shardings) {
  printer << "[";
  llvm::interleaveComma(
      shardings.getShardings(), printer,
      [&](TensorShardingAttr sharding) { sharding.print(printer); });
  printer << "]";
}

/// Parses `{"x", "y"}` into an array of axis names.
static ParseResult parseAxisNames(OpAsmParser &parser, ArrayAttr &result) {
  ManualAxesAttr names;
  if (parseManualAxesBody(parser, names))
    return failure();
  result = ArrayAttr::get(parser.getContext(),
                          llvm::to_vector_of<Attribute>(names.getValue()));
  return success();
}

/// Prints an array of axis names as `{"x", "y"}`.
static void printAxisNames(OpAsmPrinter &printer, ArrayAttr names) {
  SmallVector<StringAttr> strings;
  for (Attribute name : names)
    strings.push_back(cast<StringAttr>(name));
  printManualAxesBody(printer,
                      ManualAxesAttr::get(names.getContext(), strings));
}

/// Parses the common tail of the region ops:
/// `(%arg: type, ...) { body } attr-dict : (types) -> types`, with
/// `operands` already parsed.
template <typename OpTy>
static ParseResult
parseRegionOpTail(OpAsmParser &parser, OperationState &result,
                  ArrayRef<OpAsmParser::UnresolvedOperand> operands,
                  SMLoc operandsLoc) {
  SmallVector<OpAsmParser::Argument> args;
  if (parser.parseArgumentList(args, AsmParser::Delimiter::Paren,
                               /*allowType=*/true))
    return failure();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, args, /*enableNameShadowing=*/false))
    return failure();
  OpTy::ensureTerminator(*body, parser.getBuilder(), result.location);
  FunctionType type;
  if (parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      parser.parseType(type) ||
      parser.resolveOperands(operands, type.getInputs(), operandsLoc,
                             result.operands))
    return failure();
  result.addTypes(type.getResults());
  return success();
}

/// Prints the common tail of the region ops (see parseRegionOpTail).
static void printRegionOpTail(OpAsmPrinter &printer, Operation *op,
                              ArrayRef<StringRef> elidedAttrs) {
  Region &body = op->getRegion(0);
  printer << " (";
  if (!body.empty())
    llvm::interleaveComma(body.getArguments(), printer, [&](BlockArgument arg) {
      printer.printRegionArgument(arg);
    });
  printer << ") ";
  printer.printRegion(body, /*printEntryBlockArgs=*/false,
                      /*printBlockTerminators=*/true);
  printer.printOptionalAttrDict(op->getAttrs(), elidedAttrs);
  printer << " : ";
  printer.printFunctionalType(op->getOperandTypes(), op->getResultTypes());
}

/// Parses `(%a, %b)` and returns the location of the list.
static ParseResult
parseOperandsInParens(OpAsmParser &parser,
                      SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands,
                      SMLoc &loc) {
  loc = parser.getCurrentLocation();
  return parser.parseOperandList(operands, AsmParser::Delimiter::Paren);
}

/// Prints `(%a, %b)`.
static void printOperandsInParens(OpAsmPrinter &printer, Operation *op) {
  printer << "(";
  printer.printOperands(op->getOperands());
  printer << ")";
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

/// The entry `index` of the discardable `spmd.sharding` of `op`, or null.
static TensorShardingAttr getDiscardableSharding(Operation *op,
                                                 unsigned index) {
  auto perValue = op->getAttrOfType<TensorShardingPerValueAttr>(
      SpmdDialect::kShardingAttrName);
  if (!perValue || index >= perValue.getShardings().size())
    return {};
  return perValue.getShardings()[index];
}

/// Entry `index` of an optional per-value sharding, or null.
static TensorShardingAttr getEntry(TensorShardingPerValueAttr shardings,
                                   unsigned index) {
  if (!shardings || index >= shardings.getShardings().size())
    return {};
  return shardings.getShardings()[index];
}

//===----------------------------------------------------------------------===//
// ShardingConstraintOp / ReshardOp / PropagationBarrierOp
//===----------------------------------------------------------------------===//

TensorShardingAttr ShardingConstraintOp::getResultSharding(unsigned index) {
  return index == 0 ? getSharding() : TensorShardingAttr();
}

TensorShardingAttr ReshardOp::getResultSharding(unsigned index) {
  return index == 0 ? getSharding() : TensorShardingAttr();
}

TensorShardingAttr PropagationBarrierOp::getResultSharding(unsigned index) {
  return getDiscardableSharding(getOperation(), index);
}

ParseResult PropagationBarrierOp::parse(OpAsmParser &parser,
                                        OperationState &result) {
  OpAsmParser::UnresolvedOperand input;
  StringRef keyword;
  Type type;
  if (parser.parseOperand(input) || parser.parseKeyword("allowed_direction") ||
      parser.parseEqual())
    return failure();
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<PropagationDirection> direction =
      symbolizePropagationDirection(keyword);
  if (!direction)
    return parser.emitError(loc, "unknown propagation direction '")
           << keyword << "', expected NONE, FORWARD, BACKWARD or BOTH";
  result.addAttribute(
      getAllowedDirectionAttrName(result.name),
      PropagationDirectionAttr::get(parser.getContext(), *direction));
  if (parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(type) ||
      parser.resolveOperand(input, type, result.operands))
    return failure();
  result.addTypes(type);
  return success();
}

void PropagationBarrierOp::print(OpAsmPrinter &printer) {
  printer << " ";
  printer.printOperand(getInput());
  printer << " allowed_direction="
          << stringifyPropagationDirection(getAllowedDirection());
  printer.printOptionalAttrDict((*this)->getAttrs(), getAttributeNames());
  printer << " : " << getType();
}

//===----------------------------------------------------------------------===//
// ManualComputationOp
//===----------------------------------------------------------------------===//

TensorShardingAttr ManualComputationOp::getResultSharding(unsigned index) {
  return getEntry(getOutShardings(), index);
}

ParseResult ManualComputationOp::parse(OpAsmParser &parser,
                                       OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  SMLoc operandsLoc;
  TensorShardingPerValueAttr inShardings, outShardings;
  ManualAxesAttr manualAxes;
  if (parseOperandsInParens(parser, operands, operandsLoc) ||
      parser.parseKeyword("in_shardings") || parser.parseEqual() ||
      parseShardingList(parser, inShardings) ||
      parser.parseKeyword("out_shardings") || parser.parseEqual() ||
      parseShardingList(parser, outShardings) ||
      parser.parseKeyword("manual_axes") || parser.parseEqual() ||
      parseManualAxesBody(parser, manualAxes))
    return failure();
  result.addAttribute(getInShardingsAttrName(result.name), inShardings);
  result.addAttribute(getOutShardingsAttrName(result.name), outShardings);
  result.addAttribute(getManualAxesAttrName(result.name), manualAxes);
  return parseRegionOpTail<ManualComputationOp>(parser, result, operands,
                                                operandsLoc);
}

void ManualComputationOp::print(OpAsmPrinter &printer) {
  printOperandsInParens(printer, getOperation());
  printer << " in_shardings=";
  printShardingList(printer, getInShardings());
  printer << " out_shardings=";
  printShardingList(printer, getOutShardings());
  printer << " manual_axes=";
  printManualAxesBody(printer, getManualAxes());
  printRegionOpTail(printer, getOperation(), getAttributeNames());
}

//===----------------------------------------------------------------------===//
// AutoAxesOp / ExplicitAxesOp
//===----------------------------------------------------------------------===//

/// Parses `(%x) axes={"x"} [<keyword>=[...]] (%arg: T) {...} : ...`.
template <typename OpTy>
static ParseResult
parseAxesRegionOp(OpAsmParser &parser, OperationState &result,
                  StringRef shardingsKeyword, StringAttr shardingsName) {
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  SMLoc operandsLoc;
  ArrayAttr axes;
  if (parseOperandsInParens(parser, operands, operandsLoc) ||
      parser.parseKeyword("axes") || parser.parseEqual() ||
      parseAxisNames(parser, axes))
    return failure();
  result.addAttribute(OpTy::getAxesAttrName(result.name), axes);
  if (succeeded(parser.parseOptionalKeyword(shardingsKeyword))) {
    TensorShardingPerValueAttr shardings;
    if (parser.parseEqual() || parseShardingList(parser, shardings))
      return failure();
    result.addAttribute(shardingsName, shardings);
  }
  return parseRegionOpTail<OpTy>(parser, result, operands, operandsLoc);
}

/// Prints an auto_axes / explicit_axes op.
static void printAxesRegionOp(OpAsmPrinter &printer, Operation *op,
                              ArrayAttr axes, StringRef shardingsKeyword,
                              TensorShardingPerValueAttr shardings,
                              ArrayRef<StringRef> elidedAttrs) {
  printOperandsInParens(printer, op);
  printer << " axes=";
  printAxisNames(printer, axes);
  if (shardings) {
    printer << " " << shardingsKeyword << "=";
    printShardingList(printer, shardings);
  }
  printRegionOpTail(printer, op, elidedAttrs);
}

ParseResult AutoAxesOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseAxesRegionOp<AutoAxesOp>(parser, result, "out_shardings",
                                       getOutShardingsAttrName(result.name));
}

void AutoAxesOp::print(OpAsmPrinter &printer) {
  printAxesRegionOp(printer, getOperation(), getAxes(), "out_shardings",
                    getOutShardingsAttr(), getAttributeNames());
}

TensorShardingAttr AutoAxesOp::getResultSharding(unsigned index) {
  return getEntry(getOutShardingsAttr(), index);
}

ParseResult ExplicitAxesOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseAxesRegionOp<ExplicitAxesOp>(parser, result, "in_shardings",
                                           getInShardingsAttrName(result.name));
}

void ExplicitAxesOp::print(OpAsmPrinter &printer) {
  printAxesRegionOp(printer, getOperation(), getAxes(), "in_shardings",
                    getInShardingsAttr(), getAttributeNames());
}

/// `sharding` without the axes named in `names` (JAX erases axes that become
/// auto from types).
static TensorShardingAttr eraseAxes(TensorShardingAttr sharding,
                                    ArrayAttr names) {
  auto keep = [&](AxisRefAttr ref) {
    return !llvm::any_of(names, [&](Attribute name) {
      return cast<StringAttr>(name).getValue() == ref.getName();
    });
  };
  auto filter = [&](ArrayRef<AxisRefAttr> refs) {
    return llvm::to_vector(llvm::make_filter_range(refs, keep));
  };
  MLIRContext *ctx = sharding.getContext();
  SmallVector<DimensionShardingAttr> dims;
  for (DimensionShardingAttr dim : sharding.getDimShardings())
    dims.push_back(DimensionShardingAttr::get(
        ctx, filter(dim.getAxes()), dim.getIsClosed(), dim.getPriority()));
  SmallVector<AxisRefAttr> unreduced = filter(sharding.getUnreducedAxes());
  return TensorShardingAttr::get(
      ctx, sharding.getMeshOrRef(), dims, filter(sharding.getReplicatedAxes()),
      unreduced,
      unreduced.empty() ? ReductionKind::Sum : sharding.getUnreducedKind());
}

TensorShardingAttr ExplicitAxesOp::getResultSharding(unsigned index) {
  if (getBody().empty())
    return {};
  Block &body = getBody().front();
  if (body.empty() || !isa<ReturnOp>(body.back()) ||
      index >= body.back().getNumOperands())
    return {};
  Value returned = body.back().getOperand(index);
  TensorShardingAttr inner;
  if (auto arg = dyn_cast<BlockArgument>(returned);
      arg && arg.getOwner() == &body)
    inner = getEntry(getInShardingsAttr(), arg.getArgNumber());
  else
    inner = getSharding(returned);
  return inner ? eraseAxes(inner, getAxes()) : TensorShardingAttr();
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

TensorShardingAttr AllGatherOp::getResultSharding(unsigned index) {
  return index == 0 ? getOutSharding() : TensorShardingAttr();
}
TensorShardingAttr AllSliceOp::getResultSharding(unsigned index) {
  return index == 0 ? getOutSharding() : TensorShardingAttr();
}
TensorShardingAttr AllToAllOp::getResultSharding(unsigned index) {
  return index == 0 ? getOutSharding() : TensorShardingAttr();
}
TensorShardingAttr CollectivePermuteOp::getResultSharding(unsigned index) {
  return index == 0 ? getOutSharding() : TensorShardingAttr();
}
TensorShardingAttr AllReduceOp::getResultSharding(unsigned index) {
  return index == 0 ? getOutSharding() : TensorShardingAttr();
}
TensorShardingAttr ReduceScatterOp::getResultSharding(unsigned index) {
  return index == 0 ? getOutSharding() : TensorShardingAttr();
}
TensorShardingAttr ShardedToUnreducedOp::getResultSharding(unsigned index) {
  return index == 0 ? getOutSharding() : TensorShardingAttr();
}
TensorShardingAttr ReplicatedToUnreducedOp::getResultSharding(unsigned index) {
  return index == 0 ? getOutSharding() : TensorShardingAttr();
}

ParseResult AllGatherOp::parse(OpAsmParser &parser, OperationState &result) {
  ListOfAxisRefListsAttr axes;
  if (parseListOfAxisRefListsBody(parser, axes))
    return failure();
  result.addAttribute(getGatheringAxesAttrName(result.name), axes);
  return parseCollectiveTail<AllGatherOp>(parser, result);
}

void AllGatherOp::print(OpAsmPrinter &printer) {
  printer << " ";
  printListOfAxisRefListsBody(printer, getGatheringAxes());
  printCollectiveTail(printer, *this);
}

ParseResult AllSliceOp::parse(OpAsmParser &parser, OperationState &result) {
  ListOfAxisRefListsAttr axes;
  if (parseListOfAxisRefListsBody(parser, axes))
    return failure();
  result.addAttribute(getSlicingAxesAttrName(result.name), axes);
  return parseCollectiveTail<AllSliceOp>(parser, result);
}

void AllSliceOp::print(OpAsmPrinter &printer) {
  printer << " ";
  printListOfAxisRefListsBody(printer, getSlicingAxes());
  printCollectiveTail(printer, *this);
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
  ListOfAxisRefListsAttr axes;
  if (parseListOfAxisRefListsBody(parser, axes))
    return failure();
  result.addAttribute(getAxesAttrName(result.name), axes);
  return parseCollectiveTail<ShardedToUnreducedOp>(parser, result);
}

void ShardedToUnreducedOp::print(OpAsmPrinter &printer) {
  printer << " ";
  printListOfAxisRefListsBody(printer, getAxes());
  printCollectiveTail(printer, *this);
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

