//===- KernelOps.cpp - kernel operations: syntax and helpers --------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Kernel/IR/KernelOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tessera::kernel;

//===----------------------------------------------------------------------===//
// Custom directives
//===----------------------------------------------------------------------===//

/// `[parallel, arbitrary, ...]`
static ParseResult parseDimensionSemantics(OpAsmParser &parser,
                                           ArrayAttr &semantics) {
  SmallVector<Attribute> values;
  if (parser.parseCommaSeparatedList(
          OpAsmParser::Delimiter::Square, [&]() -> ParseResult {
            SMLoc loc = parser.getCurrentLocation();
            StringRef keyword;
            if (parser.parseKeyword(&keyword))
              return failure();
            std::optional<DimensionSemantics> value =
                symbolizeDimensionSemantics(keyword);
            if (!value)
              return parser.emitError(loc, "expected 'parallel' or "
                                           "'arbitrary', got '")
                     << keyword << "'";
            values.push_back(
                DimensionSemanticsAttr::get(parser.getContext(), *value));
            return success();
          }))
    return failure();
  semantics = parser.getBuilder().getArrayAttr(values);
  return success();
}

static void printDimensionSemantics(OpAsmPrinter &printer, Operation *,
                                    ArrayAttr semantics) {
  printer << '[';
  llvm::interleaveComma(semantics, printer, [&](Attribute attr) {
    printer << stringifyDimensionSemantics(
        cast<DimensionSemanticsAttr>(attr).getValue());
  });
  printer << ']';
}

/// `{operand -> result, ...}`
static ParseResult parseAliases(OpAsmParser &parser,
                                DenseI64ArrayAttr &aliases) {
  SmallVector<int64_t> flat;
  if (parser.parseCommaSeparatedList(
          OpAsmParser::Delimiter::Braces, [&]() -> ParseResult {
            int64_t input = 0, output = 0;
            if (parser.parseInteger(input) || parser.parseArrow() ||
                parser.parseInteger(output))
              return failure();
            flat.push_back(input);
            flat.push_back(output);
            return success();
          }))
    return failure();
  aliases = parser.getBuilder().getDenseI64ArrayAttr(flat);
  return success();
}

static void printAliases(OpAsmPrinter &printer, Operation *,
                         DenseI64ArrayAttr aliases) {
  ArrayRef<int64_t> flat = aliases.asArrayRef();
  printer << '{';
  for (size_t i = 0; i + 1 < flat.size(); i += 2) {
    if (i != 0)
      printer << ", ";
    printer << flat[i] << " -> " << flat[i + 1];
  }
  printer << '}';
}

/// `start` or `wait`
static ParseResult parseCopyPhase(OpAsmParser &parser, CopyPhaseAttr &phase) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<CopyPhase> value = symbolizeCopyPhase(keyword);
  if (!value)
    return parser.emitError(loc, "expected 'start' or 'wait', got '")
           << keyword << "'";
  phase = CopyPhaseAttr::get(parser.getContext(), *value);
  return success();
}

static void printCopyPhase(OpAsmPrinter &printer, Operation *,
                           CopyPhaseAttr phase) {
  printer << stringifyCopyPhase(phase.getValue());
}

#define GET_OP_CLASSES
#include "tessera/Dialect/Kernel/IR/KernelOps.cpp.inc"

//===----------------------------------------------------------------------===//
// CallOp
//===----------------------------------------------------------------------===//

/// The keyword clauses of `kernel.call`, in the order they are printed.
static constexpr StringLiteral kCallClauses[] = {"grid",
                                                 "scalar_prefetch",
                                                 "cost_estimate",
                                                 "in_specs",
                                                 "out_specs",
                                                 "scratch",
                                                 "dimension_semantics",
                                                 "input_output_aliases",
                                                 "vmem_limit_bytes"};

/// Parses `= <integer>` as an i64 attribute.
static ParseResult parseI64Clause(OpAsmParser &parser, IntegerAttr &attr) {
  return parser.parseCustomAttributeWithFallback(
      attr, parser.getBuilder().getIntegerType(64));
}

ParseResult CallOp::parse(OpAsmParser &parser, OperationState &result) {
  Properties &props = result.getOrAddProperties<Properties>();
  SmallVector<OpAsmParser::UnresolvedOperand, 4> operands;
  if (parser.parseCustomAttributeWithFallback(
          props.callee, parser.getBuilder().getType<NoneType>()) ||
      parser.parseLParen())
    return failure();
  SMLoc operandsLoc = parser.getCurrentLocation();
  if (parser.parseOperandList(operands) || parser.parseRParen())
    return failure();

  // The clauses, in any order, each at most once.
  llvm::SmallDenseSet<StringRef, 16> seen;
  StringRef last;
  // A `#kernel.cost<...>` written right before the `:` takes the function
  // type as its own (MLIR's syntax for typed attributes), so what follows
  // the clauses is no longer `: type`.
  auto costTookType = [&](SMLoc loc) {
    return parser.emitError(loc, "expected ':' and the function type; a "
                                 "'#kernel.cost<...>' right before ':' takes "
                                 "the type as its own: write 'cost_estimate' "
                                 "before another clause or as '<...>'");
  };
  while (true) {
    SMLoc loc = parser.getCurrentLocation();
    StringRef keyword;
    if (failed(parser.parseOptionalKeyword(&keyword)))
      break;
    if (!llvm::is_contained(kCallClauses, keyword)) {
      if (last == "cost_estimate")
        return costTookType(loc);
      InFlightDiagnostic diag = parser.emitError(loc, "unknown clause '")
                                << keyword << "', expected one of ";
      llvm::interleave(
          kCallClauses, [&](StringRef c) { diag << "'" << c << "'"; },
          [&] { diag << ", "; });
      return diag;
    }
    if (!seen.insert(keyword).second)
      return parser.emitError(loc, "clause '")
             << keyword << "' appears more than once";
    if (parser.parseEqual())
      return failure();
    ParseResult parsed = success();
    if (keyword == "grid")
      parsed = parser.parseCustomAttributeWithFallback(props.grid, Type{});
    else if (keyword == "scalar_prefetch")
      parsed = parseI64Clause(parser, props.scalar_prefetch);
    else if (keyword == "cost_estimate")
      parsed =
          parser.parseCustomAttributeWithFallback(props.cost_estimate, Type{});
    else if (keyword == "in_specs")
      parsed = parser.parseAttribute(props.in_specs);
    else if (keyword == "out_specs")
      parsed = parser.parseAttribute(props.out_specs);
    else if (keyword == "scratch")
      parsed = parser.parseAttribute(props.scratch);
    else if (keyword == "dimension_semantics")
      parsed = parseDimensionSemantics(parser, props.dimension_semantics);
    else if (keyword == "input_output_aliases")
      parsed = parseAliases(parser, props.input_output_aliases);
    else
      parsed = parseI64Clause(parser, props.vmem_limit_bytes);
    if (failed(parsed))
      return failure();
    last = keyword;
  }
  for (StringRef required : {"grid", "in_specs", "out_specs"})
    if (!seen.contains(required))
      return parser.emitError(parser.getCurrentLocation(), "expected '")
             << required << "' clause";

  SMLoc attrLoc = parser.getCurrentLocation();
  if (parser.parseOptionalAttrDict(result.attributes) ||
      failed(verifyInherentAttrs(result.name, result.attributes, [&]() {
        return parser.emitError(attrLoc)
               << "'" << result.name.getStringRef() << "' op ";
      })))
    return failure();
  SMLoc colonLoc = parser.getCurrentLocation();
  if (failed(parser.parseOptionalColon())) {
    if (last == "cost_estimate")
      return costTookType(colonLoc);
    return parser.emitError(colonLoc, "expected ':'");
  }
  FunctionType type;
  if (parser.parseType(type))
    return failure();
  result.addTypes(type.getResults());
  return parser.resolveOperands(operands, type.getInputs(), operandsLoc,
                                result.operands);
}

void CallOp::print(OpAsmPrinter &printer) {
  printer << ' ';
  printer.printAttributeWithoutType(getCalleeAttr());
  printer << '(' << getOperands() << ") grid = ";
  printer.printStrippedAttrOrType(getGridAttr());
  if (getScalarPrefetch() != 0) {
    printer << " scalar_prefetch = ";
    printer.printAttributeWithoutType(getScalarPrefetchAttr());
  }
  if (CostEstimateAttr cost = getCostEstimateAttr()) {
    printer << " cost_estimate = ";
    printer.printStrippedAttrOrType(cost);
  }
  printer << " in_specs = ";
  printer.printAttributeWithoutType(getInSpecsAttr());
  printer << " out_specs = ";
  printer.printAttributeWithoutType(getOutSpecsAttr());
  if (ArrayAttr scratch = getScratchAttr()) {
    printer << " scratch = ";
    printer.printAttributeWithoutType(scratch);
  }
  if (ArrayAttr semantics = getDimensionSemanticsAttr()) {
    printer << " dimension_semantics = ";
    printDimensionSemantics(printer, *this, semantics);
  }
  if (DenseI64ArrayAttr aliases = getInputOutputAliasesAttr()) {
    printer << " input_output_aliases = ";
    printAliases(printer, *this, aliases);
  }
  if (IntegerAttr limit = getVmemLimitBytesAttr()) {
    printer << " vmem_limit_bytes = ";
    printer.printAttributeWithoutType(limit);
  }
  SmallVector<StringRef> elided(std::begin(kCallClauses),
                                std::end(kCallClauses));
  elided.push_back(getCalleeAttrName().getValue());
  printer.printOptionalAttrDict((*this)->getAttrs(), elided);
  printer << " : ";
  printer.printFunctionalType(getOperands().getTypes(),
                              getResults().getTypes());
}

SmallVector<DimensionSemantics> CallOp::getGridSemantics() {
  SmallVector<DimensionSemantics> result(getGrid().size(),
                                         DimensionSemantics::Arbitrary);
  if (std::optional<ArrayAttr> semantics = getDimensionSemantics())
    for (auto [i, attr] : llvm::enumerate(*semantics))
      if (i < result.size())
        result[i] = cast<DimensionSemanticsAttr>(attr).getValue();
  return result;
}

SmallVector<MemRefType> CallOp::getScratchTypes() {
  SmallVector<MemRefType> result;
  if (std::optional<ArrayAttr> scratch = getScratch())
    for (Attribute attr : *scratch)
      if (auto memref = dyn_cast<MemRefType>(cast<TypeAttr>(attr).getValue()))
        result.push_back(memref);
  return result;
}

SmallVector<std::pair<int64_t, int64_t>> CallOp::getAliasPairs() {
  SmallVector<std::pair<int64_t, int64_t>> result;
  if (std::optional<ArrayRef<int64_t>> flat = getInputOutputAliases())
    for (size_t i = 0; i + 1 < flat->size(); i += 2)
      result.emplace_back((*flat)[i], (*flat)[i + 1]);
  return result;
}

std::pair<BlockAttr, RankedTensorType> CallOp::getBlocked(unsigned i) {
  unsigned numInputs = getBlockedOperands().size();
  if (i < numInputs)
    return {getInSpec(i),
            cast<RankedTensorType>(getBlockedOperands()[i].getType())};
  return {getOutSpec(i - numInputs),
          cast<RankedTensorType>(getResult(i - numInputs).getType())};
}

std::string CallOp::getBlockedName(unsigned i) {
  unsigned numInputs = getBlockedOperands().size();
  if (i < numInputs)
    return "args[" + std::to_string(getScalarPrefetch() + i) + "]";
  return "outputs[" + std::to_string(i - numInputs) + "]";
}

SmallVector<Type> CallOp::getExpectedBodyArgTypes() {
  SmallVector<Type> types;
  for (Value operand : getPrefetchOperands()) {
    auto type = cast<RankedTensorType>(operand.getType());
    types.push_back(getKernelMemRefType(type.getShape(), type.getElementType(),
                                        MemorySpace::Smem));
  }
  for (unsigned i = 0, e = getNumBlocked(); i < e; ++i) {
    auto [block, type] = getBlocked(i);
    types.push_back(getKernelMemRefType(block.getWindowShape(type.getShape()),
                                        type.getElementType(),
                                        block.getMemorySpace()));
  }
  for (MemRefType type : getScratchTypes())
    types.push_back(type);
  return types;
}

//===----------------------------------------------------------------------===//
// RunScopedOp
//===----------------------------------------------------------------------===//

ParseResult RunScopedOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> arguments;
  SmallVector<Type> resultTypes;
  if (parser.parseArgumentList(arguments, OpAsmParser::Delimiter::Paren,
                               /*allowType=*/true) ||
      parser.parseOptionalArrowTypeList(resultTypes))
    return failure();
  result.addTypes(resultTypes);
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, arguments) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  return success();
}

void RunScopedOp::print(OpAsmPrinter &printer) {
  printer << " (";
  llvm::interleaveComma(
      getBody().getArguments(), printer,
      [&](BlockArgument arg) { printer.printRegionArgument(arg); });
  printer << ')';
  printer.printOptionalArrowTypeList(getResultTypes());
  printer << ' ';
  printer.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                      /*printBlockTerminators=*/true);
  printer.printOptionalAttrDictWithKeyword((*this)->getAttrs());
}
