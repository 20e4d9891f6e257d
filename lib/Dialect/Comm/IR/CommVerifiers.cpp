//===- CommVerifiers.cpp - comm op verifiers ------------------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Each op checks what needs no mesh in `verify` (ranks, element types,
// dimensions, pair uniqueness) and everything that depends on the mesh in
// `verifySymbolUses` (the mesh exists, the axes are valid and bound, local
// shapes agree with the group size, pair indices are in the group).
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Comm/IR/CommOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdVerifiers.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::comm;

//===----------------------------------------------------------------------===//
// Shared checks
//===----------------------------------------------------------------------===//

/// Returns the innermost ancestor of `op` that binds manual axes.
static Operation *getInnermostManualOwner(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    if (parent->getAttrOfType<spmd::ManualAxesAttr>("manual_axes"))
      return parent;
  return nullptr;
}

/// Checks that every axis of `axes` is bound by an enclosing manual
/// computation, if there is one (JAX: a collective in a `shard_map` body can
/// only name the axes the `shard_map` is manual over).
static LogicalResult verifyBoundAxes(Operation *op, spmd::MeshAttr mesh,
                                     ArrayRef<spmd::AxisRefAttr> axes) {
  spmd::ManualAxisToOwner bound = spmd::getParentManualAxes(op);
  if (bound.empty())
    return success();
  for (spmd::AxisRefAttr ref : axes) {
    if (bound.contains(ref.getName()))
      continue;
    // The available names, in mesh order, then any other bound names.
    SmallVector<StringRef> available;
    for (spmd::MeshAxisAttr axis : mesh.getAxes())
      if (bound.contains(axis.getName()))
        available.push_back(axis.getName());
    SmallVector<StringRef> others;
    for (auto &entry : bound)
      if (!mesh.hasAxis(entry.first))
        others.push_back(entry.first);
    llvm::sort(others);
    llvm::append_range(available, others);

    InFlightDiagnostic diag = op->emitOpError("unbound axis name: ")
                              << ref.getName()
                              << ". The following axis names (e.g. defined "
                                 "by pmap) are available to collective "
                                 "operations: [";
    llvm::interleave(
        available, [&](StringRef name) { diag << "'" << name << "'"; },
        [&] { diag << ", "; });
    diag << "]";
    diag.attachNote(getInnermostManualOwner(op)->getLoc())
        << "enclosing manual computation binds these axes";
    return diag;
  }
  return success();
}

/// Resolves the mesh of a comm op and verifies its axes: the mesh exists,
/// every axis is an axis of the mesh, no axis ref is repeated or overlaps
/// another, sub-axes are valid and merged, and inside a manual computation
/// every axis is bound. Returns null after emitting an error.
static spmd::MeshAttr verifyMeshAndAxes(MeshAxesOpInterface op,
                                        SymbolTableCollection &symbolTables) {
  Operation *operation = op.getOperation();
  spmd::MeshAttr mesh = op.resolveMesh(&symbolTables);
  if (!mesh) {
    operation->emitOpError("unknown mesh: ") << op.getMeshAttr();
    return {};
  }
  spmd::EmitErrorFn emitError = spmd::getEmitErrorFn(operation);
  SmallVector<spmd::AxisRefAttr> seen;
  if (failed(spmd::verifyAxisRefList(op.getAxisRefs(), mesh, emitError, seen,
                                     /*minorPreSizes=*/true)) ||
      failed(spmd::verifySubAxes(seen, mesh, emitError)) ||
      failed(verifyBoundAxes(operation, mesh, op.getAxisRefs())))
    return {};
  return mesh;
}

/// Checks that a collective names at least one axis.
static LogicalResult verifyNonEmptyAxes(MeshAxesOpInterface op) {
  if (op.getAxisRefs().empty())
    return op->emitOpError("expected a non-empty list of mesh axes");
  return success();
}

/// Checks that the operand and result of a reshaping collective have the
/// same rank and element type.
static LogicalResult verifyRankAndElementType(Operation *op,
                                              RankedTensorType operandType,
                                              RankedTensorType resultType) {
  if (operandType.getRank() != resultType.getRank())
    return op->emitOpError("expected operand and result of the same rank, got ")
           << operandType.getRank() << " and " << resultType.getRank();
  if (operandType.getElementType() != resultType.getElementType())
    return op->emitOpError(
               "expected operand and result of the same element type, got ")
           << operandType.getElementType() << " and "
           << resultType.getElementType();
  return success();
}

/// Checks that `dim` (named `dimName`) is a dimension of a tensor of rank
/// `rank`.
static LogicalResult verifyDimInRange(Operation *op, StringRef dimName,
                                      int64_t dim, int64_t rank) {
  if (dim < 0 || dim >= rank)
    return op->emitOpError()
           << dimName << " dim " << dim << " is out of range for rank " << rank;
  return success();
}

/// True if `verify` has accepted the ranks and dimensions, so the
/// mesh-dependent checks can index the shapes. The verifier never checks
/// symbol uses after `verify` failed; this keeps those checks total anyway.
static bool hasCheckedShapes(ArrayRef<int64_t> operandShape,
                             ArrayRef<int64_t> resultShape,
                             std::initializer_list<int64_t> dims) {
  auto rank = static_cast<int64_t>(operandShape.size());
  return operandShape.size() == resultShape.size() &&
         llvm::all_of(dims,
                      [&](int64_t dim) { return dim >= 0 && dim < rank; });
}

/// Checks that the element type can be reduced with `kind`.
static LogicalResult verifyReductionElementType(Operation *op,
                                                ReductionKind kind,
                                                Type elementType) {
  if (isSupportedReductionElementType(kind, elementType))
    return success();
  if (elementType.isInteger(1))
    return op->emitOpError("'")
           << stringifyReductionKind(kind)
           << "' reduction of i1 elements is not supported (JAX's psum "
              "counts booleans: extend them to a wider integer type first)";
  return op->emitOpError("'") << stringifyReductionKind(kind)
                              << "' reduction is not supported for element "
                                 "type "
                              << elementType;
}

/// Checks a result dimension that keeps the operand's size.
static LogicalResult verifyUnchangedDim(Operation *op, int64_t dim,
                                        int64_t operandSize,
                                        int64_t resultSize) {
  if (ShapedType::isDynamic(operandSize) || ShapedType::isDynamic(resultSize) ||
      operandSize == resultSize)
    return success();
  return op->emitOpError("result dim ")
         << dim << " has size " << resultSize << ", expected " << operandSize
         << " (the operand's size)";
}

/// Checks a result dimension that is the operand's times the group size.
static LogicalResult verifyMultipliedDim(Operation *op, int64_t dim,
                                         int64_t operandSize,
                                         int64_t resultSize,
                                         int64_t groupSize) {
  if (ShapedType::isDynamic(resultSize))
    return success();
  if (ShapedType::isDynamic(operandSize)) {
    if (resultSize % groupSize != 0)
      return op->emitOpError("result dim ")
             << dim << " has size " << resultSize
             << ", which is not a multiple of the group size " << groupSize;
    return success();
  }
  std::optional<int64_t> expected = llvm::checkedMul(operandSize, groupSize);
  if (expected && *expected == resultSize)
    return success();
  InFlightDiagnostic diag = op->emitOpError("result dim ")
                            << dim << " has size " << resultSize
                            << ", expected ";
  if (expected)
    diag << *expected;
  else
    diag << "a size that overflows";
  return diag << " (operand size " << operandSize << " * group size "
              << groupSize << ")";
}

/// Checks a result dimension that is the operand's divided by the group
/// size; the operand's size must be divisible by the group size.
static LogicalResult verifyDividedDim(Operation *op, StringRef operandDimName,
                                      int64_t dim, int64_t operandSize,
                                      int64_t resultSize, int64_t groupSize) {
  if (ShapedType::isDynamic(operandSize))
    return success();
  if (operandSize % groupSize != 0)
    return op->emitOpError("operand ")
           << operandDimName << " dim " << dim << " of size " << operandSize
           << " is not divisible by the group size " << groupSize;
  if (ShapedType::isDynamic(resultSize) ||
      resultSize == operandSize / groupSize)
    return success();
  return op->emitOpError("result dim ")
         << dim << " has size " << resultSize << ", expected "
         << operandSize / groupSize << " (operand size " << operandSize
         << " / group size " << groupSize << ")";
}

//===----------------------------------------------------------------------===//
// AllReduceOp
//===----------------------------------------------------------------------===//

LogicalResult AllReduceOp::verify() {
  return verifyReductionElementType(*this, getKind(),
                                    getOperand().getType().getElementType());
}

LogicalResult
AllReduceOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return success(bool(verifyMeshAndAxes(*this, symbolTables)));
}

//===----------------------------------------------------------------------===//
// AllGatherOp
//===----------------------------------------------------------------------===//

LogicalResult AllGatherOp::verify() {
  RankedTensorType operandType = getOperand().getType();
  if (failed(verifyNonEmptyAxes(*this)) ||
      failed(verifyRankAndElementType(*this, operandType, getType())) ||
      failed(verifyDimInRange(*this, "gather", getGatherDimAttr().getInt(),
                              operandType.getRank())))
    return failure();
  if (std::optional<int64_t> valid = getValidSize(); valid && *valid < 1)
    return emitOpError("valid size must be positive, got ") << *valid;
  return success();
}

/// The mesh-dependent checks of all_gather (`gather`: dimension `dim` grows
/// by the group size) and reduce_scatter (it shrinks by it); the other
/// dimensions are unchanged.
static LogicalResult verifyResizedDim(MeshAxesOpInterface op,
                                      SymbolTableCollection &symbolTables,
                                      RankedTensorType operandType,
                                      RankedTensorType resultType, int64_t dim,
                                      bool gather) {
  spmd::MeshAttr mesh = verifyMeshAndAxes(op, symbolTables);
  if (!mesh)
    return failure();
  Operation *operation = op.getOperation();
  int64_t groupSize = comm::getGroupSize(mesh, op.getAxisRefs());
  ArrayRef<int64_t> operandShape = operandType.getShape();
  ArrayRef<int64_t> resultShape = resultType.getShape();
  if (!hasCheckedShapes(operandShape, resultShape, {dim}))
    return success();
  for (int64_t d = 0, rank = operandShape.size(); d < rank; ++d) {
    LogicalResult result = success();
    if (d != dim)
      result =
          verifyUnchangedDim(operation, d, operandShape[d], resultShape[d]);
    else if (gather)
      result = verifyMultipliedDim(operation, d, operandShape[d],
                                   resultShape[d], groupSize);
    else
      result = verifyDividedDim(operation, "scatter", d, operandShape[d],
                                resultShape[d], groupSize);
    if (failed(result))
      return failure();
  }
  return success();
}

LogicalResult
AllGatherOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  int64_t dim = getGatherDimAttr().getInt();
  std::optional<int64_t> valid = getValidSize();
  if (!valid)
    return verifyResizedDim(*this, symbolTables, getOperand().getType(),
                            getType(), dim, /*gather=*/true);
  // Only the first `valid` elements of the concatenation: the gathered
  // dimension is `valid`, at most the blocks' total.
  spmd::MeshAttr mesh = verifyMeshAndAxes(*this, symbolTables);
  if (!mesh)
    return failure();
  ArrayRef<int64_t> operandShape = getOperand().getType().getShape();
  ArrayRef<int64_t> resultShape = getType().getShape();
  for (int64_t d = 0, rank = operandShape.size(); d < rank; ++d)
    if (d != dim &&
        failed(verifyUnchangedDim(*this, d, operandShape[d], resultShape[d])))
      return failure();
  if (!ShapedType::isDynamic(resultShape[dim]) && resultShape[dim] != *valid)
    return emitOpError("result dim ") << dim << " has size " << resultShape[dim]
                                      << ", expected the valid size " << *valid;
  int64_t groupSize = comm::getGroupSize(
      mesh, cast<MeshAxesOpInterface>(getOperation()).getAxisRefs());
  std::optional<int64_t> total =
      ShapedType::isDynamic(operandShape[dim])
          ? std::nullopt
          : llvm::checkedMul(operandShape[dim], groupSize);
  if (total && *valid > *total)
    return emitOpError("valid size ")
           << *valid << " exceeds the " << *total
           << " elements the group's blocks hold along dim " << dim;
  return success();
}

//===----------------------------------------------------------------------===//
// ReduceScatterOp
//===----------------------------------------------------------------------===//

LogicalResult ReduceScatterOp::verify() {
  RankedTensorType operandType = getOperand().getType();
  if (failed(verifyNonEmptyAxes(*this)) ||
      failed(verifyRankAndElementType(*this, operandType, getType())) ||
      failed(verifyDimInRange(*this, "scatter", getScatterDimAttr().getInt(),
                              operandType.getRank())) ||
      failed(verifyReductionElementType(*this, getKind(),
                                        operandType.getElementType())))
    return failure();
  return success();
}

LogicalResult
ReduceScatterOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return verifyResizedDim(*this, symbolTables, getOperand().getType(),
                          getType(), getScatterDimAttr().getInt(),
                          /*gather=*/false);
}

//===----------------------------------------------------------------------===//
// AllToAllOp
//===----------------------------------------------------------------------===//

LogicalResult AllToAllOp::verify() {
  RankedTensorType operandType = getOperand().getType();
  if (failed(verifyNonEmptyAxes(*this)) ||
      failed(verifyRankAndElementType(*this, operandType, getType())) ||
      failed(verifyDimInRange(*this, "split", getSplitDimAttr().getInt(),
                              operandType.getRank())) ||
      failed(verifyDimInRange(*this, "concat", getConcatDimAttr().getInt(),
                              operandType.getRank())))
    return failure();
  return success();
}

LogicalResult
AllToAllOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  spmd::MeshAttr mesh = verifyMeshAndAxes(*this, symbolTables);
  if (!mesh)
    return failure();
  int64_t groupSize = comm::getGroupSize(mesh, getAxes().getValue());
  ArrayRef<int64_t> operandShape = getOperand().getType().getShape();
  ArrayRef<int64_t> resultShape = getType().getShape();
  int64_t splitDim = getSplitDimAttr().getInt();
  int64_t concatDim = getConcatDimAttr().getInt();
  if (!hasCheckedShapes(operandShape, resultShape, {splitDim, concatDim}))
    return success();
  // The split dimension must divide evenly, whatever happens to it next.
  if (!ShapedType::isDynamic(operandShape[splitDim]) &&
      operandShape[splitDim] % groupSize != 0)
    return emitOpError("operand split dim ")
           << splitDim << " of size " << operandShape[splitDim]
           << " is not divisible by the group size " << groupSize;
  for (int64_t dim = 0, rank = operandShape.size(); dim < rank; ++dim) {
    LogicalResult result = success();
    if (dim == splitDim && dim != concatDim)
      result = verifyDividedDim(*this, "split", dim, operandShape[dim],
                                resultShape[dim], groupSize);
    else if (dim == concatDim && dim != splitDim)
      result = verifyMultipliedDim(*this, dim, operandShape[dim],
                                   resultShape[dim], groupSize);
    else
      result =
          verifyUnchangedDim(*this, dim, operandShape[dim], resultShape[dim]);
    if (failed(result))
      return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// PermuteOp
//===----------------------------------------------------------------------===//

LogicalResult PermuteOp::verify() {
  ArrayRef<int64_t> sources = getSources(), targets = getTargets();
  if (failed(verifyNonEmptyAxes(*this)))
    return failure();
  if (sources.size() != targets.size())
    return emitOpError("expected as many sources as targets, got ")
           << sources.size() << " and " << targets.size();
  llvm::SmallSet<int64_t, 8> uniqueSources, uniqueTargets;
  for (auto [source, target] : llvm::zip(sources, targets)) {
    if (uniqueSources.insert(source).second &&
        uniqueTargets.insert(target).second)
      continue;
    // JAX's wording (ppermute), with the pairs in this op's syntax.
    InFlightDiagnostic diag =
        emitOpError("sources and destinations must be unique, got [");
    llvm::interleaveComma(llvm::zip(sources, targets), diag, [&](auto pair) {
      diag << std::get<0>(pair) << " -> " << std::get<1>(pair);
    });
    return diag << "]";
  }
  return success();
}

LogicalResult PermuteOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  spmd::MeshAttr mesh = verifyMeshAndAxes(*this, symbolTables);
  if (!mesh)
    return failure();
  int64_t groupSize = comm::getGroupSize(mesh, getAxes().getValue());
  for (auto [index, pair] :
       llvm::enumerate(llvm::zip(getSources(), getTargets()))) {
    auto [source, target] = pair;
    for (auto [kind, value] : {std::pair<StringRef, int64_t>("source", source),
                               std::pair<StringRef, int64_t>("target", target)})
      if (value < 0 || value >= groupSize)
        return emitOpError() << kind << " " << value << " of pair " << index
                             << " is out of range [0, " << groupSize
                             << ") for a group of " << groupSize << " devices";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// AxisIndexOp / AxisSizeOp
//===----------------------------------------------------------------------===//

LogicalResult
AxisIndexOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return success(bool(verifyMeshAndAxes(*this, symbolTables)));
}

LogicalResult
AxisSizeOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  return success(bool(verifyMeshAndAxes(*this, symbolTables)));
}
