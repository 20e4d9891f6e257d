//===- KernelVerifiers.cpp - kernel op verifiers --------------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Structural checks that hold for every kernel whatever the TPU generation;
// the generation's rules (tiling, budgets, dtypes) are `kernel-verify`'s.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Kernel/IR/KernelOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tessera::kernel;

//===----------------------------------------------------------------------===//
// CallOp
//===----------------------------------------------------------------------===//

LogicalResult CallOp::verify() {
  int64_t numOperands = getOperands().size();
  int64_t numPrefetch = getScalarPrefetch();
  if (numPrefetch < 0 || numPrefetch > numOperands)
    return emitOpError() << "scalar_prefetch = " << numPrefetch
                         << " must be between 0 and the number of operands ("
                         << numOperands << ")";
  ArrayRef<int64_t> grid = getGrid();
  if (llvm::any_of(grid, [](int64_t size) { return size < 1; }))
    return emitOpError() << "grid sizes must be positive, got "
                         << formatShape(grid);
  int64_t gridRank = grid.size();

  int64_t numBlockedInputs = numOperands - numPrefetch;
  if (static_cast<int64_t>(getInSpecs().size()) != numBlockedInputs)
    return emitOpError() << "expected " << numBlockedInputs
                         << " in_specs (one per operand after the "
                         << numPrefetch << " scalar-prefetch operands), got "
                         << getInSpecs().size();
  if (getOutSpecs().size() != getResults().size())
    return emitOpError() << "expected " << getResults().size()
                         << " out_specs (one per result), got "
                         << getOutSpecs().size();

  if (std::optional<ArrayAttr> semantics = getDimensionSemantics())
    if (static_cast<int64_t>(semantics->size()) != gridRank)
      return emitOpError()
             << "Length of grid does not match length of dimension "
                "semantics: the grid "
             << formatShape(grid) << " has " << gridRank
             << " axes, dimension_semantics has " << semantics->size()
             << " entries";

  for (auto [i, operand] : llvm::enumerate(getPrefetchOperands())) {
    auto type = cast<RankedTensorType>(operand.getType());
    if (!type.getElementType().isSignlessInteger(32))
      return emitOpError() << "scalar-prefetch operand " << i
                           << " must have i32 elements (SMEM holds 32-bit "
                              "words), got "
                           << type;
  }

  for (unsigned i = 0, e = getNumBlocked(); i < e; ++i) {
    auto [block, type] = getBlocked(i);
    int64_t rank = type.getRank();
    if (!block.getFull() && block.getRank() != rank)
      return emitOpError() << "Block shape for " << getBlockedName(i)
                           << " (= " << formatBlockShape(block, {})
                           << ") must have the same number of dimensions as "
                              "the array shape "
                           << formatShape(type.getShape());
    if (AffineMap map = block.getIndexMap()) {
      if (static_cast<int64_t>(map.getNumResults()) != rank)
        return emitOpError()
               << "index map " << formatAffineMap(map) << " of "
               << getBlockedName(i) << " has " << map.getNumResults()
               << " results, but the array has rank " << rank;
      if (static_cast<int64_t>(map.getNumDims()) != gridRank)
        return emitOpError()
               << "index map " << formatAffineMap(map) << " of "
               << getBlockedName(i) << " takes " << map.getNumDims()
               << " grid indices, but the grid has " << gridRank << " axes";
    }
  }

  if (std::optional<ArrayAttr> scratch = getScratch()) {
    for (auto [i, attr] : llvm::enumerate(*scratch)) {
      std::string what = "scratch buffer " + std::to_string(i);
      if (failed(verifyScopedBufferType([&]() { return emitOpError(); },
                                        cast<TypeAttr>(attr).getValue(), what)))
        return failure();
    }
  }

  if (std::optional<ArrayRef<int64_t>> flat = getInputOutputAliases()) {
    if (flat->size() % 2 != 0)
      return emitOpError() << "input_output_aliases must hold operand, "
                              "result pairs";
    llvm::DenseSet<int64_t> inputs, outputs;
    for (auto [input, output] : getAliasPairs()) {
      if (input < 0 || input >= numOperands)
        return emitOpError() << "input_output_aliases: operand index " << input
                             << " is out of range (the call has " << numOperands
                             << " operands)";
      if (output < 0 || output >= static_cast<int64_t>(getNumResults()))
        return emitOpError() << "input_output_aliases: result index " << output
                             << " is out of range (the call has "
                             << getNumResults() << " results)";
      if (input < numPrefetch)
        return emitOpError() << "input_output_aliases: operand " << input
                             << " is a scalar-prefetch operand, which cannot "
                                "be aliased";
      Type inputType = getOperand(input).getType();
      Type outputType = getResult(output).getType();
      if (inputType != outputType)
        return emitOpError()
               << "input_output_aliases: operand " << input << " of type "
               << inputType << " and result " << output << " of type "
               << outputType << " must have the same type";
      if (!inputs.insert(input).second)
        return emitOpError() << "input_output_aliases: operand " << input
                             << " is aliased twice";
      if (!outputs.insert(output).second)
        return emitOpError() << "input_output_aliases: result " << output
                             << " is aliased twice";
    }
  }

  if (std::optional<int64_t> limit = getVmemLimitBytes())
    if (*limit <= 0)
      return emitOpError() << "vmem_limit_bytes must be positive, got "
                           << *limit;
  return success();
}

LogicalResult CallOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  MLIRContext *context = getContext();
  // The spec counts are verify()'s to report; the checks below need them.
  if (getScalarPrefetch() < 0 || getScalarPrefetch() > getOperands().size() ||
      getInSpecs().size() != getBlockedOperands().size() ||
      getOutSpecs().size() != getResults().size())
    return success();
  auto body = symbolTables.lookupNearestSymbolFrom<func::FuncOp>(
      *this, getCalleeAttr());
  if (!body)
    return emitOpError() << "'" << getCallee()
                         << "' does not reference a func.func";
  if (body.isExternal())
    return emitOpError() << "kernel body @" << getCallee()
                         << " is a declaration; a kernel body must be defined";
  auto expected = FunctionType::get(context, getExpectedBodyArgTypes(), {});
  if (body.getFunctionType() != expected) {
    InFlightDiagnostic diag = emitOpError()
                              << "kernel body @" << getCallee() << " has type "
                              << body.getFunctionType()
                              << ", but its scalar-prefetch operands, blocks "
                                 "and scratch buffers need "
                              << expected;
    diag.attachNote(body.getLoc()) << "kernel body defined here";
    return diag;
  }

  // Function index maps: (grid indices..., scalar-prefetch refs...) ->
  // (block indices...).
  SmallVector<Type> fnInputs(getGrid().size(), IndexType::get(context));
  SmallVector<Type> bodyArgTypes = getExpectedBodyArgTypes();
  llvm::append_range(
      fnInputs, ArrayRef<Type>(bodyArgTypes).take_front(getScalarPrefetch()));
  for (unsigned i = 0, e = getNumBlocked(); i < e; ++i) {
    auto [block, type] = getBlocked(i);
    FlatSymbolRefAttr fnName = block.getIndexFn();
    if (!fnName)
      continue;
    auto fn = symbolTables.lookupNearestSymbolFrom<func::FuncOp>(*this, fnName);
    if (!fn)
      return emitOpError() << "index map @" << fnName.getValue() << " of "
                           << getBlockedName(i)
                           << " does not reference a func.func";
    SmallVector<Type> fnResults(type.getRank(), IndexType::get(context));
    auto fnType = FunctionType::get(context, fnInputs, fnResults);
    if (fn.getFunctionType() != fnType) {
      InFlightDiagnostic diag =
          emitOpError() << "index map @" << fnName.getValue() << " of "
                        << getBlockedName(i) << " has type "
                        << fn.getFunctionType()
                        << ", but it must take the grid indices and the "
                           "scalar-prefetch operands and return one index "
                           "per array dimension: "
                        << fnType;
      diag.attachNote(fn.getLoc()) << "index map defined here";
      return diag;
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Loads and stores
//===----------------------------------------------------------------------===//

/// Checks the buffer, indices, value and mask of a load or store.
static LogicalResult verifyAccess(Operation *op, MemRefType refType,
                                  size_t numIndices, Type valueType,
                                  bool hasMask, StringRef valueName) {
  std::optional<MemorySpace> space = getMemorySpace(refType);
  if (!space)
    return op->emitOpError() << "expects a memref in a #kernel.space memory "
                                "space, got "
                             << refType;
  if (*space == MemorySpace::Hbm || *space == MemorySpace::Any)
    return op->emitOpError()
           << "Buffers with a memory space of HBM or ANY cannot be "
              "referenced directly. Instead, use `kernel.async_copy`";
  if (*space == MemorySpace::Semaphore)
    return op->emitOpError() << "cannot access semaphores directly; use "
                                "kernel.semaphore_read, _signal or _wait";
  if (static_cast<int64_t>(numIndices) != refType.getRank())
    return op->emitOpError() << "expects " << refType.getRank()
                             << " indices for a memref of rank "
                             << refType.getRank() << ", got " << numIndices;
  Type elementType = refType.getElementType();
  if (auto vectorType = dyn_cast<VectorType>(valueType)) {
    if (vectorType.isScalable())
      return op->emitOpError() << "scalable vectors are not supported";
    if (vectorType.getElementType() != elementType)
      return op->emitOpError()
             << valueName << " element type " << vectorType.getElementType()
             << " does not match the memref element type " << elementType;
    ArrayRef<int64_t> refShape = refType.getShape();
    ArrayRef<int64_t> shape = vectorType.getShape();
    if (shape.size() > refShape.size() ||
        llvm::any_of(
            llvm::zip(llvm::reverse(shape), llvm::reverse(refShape)),
            [](auto pair) { return std::get<0>(pair) > std::get<1>(pair); }))
      return op->emitOpError()
             << valueName << " " << vectorType << " does not fit in the last "
             << shape.size() << " dimensions of " << refType;
    return success();
  }
  if (valueType != elementType)
    return op->emitOpError() << valueName << " type " << valueType
                             << " must be the memref element type "
                             << elementType << " or a vector of it";
  if (hasMask)
    return op->emitOpError() << "a mask needs a vector " << valueName;
  return success();
}

LogicalResult LoadOp::verify() {
  return verifyAccess(*this, getRef().getType(), getIndices().size(),
                      getResult().getType(), static_cast<bool>(getMask()),
                      "result");
}

LogicalResult StoreOp::verify() {
  return verifyAccess(*this, getRef().getType(), getIndices().size(),
                      getValue().getType(), static_cast<bool>(getMask()),
                      "value");
}

//===----------------------------------------------------------------------===//
// DMA and semaphores
//===----------------------------------------------------------------------===//

/// Checks that `sem[indices]` addresses one semaphore; `dma` selects DMA
/// semaphores, `regular` regular ones (both may be allowed).
static LogicalResult verifySemaphoreRef(Operation *op, MemRefType semType,
                                        size_t numIndices, bool dma,
                                        bool regular) {
  std::optional<MemorySpace> space = getMemorySpace(semType);
  Type element = semType.getElementType();
  bool ok = space == MemorySpace::Semaphore &&
            ((dma && isa<DmaSemaphoreType>(element)) ||
             (regular && isa<SemaphoreType>(element)));
  if (!ok) {
    StringRef expected = dma && regular ? "!kernel.semaphore or "
                                          "!kernel.dma_semaphore"
                         : dma          ? "!kernel.dma_semaphore"
                                        : "!kernel.semaphore";
    InFlightDiagnostic diag =
        op->emitOpError() << "expects a memref of " << expected
                          << " in #kernel.space<semaphore>, got " << semType;
    if (!dma && isa<DmaSemaphoreType>(element))
      diag << "; DMA semaphores are signalled and waited by "
              "kernel.async_copy";
    return diag;
  }
  if (static_cast<int64_t>(numIndices) != semType.getRank())
    return op->emitOpError() << "expects " << semType.getRank()
                             << " indices to address one semaphore of "
                             << semType << ", got " << numIndices;
  return success();
}

LogicalResult AsyncCopyOp::verify() {
  MemRefType srcType = getSrc().getType();
  MemRefType dstType = getDst().getType();
  for (auto [name, type] :
       {std::pair<StringRef, MemRefType>{"source", srcType},
        std::pair<StringRef, MemRefType>{"target", dstType}}) {
    std::optional<MemorySpace> space = getMemorySpace(type);
    if (!space || *space == MemorySpace::Semaphore)
      return emitOpError() << "DMA " << name
                           << " must be a memref in #kernel.space<vmem>, "
                              "<smem>, <hbm> or <any>, got "
                           << type;
  }
  if (srcType.getShape() != dstType.getShape())
    return emitOpError() << "DMA source and target shape mismatch: "
                         << formatShape(srcType.getShape()) << " vs "
                         << formatShape(dstType.getShape());
  if (srcType.getElementType() != dstType.getElementType())
    return emitOpError() << "DMA source and target element type mismatch: "
                         << srcType.getElementType() << " vs "
                         << dstType.getElementType();
  return verifySemaphoreRef(*this, getSem().getType(), getSemIndices().size(),
                            /*dma=*/true, /*regular=*/false);
}

LogicalResult SemaphoreSignalOp::verify() {
  return verifySemaphoreRef(*this, getSem().getType(), getIndices().size(),
                            /*dma=*/false, /*regular=*/true);
}

LogicalResult SemaphoreWaitOp::verify() {
  return verifySemaphoreRef(*this, getSem().getType(), getIndices().size(),
                            /*dma=*/false, /*regular=*/true);
}

LogicalResult SemaphoreReadOp::verify() {
  return verifySemaphoreRef(*this, getSem().getType(), getIndices().size(),
                            /*dma=*/true, /*regular=*/true);
}

//===----------------------------------------------------------------------===//
// RunScopedOp
//===----------------------------------------------------------------------===//

LogicalResult RunScopedOp::verify() {
  for (BlockArgument arg : getBody().getArguments()) {
    std::string what = "scoped buffer " + std::to_string(arg.getArgNumber());
    if (failed(verifyScopedBufferType([&]() { return emitOpError(); },
                                      arg.getType(), what)))
      return failure();
  }
  for (Type type : getResultTypes())
    if (isa<BaseMemRefType>(type))
      return emitOpError() << "results cannot be memrefs: scoped buffers do "
                              "not outlive the region, got "
                           << type;
  Block &block = getBody().front();
  auto yield = block.empty() ? YieldOp() : dyn_cast<YieldOp>(block.back());
  if (!yield)
    return emitOpError() << "region must end with kernel.yield";
  if (yield.getValues().getTypes() != getResultTypes()) {
    InFlightDiagnostic diag = emitOpError() << "kernel.yield returns (";
    llvm::interleaveComma(yield.getValues().getTypes(), diag);
    diag << "), but the results are (";
    llvm::interleaveComma(getResultTypes(), diag);
    diag << ")";
    diag.attachNote(yield.getLoc()) << "kernel.yield here";
    return diag;
  }
  return success();
}
