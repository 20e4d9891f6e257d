//===- SpmdRegionOps.cpp - manual_computation, auto_axes, explicit_axes ---===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Syntax, result shardings and verifiers of the ops with a region that
// change how mesh axes are treated: spmd.manual_computation (shard_map),
// spmd.auto_axes and spmd.explicit_axes (SpmdRegionOps.td). Messages follow
// Shardy's (and JAX's, for auto/explicit axes) wording.
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

/// Parses `[<sharding>, ...]` (possibly empty).
static ParseResult parseShardingList(OpAsmParser &parser,
                                     TensorShardingPerValueAttr &result) {
  SmallVector<TensorShardingAttr> shardings;
  if (parseTensorShardingListBody(parser, shardings))
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

/// Entry `index` of an optional per-value sharding, or null.
static TensorShardingAttr getEntry(TensorShardingPerValueAttr shardings,
                                   unsigned index) {
  if (!shardings || index >= shardings.getShardings().size())
    return {};
  return shardings.getShardings()[index];
}

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
      unreduced.empty() ? ReductionKind::Sum : sharding.getUnreducedKind(),
      filter(sharding.getReducedAxes()));
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
               << " type and region " << valueKind << " type at index " << index
               << " must match for a value that is not a ranked "
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
  if (failed(verifyTensorShardingPerValue(
          shardings, types, op, getEmitErrorFn(op), valueKind, symbolTables)))
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
