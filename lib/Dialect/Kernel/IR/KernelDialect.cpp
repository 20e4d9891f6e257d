//===- KernelDialect.cpp - kernel dialect registration and helpers --------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Kernel/IR/KernelDialect.h"
#include "tessera/Dialect/Kernel/IR/KernelBytecode.h"
#include "tessera/Dialect/Kernel/IR/KernelOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tessera::kernel;

#include "tessera/Dialect/Kernel/IR/KernelDialect.cpp.inc"
#include "tessera/Dialect/Kernel/IR/KernelEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "tessera/Dialect/Kernel/IR/KernelTypes.cpp.inc"

void KernelDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tessera/Dialect/Kernel/IR/KernelTypes.cpp.inc"
      >();
}

void KernelDialect::initialize() {
  registerBytecodeInterface(*this);
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "tessera/Dialect/Kernel/IR/KernelOps.cpp.inc"
      >();
}

/// Verifies `kernel.out_layouts` on `op`: one entry per result, a
/// #kernel.layout for a vector of rank >= 1 whose dimensions its tiles
/// divide, `unit` for another result.
static LogicalResult verifyOutLayouts(Operation *op, Attribute value) {
  auto array = dyn_cast<ArrayAttr>(value);
  if (!array)
    return op->emitError() << "'" << KernelDialect::getOutLayoutsAttrName()
                           << "' must be an array of #kernel.layout, got "
                           << value;
  if (array.size() != op->getNumResults())
    return op->emitError() << "'" << KernelDialect::getOutLayoutsAttrName()
                           << "' has " << array.size()
                           << " entries for an op with " << op->getNumResults()
                           << " results";
  for (auto [i, entry, result] :
       llvm::enumerate(array.getValue(), op->getResults())) {
    auto type = dyn_cast<VectorType>(result.getType());
    auto layout = dyn_cast<VectorLayoutAttr>(entry);
    if (!type || type.getRank() == 0) {
      if (!isa<UnitAttr>(entry))
        return op->emitError()
               << "result " << i << " of type " << result.getType()
               << " has no vector layout, got " << entry;
      continue;
    }
    if (!layout)
      return op->emitError() << "result " << i << " of type " << type
                             << " needs a #kernel.layout, got " << entry;
    for (auto [size, tile] :
         llvm::zip(type.getShape(), layout.getTileShape(type.getShape())))
      if (size % tile != 0)
        return op->emitError()
               << "layout " << layout << " of result " << i << " does not tile "
               << type << ": the tile sizes must divide the shape";
  }
  return success();
}

LogicalResult KernelDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  if (attr.getName() == getOutLayoutsAttrName())
    return verifyOutLayouts(op, attr.getValue());
  if (attr.getName() != getTargetAttrName())
    return op->emitError() << "unknown kernel dialect attribute '"
                           << attr.getName().getValue() << "'";
  if (!isa<TargetAttr>(attr.getValue()))
    return op->emitError() << "'" << getTargetAttrName()
                           << "' must be a #kernel.target attribute, got "
                           << attr.getValue();
  if (!isa<ModuleOp>(op))
    return op->emitError() << "'" << getTargetAttrName()
                           << "' must be set on a module, not on '"
                           << op->getName() << "'";
  return success();
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

Type mlir::tessera::kernel::getMaskType(Type valueType) {
  auto i1 = IntegerType::get(valueType.getContext(), 1);
  if (auto vectorType = dyn_cast<VectorType>(valueType))
    return VectorType::get(vectorType.getShape(), i1,
                           vectorType.getScalableDims());
  return i1;
}

std::optional<MemorySpace> mlir::tessera::kernel::getMemorySpace(Type type) {
  auto memrefType = dyn_cast<BaseMemRefType>(type);
  if (!memrefType)
    return std::nullopt;
  if (auto space =
          dyn_cast_or_null<MemorySpaceAttr>(memrefType.getMemorySpace()))
    return space.getValue();
  return std::nullopt;
}

MemRefType mlir::tessera::kernel::getKernelMemRefType(ArrayRef<int64_t> shape,
                                                      Type elementType,
                                                      MemorySpace space) {
  return MemRefType::get(shape, elementType, MemRefLayoutAttrInterface(),
                         MemorySpaceAttr::get(elementType.getContext(), space));
}

bool mlir::tessera::kernel::isSemaphoreType(Type type) {
  return isa<SemaphoreType, DmaSemaphoreType>(type);
}

TargetAttr mlir::tessera::kernel::lookupTarget(Operation *from) {
  for (Operation *op = from; op; op = op->getParentOp())
    if (auto target =
            op->getAttrOfType<TargetAttr>(KernelDialect::getTargetAttrName()))
      return target;
  return {};
}

std::string mlir::tessera::kernel::formatShape(ArrayRef<int64_t> shape) {
  std::string result = "(";
  llvm::raw_string_ostream os(result);
  llvm::interleaveComma(shape, os);
  if (shape.size() == 1)
    os << ',';
  os << ')';
  return result;
}

std::string
mlir::tessera::kernel::formatBlockShape(BlockAttr block,
                                        ArrayRef<int64_t> arrayShape) {
  if (block.getFull())
    return formatShape(arrayShape);
  std::string result = "(";
  llvm::raw_string_ostream os(result);
  llvm::interleaveComma(block.getDims(), os, [&](const BlockDim &dim) {
    if (dim.isSqueezed())
      os << "None";
    else if (dim.isElement())
      os << "Element(" << dim.size << ")";
    else
      os << dim.size;
  });
  if (block.getDims().size() == 1)
    os << ',';
  os << ')';
  return result;
}

LogicalResult mlir::tessera::kernel::verifyScopedBufferType(
    function_ref<InFlightDiagnostic()> emitError, Type type, StringRef what) {
  auto memrefType = dyn_cast<MemRefType>(type);
  std::optional<MemorySpace> space = getMemorySpace(type);
  if (!memrefType || !memrefType.hasStaticShape() ||
      !memrefType.getLayout().isIdentity() || !space ||
      (*space != MemorySpace::Vmem && *space != MemorySpace::Smem &&
       *space != MemorySpace::Semaphore))
    return emitError() << what
                       << " must be a statically shaped memref in "
                          "#kernel.space<vmem>, <smem> or <semaphore>, got "
                       << type;
  bool semaphores = isSemaphoreType(memrefType.getElementType());
  if (*space == MemorySpace::Semaphore && !semaphores)
    return emitError() << what
                       << " in #kernel.space<semaphore> must hold "
                          "!kernel.semaphore or !kernel.dma_semaphore, got "
                       << type;
  if (*space != MemorySpace::Semaphore && semaphores)
    return emitError() << what
                       << " holds semaphores, which live in "
                          "#kernel.space<semaphore>, got "
                       << type;
  return success();
}

std::string mlir::tessera::kernel::formatAffineMap(AffineMap map) {
  std::string result;
  llvm::raw_string_ostream os(result);
  map.print(os);
  return result;
}

std::string mlir::tessera::kernel::formatIndexMap(BlockAttr block) {
  if (AffineMap map = block.getIndexMap())
    return formatAffineMap(map);
  if (FlatSymbolRefAttr fn = block.getIndexFn())
    return ("@" + fn.getValue()).str();
  return "zeros";
}
