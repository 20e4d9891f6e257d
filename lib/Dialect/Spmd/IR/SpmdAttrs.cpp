//===- SpmdAttrs.cpp - spmd attributes: syntax and axis algebra -----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/SpmdAttrs.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>

using namespace mlir;
using namespace mlir::tessera::spmd;

//===----------------------------------------------------------------------===//
// Shared parsing helpers
//===----------------------------------------------------------------------===//

// The parse errors follow Shardy's, which come from TableGen-generated
// parsers: the innermost error (`expected string`) followed by one
// `failed to parse <Attr> parameter '<name>' ...` per enclosing attribute,
// all at the same place, so that users (and tests) see the same chain.

/// Parses `"name"`; `attrName` names the attribute for the error chain.
static ParseResult parseAxisName(AsmParser &parser, std::string &name,
                                 StringRef attrName = "Spmd_AxisRef") {
  SMLoc loc = parser.getCurrentLocation();
  if (succeeded(parser.parseOptionalString(&name)))
    return success();
  parser.emitError(loc, "expected string");
  return parser.emitError(loc, "failed to parse ")
         << attrName
         << " parameter 'name' which is to be a `::llvm::StringRef`";
}

/// Parses `"x"` or `"x":(m)k`.
static ParseResult parseAxisRef(AsmParser &parser, AxisRefAttr &ref) {
  std::string name;
  if (parseAxisName(parser, name))
    return failure();
  MLIRContext *ctx = parser.getContext();
  if (succeeded(parser.parseOptionalColon())) {
    SMLoc loc = parser.getCurrentLocation();
    int64_t preSize = 0, size = 0;
    if (parser.parseLParen() || parser.parseInteger(preSize) ||
        parser.parseRParen() || parser.parseInteger(size))
      return failure();
    auto info = SubAxisInfoAttr::getChecked(
        [&] { return parser.emitError(loc); }, ctx, preSize, size);
    if (!info)
      return failure();
    ref = AxisRefAttr::get(ctx, name, info);
    return success();
  }
  ref = AxisRefAttr::get(ctx, name);
  return success();
}

/// Parses `{` axis-ref (`,` axis-ref)* `}` (possibly empty). A bad element
/// adds `failed to parse axis list ...` to its error.
static ParseResult parseAxisRefBraces(AsmParser &parser,
                                      SmallVectorImpl<AxisRefAttr> &refs) {
  if (parser.parseLBrace())
    return failure();
  if (succeeded(parser.parseOptionalRBrace()))
    return success();
  do {
    AxisRefAttr ref;
    if (parseAxisRef(parser, ref))
      return parser.emitError(parser.getCurrentLocation(),
                              "failed to parse axis list which is expected "
                              "to be an `ArrayRef<AxisRefAttr>`");
    refs.push_back(ref);
  } while (succeeded(parser.parseOptionalComma()));
  return parser.parseRBrace();
}

static void printAxisRefs(AsmPrinter &printer, ArrayRef<AxisRefAttr> refs) {
  printer << "{";
  llvm::interleaveComma(refs, printer,
                        [&](AxisRefAttr ref) { printer << ref.toString(); });
  printer << "}";
}

//===----------------------------------------------------------------------===//
// MeshAxisAttr
//===----------------------------------------------------------------------===//

/// Parses `"x"=4`.
static MeshAxisAttr parseMeshAxisBody(AsmParser &parser) {
  std::string name;
  int64_t size = 0;
  SMLoc loc = parser.getCurrentLocation();
  if (parseAxisName(parser, name, "Spmd_MeshAxis") || parser.parseEqual() ||
      parser.parseInteger(size))
    return {};
  if (size < 1) {
    parser.emitError(loc, "axis size must be at least 1, got: ")
        << size << " for axis \"" << name << "\"";
    return {};
  }
  return MeshAxisAttr::get(parser.getContext(), name, size);
}

static void printMeshAxisBody(AsmPrinter &printer, MeshAxisAttr axis) {
  printer.printString(axis.getName());
  printer << "=" << axis.getSize();
}

Attribute MeshAxisAttr::parse(AsmParser &parser, Type) {
  MeshAxisAttr axis;
  if (parser.parseLess() || !(axis = parseMeshAxisBody(parser)) ||
      parser.parseGreater())
    return {};
  return axis;
}

void MeshAxisAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printMeshAxisBody(printer, *this);
  printer << ">";
}

//===----------------------------------------------------------------------===//
// MeshAttr
//===----------------------------------------------------------------------===//

Attribute MeshAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<MeshAxisAttr> axes;
  SmallVector<int64_t> deviceIds;
  SmallVector<AxisType> axisTypes;
  bool hasDeviceIds = false, hasAxisTypes = false;
  if (parser.parseLess())
    return {};
  if (parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Square, [&]() -> ParseResult {
            MeshAxisAttr axis = parseMeshAxisBody(parser);
            if (!axis)
              return failure();
            axes.push_back(axis);
            return success();
          })) {
    parser.emitError(parser.getCurrentLocation(),
                     "failed to parse Spmd_Mesh parameter 'axes' which is to "
                     "be a `::llvm::ArrayRef<MeshAxisAttr>`");
    return {};
  }
  while (succeeded(parser.parseOptionalComma())) {
    StringRef keyword;
    SMLoc kwLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&keyword))
      return {};
    if (keyword == "device_ids" && !hasDeviceIds) {
      hasDeviceIds = true;
      if (parser.parseEqual() ||
          parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                         [&]() -> ParseResult {
                                           int64_t id = 0;
                                           if (parser.parseInteger(id))
                                             return failure();
                                           deviceIds.push_back(id);
                                           return success();
                                         }))
        return {};
    } else if (keyword == "axis_types" && !hasAxisTypes) {
      hasAxisTypes = true;
      if (parser.parseEqual() ||
          parser.parseCommaSeparatedList(
              AsmParser::Delimiter::Square, [&]() -> ParseResult {
                StringRef typeName;
                SMLoc typeLoc = parser.getCurrentLocation();
                if (parser.parseKeyword(&typeName))
                  return failure();
                std::optional<AxisType> type = symbolizeAxisType(typeName);
                if (!type)
                  return parser.emitError(typeLoc, "unknown axis type '")
                         << typeName
                         << "', expected 'explicit', 'auto' or 'manual'";
                axisTypes.push_back(*type);
                return success();
              }))
        return {};
    } else {
      parser.emitError(kwLoc, "expected 'device_ids' or 'axis_types' (each "
                              "at most once), got '")
          << keyword << "'";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};

  // Canonical form: an iota device order and all-auto axis types are
  // implicit.
  if (!axes.empty() && !deviceIds.empty() &&
      llvm::equal(deviceIds, llvm::seq<int64_t>(0, deviceIds.size()))) {
    int64_t product = 1;
    for (MeshAxisAttr axis : axes)
      product *= axis.getSize();
    if (product == static_cast<int64_t>(deviceIds.size()))
      deviceIds.clear();
  }
  if (axisTypes.size() == axes.size() &&
      llvm::all_of(axisTypes, [](AxisType t) { return t == AxisType::Auto; }))
    axisTypes.clear();

  return MeshAttr::getChecked([&] { return parser.emitError(loc); },
                              parser.getContext(), axes, deviceIds, axisTypes);
}

void MeshAttr::print(AsmPrinter &printer) const {
  printer << "<[";
  llvm::interleaveComma(getAxes(), printer, [&](MeshAxisAttr axis) {
    printMeshAxisBody(printer, axis);
  });
  printer << "]";
  if (!getDeviceIds().empty()) {
    printer << ", device_ids=[";
    llvm::interleaveComma(getDeviceIds(), printer);
    printer << "]";
  }
  if (!getAxisTypes().empty()) {
    printer << ", axis_types=[";
    llvm::interleaveComma(getAxisTypes(), printer, [&](AxisType type) {
      printer << stringifyAxisType(type);
    });
    printer << "]";
  }
  printer << ">";
}

LogicalResult MeshAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<MeshAxisAttr> axes,
                               ArrayRef<int64_t> deviceIds,
                               ArrayRef<AxisType> axisTypes) {
  llvm::SmallSet<StringRef, 8> names;
  int64_t product = 1;
  for (MeshAxisAttr axis : axes) {
    if (!names.insert(axis.getName()).second)
      return emitError() << "duplicate axis name: \"" << axis.getName() << "\"";
    if (axis.getSize() < 1)
      return emitError() << "axis size must be at least 1, got: "
                         << axis.getSize() << " for axis \"" << axis.getName()
                         << "\"";
    if (product > std::numeric_limits<int32_t>::max() / axis.getSize())
      return emitError() << "mesh has too many devices: the product of the "
                            "axis sizes overflows";
    product *= axis.getSize();
  }
  if (!axisTypes.empty() && axisTypes.size() != axes.size())
    return emitError() << "axis_types must have one entry per axis, got: "
                       << axisTypes.size() << " != " << axes.size();
  if (deviceIds.empty())
    return success();
  for (int64_t id : deviceIds)
    if (id < 0)
      return emitError() << "device id must be non-negative, got: " << id;
  if (axes.empty()) {
    if (deviceIds.size() != 1)
      return emitError()
             << "axes is empty and device_ids has more than one element";
    return success();
  }
  if (product != static_cast<int64_t>(deviceIds.size()))
    return emitError() << "total product of axis sizes must match total "
                          "number of device ids, got: "
                       << product << " != " << deviceIds.size();
  SmallVector<int64_t> sorted(deviceIds);
  llvm::sort(sorted);
  if (!llvm::equal(sorted, llvm::seq<int64_t>(0, product))) {
    InFlightDiagnostic diag = emitError();
    diag << "sorted device ids must be iota(product(axes)), got: ";
    llvm::interleaveComma(sorted, diag);
    return diag;
  }
  return success();
}

bool MeshAttr::empty() const {
  return getAxes().empty() && getDeviceIds().empty();
}

bool MeshAttr::isMaximal() const {
  return getAxes().empty() && getDeviceIds().size() == 1;
}

std::optional<int64_t> MeshAttr::getMaximalDeviceId() const {
  if (!isMaximal())
    return std::nullopt;
  return getDeviceIds().front();
}

std::optional<unsigned> MeshAttr::getAxisIndex(StringRef name) const {
  for (auto [i, axis] : llvm::enumerate(getAxes()))
    if (axis.getName() == name)
      return i;
  return std::nullopt;
}

bool MeshAttr::hasAxis(StringRef name) const {
  return getAxisIndex(name).has_value();
}

int64_t MeshAttr::getAxisSize(StringRef name) const {
  std::optional<unsigned> index = getAxisIndex(name);
  assert(index && "axis not in mesh");
  return getAxes()[*index].getSize();
}

AxisType MeshAttr::getAxisType(unsigned i) const {
  if (getAxisTypes().empty())
    return AxisType::Auto;
  return getAxisTypes()[i];
}

AxisType MeshAttr::getAxisType(StringRef name) const {
  std::optional<unsigned> index = getAxisIndex(name);
  assert(index && "axis not in mesh");
  return getAxisType(*index);
}

int64_t MeshAttr::getTotalSize() const {
  int64_t product = 1;
  for (MeshAxisAttr axis : getAxes())
    product *= axis.getSize();
  return product;
}

SmallVector<int64_t> MeshAttr::getDeviceIdsOrIota() const {
  if (!getDeviceIds().empty())
    return SmallVector<int64_t>(getDeviceIds());
  return llvm::to_vector(llvm::seq<int64_t>(0, getTotalSize()));
}

bool MeshAttr::hasAxisOfType(AxisType type) const {
  for (unsigned i = 0, e = getAxes().size(); i < e; ++i)
    if (getAxisType(i) == type)
      return true;
  return false;
}

MeshAttr MeshAttr::withAxisTypes(ArrayRef<StringRef> names,
                                 AxisType type) const {
  SmallVector<AxisType> types;
  for (unsigned i = 0, e = getAxes().size(); i < e; ++i)
    types.push_back(llvm::is_contained(names, getAxes()[i].getName())
                        ? type
                        : getAxisType(i));
  if (llvm::all_of(types, [](AxisType t) { return t == AxisType::Auto; }))
    types.clear();
  return MeshAttr::get(getContext(), getAxes(), getDeviceIds(), types);
}

bool MeshAttr::hasSameAxes(MeshAttr other) const {
  return getAxes() == other.getAxes();
}

//===----------------------------------------------------------------------===//
// SubAxisInfoAttr / AxisRefAttr
//===----------------------------------------------------------------------===//

Attribute SubAxisInfoAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  int64_t preSize = 0, size = 0;
  if (parser.parseLess() || parser.parseLParen() ||
      parser.parseInteger(preSize) || parser.parseRParen() ||
      parser.parseInteger(size) || parser.parseGreater())
    return {};
  return SubAxisInfoAttr::getChecked([&] { return parser.emitError(loc); },
                                     parser.getContext(), preSize, size);
}

LogicalResult
SubAxisInfoAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        int64_t preSize, int64_t size) {
  int64_t product;
  if (llvm::MulOverflow(preSize, size, product))
    return emitError() << "sub-axis (" << preSize << ")" << size
                       << " is too large: pre-size times size overflows a "
                          "64-bit integer";
  return success();
}

void SubAxisInfoAttr::print(AsmPrinter &printer) const {
  printer << "<(" << getPreSize() << ")" << getSize() << ">";
}

Attribute AxisRefAttr::parse(AsmParser &parser, Type) {
  AxisRefAttr ref;
  if (parser.parseLess() || parseAxisRef(parser, ref) || parser.parseGreater())
    return {};
  return ref;
}

void AxisRefAttr::print(AsmPrinter &printer) const {
  printer << "<" << toString() << ">";
}

std::string AxisRefAttr::toString() const {
  // Quoted and escaped as the parser reads it back (a name may hold any
  // character, e.g. a quote or a newline).
  std::string result;
  llvm::raw_string_ostream os(result);
  os << '"';
  llvm::printEscapedString(getName(), os);
  os << '"';
  if (SubAxisInfoAttr info = getSubAxisInfo())
    result += ":(" + std::to_string(info.getPreSize()) + ")" +
              std::to_string(info.getSize());
  return result;
}

int64_t AxisRefAttr::getSize(MeshAttr mesh) const {
  if (SubAxisInfoAttr info = getSubAxisInfo())
    return info.getSize();
  return mesh.getAxisSize(getName());
}

int64_t AxisRefAttr::getPreSize() const {
  if (SubAxisInfoAttr info = getSubAxisInfo())
    return info.getPreSize();
  return 1;
}

int64_t AxisRefAttr::getNextPreSize(MeshAttr mesh) const {
  return getPreSize() * getSize(mesh);
}

/// The half-open range `[pre-size, pre-size * size)` that a ref covers in
/// the multiplicative coordinate space of its axis; a full axis covers
/// everything.
static std::pair<int64_t, int64_t> getRange(AxisRefAttr ref) {
  if (SubAxisInfoAttr info = ref.getSubAxisInfo())
    return {info.getPreSize(), info.getNextPreSize()};
  return {1, std::numeric_limits<int64_t>::max()};
}

bool AxisRefAttr::overlaps(AxisRefAttr other) const {
  if (getName() != other.getName())
    return false;
  auto [lo1, hi1] = getRange(*this);
  auto [lo2, hi2] = getRange(other);
  return std::max(lo1, lo2) < std::min(hi1, hi2);
}

bool AxisRefAttr::contains(AxisRefAttr other) const {
  if (getName() != other.getName())
    return false;
  auto [lo1, hi1] = getRange(*this);
  auto [lo2, hi2] = getRange(other);
  return lo1 <= lo2 && hi2 <= hi1;
}

bool AxisRefAttr::prefixOf(AxisRefAttr other) const {
  if (getName() != other.getName())
    return false;
  auto [lo1, hi1] = getRange(*this);
  auto [lo2, hi2] = getRange(other);
  return lo1 == lo2 && hi1 <= hi2;
}

bool AxisRefAttr::canCoexist(AxisRefAttr other) const {
  if (getName() != other.getName() || !getSubAxisInfo() ||
      !other.getSubAxisInfo())
    return true;
  auto [lo1, hi1] = getRange(*this);
  auto [lo2, hi2] = getRange(other);
  int64_t minLo = std::min(lo1, lo2), maxLo = std::max(lo1, lo2);
  int64_t minHi = std::min(hi1, hi2), maxHi = std::max(hi1, hi2);
  // Overlapping: the shared part and both ends must be whole factors.
  if (minHi > maxLo)
    return minHi % maxLo == 0 && maxLo % minLo == 0 && maxHi % minHi == 0;
  // Disjoint: the gap between them must be a whole factor.
  return maxLo % minHi == 0;
}

bool AxisRefAttr::canMerge(AxisRefAttr other) const {
  if (getName() != other.getName() || !getSubAxisInfo() ||
      !other.getSubAxisInfo())
    return false;
  return getSubAxisInfo().getNextPreSize() ==
         other.getSubAxisInfo().getPreSize();
}

AxisRefAttr AxisRefAttr::merge(AxisRefAttr other, MeshAttr mesh) const {
  assert(canMerge(other) && "sub-axes cannot be merged");
  int64_t preSize = getPreSize();
  int64_t size = getSubAxisInfo().getSize() * other.getSubAxisInfo().getSize();
  if (preSize == 1 && size == mesh.getAxisSize(getName()))
    return AxisRefAttr::get(getContext(), getName());
  return AxisRefAttr::get(getContext(), getName(), preSize, size);
}

bool AxisRefAttr::lessInMesh(MeshAttr mesh, AxisRefAttr lhs, AxisRefAttr rhs) {
  if (lhs.getName() != rhs.getName()) {
    std::optional<unsigned> l = mesh.getAxisIndex(lhs.getName());
    std::optional<unsigned> r = mesh.getAxisIndex(rhs.getName());
    // Unknown axes sort last, by name, so sorting never asserts.
    if (l && r)
      return *l < *r;
    if (l || r)
      return l.has_value();
    return lhs.getName() < rhs.getName();
  }
  auto [lo1, hi1] = getRange(lhs);
  auto [lo2, hi2] = getRange(rhs);
  if (lo1 != lo2)
    return lo1 < lo2;
  return hi1 < hi2;
}

//===----------------------------------------------------------------------===//
// Axis lists
//===----------------------------------------------------------------------===//

ParseResult mlir::tessera::spmd::parseAxisRefListBody(AsmParser &parser,
                                                      AxisRefListAttr &result) {
  SmallVector<AxisRefAttr> refs;
  if (parseAxisRefBraces(parser, refs))
    return failure();
  result = AxisRefListAttr::get(parser.getContext(), refs);
  return success();
}

void mlir::tessera::spmd::printAxisRefListBody(AsmPrinter &printer,
                                               AxisRefListAttr list) {
  printAxisRefs(printer, list.getValue());
}

ParseResult mlir::tessera::spmd::parseListOfAxisRefListsBody(
    AsmParser &parser, ListOfAxisRefListsAttr &result) {
  SmallVector<AxisRefListAttr> lists;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                     [&]() -> ParseResult {
                                       AxisRefListAttr list;
                                       if (parseAxisRefListBody(parser, list))
                                         return failure();
                                       lists.push_back(list);
                                       return success();
                                     }))
    return failure();
  result = ListOfAxisRefListsAttr::get(parser.getContext(), lists);
  return success();
}

void mlir::tessera::spmd::printListOfAxisRefListsBody(
    AsmPrinter &printer, ListOfAxisRefListsAttr lists) {
  printer << "[";
  llvm::interleaveComma(lists.getValue(), printer, [&](AxisRefListAttr list) {
    printAxisRefs(printer, list.getValue());
  });
  printer << "]";
}

ParseResult mlir::tessera::spmd::parseManualAxesBody(AsmParser &parser,
                                                     ManualAxesAttr &result) {
  SmallVector<StringAttr> names;
  if (parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Braces, [&]() -> ParseResult {
            std::string name;
            if (parseAxisName(parser, name))
              return failure();
            names.push_back(StringAttr::get(parser.getContext(), name));
            return success();
          }))
    return failure();
  result = ManualAxesAttr::get(parser.getContext(), names);
  return success();
}

void mlir::tessera::spmd::printManualAxesBody(AsmPrinter &printer,
                                              ManualAxesAttr axes) {
  printer << "{";
  llvm::interleaveComma(axes.getValue(), printer, [&](StringAttr name) {
    printer.printString(name.getValue());
  });
  printer << "}";
}

bool ManualAxesAttr::contains(StringRef name) const {
  return llvm::any_of(getValue(),
                      [&](StringAttr axis) { return axis.getValue() == name; });
}

/// Parses `{"x"}: 0->2`.
static ParseResult parseAllToAllParamBody(AsmParser &parser,
                                          AllToAllParamAttr &result) {
  SmallVector<AxisRefAttr> refs;
  int64_t src = 0, tgt = 0;
  if (parseAxisRefBraces(parser, refs) || parser.parseColon() ||
      parser.parseInteger(src) || parser.parseArrow() ||
      parser.parseInteger(tgt))
    return failure();
  result = AllToAllParamAttr::get(parser.getContext(), refs, src, tgt);
  return success();
}

static void printAllToAllParamBody(AsmPrinter &printer,
                                   AllToAllParamAttr param) {
  printAxisRefs(printer, param.getAxes());
  printer << ": " << param.getSrcDim() << "->" << param.getTgtDim();
}

ParseResult
mlir::tessera::spmd::parseAllToAllParamListBody(AsmParser &parser,
                                                AllToAllParamListAttr &result) {
  SmallVector<AllToAllParamAttr> params;
  if (parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Square, [&]() -> ParseResult {
            AllToAllParamAttr param;
            if (parseAllToAllParamBody(parser, param))
              return failure();
            params.push_back(param);
            return success();
          }))
    return failure();
  result = AllToAllParamListAttr::get(parser.getContext(), params);
  return success();
}

void mlir::tessera::spmd::printAllToAllParamListBody(
    AsmPrinter &printer, AllToAllParamListAttr params) {
  printer << "[";
  llvm::interleaveComma(params.getValue(), printer, [&](AllToAllParamAttr p) {
    printAllToAllParamBody(printer, p);
  });
  printer << "]";
}

/// Wraps a body parser/printer pair into the bracketed `<body>` form that
/// the attribute's own parse/print (and `#spmd.<mnemonic><...>`) use.
template <typename AttrT, typename BodyParser>
static Attribute parseBracketed(AsmParser &parser, BodyParser parseBody) {
  AttrT result;
  if (parser.parseLess() || parseBody(parser, result) || parser.parseGreater())
    return {};
  return result;
}

Attribute AxisRefListAttr::parse(AsmParser &parser, Type) {
  return parseBracketed<AxisRefListAttr>(parser, parseAxisRefListBody);
}
void AxisRefListAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printAxisRefListBody(printer, *this);
  printer << ">";
}
Attribute ListOfAxisRefListsAttr::parse(AsmParser &parser, Type) {
  return parseBracketed<ListOfAxisRefListsAttr>(parser,
                                                parseListOfAxisRefListsBody);
}
void ListOfAxisRefListsAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printListOfAxisRefListsBody(printer, *this);
  printer << ">";
}
Attribute ManualAxesAttr::parse(AsmParser &parser, Type) {
  return parseBracketed<ManualAxesAttr>(parser, parseManualAxesBody);
}
void ManualAxesAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printManualAxesBody(printer, *this);
  printer << ">";
}
Attribute AllToAllParamAttr::parse(AsmParser &parser, Type) {
  return parseBracketed<AllToAllParamAttr>(parser, parseAllToAllParamBody);
}
void AllToAllParamAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printAllToAllParamBody(printer, *this);
  printer << ">";
}
Attribute AllToAllParamListAttr::parse(AsmParser &parser, Type) {
  return parseBracketed<AllToAllParamListAttr>(parser,
                                               parseAllToAllParamListBody);
}
void AllToAllParamListAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printAllToAllParamListBody(printer, *this);
  printer << ">";
}

//===----------------------------------------------------------------------===//
// DimensionShardingAttr
//===----------------------------------------------------------------------===//

/// Parses the optional `pN` suffix of a dimension sharding (a decimal
/// number without leading zeros that fits in int64).
static ParseResult parsePriority(AsmParser &parser,
                                 std::optional<int64_t> &priority) {
  StringRef keyword;
  if (failed(parser.parseOptionalKeyword(&keyword)))
    return success();
  StringRef digits = keyword.drop_front();
  if (keyword.size() < 2 || keyword.front() != 'p' ||
      !llvm::all_of(digits, llvm::isDigit))
    return parser.emitError(parser.getCurrentLocation(),
                            "expecting priority in format 'p<number>', got: ")
           << keyword;
  if (digits.size() > 1 && digits.front() == '0')
    return parser.emitError(
               parser.getCurrentLocation(),
               "priorities with leading zeros are not allowed, got: ")
           << keyword;
  int64_t value = 0;
  if (digits.getAsInteger(10, value))
    return parser.emitError(parser.getCurrentLocation(),
                            "expecting integer priority, got: ")
           << keyword;
  priority = value;
  return success();
}

static ParseResult parseDimSharding(AsmParser &parser,
                                    DimensionShardingAttr &result) {
  SmallVector<AxisRefAttr> refs;
  bool isClosed = true;
  if (parser.parseLBrace())
    return failure();
  if (succeeded(parser.parseOptionalQuestion())) {
    isClosed = false;
  } else if (failed(parser.parseOptionalRBrace())) {
    do {
      if (succeeded(parser.parseOptionalQuestion())) {
        isClosed = false;
        break;
      }
      AxisRefAttr ref;
      if (parseAxisRef(parser, ref))
        return failure();
      refs.push_back(ref);
    } while (succeeded(parser.parseOptionalComma()));
    if (parser.parseRBrace())
      return failure();
    std::optional<int64_t> priority;
    if (parsePriority(parser, priority))
      return failure();
    result = DimensionShardingAttr::get(parser.getContext(), refs, isClosed,
                                        priority);
    return success();
  } else {
    // `{}`: closed and empty.
    std::optional<int64_t> priority;
    if (parsePriority(parser, priority))
      return failure();
    result =
        DimensionShardingAttr::get(parser.getContext(), refs, true, priority);
    return success();
  }
  // `{?`
  if (parser.parseRBrace())
    return failure();
  std::optional<int64_t> priority;
  if (parsePriority(parser, priority))
    return failure();
  result =
      DimensionShardingAttr::get(parser.getContext(), refs, false, priority);
  return success();
}

Attribute DimensionShardingAttr::parse(AsmParser &parser, Type) {
  return parseBracketed<DimensionShardingAttr>(parser, parseDimSharding);
}

static void printDimSharding(AsmPrinter &printer, DimensionShardingAttr dim) {
  printer << "{";
  llvm::interleaveComma(dim.getAxes(), printer,
                        [&](AxisRefAttr ref) { printer << ref.toString(); });
  if (!dim.getIsClosed())
    printer << (dim.getAxes().empty() ? "?" : ", ?");
  printer << "}";
  if (std::optional<int64_t> priority = dim.getPriority())
    printer << "p" << *priority;
}

void DimensionShardingAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printDimSharding(printer, *this);
  printer << ">";
}

int64_t DimensionShardingAttr::getShardedSize(MeshAttr mesh) const {
  // Saturates instead of wrapping, so an unverified sharding can never pass a
  // divisibility check by overflow.
  int64_t size = 1;
  for (AxisRefAttr ref : getAxes())
    if (llvm::MulOverflow(size, ref.getSize(mesh), size))
      return std::numeric_limits<int64_t>::max();
  return size;
}

//===----------------------------------------------------------------------===//
// TensorShardingAttr
//===----------------------------------------------------------------------===//

/// Parses the body of a tensor sharding, after its `<`.
static Attribute parseTensorShardingBody(AsmParser &parser) {
  MLIRContext *ctx = parser.getContext();
  SMLoc loc = parser.getCurrentLocation();
  Attribute meshOrRef;
  StringAttr symName;
  if (succeeded(parser.parseOptionalSymbolName(symName))) {
    meshOrRef = FlatSymbolRefAttr::get(symName);
  } else if (succeeded(parser.parseOptionalKeyword("mesh"))) {
    meshOrRef = MeshAttr::parse(parser, Type());
    if (!meshOrRef)
      return {};
  } else {
    parser.emitError(loc, "expected a mesh symbol (@name) or an inlined "
                          "mesh (mesh<...>)");
    return {};
  }
  SmallVector<DimensionShardingAttr> dims;
  if (parser.parseComma())
    return {};
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                     [&]() -> ParseResult {
                                       DimensionShardingAttr dim;
                                       if (parseDimSharding(parser, dim))
                                         return failure();
                                       dims.push_back(dim);
                                       return success();
                                     })) {
    parser.emitError(parser.getCurrentLocation(),
                     "failed to parse Spmd_TensorSharding parameter "
                     "'dim_shardings' which is to be a "
                     "`::llvm::ArrayRef<DimensionShardingAttr>`");
    return {};
  }
  // `replicated=`, `unreduced=` and `reduced=` lists, each at most once and
  // in any order (printed in that order); `unreduced` takes an optional kind
  // (`unreduced=max{...}`).
  SmallVector<AxisRefAttr> replicated, unreduced, reduced;
  ReductionKind kind = ReductionKind::Sum;
  auto failParam = [&](StringRef param) {
    parser.emitError(parser.getCurrentLocation(),
                     "failed to parse Spmd_TensorSharding parameter '")
        << param << "'";
    return Attribute();
  };
  while (succeeded(parser.parseOptionalComma())) {
    if (replicated.empty() &&
        succeeded(parser.parseOptionalKeyword("replicated"))) {
      if (parser.parseEqual() || parseAxisRefBraces(parser, replicated))
        return failParam("replicated_axes");
    } else if (unreduced.empty() &&
               succeeded(parser.parseOptionalKeyword("unreduced"))) {
      if (succeeded(parser.parseOptionalEqual())) {
        StringRef kindName;
        SMLoc kindLoc = parser.getCurrentLocation();
        if (succeeded(parser.parseOptionalKeyword(&kindName))) {
          std::optional<ReductionKind> parsed =
              symbolizeReductionKind(kindName);
          if (!parsed) {
            parser.emitError(kindLoc, "unknown unreduced kind '")
                << kindName << "', expected 'sum', 'max' or 'min'";
            return failParam("unreduced_axes");
          }
          kind = *parsed;
        }
      }
      if (parseAxisRefBraces(parser, unreduced))
        return failParam("unreduced_axes");
    } else if (reduced.empty() &&
               succeeded(parser.parseOptionalKeyword("reduced"))) {
      if (parser.parseEqual() || parseAxisRefBraces(parser, reduced))
        return failParam("reduced_axes");
    } else {
      parser.emitError(parser.getCurrentLocation(),
                       "failed to parse Spmd_TensorSharding, expected valid "
                       "named axis list after comma");
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  if (unreduced.empty())
    kind = ReductionKind::Sum;
  return TensorShardingAttr::getChecked([&] { return parser.emitError(loc); },
                                        ctx, meshOrRef, dims, replicated,
                                        unreduced, kind, reduced);
}

Attribute TensorShardingAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  return parseTensorShardingBody(parser);
}

void TensorShardingAttr::print(AsmPrinter &printer) const {
  printer << "<";
  if (auto ref = dyn_cast<FlatSymbolRefAttr>(getMeshOrRef())) {
    printer.printSymbolName(ref.getValue());
  } else {
    printer << "mesh";
    cast<MeshAttr>(getMeshOrRef()).print(printer);
  }
  printer << ", [";
  llvm::interleaveComma(
      getDimShardings(), printer,
      [&](DimensionShardingAttr dim) { printDimSharding(printer, dim); });
  printer << "]";
  if (!getReplicatedAxes().empty()) {
    printer << ", replicated=";
    printAxisRefs(printer, getReplicatedAxes());
  }
  if (!getUnreducedAxes().empty()) {
    printer << ", unreduced=";
    if (getUnreducedKind() != ReductionKind::Sum)
      printer << stringifyReductionKind(getUnreducedKind());
    printAxisRefs(printer, getUnreducedAxes());
  }
  if (!getReducedAxes().empty()) {
    printer << ", reduced=";
    printAxisRefs(printer, getReducedAxes());
  }
  printer << ">";
}

LogicalResult TensorShardingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, Attribute meshOrRef,
    ArrayRef<DimensionShardingAttr> dimShardings,
    ArrayRef<AxisRefAttr> replicatedAxes, ArrayRef<AxisRefAttr> unreducedAxes,
    ReductionKind unreducedKind, ArrayRef<AxisRefAttr> reducedAxes) {
  if (!isa_and_nonnull<FlatSymbolRefAttr, MeshAttr>(meshOrRef))
    return emitError() << "a sharding must refer to a mesh by symbol or "
                          "inline one";
  for (auto [i, dim] : llvm::enumerate(dimShardings))
    if (dim.getPriority() && *dim.getPriority() < 0)
      return emitError() << "dim " << i << " has a negative priority";
  if (unreducedAxes.empty() && unreducedKind != ReductionKind::Sum)
    return emitError() << "an unreduced kind needs unreduced axes";
  return success();
}

TensorShardingAttr TensorShardingAttr::getReplicated(MLIRContext *ctx,
                                                     Attribute meshOrRef,
                                                     int64_t rank,
                                                     bool closed) {
  SmallVector<DimensionShardingAttr> dims(
      rank, DimensionShardingAttr::get(ctx, {}, closed));
  return TensorShardingAttr::get(ctx, meshOrRef, dims, {}, {},
                                 ReductionKind::Sum, {});
}

FlatSymbolRefAttr TensorShardingAttr::getMeshSymName() const {
  return dyn_cast<FlatSymbolRefAttr>(getMeshOrRef());
}

MeshAttr TensorShardingAttr::getInlinedMesh() const {
  return dyn_cast<MeshAttr>(getMeshOrRef());
}

MeshAttr
TensorShardingAttr::getMesh(Operation *from,
                            SymbolTableCollection *symbolTables) const {
  if (MeshAttr inlined = getInlinedMesh())
    return inlined;
  if (!from)
    return {};
  auto meshOp = symbolTables ? symbolTables->lookupNearestSymbolFrom<MeshOp>(
                                   from, getMeshSymName())
                             : SymbolTable::lookupNearestSymbolFrom<MeshOp>(
                                   from, getMeshSymName());
  return meshOp ? meshOp.getMesh() : MeshAttr();
}

bool TensorShardingAttr::isFullyReplicated() const {
  return getUnreducedAxes().empty() &&
         llvm::all_of(getDimShardings(), [](DimensionShardingAttr dim) {
           return dim.emptyAxes();
         });
}

bool TensorShardingAttr::isFullyClosed() const {
  return llvm::all_of(getDimShardings(), [](DimensionShardingAttr dim) {
    return dim.getIsClosed();
  });
}

SmallVector<AxisRefAttr> TensorShardingAttr::getAllAxisRefs() const {
  SmallVector<AxisRefAttr> refs;
  for (DimensionShardingAttr dim : getDimShardings())
    llvm::append_range(refs, dim.getAxes());
  llvm::append_range(refs, getReplicatedAxes());
  llvm::append_range(refs, getUnreducedAxes());
  llvm::append_range(refs, getReducedAxes());
  return refs;
}

SmallVector<int64_t>
TensorShardingAttr::getLocalShape(ArrayRef<int64_t> globalShape,
                                  MeshAttr mesh) const {
  SmallVector<int64_t> local(globalShape);
  for (auto [i, dim] : llvm::enumerate(getDimShardings())) {
    if (i >= local.size() || ShapedType::isDynamic(local[i]))
      continue;
    int64_t sharded = dim.getShardedSize(mesh);
    local[i] = (local[i] + sharded - 1) / sharded;
  }
  return local;
}

TensorShardingAttr
TensorShardingAttr::withDimAxes(ArrayRef<SmallVector<AxisRefAttr>> axes) const {
  SmallVector<DimensionShardingAttr> dims;
  for (auto [dim, newAxes] : llvm::zip_equal(getDimShardings(), axes))
    dims.push_back(DimensionShardingAttr::get(
        getContext(), newAxes, dim.getIsClosed(), dim.getPriority()));
  return TensorShardingAttr::get(getContext(), getMeshOrRef(), dims,
                                 getReplicatedAxes(), getUnreducedAxes(),
                                 getUnreducedKind(), getReducedAxes());
}

TensorShardingAttr TensorShardingAttr::withUnreduced(ArrayRef<AxisRefAttr> axes,
                                                     ReductionKind kind) const {
  return TensorShardingAttr::get(
      getContext(), getMeshOrRef(), getDimShardings(), getReplicatedAxes(),
      axes, axes.empty() ? ReductionKind::Sum : kind, getReducedAxes());
}

TensorShardingAttr
TensorShardingAttr::withReduced(ArrayRef<AxisRefAttr> axes) const {
  return TensorShardingAttr::get(getContext(), getMeshOrRef(),
                                 getDimShardings(), getReplicatedAxes(),
                                 getUnreducedAxes(), getUnreducedKind(), axes);
}

//===----------------------------------------------------------------------===//
// TensorShardingPerValueAttr
//===----------------------------------------------------------------------===//

ParseResult mlir::tessera::spmd::parseTensorShardingListBody(
    AsmParser &parser, SmallVectorImpl<TensorShardingAttr> &result) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Square, [&]() -> ParseResult {
        auto sharding = dyn_cast_or_null<TensorShardingAttr>(
            TensorShardingAttr::parse(parser, Type()));
        if (!sharding)
          return failure();
        result.push_back(sharding);
        return success();
      });
}

Attribute TensorShardingPerValueAttr::parse(AsmParser &parser, Type) {
  SmallVector<TensorShardingAttr> shardings;
  if (parser.parseLess())
    return {};
  if (parseTensorShardingListBody(parser, shardings)) {
    parser.emitError(parser.getCurrentLocation(),
                     "failed to parse Spmd_TensorShardingPerValue parameter "
                     "'shardings' which is to be a "
                     "`::llvm::ArrayRef<TensorShardingAttr>`");
    return {};
  }
  if (parser.parseGreater())
    return {};
  return TensorShardingPerValueAttr::get(parser.getContext(), shardings);
}

void TensorShardingPerValueAttr::print(AsmPrinter &printer) const {
  printer << "<[";
  llvm::interleaveComma(getShardings(), printer,
                        [&](TensorShardingAttr s) { s.print(printer); });
  printer << "]>";
}

#define GET_ATTRDEF_CLASSES
#include "tessera/Dialect/Spmd/IR/SpmdAttrs.cpp.inc"

void SpmdDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tessera/Dialect/Spmd/IR/SpmdAttrs.cpp.inc"
      >();
}
