//===- VectorLayout.h - vector layouts of kernel bodies ---------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The rules behind kernel-infer-vector-layout and kernel-apply-vector-layout
// (and the support check kernel-verify runs): the native tiling of a vector
// type, which values of a kernel body span several native tiles, and which
// ops on such values the layout passes rewrite.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_KERNEL_TRANSFORMS_VECTORLAYOUT_H
#define TESSERA_DIALECT_KERNEL_TRANSFORMS_VECTORLAYOUT_H

#include "tessera/Dialect/Kernel/IR/KernelDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir {
namespace func {
class FuncOp;
} // namespace func

namespace tessera::kernel {

/// The lanes of a native vector register.
constexpr int64_t kNativeLanes = 128;
/// The sublanes of a native register of 32-bit elements.
constexpr int64_t kNativeSublanes = 8;

/// The native layout of a vector of `type`: (8, 128) tiles of its last two
/// dimensions for 32-bit elements, (16, 128) for 16-bit and (32, 128) for
/// 8-bit ones (with `bitwidth` instead of the element type's when given,
/// as for masks), 128 * 32 / bitwidth elements for rank 1; a dimension
/// smaller than the native size is one tile, a larger one that the native
/// size does not divide is tiled by its largest divisor below the native
/// size. Null for a vector of rank 0.
VectorLayoutAttr getNativeLayout(VectorType type, unsigned bitwidth = 0);

/// The layout `kernel-infer-vector-layout` gave `value` (a result of an op
/// with `kernel.out_layouts`, or the iteration argument of an `scf.for`
/// whose results have them), or null.
VectorLayoutAttr getAssignedLayout(Value value);

/// True if a value of `type` spans more than one tile of `layout`.
bool spansTiles(VectorType type, VectorLayoutAttr layout);

/// True if `type` is a vector that spans more than one native tile.
bool spansNativeTiles(Type type);

/// Checks that every op of the kernel body `body` on vectors that span
/// several native tiles is one the layout passes rewrite onto tiles, and
/// that its contractions combine types a TPU supports; reports the first
/// op that is not, with Pallas's or Mosaic's wording ("Unimplemented
/// primitive in Pallas TPU lowering for tc: ...", "Not implemented: ...").
LogicalResult verifyVectorLayoutSupport(func::FuncOp body);

/// Calls `fn` with the position of every row of a vector of `shape` (every
/// position of its leading dimensions, row-major): n-D vectors are loaded
/// and stored one 1-D row at a time.
void forEachVectorRow(ArrayRef<int64_t> shape,
                      function_ref<void(ArrayRef<int64_t>)> fn);

/// `indices` of an access of a vector of rank `position.size() + 1` to the
/// trailing dimensions of a memref, moved to the row at `position`.
SmallVector<Value> getVectorRowIndices(OpBuilder &b, Location loc,
                                       ValueRange indices,
                                       ArrayRef<int64_t> position);

/// The kernel bodies of `module` (the callees of its kernel.calls that have
/// a body), in module order.
SmallVector<func::FuncOp> getKernelBodies(ModuleOp module);

} // namespace tessera::kernel
} // namespace mlir

#endif // TESSERA_DIALECT_KERNEL_TRANSFORMS_VECTORLAYOUT_H
