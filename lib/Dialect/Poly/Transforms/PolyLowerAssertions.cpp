//===- PolyLowerAssertions.cpp - shape assertions to stderr + exit(1) -----===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The `poly-lower-assertions` pass: every `poly.shape_assertion` becomes an
// `scf.if` on the negated predicate that prints the message, with the input
// values in place of `{N}`, on the standard error stream (C `dprintf` on file
// descriptor 2) and calls C `exit(1)`. The result needs nothing but the C
// library at run time.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Poly/Transforms/Passes.h"

#include "tessera/Dialect/Poly/IR/PolyOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::tessera::poly {
#define GEN_PASS_DEF_POLYLOWERASSERTIONSPASS
#include "tessera/Dialect/Poly/Transforms/Passes.h.inc"
} // namespace mlir::tessera::poly

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::poly;

namespace {

/// The `printf` format of an assertion message and the inputs it prints, in
/// order.
struct Format {
  std::string text;
  SmallVector<unsigned> inputs;
};

/// A C library function: an `llvm.func`, or a `func.func` the module
/// declares (`exit` only; `dprintf` is variadic).
struct LibcFunction {
  LLVM::LLVMFuncOp llvmFunc;
  func::FuncOp func;
};

/// The lowering of the assertions of one module.
class AssertionLowering {
public:
  explicit AssertionLowering(ModuleOp module)
      : module(module), symbolTable(module), builder(module.getContext()) {}

  LogicalResult run(ArrayRef<ShapeAssertionOp> assertions);

private:
  FailureOr<LibcFunction>
  getLibcFunction(StringRef name, LLVM::LLVMFunctionType type, bool allowFunc);
  FailureOr<Format> getFormat(ShapeAssertionOp op);
  LLVM::GlobalOp getMessageGlobal(StringRef format, Location loc);
  FailureOr<Value> toI64(ShapeAssertionOp op, unsigned index);
  LogicalResult lower(ShapeAssertionOp op);
  /// Inserts `op` (a declaration or a global) after the ones inserted
  /// before, at the start of the module, with a unique name.
  void insertHelper(Operation *op);

  ModuleOp module;
  SymbolTable symbolTable;
  OpBuilder builder;
  /// The C functions `dprintf` and `exit`.
  LibcFunction printFunc;
  LibcFunction exitFunc;
  llvm::StringMap<LLVM::GlobalOp> messages;
  /// The last declaration or global inserted.
  Operation *lastHelper = nullptr;
};

} // namespace

FailureOr<LibcFunction>
AssertionLowering::getLibcFunction(StringRef name, LLVM::LLVMFunctionType type,
                                   bool allowFunc) {
  Operation *existing = symbolTable.lookup(name);
  if (!existing) {
    OpBuilder detached(module.getContext());
    auto func = LLVM::LLVMFuncOp::create(detached, module.getLoc(), name, type);
    insertHelper(func);
    return LibcFunction{func, {}};
  }
  if (auto func = dyn_cast<LLVM::LLVMFuncOp>(existing);
      func && func.getFunctionType() == type)
    return LibcFunction{func, {}};
  if (auto func = dyn_cast<func::FuncOp>(existing); allowFunc && func) {
    auto expected = FunctionType::get(module.getContext(), type.getParams(),
                                      /*results=*/{});
    if (func.getFunctionType() == expected)
      return LibcFunction{{}, func};
  }
  return existing->emitOpError("poly-lower-assertions calls the C function '")
         << name << "' with type " << type << ", but the module defines '@"
         << name << "' differently";
}

FailureOr<Format> AssertionLowering::getFormat(ShapeAssertionOp op) {
  Format format;
  StringRef message = op.getErrorMessage();
  for (size_t i = 0, e = message.size(); i < e; ++i) {
    char c = message[i];
    if (c == '\0')
      return op.emitOpError(
          "not supported by poly-lower-assertions: a message with a NUL "
          "character");
    if (c == '%') {
      format.text += "%%";
      continue;
    }
    if (c != '{') {
      format.text += c;
      continue;
    }
    if (i + 1 < e && message[i + 1] == '{') {
      format.text += '{';
      ++i;
      continue;
    }
    // `{N}`; the verifier guarantees the syntax and the index.
    size_t end = message.find('}', i);
    unsigned index = 0;
    (void)message.slice(i + 1, end).getAsInteger(10, index);
    format.text += "%lld";
    format.inputs.push_back(index);
    i = end;
  }
  format.text += '\n';
  return format;
}

LLVM::GlobalOp AssertionLowering::getMessageGlobal(StringRef format,
                                                   Location loc) {
  LLVM::GlobalOp &global = messages[format];
  if (global)
    return global;
  OpBuilder detached(module.getContext());
  std::string value = format.str();
  value.push_back('\0');
  auto type = LLVM::LLVMArrayType::get(detached.getI8Type(), value.size());
  std::string name =
      "__poly_assertion_message_" + std::to_string(messages.size() - 1);
  global = LLVM::GlobalOp::create(detached, loc, type, /*isConstant=*/true,
                                  LLVM::Linkage::Private, name,
                                  detached.getStringAttr(value));
  insertHelper(global);
  return global;
}

void AssertionLowering::insertHelper(Operation *op) {
  Block::iterator where = lastHelper ? std::next(Block::iterator(lastHelper))
                                     : module.getBody()->begin();
  symbolTable.insert(op, where);
  lastHelper = op;
}

FailureOr<Value> AssertionLowering::toI64(ShapeAssertionOp op, unsigned index) {
  Value input = op.getInputs()[index];
  Location loc = op.getLoc();
  Type i64 = builder.getI64Type();
  Type type = input.getType();
  if (type.isIndex())
    return arith::IndexCastOp::create(builder, loc, i64, input).getResult();
  unsigned width = type.getIntOrFloatBitWidth();
  if (width == 64)
    return input;
  if (width == 1)
    return arith::ExtUIOp::create(builder, loc, i64, input).getResult();
  if (width < 64)
    return arith::ExtSIOp::create(builder, loc, i64, input).getResult();
  return op.emitOpError("not supported by poly-lower-assertions: input #")
         << index << " has type " << type << ", wider than 64 bits";
}

LogicalResult AssertionLowering::lower(ShapeAssertionOp op) {
  FailureOr<Format> format = getFormat(op);
  if (failed(format))
    return failure();
  Location loc = op.getLoc();
  builder.setInsertionPoint(op);
  Value one = arith::ConstantIntOp::create(builder, loc, 1, 1);
  Value failedCheck = arith::XOrIOp::create(builder, loc, op.getPred(), one);
  auto ifOp = scf::IfOp::create(builder, loc, failedCheck,
                                /*withElseRegion=*/false);
  builder.setInsertionPointToStart(ifOp.thenBlock());
  LLVM::GlobalOp global = getMessageGlobal(format->text, loc);
  SmallVector<Value> args;
  args.push_back(arith::ConstantIntOp::create(builder, loc, 2, 32));
  args.push_back(LLVM::AddressOfOp::create(builder, loc, global));
  DenseMap<unsigned, Value> converted;
  for (unsigned index : format->inputs) {
    Value &value = converted[index];
    if (!value) {
      FailureOr<Value> i64 = toI64(op, index);
      if (failed(i64))
        return failure();
      value = *i64;
    }
    args.push_back(value);
  }
  LLVM::CallOp::create(builder, loc, printFunc.llvmFunc, args);
  Value status = arith::ConstantIntOp::create(builder, loc, 1, 32);
  if (exitFunc.llvmFunc)
    LLVM::CallOp::create(builder, loc, exitFunc.llvmFunc, ValueRange{status});
  else
    func::CallOp::create(builder, loc, exitFunc.func, ValueRange{status});
  op.erase();
  return success();
}

LogicalResult AssertionLowering::run(ArrayRef<ShapeAssertionOp> assertions) {
  for (ShapeAssertionOp op : assertions)
    if (SymbolTable::getNearestSymbolTable(op) != module)
      return op.emitOpError(
          "not supported by poly-lower-assertions: an assertion in a nested "
          "symbol table");
  MLIRContext *context = module.getContext();
  Type i32 = builder.getI32Type();
  auto ptr = LLVM::LLVMPointerType::get(context);
  FailureOr<LibcFunction> printDecl = getLibcFunction(
      "dprintf",
      LLVM::LLVMFunctionType::get(i32, {i32, ptr}, /*isVarArg=*/true),
      /*allowFunc=*/false);
  if (failed(printDecl))
    return failure();
  printFunc = *printDecl;
  FailureOr<LibcFunction> exitDecl = getLibcFunction(
      "exit",
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context), {i32}),
      /*allowFunc=*/true);
  if (failed(exitDecl))
    return failure();
  exitFunc = *exitDecl;
  for (ShapeAssertionOp op : assertions)
    if (failed(lower(op)))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct PolyLowerAssertionsPass
    : public poly::impl::PolyLowerAssertionsPassBase<PolyLowerAssertionsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<ShapeAssertionOp> assertions;
    module.walk([&](ShapeAssertionOp op) { assertions.push_back(op); });
    if (assertions.empty())
      return;
    AssertionLowering lowering(module);
    if (failed(lowering.run(assertions)))
      signalPassFailure();
  }
};
} // namespace
