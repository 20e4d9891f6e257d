//===- CommToRuntime.h - comm ops to runtime calls --------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The patterns of `convert-comm-to-runtime`: each `comm` op of a per-device
// program becomes calls of the runtime's C ABI (tessera/Runtime/Runtime.h).
// A collective becomes a call of a private stub function taking its operand
// tensor and returning its result tensor, whose body passes the operand's
// buffer and a fresh result buffer to the runtime; `comm.axis_index` a call,
// `comm.axis_size` a constant. Embedders add them to their own conversion
// with populateCommToRuntimeConversionPatterns.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_CONVERSION_COMMTORUNTIME_COMMTORUNTIME_H
#define TESSERA_CONVERSION_COMMTORUNTIME_COMMTORUNTIME_H

#include "tessera/Dialect/Spmd/IR/SpmdAttrs.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringMap.h"

#include <string>

namespace mlir::tessera {
namespace comm {
class MeshAxesOpInterface;
} // namespace comm

/// What the comm-to-runtime patterns of one module share: the runtime
/// functions they declare, the constant arrays and strings they build (one
/// global per distinct group, shape or site) and the stubs they make. It
/// must outlive the patterns' application.
class CommRuntimeLowering {
public:
  explicit CommRuntimeLowering(ModuleOp module);

  /// Declares the runtime function `name` if needed; returns it.
  func::FuncOp getFunction(StringRef name, TypeRange inputs, TypeRange results);
  /// A pointer to a constant i64 array holding `values`.
  Value getI64Array(OpBuilder &builder, Location loc, ArrayRef<int64_t> values);
  /// A pointer to the constant string `text` (null-terminated).
  Value getString(OpBuilder &builder, Location loc, StringRef text);
  /// The address of the first element of a contiguous buffer.
  Value getPointer(OpBuilder &builder, Location loc, Value buffer);
  /// A pointer to the contiguous data of `tensor` (read only).
  Value getInputPointer(OpBuilder &builder, Location loc, Value tensor);
  /// The sizes of the dims of `tensor` as index values.
  SmallVector<Value> getDims(OpBuilder &builder, Location loc, Value tensor);
  /// A fresh contiguous buffer of `type` whose dynamic dims are those of
  /// `dims`; returns it with its pointer.
  std::pair<Value, Value> allocateOutput(OpBuilder &builder, Location loc,
                                         RankedTensorType type,
                                         ArrayRef<Value> dims);
  /// A pointer to the shape of `tensor` as an i64 array: a constant for a
  /// static shape, a stack array otherwise.
  Value getShape(OpBuilder &builder, Location loc, Value tensor);
  /// The number of elements of `tensor` as an i64 value.
  Value getNumElements(OpBuilder &builder, Location loc, Value tensor);
  /// Reports at `op` what keeps it from being lowered: an unknown mesh or
  /// axis, or an element type the runtime does not move. The patterns fail
  /// silently on such ops; run this first for the user's diagnostic.
  LogicalResult checkLowerable(comm::MeshAxesOpInterface op);
  /// The group of `op` as (axis, pre-size, size) triples of the runtime's
  /// mesh (the module's first mesh of the most devices), or failure when its
  /// mesh or one of its axes is unknown. The axes of a mesh with other axes
  /// over as many devices are the runtime mesh's that cover the same digits
  /// of a device's position (spmd::translateCommAxisRefsToMesh); a mesh of
  /// fewer devices names its axes by their own positions.
  FailureOr<SmallVector<int64_t>> getGroup(comm::MeshAxesOpInterface op);
  /// In a module whose meshes order the devices differently, a call that
  /// makes the runtime number the positions of `op`'s mesh with its order.
  void setDeviceOrder(OpBuilder &builder, Location loc,
                      comm::MeshAxesOpInterface op);
  /// `comm.<op> at "file":line:col`, for the runtime's diagnostics.
  std::string getSite(Operation *op);
  /// A private function `(operand) -> (result)` with an empty entry block,
  /// named after the op (`__tessera_comm_all_reduce_0`), for the call that
  /// replaces `op`.
  func::FuncOp createStub(Operation *op, Type operand, Type result);

  Type getPtrType() const { return ptrType; }

private:
  ModuleOp module;
  MLIRContext *ctx;
  Type ptrType;
  SymbolTableCollection symbols;
  llvm::StringMap<LLVM::GlobalOp> arrays;
  llvm::StringMap<std::string> strings;
  unsigned stubs = 0;
  /// Set if the module's meshes over this mesh's devices order them
  /// differently: then every call over one of them names its mesh's order.
  spmd::MeshAttr orderedMesh;
  /// The mesh whose axes the runtime's groups name.
  spmd::MeshAttr runtimeMesh;
};

/// Adds the patterns that lower each comm op (all_reduce, all_gather,
/// reduce_scatter, all_to_all, permute, axis_index, axis_size) to runtime
/// calls, sharing `lowering`.
void populateCommToRuntimeConversionPatterns(RewritePatternSet &patterns,
                                             CommRuntimeLowering &lowering);

} // namespace mlir::tessera

#endif // TESSERA_CONVERSION_COMMTORUNTIME_COMMTORUNTIME_H
