//===- KernelToRuntimeImpl.h - convert-kernel-to-runtime internals -*- C++
//-*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// What the patterns of convert-kernel-to-runtime share: the two modes differ
// only in how a grid step moves blocks between the arrays and their windows
// (CallToRuntime.cpp); kernel bodies are lowered the same way
// (BodyToRuntime.cpp), with the helpers of RuntimeCalls.cpp. The state of one
// conversion (KernelLoweringState::Impl) holds the runtime declarations and
// what the body patterns need to know about the call a body runs for.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_CONVERSION_KERNELTORUNTIME_KERNELTORUNTIMEIMPL_H
#define TESSERA_LIB_CONVERSION_KERNELTORUNTIME_KERNELTORUNTIMEIMPL_H

#include "tessera/Conversion/KernelToRuntime/KernelToRuntime.h"
#include "tessera/Dialect/Kernel/IR/KernelOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <string>

namespace mlir::tessera::kernel {
namespace lowering {

//===----------------------------------------------------------------------===//
// Helpers (LoweringSupport.cpp)
//===----------------------------------------------------------------------===//

/// An index constant.
Value constantIndex(OpBuilder &b, Location loc, int64_t value);
/// The conjunction of `conditions` (true if empty).
Value andAll(OpBuilder &b, Location loc, ArrayRef<Value> conditions);
/// The disjunction of `conditions` (false if empty).
Value anyOf(OpBuilder &b, Location loc, ArrayRef<Value> conditions);
/// An integer comparison.
Value cmp(OpBuilder &b, Location loc, arith::CmpIPredicate predicate, Value lhs,
          Value rhs);
/// True if two lists of index values differ somewhere.
Value anyDifferent(OpBuilder &b, Location loc, ValueRange lhs, ValueRange rhs);
/// `type` without a kernel memory space (semaphores as i32 counters);
/// function types element-wise.
Type stripType(Type type);
/// The buffer `ref` is a view of (through memref.subview).
Value getBaseBuffer(Value ref);
/// The value uninitialized memory holds: NaN for floats, the largest value
/// for integers (as Pallas's TPU interpret mode), null for other types.
TypedAttr getPoisonAttr(Type type);
/// Fills `buffer` with the poison value of its element type.
void poison(OpBuilder &b, Location loc, Value buffer);
/// Fills `buffer` with zeros.
void zero(OpBuilder &b, Location loc, Value buffer);
/// A JAX-style tuple of `n` placeholders: `({}, {})`, `({},)`, `()`.
std::string tuplePlaceholders(size_t n);
/// A shape as JAX prints it.
std::string formatStaticShape(ArrayRef<int64_t> shape);

//===----------------------------------------------------------------------===//
// Run-time errors and counters
//===----------------------------------------------------------------------===//

/// A run-time error message: text with one `{}` per value.
struct Message {
  std::string format;
  SmallVector<Value> values;

  Message &operator<<(StringRef text) {
    format += text.str();
    return *this;
  }
  /// Appends a value.
  Message &value(Value v) {
    format += "{}";
    values.push_back(v);
    return *this;
  }
  /// Appends `(a, b)`.
  Message &tuple(ValueRange vs) {
    format += tuplePlaceholders(vs.size());
    values.append(vs.begin(), vs.end());
    return *this;
  }
};

/// Declares the runtime functions and builds their calls.
class RuntimeCalls {
public:
  explicit RuntimeCalls(ModuleOp module)
      : module(module),
        ptrType(LLVM::LLVMPointerType::get(module.getContext())) {}

  /// Calls tessera_rt_kernel_error with `message` when `failed` holds.
  void reportIf(OpBuilder &b, Location loc, Value failed,
                const Message &message) {
    scf::IfOp::create(b, loc, failed, [&](OpBuilder &tb, Location tl) {
      report(tb, tl, message);
      scf::YieldOp::create(tb, tl);
    });
  }

  /// Calls tessera_rt_kernel_error with `message`.
  void report(OpBuilder &b, Location loc, const Message &message) {
    Type i64 = b.getI64Type();
    Type i32 = b.getI32Type();
    func::FuncOp fn =
        getFunction(b, "tessera_rt_kernel_error", {ptrType, ptrType, i32});
    int64_t n = message.values.size();
    auto arrayType = MemRefType::get({std::max<int64_t>(n, 1)}, i64);
    // At the function's entry: a report in a loop must not grow the stack.
    Value array = allocaFunction
                      ? createEntryAlloca(b, loc, arrayType)
                      : memref::AllocaOp::create(b, loc, arrayType).getResult();
    for (auto [i, v] : llvm::enumerate(message.values)) {
      Value value = v;
      if (value.getType().isIndex())
        value = arith::IndexCastOp::create(b, loc, i64, value);
      else if (value.getType() != i64)
        value = arith::ExtSIOp::create(b, loc, i64, value);
      memref::StoreOp::create(b, loc, value, array,
                              ValueRange{constantIndex(b, loc, i)});
    }
    Value format = getString(b, loc, message.format);
    Value values = getPointer(b, loc, array);
    Value count = arith::ConstantIntOp::create(b, loc, n, 32);
    func::CallOp::create(b, loc, fn, ValueRange{format, values, count});
  }

  /// Reports every element of the i32 semaphore buffer `buffer` that is not
  /// zero: `kernel @<kernel>: Semaphore <name>[i, j] has non-zero count at
  /// <where>: <count>`.
  void checkSemaphoresZero(OpBuilder &b, Location loc, Value buffer,
                           StringRef kernel, StringRef name, StringRef where);

  /// Calls tessera_rt_kernel_count_copy(issued).
  void countCopy(OpBuilder &b, Location loc, bool issued) {
    func::FuncOp fn =
        getFunction(b, "tessera_rt_kernel_count_copy", {b.getI32Type()});
    Value value = arith::ConstantIntOp::create(b, loc, issued ? 1 : 0, 32);
    func::CallOp::create(b, loc, fn, ValueRange{value});
  }

  /// Starts a DMA from `src` to `dst` (memrefs of the same shape, any
  /// strides) through tessera_rt_kernel_dma_start: `direction` as in
  /// TESSERA_RT_DMA_DIRECTION; when `semaphore` (an i64 address) is set,
  /// `amount` (i64) is added to it when the copy completes.
  void dmaStart(OpBuilder &b, Location loc, Value src, Value dst,
                int64_t direction, Value semaphore, Value amount);
  /// tessera_rt_kernel_dma_wait(semaphore, amount): -1, or the semaphore's
  /// count when the wait would hang (i32).
  Value dmaWait(OpBuilder &b, Location loc, Value semaphore, Value amount);
  /// tessera_rt_kernel_dma_drain().
  void dmaDrain(OpBuilder &b, Location loc);
  /// A buffer of `type` in the calling TensorCore's `space` arena
  /// (TESSERA_RT_KERNEL_VMEM / SMEM).
  Value allocateInArena(OpBuilder &b, Location loc, int32_t space,
                        MemRefType type);
  /// tessera_rt_kernel_arena_mark(space): the bytes in use (i64), to
  /// release a scope's buffers to.
  Value markArena(OpBuilder &b, Location loc, int32_t space);
  /// tessera_rt_kernel_arena_release(space, mark).
  void releaseArena(OpBuilder &b, Location loc, int32_t space, Value mark);
  /// Runs `coreFn(args, core)` on `info`'s TensorCores through
  /// tessera_rt_kernel_call.
  void callKernel(OpBuilder &b, Location loc, StringRef name, StringRef target,
                  ArrayRef<int64_t> info, Value args, func::FuncOp coreFn);
  /// The address (i64) of `memref`'s first element.
  Value getAddress(OpBuilder &b, Location loc, Value memref);
  /// The address (i64) of `memref[indices]`.
  Value getElementAddress(OpBuilder &b, Location loc, Value memref,
                          ValueRange indices);
  /// A memref.alloca of `type` at the start of the function set with
  /// setAllocaFunction (not in a loop).
  Value createEntryAlloca(OpBuilder &b, Location loc, MemRefType type);
  /// The function whose entry block createEntryAlloca uses.
  void setAllocaFunction(func::FuncOp function) { allocaFunction = function; }

private:
  /// The declaration of the runtime function `name`, added at the end of
  /// the module with `b` the first time.
  func::FuncOp getFunction(OpBuilder &b, StringRef name, ArrayRef<Type> inputs,
                           ArrayRef<Type> results = {}) {
    if (auto fn = module.lookupSymbol<func::FuncOp>(name))
      return fn;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(module.getBody());
    auto fn = func::FuncOp::create(
        b, module.getLoc(), name,
        FunctionType::get(module.getContext(), inputs, results));
    fn.setPrivate();
    return fn;
  }

  Value getString(OpBuilder &b, Location loc, StringRef text) {
    std::string &name = strings[text.str()];
    if (name.empty()) {
      name = llvm::formatv("__tessera_kernel_message_{0}", strings.size() - 1)
                 .str();
      std::string value = text.str();
      value.push_back('\0');
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(module.getBody());
      auto arrayType = LLVM::LLVMArrayType::get(b.getI8Type(), value.size());
      LLVM::GlobalOp::create(b, module.getLoc(), arrayType,
                             /*isConstant=*/true, LLVM::Linkage::Internal, name,
                             b.getStringAttr(value));
    }
    return LLVM::AddressOfOp::create(b, loc, ptrType, name);
  }

  Value getPointer(OpBuilder &b, Location loc, Value buffer) {
    Value index =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
    Value integer = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
    return LLVM::IntToPtrOp::create(b, loc, ptrType, integer);
  }

  ModuleOp module;
  func::FuncOp allocaFunction;
  Type ptrType;
  std::map<std::string, std::string> strings;
};

/// A memref of the static identity-layout `type` at `address` (i64): an
/// LLVM memref descriptor cast to the memref type, which the LLVM lowering
/// folds away.
Value createMemRefAt(OpBuilder &b, Location loc, Value address,
                     MemRefType type);

/// The bytes of one element of `type` in memory.
int64_t getElementBytes(Type type);

/// The arithmetic of one run of `region` (FlopCount.cpp): 2 M N K per
/// contraction (a vector.contract, or a linalg op: its body's operations
/// times its iterations), an element per arithmetic op on floats (and on
/// integer vectors) and per element reduced, loops with constant bounds
/// times their trip count, the larger branch of a conditional.
int64_t countFlops(Region &region);

//===----------------------------------------------------------------------===//
// The state of a conversion
//===----------------------------------------------------------------------===//

/// What the body patterns need to know about a body clone (or an index map
/// function) and the `kernel.call` it is lowered for.
struct BodyInfo {
  /// The kernel's name (the callee), for messages.
  std::string kernel;
  /// The call's grid.
  SmallVector<int64_t> grid;
  /// The grid indices: the function's leading arguments.
  SmallVector<Value> point;
  /// Names of the buffers the body sees, for messages: its arguments
  /// (`args[i]`, `outputs[i]`, `scratch buffer i`) and the buffers of its
  /// `kernel.run_scoped`s (`scoped buffer i`, added as they are lowered).
  DenseMap<Value, std::string> bufferNames;
  /// The TESSERA_RT_DMA_DIRECTION of each kernel.async_copy (from the memory
  /// spaces, before they are dropped).
  DenseMap<Operation *, int64_t> copyDirections;
  /// The number of kernel.run_scoped buffers named so far.
  unsigned numScoped = 0;
  /// The number of grid indices, the leading arguments of the function.
  unsigned gridRank() const { return grid.size(); }
};

} // namespace lowering

struct KernelLoweringState::Impl {
  Impl(ModuleOp module, KernelLoweringMode mode)
      : module(module), mode(mode), runtime(module), symbols(module) {}

  /// The body clone or index map function `fn` is being lowered for `call`:
  /// records what its patterns need.
  lowering::BodyInfo &addBody(func::FuncOp fn, CallOp call);
  /// The info of the function around `op`, or null if `op` is not in a body
  /// clone or index map function being lowered.
  lowering::BodyInfo *getBody(Operation *op);

  ModuleOp module;
  KernelLoweringMode mode;
  lowering::RuntimeCalls runtime;
  SymbolTable symbols;
  /// The body clones and index map functions being lowered.
  DenseMap<Operation *, lowering::BodyInfo> bodies;
  /// The bodies' own linalg ops on buffers, to be rewritten on tensors.
  DenseSet<Operation *> bodyLinalgOps;
  /// The original bodies of the lowered calls.
  SetVector<func::FuncOp> originals;
  /// The number of body clones made (their names' suffix).
  unsigned numClones = 0;
};

namespace lowering {} // namespace lowering
} // namespace mlir::tessera::kernel

#endif // TESSERA_LIB_CONVERSION_KERNELTORUNTIME_KERNELTORUNTIMEIMPL_H
