//===- LoweringSupport.cpp - helpers of the kernel lowerings --------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "LowerCalls.h"

#include "tessera/Dialect/Kernel/IR/KernelDialect.h"
#include "tessera/Dialect/Kernel/IR/KernelOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tessera::kernel;

namespace mlir::tessera::kernel::lowering {

Value constantIndex(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value andAll(OpBuilder &b, Location loc, ArrayRef<Value> conditions) {
  Value result;
  for (Value c : conditions)
    result = result ? arith::AndIOp::create(b, loc, result, c) : c;
  return result ? result : arith::ConstantIntOp::create(b, loc, 1, 1);
}

Value anyOf(OpBuilder &b, Location loc, ArrayRef<Value> conditions) {
  Value result;
  for (Value c : conditions)
    result = result ? arith::OrIOp::create(b, loc, result, c) : c;
  return result ? result : arith::ConstantIntOp::create(b, loc, 0, 1);
}

Value cmp(OpBuilder &b, Location loc, arith::CmpIPredicate predicate, Value lhs,
          Value rhs) {
  return arith::CmpIOp::create(b, loc, predicate, lhs, rhs);
}

/// True if two lists of index values differ somewhere.
Value anyDifferent(OpBuilder &b, Location loc, ValueRange lhs, ValueRange rhs) {
  SmallVector<Value> conditions;
  for (auto [l, r] : llvm::zip(lhs, rhs))
    conditions.push_back(cmp(b, loc, arith::CmpIPredicate::ne, l, r));
  return anyOf(b, loc, conditions);
}

/// `memref` without a kernel memory space, semaphores as i32 counters.
Type stripType(Type type) {
  if (auto memref = dyn_cast<MemRefType>(type)) {
    if (!getMemorySpace(memref))
      return type;
    Type element = memref.getElementType();
    if (isSemaphoreType(element))
      element = IntegerType::get(type.getContext(), 32);
    return MemRefType::get(memref.getShape(), element, memref.getLayout(),
                           Attribute());
  }
  if (auto function = dyn_cast<FunctionType>(type)) {
    auto inputs = llvm::map_to_vector(function.getInputs(), stripType);
    auto results = llvm::map_to_vector(function.getResults(), stripType);
    return FunctionType::get(type.getContext(), inputs, results);
  }
  return type;
}

/// Drops the kernel memory spaces from every type in `op` (in place).
void stripTypes(Operation *root) {
  root->walk([](Operation *op) {
    for (Value result : op->getResults())
      result.setType(stripType(result.getType()));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(stripType(arg.getType()));
    if (auto func = dyn_cast<func::FuncOp>(op))
      func.setFunctionType(
          cast<FunctionType>(stripType(func.getFunctionType())));
  });
}

/// The value uninitialized memory holds: NaN for floats, the largest value
/// for integers (as Pallas's TPU interpret mode), null for other types.
TypedAttr getPoisonAttr(Type type) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return FloatAttr::get(floatType,
                          APFloat::getQNaN(floatType.getFloatSemantics()));
  if (auto intType = dyn_cast<IntegerType>(type)) {
    if (intType.getWidth() == 1)
      return IntegerAttr::get(intType, 0);
    return IntegerAttr::get(intType,
                            APInt::getSignedMaxValue(intType.getWidth()));
  }
  return {};
}

/// Fills `buffer` with the poison value of its element type.
void poison(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  TypedAttr attr = getPoisonAttr(type.getElementType());
  if (!attr)
    return;
  Value value = arith::ConstantOp::create(b, loc, attr);
  linalg::FillOp::create(b, loc, ValueRange{value}, ValueRange{buffer});
}

/// Fills `buffer` with zeros.
void zero(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  Value value =
      arith::ConstantOp::create(b, loc, b.getZeroAttr(type.getElementType()));
  linalg::FillOp::create(b, loc, ValueRange{value}, ValueRange{buffer});
}

/// A JAX-style tuple of `n` placeholders: `({}, {})`, `({},)`, `()`.
std::string tuplePlaceholders(size_t n) {
  std::string result = "(";
  for (size_t i = 0; i < n; ++i)
    result += i == 0 ? "{}" : ", {}";
  if (n == 1)
    result += ",";
  return result + ")";
}

std::string formatStaticShape(ArrayRef<int64_t> shape) {
  return formatShape(shape);
}

} // namespace mlir::tessera::kernel::lowering
