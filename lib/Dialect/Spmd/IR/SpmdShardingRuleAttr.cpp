//===- SpmdShardingRuleAttr.cpp - #spmd.op_sharding_rule ------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Syntax, verification and queries of `#spmd.op_sharding_rule` and its parts,
// verification of an op's `spmd.sharding_rule` attribute against the op, and
// getShardingRule, the one way passes get an op's rule.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdShardingRule.h"
#include "tessera/Dialect/Spmd/IR/SpmdVerifiers.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <array>
#include <limits>

using namespace mlir;
using namespace mlir::tessera::spmd;

//===----------------------------------------------------------------------===//
// Factor names
//===----------------------------------------------------------------------===//

/// The index of factor `z`; `z_N` is factor `kStartAtZ + N`.
static constexpr int64_t kStartAtZ = 'z' - 'i';

std::string mlir::tessera::spmd::factorSymbolString(int64_t factorIndex) {
  if (factorIndex < 0)
    return "?";
  if (factorIndex <= kStartAtZ)
    return std::string(1, static_cast<char>('i' + factorIndex));
  return "z_" + std::to_string(factorIndex - kStartAtZ);
}

/// Removes the first factor name from `names` and returns its index. On a
/// malformed name, returns std::nullopt and sets `error`.
static std::optional<int64_t> consumeFactorSymbol(StringRef &names,
                                                  std::string &error) {
  if (!names.starts_with("z_")) {
    char symbol = names.front();
    if (symbol < 'i' || symbol > 'z') {
      error = "expecting symbol from 'i' to 'z'. Received: '" +
              std::string(1, symbol) + "'";
      return std::nullopt;
    }
    names = names.drop_front();
    return symbol - 'i';
  }
  size_t end = 2;
  while (end < names.size() && llvm::isDigit(names[end]))
    ++end;
  if (end == 2) {
    error = "expecting integer after 'z_'. Received: '" + names.str() + "'";
    return std::nullopt;
  }
  StringRef digits = names.slice(2, end);
  if (digits.front() == '0') {
    error = "expecting positive integer without leading zeros. Received: '" +
            digits.str() + "'";
    return std::nullopt;
  }
  uint64_t number = 0;
  if (digits.getAsInteger(10, number) ||
      number > static_cast<uint64_t>(std::numeric_limits<int64_t>::max() -
                                     kStartAtZ)) {
    error = "expecting symbol index <=2^63-1. Received: '" + digits.str() + "'";
    return std::nullopt;
  }
  names = names.drop_front(end);
  return kStartAtZ + static_cast<int64_t>(number);
}

std::optional<int64_t>
mlir::tessera::spmd::parseFactorSymbol(StringRef symbol) {
  if (symbol.empty())
    return std::nullopt;
  std::string error;
  std::optional<int64_t> index = consumeFactorSymbol(symbol, error);
  if (!index || !symbol.empty())
    return std::nullopt;
  return index;
}

/// The concatenated names of the factors of a dimension, e.g. `ij`.
static std::string dimMappingString(ArrayRef<int64_t> factorIndices) {
  std::string result;
  for (int64_t index : factorIndices)
    result += factorSymbolString(index);
  return result;
}

/// A factor size as written in a rule: the size, or `?` for a dynamic one.
static std::string factorSizeString(int64_t size) {
  if (ShapedType::isDynamic(size))
    return "?";
  return std::to_string(size);
}

/// `i=2, j=4` for the given factors.
static std::string factorSizesString(ArrayRef<int64_t> factorIndices,
                                     ArrayRef<int64_t> factorSizes) {
  std::string result;
  llvm::raw_string_ostream os(result);
  llvm::interleaveComma(factorIndices, os, [&](int64_t index) {
    os << factorSymbolString(index) << "="
       << factorSizeString(factorSizes[index]);
  });
  return result;
}

/// `{k, i}` for a factor set.
static std::string factorSetString(ArrayRef<int64_t> factorIndices) {
  std::string result = "{";
  llvm::raw_string_ostream os(result);
  llvm::interleaveComma(factorIndices, os, [&](int64_t index) {
    os << factorSymbolString(index);
  });
  os << "}";
  return result;
}

//===----------------------------------------------------------------------===//
// DimMappingAttr
//===----------------------------------------------------------------------===//

/// Parses the names of a dimension's factors (`ij`); no name gives an empty
/// mapping, which the rule's verifier rejects.
static ParseResult parseDimMappingBody(AsmParser &parser,
                                       DimMappingAttr &result) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> factorIndices;
  StringRef names;
  if (succeeded(parser.parseOptionalKeyword(&names))) {
    while (!names.empty()) {
      std::string error;
      std::optional<int64_t> index = consumeFactorSymbol(names, error);
      if (!index)
        return parser.emitError(loc, error);
      factorIndices.push_back(*index);
    }
  }
  result = DimMappingAttr::get(parser.getContext(), factorIndices);
  return success();
}

Attribute DimMappingAttr::parse(AsmParser &parser, Type) {
  DimMappingAttr result;
  if (parser.parseLess() || parseDimMappingBody(parser, result) ||
      parser.parseGreater())
    return {};
  return result;
}

void DimMappingAttr::print(AsmPrinter &printer) const {
  printer << "<" << dimMappingString(getFactorIndices()) << ">";
}

bool DimMappingAttr::contains(int64_t factorIndex) const {
  return llvm::is_contained(getFactorIndices(), factorIndex);
}

//===----------------------------------------------------------------------===//
// TensorMappingAttr
//===----------------------------------------------------------------------===//

/// Parses `[]` or `[` dim-mapping (`,` dim-mapping)* `]`. A bad dim mapping
/// adds Shardy's `failed to parse Spmd_TensorMapping parameter
/// 'dim_mappings'` to its error.
static ParseResult parseTensorMappingBody(AsmParser &parser,
                                          TensorMappingAttr &result) {
  SmallVector<DimMappingAttr> dims;
  if (parser.parseLSquare())
    return failure();
  if (failed(parser.parseOptionalRSquare())) {
    do {
      DimMappingAttr dim;
      if (parseDimMappingBody(parser, dim))
        return parser.emitError(parser.getCurrentLocation(),
                                "failed to parse Spmd_TensorMapping parameter "
                                "'dim_mappings' which is to be a "
                                "`::llvm::ArrayRef<DimMappingAttr>`");
      dims.push_back(dim);
    } while (succeeded(parser.parseOptionalComma()));
    if (parser.parseRSquare())
      return failure();
  }
  result = TensorMappingAttr::get(parser.getContext(), dims);
  return success();
}

static void printTensorMappingBody(AsmPrinter &printer,
                                   TensorMappingAttr mapping) {
  printer << "[";
  llvm::interleaveComma(mapping.getDimMappings(), printer,
                        [&](DimMappingAttr dim) {
                          printer << dimMappingString(dim.getFactorIndices());
                        });
  printer << "]";
}

Attribute TensorMappingAttr::parse(AsmParser &parser, Type) {
  TensorMappingAttr result;
  if (parser.parseLess() || parseTensorMappingBody(parser, result) ||
      parser.parseGreater())
    return {};
  return result;
}

void TensorMappingAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printTensorMappingBody(printer, *this);
  printer << ">";
}

bool TensorMappingAttr::containsFactor(int64_t factorIndex) const {
  return getDimOfFactor(factorIndex).has_value();
}

std::optional<int64_t>
TensorMappingAttr::getDimOfFactor(int64_t factorIndex) const {
  for (auto [dim, mapping] : llvm::enumerate(getDimMappings()))
    if (mapping.contains(factorIndex))
      return dim;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// OpShardingRuleAttr: syntax
//===----------------------------------------------------------------------===//

/// The optional factor sets, in the order they are written.
static constexpr std::array<StringLiteral, 4> kFactorSetNames = {
    "reduction", "need_replication", "permutation", "blocked_propagation"};

/// Parses `(` tensor-mapping (`,` tensor-mapping)* `)` (at least one); a
/// bad mapping adds `failed to parse Spmd_OpShardingRule parameter
/// '<param>'` to its error.
static ParseResult
parseTensorMappingList(AsmParser &parser, StringRef param,
                       SmallVectorImpl<TensorMappingAttr> &mappings) {
  if (parser.parseLParen())
    return failure();
  do {
    TensorMappingAttr mapping;
    if (parseTensorMappingBody(parser, mapping))
      return parser.emitError(parser.getCurrentLocation(),
                              "failed to parse Spmd_OpShardingRule parameter '")
             << param
             << "' which is to be a `::llvm::ArrayRef<TensorMappingAttr>`";
    mappings.push_back(mapping);
  } while (succeeded(parser.parseOptionalComma()));
  return parser.parseRParen();
}

/// Parses one factor name that must stand alone (not a compound).
static ParseResult parseSingleFactorSymbol(AsmParser &parser,
                                           int64_t &factorIndex) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef symbol;
  if (parser.parseKeyword(&symbol))
    return failure();
  StringRef rest = symbol;
  std::string error;
  std::optional<int64_t> index = consumeFactorSymbol(rest, error);
  if (!index)
    return parser.emitError(loc, error);
  if (!rest.empty())
    return parser.emitError(loc, "expecting single factor symbol: '")
           << symbol << "'";
  factorIndex = *index;
  return success();
}

/// Parses the optional `{i=8, j=16}`; names must come in index order.
static ParseResult parseFactorSizes(AsmParser &parser,
                                    SmallVectorImpl<int64_t> &factorSizes) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::OptionalBraces, [&]() -> ParseResult {
        SMLoc loc = parser.getCurrentLocation();
        int64_t expected = factorSizes.size();
        int64_t index = 0, size = 0;
        if (parseSingleFactorSymbol(parser, index))
          return failure();
        if (index != expected)
          return parser.emitError(loc, "expecting factor indices to be "
                                       "ordered like an iota ([0,1,2,...], "
                                       "e.g. {i=#, j=#, ...}). Expecting "
                                       "factor index symbol '")
                 << factorSymbolString(expected) << "', received: '"
                 << factorSymbolString(index) << "'";
        if (parser.parseEqual())
          return failure();
        if (succeeded(parser.parseOptionalQuestion()))
          size = ShapedType::kDynamic;
        else if (parser.parseInteger(size))
          return failure();
        factorSizes.push_back(size);
        return success();
      });
}

Attribute OpShardingRuleAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<TensorMappingAttr> operandMappings, resultMappings;
  SmallVector<int64_t> factorSizes;
  if (parser.parseLess() ||
      parseTensorMappingList(parser, "operand_mappings", operandMappings) ||
      parser.parseArrow() ||
      parseTensorMappingList(parser, "result_mappings", resultMappings) ||
      parseFactorSizes(parser, factorSizes))
    return {};

  // The factor sets, each optional, in their fixed order; anything else
  // ends the rule (and fails on the expected `>`).
  std::array<SmallVector<int64_t>, kFactorSetNames.size()> factorSets;
  for (size_t set = 0; set < kFactorSetNames.size(); ++set) {
    if (failed(parser.parseOptionalKeyword(kFactorSetNames[set])))
      continue;
    if (parser.parseEqual() ||
        parser.parseCommaSeparatedList(
            AsmParser::Delimiter::OptionalBraces, [&]() -> ParseResult {
              int64_t index = 0;
              if (parseSingleFactorSymbol(parser, index))
                return failure();
              factorSets[set].push_back(index);
              return success();
            }))
      return {};
  }

  bool isCustomRule = false;
  if (succeeded(parser.parseOptionalComma())) {
    if (parser.parseKeyword("custom"))
      return {};
    isCustomRule = true;
  }
  if (parser.parseGreater())
    return {};
  // As in Shardy, the rule is checked against the op it is attached to
  // (verifyShardingRule), not when it is parsed: its errors then name the op.
  (void)loc;
  using Factors = ArrayRef<int64_t>;
  using Mappings = ArrayRef<TensorMappingAttr>;
  return OpShardingRuleAttr::get(
      parser.getContext(), Factors(factorSizes), Mappings(operandMappings),
      Mappings(resultMappings), Factors(factorSets[0]), Factors(factorSets[1]),
      Factors(factorSets[2]), Factors(factorSets[3]), isCustomRule);
}

void OpShardingRuleAttr::print(AsmPrinter &printer) const {
  auto printMappings = [&](ArrayRef<TensorMappingAttr> mappings) {
    printer << "(";
    llvm::interleaveComma(mappings, printer, [&](TensorMappingAttr mapping) {
      printTensorMappingBody(printer, mapping);
    });
    printer << ")";
  };
  printer << "<";
  printMappings(getOperandMappings());
  printer << "->";
  printMappings(getResultMappings());
  if (!getFactorSizes().empty()) {
    printer << " {";
    llvm::interleaveComma(
        llvm::enumerate(getFactorSizes()), printer, [&](auto indexAndSize) {
          printer << factorSymbolString(indexAndSize.index()) << "="
                  << factorSizeString(indexAndSize.value());
        });
    printer << "}";
  }
  std::array<ArrayRef<int64_t>, kFactorSetNames.size()> sets = {
      getReductionFactors(), getNeedReplicationFactors(),
      getPermutationFactors(), getBlockedPropagationFactors()};
  for (auto [name, set] : llvm::zip_equal(kFactorSetNames, sets))
    if (!set.empty())
      printer << " " << name << "=" << factorSetString(set);
  if (isCustom())
    printer << ", custom";
  printer << ">";
}

//===----------------------------------------------------------------------===//
// OpShardingRuleAttr: context-free verification
//===----------------------------------------------------------------------===//

/// `operand 0 - ` (or `operand - ` when there is a single operand), the
/// prefix naming one of `numValues` values in a message.
static std::string valuePrefix(StringRef kind, int64_t numValues,
                               int64_t index) {
  if (numValues == 1)
    return kind.str() + " - ";
  return kind.str() + " " + std::to_string(index) + " - ";
}

/// Verifies the dimension mappings of operands or results (`kind`), and marks
/// the factors they use in `usedFactors`.
static LogicalResult
verifyTensorMappings(function_ref<InFlightDiagnostic()> emitError,
                     ArrayRef<TensorMappingAttr> mappings, StringRef kind,
                     ArrayRef<int64_t> factorSizes,
                     llvm::BitVector &usedFactors) {
  int64_t numFactors = factorSizes.size();
  for (auto [tensorIndex, mapping] : llvm::enumerate(mappings)) {
    std::string prefix = valuePrefix(kind, mappings.size(), tensorIndex);
    llvm::BitVector seenInTensor(numFactors);
    for (auto [dim, dimMapping] : llvm::enumerate(mapping.getDimMappings())) {
      ArrayRef<int64_t> factorIndices = dimMapping.getFactorIndices();
      if (factorIndices.empty())
        return emitError() << prefix
                           << "dim mapping must have at least one factor: dim "
                           << dim;
      for (int64_t factorIndex : factorIndices) {
        if (factorIndex < 0 || factorIndex >= numFactors)
          return emitError() << prefix
                             << "expecting factor indices to be within "
                                "0<=...<num_factors; received: "
                             << factorIndex << ", num_factors: " << numFactors;
        if (seenInTensor.test(factorIndex))
          return emitError() << prefix
                             << "cannot reuse factors for the same tensor "
                                "value: "
                             << factorSymbolString(factorIndex);
        if (factorIndices.size() > 1 && factorSizes[factorIndex] == 1)
          return emitError()
                 << prefix
                 << "dim mapping can't have a factor of size 1 if there are "
                    "multiple factors: "
                 << dimMappingString(factorIndices) << " with "
                 << factorSymbolString(factorIndex) << "=1";
        seenInTensor.set(factorIndex);
        usedFactors.set(factorIndex);
      }
    }
  }
  return success();
}

/// Verifies that a factor set (`name`) is sorted, unique and in range.
static LogicalResult
verifyFactorSet(function_ref<InFlightDiagnostic()> emitError, StringRef name,
                ArrayRef<int64_t> factorSet, int64_t numFactors) {
  if (factorSet.empty())
    return success();
  if (!llvm::is_sorted(factorSet))
    return emitError() << "indices of special factors must be sorted, got: "
                       << name << "=" << factorSetString(factorSet);
  if (std::adjacent_find(factorSet.begin(), factorSet.end()) != factorSet.end())
    return emitError() << "indices of special factors must be unique, got: "
                       << name << "=" << factorSetString(factorSet);
  if (factorSet.front() < 0)
    return emitError() << name << " factor index must be non-negative, got: "
                       << factorSet.front();
  if (factorSet.back() >= numFactors)
    return emitError() << name << " factor index must be less than "
                       << numFactors << ", got: " << factorSet.back();
  return success();
}

LogicalResult OpShardingRuleAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, ArrayRef<int64_t> factorSizes,
    ArrayRef<TensorMappingAttr> operandMappings,
    ArrayRef<TensorMappingAttr> resultMappings,
    ArrayRef<int64_t> reductionFactors,
    ArrayRef<int64_t> needReplicationFactors,
    ArrayRef<int64_t> permutationFactors,
    ArrayRef<int64_t> blockedPropagationFactors, bool isCustomRule) {
  if (operandMappings.empty() || resultMappings.empty())
    return emitError() << "number of "
                       << (operandMappings.empty() ? "operand" : "result")
                       << "s mappings cannot be 0. Op sharding rules can only "
                          "be defined on operations with at least one operand "
                          "and result.";
  for (auto [index, size] : llvm::enumerate(factorSizes))
    if (size < 0 && !ShapedType::isDynamic(size))
      return emitError() << "factor size must be non-negative, got: "
                         << factorSymbolString(index) << "=" << size;

  int64_t numFactors = factorSizes.size();
  llvm::BitVector usedFactors(numFactors);
  if (failed(verifyTensorMappings(emitError, operandMappings, "operand",
                                  factorSizes, usedFactors)) ||
      failed(verifyTensorMappings(emitError, resultMappings, "result",
                                  factorSizes, usedFactors)))
    return failure();
  if (!usedFactors.all()) {
    int64_t unused = usedFactors.find_first_unset();
    return emitError() << "has factor " << factorSymbolString(unused) << "="
                       << factorSizeString(factorSizes[unused])
                       << " that isn't used in operand and result mappings";
  }

  std::array<ArrayRef<int64_t>, kFactorSetNames.size()> sets = {
      reductionFactors, needReplicationFactors, permutationFactors,
      blockedPropagationFactors};
  for (auto [name, set] : llvm::zip_equal(kFactorSetNames, sets))
    if (failed(verifyFactorSet(emitError, name, set, numFactors)))
      return failure();

  // The factor kinds are exclusive; blocked propagation is orthogonal.
  llvm::BitVector hasKind(numFactors);
  for (ArrayRef<int64_t> set : ArrayRef(sets).drop_back()) {
    for (int64_t factorIndex : set) {
      if (hasKind.test(factorIndex))
        return emitError() << "a factor can only be in one of the reduction, "
                              "need replication, or permutation factor sets: "
                           << factorSymbolString(factorIndex);
      hasKind.set(factorIndex);
    }
  }

  for (int64_t factorIndex : reductionFactors)
    for (TensorMappingAttr mapping : resultMappings)
      if (mapping.containsFactor(factorIndex))
        return emitError() << "reduction factor cannot be in result mappings: "
                           << factorSymbolString(factorIndex);
  return success();
}

//===----------------------------------------------------------------------===//
// OpShardingRuleAttr: queries
//===----------------------------------------------------------------------===//

TensorMappingAttr
OpShardingRuleAttr::getTensorMapping(int64_t tensorIndex) const {
  if (tensorIndex < getNumOperands())
    return getOperandMapping(tensorIndex);
  return getResultMapping(tensorIndex - getNumOperands());
}

FactorType OpShardingRuleAttr::getFactorType(int64_t factorIndex) const {
  if (isReduction(factorIndex))
    return FactorType::Reduction;
  if (isNeedReplication(factorIndex))
    return FactorType::NeedReplication;
  if (isPermutation(factorIndex))
    return FactorType::Permutation;
  return FactorType::PassThrough;
}

bool OpShardingRuleAttr::isPassThrough(int64_t factorIndex) const {
  return getFactorType(factorIndex) == FactorType::PassThrough;
}

bool OpShardingRuleAttr::isReduction(int64_t factorIndex) const {
  return llvm::is_contained(getReductionFactors(), factorIndex);
}

bool OpShardingRuleAttr::isNeedReplication(int64_t factorIndex) const {
  return llvm::is_contained(getNeedReplicationFactors(), factorIndex);
}

bool OpShardingRuleAttr::isPermutation(int64_t factorIndex) const {
  return llvm::is_contained(getPermutationFactors(), factorIndex);
}

bool OpShardingRuleAttr::isBlocked(int64_t factorIndex) const {
  return llvm::is_contained(getBlockedPropagationFactors(), factorIndex);
}

bool OpShardingRuleAttr::hasDimensionsWithMultipleFactors() const {
  for (int64_t tensor = 0, e = getNumTensors(); tensor < e; ++tensor)
    for (DimMappingAttr dim : getTensorMapping(tensor).getDimMappings())
      if (dim.getNumFactors() > 1)
        return true;
  return false;
}

SmallVector<int64_t>
OpShardingRuleAttr::getTensorsWithFactor(int64_t factorIndex) const {
  SmallVector<int64_t> tensors;
  for (int64_t tensor = 0, e = getNumTensors(); tensor < e; ++tensor)
    if (getTensorMapping(tensor).containsFactor(factorIndex))
      tensors.push_back(tensor);
  return tensors;
}

//===----------------------------------------------------------------------===//
// Verification against an op
//===----------------------------------------------------------------------===//

/// Verifies the mappings of an op's operands or results (`kind`) against
/// their types.
static LogicalResult verifyValueMappings(Operation *op, OpShardingRuleAttr rule,
                                         TypeRange types,
                                         ArrayRef<TensorMappingAttr> mappings,
                                         StringRef kind) {
  if (types.size() != mappings.size())
    return op->emitOpError("number of ")
           << kind << "s and mappings must match: " << types.size()
           << " != " << mappings.size();
  if (mappings.empty())
    return op->emitOpError("number of ")
           << kind
           << "s mappings cannot be 0. Op sharding rules can only be defined "
              "on operations with at least one operand and result.";
  for (auto [index, entry] :
       llvm::enumerate(llvm::zip_equal(types, mappings))) {
    auto [type, mapping] = entry;
    EmitErrorFn emitError = getEmitValueInRangeErrorFn(
        [op, kind](StringRef msg) {
          return op->emitOpError(kind) << " " << msg;
        },
        types.size(), index);

    // A non-shaped value is a scalar.
    ArrayRef<int64_t> shape;
    if (isa<ShapedType>(type)) {
      // Dynamic dimensions are checked below: each needs a dynamic factor.
      auto tensorType = dyn_cast<RankedTensorType>(type);
      if (!tensorType)
        return emitError("expected a ranked tensor with a static shape. type: ")
               << type;
      shape = tensorType.getShape();
    } else if (mapping.getRank() != 0) {
      return emitError("expected a ranked tensor with a static shape. type: ")
             << type;
    }
    if (mapping.getRank() != static_cast<int64_t>(shape.size()))
      return emitError("mapping rank must match: ")
             << mapping.getRank() << " != " << shape.size();

    int64_t numFactors = rule.getNumFactors();
    llvm::BitVector seenInValue(numFactors);
    for (auto [dim, dimMapping] : llvm::enumerate(mapping.getDimMappings())) {
      ArrayRef<int64_t> factorIndices = dimMapping.getFactorIndices();
      if (factorIndices.empty())
        return emitError("dim mapping must have at least one factor: dim ")
               << dim;
      for (int64_t factorIndex : factorIndices) {
        if (factorIndex < 0 || factorIndex >= numFactors)
          return emitError("expecting factor indices to be within "
                           "0<=...<num_factors; received: ")
                 << factorIndex << ", num_factors: " << numFactors;
        if (seenInValue.test(factorIndex))
          return emitError("cannot reuse factors for the same tensor value: ")
                 << factorSymbolString(factorIndex);
        if (factorIndices.size() > 1 && rule.getFactorSize(factorIndex) == 1)
          return emitError("dim mapping can't have a factor of size 1 if "
                           "there are multiple factors: ")
                 << dimMappingString(factorIndices) << " with "
                 << factorSymbolString(factorIndex) << "=1";
        seenInValue.set(factorIndex);
      }
    }
    for (auto [dim, dimSize, dimMapping] :
         llvm::enumerate(shape, mapping.getDimMappings())) {
      ArrayRef<int64_t> factorIndices = dimMapping.getFactorIndices();
      auto isDynamicFactor = [&](int64_t factorIndex) {
        return rule.isDynamicFactor(factorIndex);
      };
      // A dimension of dynamic size (of a `poly.shape` program, say) is
      // mapped to at least one factor of dynamic size `?`; its size is only
      // known at run time.
      if (ShapedType::isDynamic(dimSize)) {
        if (!llvm::any_of(factorIndices, isDynamicFactor))
          return emitError(
                     "expected a ranked tensor with a static shape. type: ")
                 << type << " (dim " << dim
                 << " is dynamic: map it to a factor of size '?')";
        continue;
      }
      // A single size-1 factor leaves the dimension unsharded, whatever its
      // size; permutation and need-replication factors may change the size
      // of a dimension across the op (pad, slice, concatenate, windows).
      if (factorIndices.size() == 1 &&
          rule.getFactorSize(factorIndices.front()) == 1)
        continue;
      if (llvm::any_of(factorIndices, [&](int64_t factorIndex) {
            return rule.isPermutation(factorIndex) ||
                   rule.isNeedReplication(factorIndex);
          }))
        continue;
      if (llvm::any_of(factorIndices, isDynamicFactor))
        return emitError("dim ")
               << dim << " size must match the product of its factor sizes: "
               << dimSize << " != ? ("
               << factorSizesString(factorIndices, rule.getFactorSizes())
               << ")";
      int64_t product = 1;
      bool overflow = false;
      for (int64_t factorIndex : factorIndices)
        overflow |= llvm::MulOverflow(product, rule.getFactorSize(factorIndex),
                                      product);
      if (overflow)
        return emitError("dim ")
               << dim << " size must match the product of its factor sizes ("
               << factorSizesString(factorIndices, rule.getFactorSizes())
               << "), which overflows";
      if (product != dimSize)
        return emitError("dim ")
               << dim << " size must match the product of its factor sizes: "
               << dimSize << " != " << product << " ("
               << factorSizesString(factorIndices, rule.getFactorSizes())
               << ")";
    }
  }
  return success();
}

LogicalResult mlir::tessera::spmd::verifyShardingRule(OpShardingRuleAttr rule,
                                                      Operation *op) {
  // In Shardy's order: the mappings against the operands and results first,
  // then the rule's own invariants (unused factors, factor sets).
  for (auto [index, size] : llvm::enumerate(rule.getFactorSizes()))
    if (size < 0 && !ShapedType::isDynamic(size))
      return op->emitOpError("factor size must be non-negative, got: ")
             << factorSymbolString(index) << "=" << size;
  if (failed(verifyValueMappings(op, rule, op->getOperandTypes(),
                                 rule.getOperandMappings(), "operand")) ||
      failed(verifyValueMappings(op, rule, op->getResultTypes(),
                                 rule.getResultMappings(), "result")))
    return failure();
  return OpShardingRuleAttr::verify(
      [op] { return op->emitOpError(); }, rule.getFactorSizes(),
      rule.getOperandMappings(), rule.getResultMappings(),
      rule.getReductionFactors(), rule.getNeedReplicationFactors(),
      rule.getPermutationFactors(), rule.getBlockedPropagationFactors(),
      rule.getIsCustomRule());
}

LogicalResult
mlir::tessera::spmd::verifyShardingRuleAttribute(Operation *op,
                                                 NamedAttribute attr) {
  auto rule = dyn_cast<OpShardingRuleAttr>(attr.getValue());
  if (!rule)
    return op->emitOpError("should have a sharding rule attribute of type "
                           "OpShardingRuleAttr for '")
           << attr.getName().getValue() << "'";
  return verifyShardingRule(rule, op);
}

//===----------------------------------------------------------------------===//
// getShardingRule
//===----------------------------------------------------------------------===//

OpShardingRuleAttr mlir::tessera::spmd::getShardingRule(Operation *op) {
  // The verifier (verifyShardingRuleAttribute) has checked an attribute that
  // is present against the op.
  if (auto rule = dyn_cast_or_null<OpShardingRuleAttr>(
          op->getDiscardableAttr(kShardingRuleAttrName)))
    return rule;
  if (auto iface = dyn_cast<ShardingRuleOpInterface>(op))
    return iface.getShardingRule();
  return OpShardingRuleAttr();
}

ShardingRuleCache::~ShardingRuleCache() {
  for (Entry &entry : entries) {
    entry.name.destroyOpProperties(OpaqueProperties(entry.properties));
    ::operator delete(entry.properties);
  }
}

bool ShardingRuleCache::matches(const Entry &entry, OperationName name,
                                Operation *op) {
  ArrayRef<Type> types = entry.types;
  return entry.name == name && entry.numOperands == op->getNumOperands() &&
         types.size() == entry.numOperands + op->getNumResults() &&
         TypeRange(types.take_front(entry.numOperands)) ==
             op->getOperandTypes() &&
         TypeRange(types.drop_front(entry.numOperands)) ==
             op->getResultTypes() &&
         name.compareOpProperties(OpaqueProperties(entry.properties),
                                  op->getPropertiesStorage());
}

OpShardingRuleAttr ShardingRuleCache::get(Operation *op) {
  // (The rule is a discardable attribute: the op's inherent ones, whose
  // lookup loads the op's location, are not searched.)
  if (op->getPropertiesStorageSize() == 0 ||
      op->getDiscardableAttr(kShardingRuleAttrName))
    return getShardingRule(op);
  OperationName name = op->getName();
  std::array<Entry *, kRecent> &mru = recent[name];
  // Moves `entry` to the front of `mru` (the last one leaves when it is new).
  auto use = [&](Entry *entry) {
    Entry *moving = entry;
    for (Entry *&slot : mru) {
      std::swap(slot, moving);
      if (moving == entry)
        break;
    }
    return entry->rule;
  };
  for (Entry *entry : mru)
    if (entry && matches(*entry, name, op))
      return use(entry);
  llvm::hash_code hash =
      llvm::hash_combine(name.getAsOpaquePointer(), op->hashProperties(),
                         llvm::hash_combine_range(op->getOperandTypes().begin(),
                                                  op->getOperandTypes().end()),
                         llvm::hash_combine_range(op->getResultTypes().begin(),
                                                  op->getResultTypes().end()));
  auto &bucket = rules[hash];
  for (Entry *entry : bucket)
    if (matches(*entry, name, op))
      return use(entry);
  void *properties = ::operator new(op->getPropertiesStorageSize());
  name.initOpProperties(OpaqueProperties(properties),
                        OpaqueProperties(nullptr));
  name.copyOpProperties(OpaqueProperties(properties),
                        op->getPropertiesStorage());
  Entry &entry = entries.emplace_back(
      Entry{name, properties, {}, op->getNumOperands(), getShardingRule(op)});
  llvm::append_range(entry.types, op->getOperandTypes());
  llvm::append_range(entry.types, op->getResultTypes());
  bucket.push_back(&entry);
  return use(&entry);
}

//===----------------------------------------------------------------------===//
// Reduction combiners
//===----------------------------------------------------------------------===//

ReductionCombiner mlir::tessera::spmd::getReductionCombiner(Operation *op,
                                                            unsigned index) {
  if (auto iface = dyn_cast<ShardingRuleOpInterface>(op))
    return iface.getReductionCombiner(index);
  return ReductionCombiner::None;
}

std::optional<ReductionKind>
mlir::tessera::spmd::getCollectiveKind(ReductionCombiner combiner) {
  switch (combiner) {
  case ReductionCombiner::Add:
    return ReductionKind::Sum;
  case ReductionCombiner::Max:
    return ReductionKind::Max;
  case ReductionCombiner::Min:
    return ReductionKind::Min;
  case ReductionCombiner::None:
  case ReductionCombiner::Mul:
  case ReductionCombiner::UnsignedMax:
  case ReductionCombiner::UnsignedMin:
  case ReductionCombiner::And:
  case ReductionCombiner::Or:
  case ReductionCombiner::Xor:
  case ReductionCombiner::Select:
    return std::nullopt;
  }
  llvm_unreachable("unknown reduction combiner");
}

StringRef mlir::tessera::spmd::getJaxReductionName(ReductionCombiner combiner) {
  switch (combiner) {
  case ReductionCombiner::Add:
    return "reduce_sum";
  case ReductionCombiner::Mul:
    return "reduce_prod";
  case ReductionCombiner::Max:
  case ReductionCombiner::UnsignedMax:
    return "reduce_max";
  case ReductionCombiner::Min:
  case ReductionCombiner::UnsignedMin:
    return "reduce_min";
  case ReductionCombiner::And:
    return "reduce_and";
  case ReductionCombiner::Or:
    return "reduce_or";
  case ReductionCombiner::Xor:
    return "reduce_xor";
  case ReductionCombiner::None:
  case ReductionCombiner::Select:
    return "reduce";
  }
  llvm_unreachable("unknown reduction combiner");
}
