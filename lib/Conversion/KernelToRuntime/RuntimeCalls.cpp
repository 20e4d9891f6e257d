//===- RuntimeCalls.cpp - helpers of convert-kernel-to-runtime ------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The runtime calls the kernel lowering emits (RuntimeCalls), the type
// conversion that drops the kernel memory spaces, the state of a conversion,
// and small builders.
//
//===----------------------------------------------------------------------===//

#include "KernelToRuntimeImpl.h"

#include "tessera/Dialect/Kernel/IR/KernelDialect.h"
#include "tessera/Dialect/Kernel/IR/KernelOps.h"
#include "tessera/Runtime/KernelABI.h"

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
#include "mlir/Transforms/DialectConversion.h"
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

Value getBaseBuffer(Value ref) {
  while (auto subview = ref.getDefiningOp<memref::SubViewOp>())
    ref = subview.getSource();
  return ref;
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

int64_t getElementBytes(Type type) {
  if (type.isIntOrFloat())
    return std::max<int64_t>(1, (type.getIntOrFloatBitWidth() + 7) / 8);
  return 8;
}

Value createMemRefAt(OpBuilder &b, Location loc, Value address,
                     MemRefType type) {
  MLIRContext *context = b.getContext();
  auto ptrType = LLVM::LLVMPointerType::get(context);
  Type i64 = b.getI64Type();
  int64_t rank = type.getRank();
  SmallVector<Type> fields{ptrType, ptrType, i64};
  if (rank > 0) {
    auto array = LLVM::LLVMArrayType::get(i64, rank);
    fields.push_back(array);
    fields.push_back(array);
  }
  auto structType = LLVM::LLVMStructType::getLiteral(context, fields);
  auto constant = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  Value pointer = LLVM::IntToPtrOp::create(b, loc, ptrType, address);
  Value descriptor = LLVM::PoisonOp::create(b, loc, structType);
  descriptor = LLVM::InsertValueOp::create(b, loc, descriptor, pointer,
                                           ArrayRef<int64_t>{0});
  descriptor = LLVM::InsertValueOp::create(b, loc, descriptor, pointer,
                                           ArrayRef<int64_t>{1});
  descriptor = LLVM::InsertValueOp::create(b, loc, descriptor, constant(0),
                                           ArrayRef<int64_t>{2});
  int64_t stride = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    descriptor = LLVM::InsertValueOp::create(b, loc, descriptor,
                                             constant(type.getDimSize(d)),
                                             ArrayRef<int64_t>{3, d});
    descriptor = LLVM::InsertValueOp::create(
        b, loc, descriptor, constant(stride), ArrayRef<int64_t>{4, d});
    stride *= type.getDimSize(d);
  }
  return UnrealizedConversionCastOp::create(b, loc, type, descriptor)
      .getResult(0);
}

//===----------------------------------------------------------------------===//
// RuntimeCalls
//===----------------------------------------------------------------------===//

Value RuntimeCalls::createEntryAlloca(OpBuilder &b, Location loc,
                                      MemRefType type) {
  OpBuilder::InsertionGuard guard(b);
  assert(allocaFunction && "no function for entry allocas");
  b.setInsertionPointToStart(&allocaFunction.getBody().front());
  return memref::AllocaOp::create(b, loc, type);
}

Value RuntimeCalls::getAddress(OpBuilder &b, Location loc, Value memref) {
  return getElementAddress(b, loc, memref, {});
}

Value RuntimeCalls::getElementAddress(OpBuilder &b, Location loc, Value memref,
                                      ValueRange indices) {
  auto type = cast<MemRefType>(memref.getType());
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value offset = metadata.getOffset();
  for (auto [index, stride] : llvm::zip(indices, metadata.getStrides()))
    offset = arith::AddIOp::create(
        b, loc, offset, arith::MulIOp::create(b, loc, index, stride));
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(
      b, loc, metadata.getBaseBuffer());
  Value bytes = arith::MulIOp::create(
      b, loc, offset,
      constantIndex(b, loc, getElementBytes(type.getElementType())));
  Value address = arith::AddIOp::create(b, loc, base, bytes);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
}

void RuntimeCalls::checkSemaphoresZero(OpBuilder &b, Location loc, Value buffer,
                                       StringRef kernel, StringRef name,
                                       StringRef where) {
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t d : type.getShape()) {
    lbs.push_back(constantIndex(b, loc, 0));
    ubs.push_back(constantIndex(b, loc, d));
    steps.push_back(constantIndex(b, loc, 1));
  }
  auto check = [&](OpBuilder &nb, Location nl, ValueRange ivs) {
    Value count = memref::LoadOp::create(nb, nl, buffer, ivs);
    Value zero = arith::ConstantIntOp::create(nb, nl, 0, 32);
    Value nonZero = cmp(nb, nl, arith::CmpIPredicate::ne, count, zero);
    Message message;
    message << "kernel @" << kernel << ": Semaphore " << name;
    if (!ivs.empty()) {
      message << "[";
      for (auto [i, iv] : llvm::enumerate(ivs)) {
        if (i != 0)
          message << ", ";
        message.value(iv);
      }
      message << "]";
    }
    message << " has non-zero count at " << where << ": ";
    message.value(count);
    reportIf(nb, nl, nonZero, message);
  };
  if (type.getRank() == 0)
    check(b, loc, {});
  else
    scf::buildLoopNest(b, loc, lbs, ubs, steps, check);
}

void RuntimeCalls::dmaStart(OpBuilder &b, Location loc, Value src, Value dst,
                            int64_t direction, Value semaphore, Value amount) {
  Type i64 = b.getI64Type();
  auto type = cast<MemRefType>(src.getType());
  int64_t rank = type.getRank();
  Value descriptor = createEntryAlloca(
      b, loc, MemRefType::get({TESSERA_RT_DMA_SIZES + 3 * rank}, i64));
  auto store = [&](int64_t slot, Value value) {
    if (value.getType().isIndex())
      value = arith::IndexCastOp::create(b, loc, i64, value);
    memref::StoreOp::create(b, loc, value, descriptor,
                            ValueRange{constantIndex(b, loc, slot)});
  };
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, v, 64);
  };
  auto srcData = memref::ExtractStridedMetadataOp::create(b, loc, src);
  auto dstData = memref::ExtractStridedMetadataOp::create(b, loc, dst);
  store(TESSERA_RT_DMA_DIRECTION, constant(direction));
  store(TESSERA_RT_DMA_DST, getAddress(b, loc, dst));
  store(TESSERA_RT_DMA_SRC, getAddress(b, loc, src));
  store(TESSERA_RT_DMA_ELEMENT_BYTES,
        constant(getElementBytes(type.getElementType())));
  store(TESSERA_RT_DMA_SEMAPHORE, semaphore ? semaphore : constant(0));
  store(TESSERA_RT_DMA_AMOUNT, amount ? amount : constant(0));
  store(TESSERA_RT_DMA_RANK, constant(rank));
  for (int64_t d = 0; d < rank; ++d) {
    store(TESSERA_RT_DMA_SIZES + d, srcData.getSizes()[d]);
    store(TESSERA_RT_DMA_SIZES + rank + d, dstData.getStrides()[d]);
    store(TESSERA_RT_DMA_SIZES + 2 * rank + d, srcData.getStrides()[d]);
  }
  func::FuncOp fn = getFunction(b, "tessera_rt_kernel_dma_start", {ptrType});
  func::CallOp::create(b, loc, fn, ValueRange{getPointer(b, loc, descriptor)});
}

Value RuntimeCalls::dmaWait(OpBuilder &b, Location loc, Value semaphore,
                            Value amount) {
  Type i32 = b.getI32Type();
  func::FuncOp fn = getFunction(b, "tessera_rt_kernel_dma_wait",
                                {b.getI64Type(), i32}, {i32});
  if (amount.getType() != i32)
    amount = arith::TruncIOp::create(b, loc, i32, amount);
  return func::CallOp::create(b, loc, fn, ValueRange{semaphore, amount})
      .getResult(0);
}

void RuntimeCalls::dmaDrain(OpBuilder &b, Location loc) {
  func::FuncOp fn = getFunction(b, "tessera_rt_kernel_dma_drain", {});
  func::CallOp::create(b, loc, fn, ValueRange{});
}

Value RuntimeCalls::allocateInArena(OpBuilder &b, Location loc, int32_t space,
                                    MemRefType type) {
  Type i64 = b.getI64Type();
  func::FuncOp fn =
      getFunction(b, "tessera_rt_kernel_arena", {b.getI32Type(), i64}, {i64});
  int64_t bytes =
      type.getNumElements() * getElementBytes(type.getElementType());
  Value address =
      func::CallOp::create(
          b, loc, fn,
          ValueRange{arith::ConstantIntOp::create(b, loc, space, 32),
                     arith::ConstantIntOp::create(b, loc, bytes, 64)})
          .getResult(0);
  return createMemRefAt(b, loc, address, type);
}

Value RuntimeCalls::markArena(OpBuilder &b, Location loc, int32_t space) {
  func::FuncOp fn = getFunction(b, "tessera_rt_kernel_arena_mark",
                                {b.getI32Type()}, {b.getI64Type()});
  return func::CallOp::create(
             b, loc, fn,
             ValueRange{arith::ConstantIntOp::create(b, loc, space, 32)})
      .getResult(0);
}

void RuntimeCalls::releaseArena(OpBuilder &b, Location loc, int32_t space,
                                Value mark) {
  func::FuncOp fn = getFunction(b, "tessera_rt_kernel_arena_release",
                                {b.getI32Type(), b.getI64Type()});
  func::CallOp::create(
      b, loc, fn,
      ValueRange{arith::ConstantIntOp::create(b, loc, space, 32), mark});
}

void RuntimeCalls::callKernel(OpBuilder &b, Location loc, StringRef name,
                              StringRef target, ArrayRef<int64_t> info,
                              Value args, func::FuncOp coreFn) {
  Type i64 = b.getI64Type();
  Value infoArray = createEntryAlloca(
      b, loc, MemRefType::get({static_cast<int64_t>(info.size())}, i64));
  for (auto [i, value] : llvm::enumerate(info))
    memref::StoreOp::create(b, loc,
                            arith::ConstantIntOp::create(b, loc, value, 64),
                            infoArray, ValueRange{constantIndex(b, loc, i)});
  FunctionType coreType = coreFn.getFunctionType();
  func::FuncOp fn = getFunction(b, "tessera_rt_kernel_call",
                                {ptrType, ptrType, ptrType, i64, coreType});
  Value fnValue = func::ConstantOp::create(b, loc, coreType,
                                           FlatSymbolRefAttr::get(coreFn));
  func::CallOp::create(
      b, loc, fn,
      ValueRange{getString(b, loc, name), getString(b, loc, target),
                 getPointer(b, loc, infoArray), args, fnValue});
}

} // namespace mlir::tessera::kernel::lowering

//===----------------------------------------------------------------------===//
// The type conversion and the state of a conversion
//===----------------------------------------------------------------------===//

void mlir::tessera::kernel::populateKernelMemorySpaceTypeConversion(
    TypeConverter &converter) {
  converter.addConversion([](Type type) { return type; });
  converter.addConversion(
      [](MemRefType type) -> Type { return lowering::stripType(type); });
  converter.addConversion(
      [](FunctionType type) -> Type { return lowering::stripType(type); });
}

KernelLoweringState::KernelLoweringState(ModuleOp module,
                                         KernelLoweringMode mode)
    : impl(std::make_unique<Impl>(module, mode)) {}

KernelLoweringState::~KernelLoweringState() = default;

lowering::BodyInfo &KernelLoweringState::Impl::addBody(func::FuncOp fn,
                                                       CallOp call) {
  lowering::BodyInfo &info = bodies[fn];
  info.kernel = call.getCallee().str();
  info.grid = llvm::to_vector(call.getGrid());
  unsigned gridRank = info.grid.size();
  // The arguments after the grid indices: the scalar-prefetch buffers, then
  // (in a body) the blocked operands and results, then the scratch buffers.
  unsigned numPrefetch = call.getScalarPrefetch();
  for (BlockArgument arg : fn.getArguments()) {
    if (arg.getArgNumber() < gridRank) {
      info.point.push_back(arg);
      continue;
    }
    unsigned index = arg.getArgNumber() - gridRank;
    if (index < numPrefetch) {
      info.bufferNames[arg] = "args[" + std::to_string(index) + "]";
      continue;
    }
    index -= numPrefetch;
    info.bufferNames[arg] =
        index < call.getNumBlocked()
            ? call.getBlockedName(index)
            : "scratch buffer " + std::to_string(index - call.getNumBlocked());
  }
  return info;
}

lowering::BodyInfo *KernelLoweringState::Impl::getBody(Operation *op) {
  auto fn = op->getParentOfType<func::FuncOp>();
  if (!fn)
    return nullptr;
  auto it = bodies.find(fn);
  return it == bodies.end() ? nullptr : &it->second;
}
