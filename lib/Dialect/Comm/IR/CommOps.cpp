//===- CommOps.cpp - comm operations: syntax, builders, helpers -----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Comm/IR/CommOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::comm;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

int64_t mlir::tessera::comm::getGroupSize(spmd::MeshAttr mesh,
                                          ArrayRef<spmd::AxisRefAttr> axes) {
  // Saturates instead of wrapping: the axes may not be verified yet.
  int64_t size = 1;
  for (spmd::AxisRefAttr ref : axes)
    if (llvm::MulOverflow(size, ref.getSize(mesh), size))
      return std::numeric_limits<int64_t>::max();
  return size;
}

spmd::MeshAttr
mlir::tessera::comm::lookupMesh(Operation *from, FlatSymbolRefAttr name,
                                SymbolTableCollection *symbolTables) {
  if (!from || !name)
    return {};
  Operation *symbol = symbolTables
                          ? symbolTables->lookupNearestSymbolFrom(from, name)
                          : SymbolTable::lookupNearestSymbolFrom(from, name);
  auto meshOp = dyn_cast_or_null<spmd::MeshOp>(symbol);
  return meshOp ? meshOp.getMesh() : spmd::MeshAttr();
}

SmallVector<spmd::AxisRefAttr>
mlir::tessera::comm::getCanonicalAxisSet(spmd::MeshAttr mesh,
                                         ArrayRef<spmd::AxisRefAttr> axes) {
  SmallVector<spmd::AxisRefAttr> sorted;
  for (spmd::AxisRefAttr ref : axes)
    if (ref.getSubAxisInfo() || ref.getSize(mesh) != 1)
      sorted.push_back(ref);
  llvm::sort(sorted, [&](spmd::AxisRefAttr a, spmd::AxisRefAttr b) {
    return spmd::AxisRefAttr::lessInMesh(mesh, a, b);
  });
  SmallVector<spmd::AxisRefAttr> result;
  for (spmd::AxisRefAttr ref : sorted) {
    if (!result.empty() && result.back().canMerge(ref)) {
      result.back() = result.back().merge(ref, mesh);
      continue;
    }
    result.push_back(ref);
  }
  return result;
}

bool mlir::tessera::comm::isSupportedReductionElementType(ReductionKind kind,
                                                          Type elementType) {
  bool ordered = kind == ReductionKind::Max || kind == ReductionKind::Min;
  if (auto intType = dyn_cast<IntegerType>(elementType))
    return intType.getWidth() > 1 || ordered;
  if (isa<IndexType, FloatType>(elementType))
    return true;
  if (auto complexType = dyn_cast<ComplexType>(elementType))
    return !ordered &&
           isa<IntegerType, FloatType>(complexType.getElementType());
  return false;
}

//===----------------------------------------------------------------------===//
// MeshAxesOpInterface
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Comm/IR/CommInterfaces.cpp.inc"

spmd::MeshAttr
MeshAxesOpInterface::resolveMesh(SymbolTableCollection *symbolTables) {
  return lookupMesh(getOperation(), getMeshAttr(), symbolTables);
}

std::optional<int64_t>
MeshAxesOpInterface::getGroupSize(SymbolTableCollection *symbolTables) {
  spmd::MeshAttr mesh = resolveMesh(symbolTables);
  if (!mesh)
    return std::nullopt;
  ArrayRef<spmd::AxisRefAttr> axes = getAxisRefs();
  if (!llvm::all_of(axes, [&](spmd::AxisRefAttr ref) {
        return mesh.hasAxis(ref.getName());
      }))
    return std::nullopt;
  return comm::getGroupSize(mesh, axes);
}

//===----------------------------------------------------------------------===//
// Custom directives
//===----------------------------------------------------------------------===//

/// Parses a bare reduction kind: `sum`, `prod`, `max` or `min`.
static ParseResult parseReductionKind(OpAsmParser &parser,
                                      ReductionKindAttr &kind) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (failed(parser.parseOptionalKeyword(&keyword)))
    return parser.emitError(loc,
                            "expected a reduction kind: sum, prod, max or min");
  std::optional<ReductionKind> value = symbolizeReductionKind(keyword);
  if (!value)
    return parser.emitError(loc, "unknown reduction kind '")
           << keyword << "', expected sum, prod, max or min";
  kind = ReductionKindAttr::get(parser.getContext(), *value);
  return success();
}

static void printReductionKind(OpAsmPrinter &printer, Operation *,
                               ReductionKindAttr kind) {
  printer << stringifyReductionKind(kind.getValue());
}

/// Parses `{"x", "y":(1)2}` with spmd's bare axis-list syntax.
static ParseResult parseAxes(OpAsmParser &parser, spmd::AxisRefListAttr &axes) {
  return spmd::parseAxisRefListBody(parser, axes);
}

static void printAxes(OpAsmPrinter &printer, Operation *,
                      spmd::AxisRefListAttr axes) {
  spmd::printAxisRefListBody(printer, axes);
}

/// Parses `[0 -> 1, 1 -> 0]` into parallel source and target arrays.
static ParseResult parsePairs(OpAsmParser &parser, DenseI64ArrayAttr &sources,
                              DenseI64ArrayAttr &targets) {
  SmallVector<int64_t> srcs, tgts;
  if (parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Square, [&]() -> ParseResult {
            int64_t src = 0, tgt = 0;
            if (parser.parseInteger(src) || parser.parseArrow() ||
                parser.parseInteger(tgt))
              return failure();
            srcs.push_back(src);
            tgts.push_back(tgt);
            return success();
          }))
    return failure();
  sources = parser.getBuilder().getDenseI64ArrayAttr(srcs);
  targets = parser.getBuilder().getDenseI64ArrayAttr(tgts);
  return success();
}

static void printPairs(OpAsmPrinter &printer, Operation *,
                       DenseI64ArrayAttr sources, DenseI64ArrayAttr targets) {
  printer << "[";
  llvm::interleaveComma(llvm::zip(sources.asArrayRef(), targets.asArrayRef()),
                        printer, [&](auto pair) {
                          printer << std::get<0>(pair) << " -> "
                                  << std::get<1>(pair);
                        });
  printer << "]";
}

//===----------------------------------------------------------------------===//
// Builders
//===----------------------------------------------------------------------===//

static spmd::AxisRefListAttr buildAxesAttr(OpBuilder &builder,
                                           ArrayRef<spmd::AxisRefAttr> axes) {
  return spmd::AxisRefListAttr::get(builder.getContext(), axes);
}

void AllReduceOp::build(OpBuilder &builder, OperationState &state,
                        Value operand, ReductionKind kind,
                        FlatSymbolRefAttr mesh,
                        ArrayRef<spmd::AxisRefAttr> axes) {
  build(builder, state, operand.getType(), operand,
        ReductionKindAttr::get(builder.getContext(), kind), mesh,
        buildAxesAttr(builder, axes));
}

void AllGatherOp::build(OpBuilder &builder, OperationState &state, Type result,
                        Value operand, FlatSymbolRefAttr mesh,
                        ArrayRef<spmd::AxisRefAttr> axes, int64_t gatherDim,
                        std::optional<int64_t> validSize) {
  build(builder, state, result, operand, mesh, buildAxesAttr(builder, axes),
        builder.getI64IntegerAttr(gatherDim),
        validSize ? builder.getI64IntegerAttr(*validSize) : IntegerAttr());
}

void ReduceScatterOp::build(OpBuilder &builder, OperationState &state,
                            Type result, ReductionKind kind, Value operand,
                            FlatSymbolRefAttr mesh,
                            ArrayRef<spmd::AxisRefAttr> axes,
                            int64_t scatterDim) {
  build(builder, state, result, operand,
        ReductionKindAttr::get(builder.getContext(), kind), mesh,
        buildAxesAttr(builder, axes), builder.getI64IntegerAttr(scatterDim));
}

void AllToAllOp::build(OpBuilder &builder, OperationState &state, Type result,
                       Value operand, FlatSymbolRefAttr mesh,
                       ArrayRef<spmd::AxisRefAttr> axes, int64_t splitDim,
                       int64_t concatDim) {
  build(builder, state, result, operand, mesh, buildAxesAttr(builder, axes),
        builder.getI64IntegerAttr(splitDim),
        builder.getI64IntegerAttr(concatDim));
}

void PermuteOp::build(OpBuilder &builder, OperationState &state, Value operand,
                      FlatSymbolRefAttr mesh, ArrayRef<spmd::AxisRefAttr> axes,
                      ArrayRef<int64_t> sources, ArrayRef<int64_t> targets) {
  build(builder, state, operand.getType(), operand, mesh,
        buildAxesAttr(builder, axes), builder.getDenseI64ArrayAttr(sources),
        builder.getDenseI64ArrayAttr(targets));
}

void AxisIndexOp::build(OpBuilder &builder, OperationState &state, Type result,
                        FlatSymbolRefAttr mesh,
                        ArrayRef<spmd::AxisRefAttr> axes) {
  build(builder, state, result, mesh, buildAxesAttr(builder, axes));
}

void AxisSizeOp::build(OpBuilder &builder, OperationState &state, Type result,
                       FlatSymbolRefAttr mesh,
                       ArrayRef<spmd::AxisRefAttr> axes) {
  build(builder, state, result, mesh, buildAxesAttr(builder, axes));
}

//===----------------------------------------------------------------------===//
// PermuteOp
//===----------------------------------------------------------------------===//

bool PermuteOp::isIdentity(int64_t groupSize) {
  ArrayRef<int64_t> sources = getSources(), targets = getTargets();
  if (static_cast<int64_t>(sources.size()) != groupSize ||
      sources.size() != targets.size())
    return false;
  // `groupSize` distinct in-range sources that each send to themselves cover
  // the whole group, so no device receives zeros.
  llvm::BitVector seen(groupSize);
  for (auto [source, target] : llvm::zip(sources, targets)) {
    if (source != target || source < 0 || source >= groupSize ||
        seen.test(source))
      return false;
    seen.set(source);
  }
  return true;
}

#define GET_OP_CLASSES
#include "tessera/Dialect/Comm/IR/CommOps.cpp.inc"
