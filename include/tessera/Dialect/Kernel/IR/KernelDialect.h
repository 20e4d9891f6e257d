//===- KernelDialect.h - kernel dialect, attributes, types ------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_KERNEL_IR_KERNELDIALECT_H
#define TESSERA_DIALECT_KERNEL_IR_KERNELDIALECT_H

#include "tessera/Dialect/Kernel/IR/KernelTarget.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/Hashing.h"

#include <optional>
#include <string>

#include "tessera/Dialect/Kernel/IR/KernelEnums.h.inc"

namespace mlir::tessera::kernel {

/// The kind of one dimension of a `#kernel.block`.
enum class BlockDimKind : uint8_t {
  /// `n`: the index map returns a block index; the block starts at index*n.
  Blocked,
  /// `None`: size 1, dropped from the body's memref.
  Squeezed,
  /// `element(n, padding = (lo, hi))`: the index map returns an element
  /// offset into the array padded by lo/hi elements.
  Element,
};

/// One dimension of a `#kernel.block`.
struct BlockDim {
  BlockDimKind kind = BlockDimKind::Blocked;
  /// The block size (1 for squeezed dimensions).
  int64_t size = 1;
  /// Low and high padding of an element dimension (0 otherwise).
  int64_t padLow = 0;
  int64_t padHigh = 0;

  static BlockDim blocked(int64_t size) {
    return {BlockDimKind::Blocked, size, 0, 0};
  }
  static BlockDim squeezed() { return {BlockDimKind::Squeezed, 1, 0, 0}; }
  static BlockDim element(int64_t size, int64_t padLow = 0,
                          int64_t padHigh = 0) {
    return {BlockDimKind::Element, size, padLow, padHigh};
  }
  bool isSqueezed() const { return kind == BlockDimKind::Squeezed; }
  bool isElement() const { return kind == BlockDimKind::Element; }

  bool operator==(const BlockDim &other) const {
    return kind == other.kind && size == other.size && padLow == other.padLow &&
           padHigh == other.padHigh;
  }
  bool operator!=(const BlockDim &other) const { return !(*this == other); }
};

inline llvm::hash_code hash_value(const BlockDim &dim) {
  return llvm::hash_combine(static_cast<uint8_t>(dim.kind), dim.size,
                            dim.padLow, dim.padHigh);
}

/// The type of the mask of a load or store of `valueType`: a vector of `i1`
/// of the same shape, or `i1` for a scalar.
Type getMaskType(Type valueType);

/// The memory space of `type` if it is a `#kernel.space`, else none.
std::optional<MemorySpace> getMemorySpace(Type type);

/// A memref type in a kernel memory space.
MemRefType getKernelMemRefType(ArrayRef<int64_t> shape, Type elementType,
                               MemorySpace space);

/// True if `type` is `!kernel.semaphore` or `!kernel.dma_semaphore`.
bool isSemaphoreType(Type type);

} // namespace mlir::tessera::kernel

#include "tessera/Dialect/Kernel/IR/KernelDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tessera/Dialect/Kernel/IR/KernelAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tessera/Dialect/Kernel/IR/KernelTypes.h.inc"

namespace mlir::tessera::kernel {

/// The `#kernel.target` of the nearest enclosing op (usually the module)
/// that has a `kernel.target` attribute, or null.
TargetAttr lookupTarget(Operation *from);

/// `map` as written in a `#kernel.block`: `(d0, d1) -> (d0, 0)`.
std::string formatAffineMap(AffineMap map);

/// The index map of `block` for diagnostics: the affine map, `@fn`, or
/// `zeros` when it has none.
std::string formatIndexMap(BlockAttr block);

/// A shape as JAX prints it: `(8, 128)`, `(4,)`, `()`.
std::string formatShape(ArrayRef<int64_t> shape);

/// The block shape of `block` as JAX prints it: `(8, 128)`, with `None` for
/// squeezed and `Element(n)` for element dimensions; the whole array shape
/// `arrayShape` for a `full` block.
std::string formatBlockShape(BlockAttr block, ArrayRef<int64_t> arrayShape);

/// Checks that `type` can be a scratch or scoped buffer: a statically shaped
/// memref with the identity layout in VMEM or SMEM, or of semaphores in
/// `#kernel.space<semaphore>`. `what` names the buffer in the message.
LogicalResult
verifyScopedBufferType(function_ref<InFlightDiagnostic()> emitError, Type type,
                       StringRef what);

} // namespace mlir::tessera::kernel

#endif // TESSERA_DIALECT_KERNEL_IR_KERNELDIALECT_H
