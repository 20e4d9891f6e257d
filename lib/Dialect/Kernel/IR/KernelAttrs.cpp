//===- KernelAttrs.cpp - kernel attributes: syntax and verifiers ----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Kernel/IR/KernelDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tessera::kernel;

#define GET_ATTRDEF_CLASSES
#include "tessera/Dialect/Kernel/IR/KernelAttrs.cpp.inc"

void KernelDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tessera/Dialect/Kernel/IR/KernelAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// BlockAttr
//===----------------------------------------------------------------------===//

/// Parses one block dimension: `n`, `None` or
/// `element(n [, padding = (lo, hi)])`.
static ParseResult parseBlockDim(AsmParser &parser, BlockDim &dim) {
  if (succeeded(parser.parseOptionalKeyword("None"))) {
    dim = BlockDim::squeezed();
    return success();
  }
  if (succeeded(parser.parseOptionalKeyword("element"))) {
    int64_t size = 0, low = 0, high = 0;
    if (parser.parseLParen() || parser.parseInteger(size))
      return failure();
    if (succeeded(parser.parseOptionalComma())) {
      if (parser.parseKeyword("padding") || parser.parseEqual() ||
          parser.parseLParen() || parser.parseInteger(low) ||
          parser.parseComma() || parser.parseInteger(high) ||
          parser.parseRParen())
        return failure();
    }
    if (parser.parseRParen())
      return failure();
    dim = BlockDim::element(size, low, high);
    return success();
  }
  int64_t size = 0;
  OptionalParseResult parsed = parser.parseOptionalInteger(size);
  if (!parsed.has_value())
    return parser.emitError(parser.getCurrentLocation(),
                            "expected a block dimension: an integer, 'None' "
                            "or 'element(...)'");
  if (failed(*parsed))
    return failure();
  dim = BlockDim::blocked(size);
  return success();
}

Attribute BlockAttr::parse(AsmParser &parser, Type) {
  MLIRContext *context = parser.getContext();
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<BlockDim> dims;
  bool full = false;
  if (parser.parseLess())
    return {};
  if (succeeded(parser.parseOptionalKeyword("full"))) {
    full = true;
  } else if (parser.parseCommaSeparatedList(
                 AsmParser::Delimiter::Square, [&]() -> ParseResult {
                   return parseBlockDim(parser, dims.emplace_back());
                 })) {
    return {};
  }

  AffineMap indexMap;
  FlatSymbolRefAttr indexFn;
  std::optional<MemorySpace> space;
  std::optional<int64_t> buffers;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc itemLoc = parser.getCurrentLocation();
    if (succeeded(parser.parseOptionalKeyword("space"))) {
      StringRef keyword;
      if (space) {
        parser.emitError(itemLoc, "'space' given twice");
        return {};
      }
      if (parser.parseEqual() || parser.parseKeyword(&keyword))
        return {};
      space = symbolizeMemorySpace(keyword);
      if (!space) {
        parser.emitError(itemLoc, "unknown memory space '") << keyword << "'";
        return {};
      }
      continue;
    }
    if (succeeded(parser.parseOptionalKeyword("buffers"))) {
      int64_t count = 0;
      if (buffers) {
        parser.emitError(itemLoc, "'buffers' given twice");
        return {};
      }
      if (parser.parseEqual() || parser.parseInteger(count))
        return {};
      buffers = count;
      continue;
    }
    if (indexMap || indexFn || space || buffers) {
      parser.emitError(itemLoc, "expected 'space' or 'buffers' (the index "
                                "map comes right after the block shape)");
      return {};
    }
    StringAttr symbol;
    if (succeeded(parser.parseOptionalSymbolName(symbol))) {
      indexFn = FlatSymbolRefAttr::get(symbol);
      continue;
    }
    if (parser.parseAffineMap(indexMap))
      return {};
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<BlockAttr>(
      loc, context, dims, full, indexMap, indexFn,
      space.value_or(MemorySpace::Vmem), buffers.value_or(2));
}

void BlockAttr::print(AsmPrinter &printer) const {
  raw_ostream &os = printer.getStream();
  os << '<';
  if (getFull()) {
    os << "full";
  } else {
    os << '[';
    llvm::interleaveComma(getDims(), os, [&](const BlockDim &dim) {
      switch (dim.kind) {
      case BlockDimKind::Blocked:
        os << dim.size;
        break;
      case BlockDimKind::Squeezed:
        os << "None";
        break;
      case BlockDimKind::Element:
        os << "element(" << dim.size;
        if (dim.padLow != 0 || dim.padHigh != 0)
          os << ", padding = (" << dim.padLow << ", " << dim.padHigh << ")";
        os << ')';
        break;
      }
    });
    os << ']';
  }
  if (AffineMap map = getIndexMap()) {
    os << ", ";
    map.print(os);
  } else if (FlatSymbolRefAttr fn = getIndexFn()) {
    os << ", ";
    printer.printAttributeWithoutType(fn);
  }
  if (getMemorySpace() != MemorySpace::Vmem)
    os << ", space = " << stringifyMemorySpace(getMemorySpace());
  if (getBuffers() != 2)
    os << ", buffers = " << getBuffers();
  os << '>';
}

LogicalResult BlockAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                ArrayRef<BlockDim> dims, bool full,
                                AffineMap indexMap, FlatSymbolRefAttr indexFn,
                                MemorySpace memorySpace, int64_t buffers) {
  if (full && !dims.empty())
    return emitError() << "a 'full' block has no explicit dimensions";
  for (auto [i, dim] : llvm::enumerate(dims)) {
    if (dim.size < 1)
      return emitError() << "block dimension " << i << " must be positive, got "
                         << dim.size;
    if (dim.kind == BlockDimKind::Squeezed && dim.size != 1)
      return emitError() << "squeezed block dimension " << i
                         << " must have size 1";
    if (dim.padLow < 0 || dim.padHigh < 0)
      return emitError() << "padding of block dimension " << i
                         << " must be non-negative, got (" << dim.padLow << ", "
                         << dim.padHigh << ")";
    if (dim.kind != BlockDimKind::Element &&
        (dim.padLow != 0 || dim.padHigh != 0))
      return emitError() << "only element dimensions have padding";
  }
  if (indexMap && indexFn)
    return emitError() << "a block has an affine index map or an index "
                          "function, not both";
  if (indexMap) {
    if (indexMap.getNumSymbols() != 0)
      return emitError() << "index map " << formatAffineMap(indexMap)
                         << " must not have symbols; index maps that read "
                            "scalar-prefetch operands are functions "
                            "(@name)";
    if (!full && indexMap.getNumResults() != dims.size())
      return emitError() << "index map " << formatAffineMap(indexMap) << " has "
                         << indexMap.getNumResults()
                         << " results, but the block has " << dims.size()
                         << " dimensions";
  }
  if (memorySpace == MemorySpace::Semaphore)
    return emitError() << "blocks cannot be in #kernel.space<semaphore>; "
                          "semaphores are scratch buffers";
  if (buffers != 1 && buffers != 2)
    return emitError() << "'buffers' must be 1 or 2, got " << buffers;
  return success();
}

bool BlockAttr::hasElementDims() const {
  return llvm::any_of(getDims(),
                      [](const BlockDim &dim) { return dim.isElement(); });
}

SmallVector<int64_t>
BlockAttr::getBlockShape(ArrayRef<int64_t> arrayShape) const {
  if (getFull())
    return llvm::to_vector(arrayShape);
  return llvm::map_to_vector(getDims(),
                             [](const BlockDim &dim) { return dim.size; });
}

SmallVector<int64_t>
BlockAttr::getWindowShape(ArrayRef<int64_t> arrayShape) const {
  if (getFull() || isRawMemory())
    return llvm::to_vector(arrayShape);
  SmallVector<int64_t> shape;
  for (const BlockDim &dim : getDims())
    if (!dim.isSqueezed())
      shape.push_back(dim.size);
  return shape;
}

bool BlockAttr::isTrivialWindow(ArrayRef<int64_t> arrayShape) const {
  if (getIndexFn())
    return false;
  if (!getFull() && ArrayRef<int64_t>(getBlockShape(arrayShape)) != arrayShape)
    return false;
  if (AffineMap map = getIndexMap())
    return llvm::all_of(map.getResults(), [](AffineExpr expr) {
      auto constant = dyn_cast<AffineConstantExpr>(expr);
      return constant && constant.getValue() == 0;
    });
  return true;
}

//===----------------------------------------------------------------------===//
// TargetAttr
//===----------------------------------------------------------------------===//

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef generation) {
  if (lookupTpuInfo(generation))
    return success();
  InFlightDiagnostic diag = emitError();
  diag << "unknown TPU generation \"" << generation << "\"; expected one of ";
  llvm::interleaveComma(getTpuInfos(), diag, [&](const TpuInfo &info) {
    diag << "\"" << info.generation << "\"";
  });
  return diag;
}

const TpuInfo &TargetAttr::getInfo() const {
  return *lookupTpuInfo(getGeneration());
}

//===----------------------------------------------------------------------===//
// CostEstimateAttr
//===----------------------------------------------------------------------===//

LogicalResult
CostEstimateAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         int64_t flops, int64_t transcendentals,
                         int64_t bytesAccessed) {
  if (flops < 0 || transcendentals < 0 || bytesAccessed < 0)
    return emitError() << "cost estimate entries must be non-negative, got "
                          "flops = "
                       << flops << ", transcendentals = " << transcendentals
                       << ", bytes_accessed = " << bytesAccessed;
  return success();
}

//===----------------------------------------------------------------------===//
// VectorLayoutAttr
//===----------------------------------------------------------------------===//

LogicalResult
VectorLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         ArrayRef<int64_t> tiling) {
  if (tiling.empty() || tiling.size() > 2)
    return emitError() << "a vector layout tiles 1 or 2 trailing dimensions, "
                          "got "
                       << tiling.size();
  if (llvm::any_of(tiling, [](int64_t size) { return size <= 0; }))
    return emitError() << "vector layout tile sizes must be positive, got ["
                       << tiling << "]";
  return success();
}

SmallVector<int64_t>
VectorLayoutAttr::getTileShape(ArrayRef<int64_t> shape) const {
  SmallVector<int64_t> tile(shape.size(), 1);
  ArrayRef<int64_t> tiling = getTiling();
  size_t n = std::min(tiling.size(), shape.size());
  for (size_t i = 0; i < n; ++i)
    tile[shape.size() - n + i] = tiling[tiling.size() - n + i];
  return tile;
}

int64_t VectorLayoutAttr::getNumTiles(ArrayRef<int64_t> shape) const {
  int64_t tiles = 1;
  for (auto [size, tile] : llvm::zip(shape, getTileShape(shape)))
    tiles *= llvm::divideCeil(size, tile);
  return tiles;
}
