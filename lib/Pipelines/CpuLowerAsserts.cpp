//===- CpuLowerAsserts.cpp - cf.assert to the runtime's assertion call ----===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// `tessera-cpu-lower-asserts`: every `cf.assert` becomes a branch to a call of
// `tessera_rt_assert_failed(message, length)`, which reports the message, its
// location and the device, and ends the device (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "tessera/Pipelines/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::tessera {

#define GEN_PASS_DEF_TESSERACPULOWERASSERTSPASS
#include "tessera/Pipelines/Passes.h.inc"

/// `file:line:col`, or the location as MLIR prints it.
static std::string formatLocation(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (file.getFilename().getValue() + ":" + Twine(file.getLine()) + ":" +
            Twine(file.getColumn()))
        .str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (isa<FileLineColLoc>(inner))
        return formatLocation(inner);
  if (auto name = dyn_cast<NameLoc>(loc))
    return formatLocation(name.getChildLoc());
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return formatLocation(callSite.getCallee());
  std::string text;
  llvm::raw_string_ostream os(text);
  loc.print(os);
  return text;
}

namespace {
struct TesseraCpuLowerAssertsPass
    : public impl::TesseraCpuLowerAssertsPassBase<TesseraCpuLowerAssertsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<cf::AssertOp> asserts;
    module.walk([&](cf::AssertOp op) { asserts.push_back(op); });
    if (asserts.empty())
      return;
    MLIRContext *ctx = module.getContext();
    OpBuilder builder(ctx);
    builder.setInsertionPointToStart(module.getBody());
    Type ptr = LLVM::LLVMPointerType::get(ctx);
    Type i64 = IntegerType::get(ctx, 64);
    FailureOr<LLVM::LLVMFuncOp> callee =
        LLVM::lookupOrCreateFn(builder, module, "tessera_rt_assert_failed",
                               {ptr, i64}, LLVM::LLVMVoidType::get(ctx));
    if (failed(callee)) {
      module.emitError("tessera_rt_assert_failed is declared with another "
                       "signature than (ptr, i64) -> void");
      return signalPassFailure();
    }
    unsigned counter = 0;
    for (cf::AssertOp op : asserts) {
      Location loc = op.getLoc();
      std::string message = formatLocation(loc) + ": " + op.getMsg().str();
      Block *before = op->getBlock();
      Block *continuation = before->splitBlock(op->getNextNode());
      Block *failure = new Block();
      continuation->getParent()->getBlocks().insert(continuation->getIterator(),
                                                    failure);
      builder.setInsertionPointToEnd(failure);
      Value text = LLVM::createGlobalString(
          loc, builder, ("tessera_assert_message_" + Twine(counter++)).str(),
          message, LLVM::Linkage::Internal);
      Value length = LLVM::ConstantOp::create(
          builder, loc, i64, builder.getI64IntegerAttr(message.size()));
      LLVM::CallOp::create(builder, loc, *callee, ValueRange{text, length});
      LLVM::UnreachableOp::create(builder, loc);
      builder.setInsertionPoint(op);
      cf::CondBranchOp::create(builder, loc, op.getArg(), continuation,
                               ValueRange(), failure, ValueRange());
      op.erase();
    }
  }
};
} // namespace

} // namespace mlir::tessera
