//===- ConvertKernelToRuntime.cpp - the convert-kernel-to-runtime pass ----===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The conversion runs in two steps of MLIR's dialect conversion: first every
// kernel.call becomes its runtime call, its core function and a clone of its
// body (CallToRuntime.cpp); then the kernel ops of the clones and of the
// index map functions are lowered and the kernel memory spaces dropped from
// every type (BodyToRuntime.cpp). What cannot be lowered is checked before
// either step, so the patterns never fail and every error names its cause.
//
//===----------------------------------------------------------------------===//

#include "KernelToRuntimeImpl.h"

#include "tessera/Conversion/Passes.h"
#include "tessera/Dialect/Kernel/IR/KernelDialect.h"
#include "tessera/Runtime/KernelABI.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tessera {
#define GEN_PASS_DEF_CONVERTKERNELTORUNTIMEPASS
#include "tessera/Conversion/Passes.h.inc"
} // namespace mlir::tessera

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::kernel;
using namespace mlir::tessera::kernel::lowering;

/// The kernel.calls to lower (those outside kernel bodies and index map
/// functions: a call inside one is left to the body checks, which reject
/// it), after checking that each has a body and index map functions to
/// lower, a target and an enclosing function.
static FailureOr<SmallVector<CallOp>> collectCalls(ModuleOp module,
                                                   SymbolTable &symbols) {
  llvm::DenseSet<StringAttr> kernelFns;
  module.walk([&](CallOp call) {
    kernelFns.insert(call.getCalleeAttr().getAttr());
    for (unsigned i = 0, e = call.getNumBlocked(); i < e; ++i)
      if (FlatSymbolRefAttr fn = call.getBlocked(i).first.getIndexFn())
        kernelFns.insert(fn.getAttr());
  });
  SmallVector<CallOp> calls;
  bool ok = true;
  module.walk(
      [&](CallOp call) {
        auto parent = call->getParentOfType<func::FuncOp>();
        if (parent && kernelFns.contains(parent.getSymNameAttr()))
          return;
        auto body = symbols.lookup<func::FuncOp>(call.getCallee());
        if (!body || body.isExternal()) {
          call.emitOpError("kernel body @")
              << call.getCallee() << " has no body to lower";
          ok = false;
          return;
        }
        bool callOk = true;
        for (unsigned i = 0, e = call.getNumBlocked(); i < e; ++i) {
          FlatSymbolRefAttr fn = call.getBlocked(i).first.getIndexFn();
          auto indexFn =
              fn ? symbols.lookup<func::FuncOp>(fn.getValue()) : func::FuncOp();
          if (fn && (!indexFn || indexFn.isExternal())) {
            call.emitOpError("index map function ")
                << fn << " of " << call.getBlockedName(i)
                << " has no body to lower";
            callOk = false;
          }
        }
        if (!callOk) {
          ok = false;
          return;
        }
        if (!lookupTarget(call)) {
          call.emitOpError()
              << "kernel lowering needs the TPU generation to emulate: set "
                 "'kernel.target = #kernel.target<\"v5e\">' (or \"v4\", "
                 "\"v5p\", \"v6e\", \"v7x\") on the enclosing module";
          ok = false;
          return;
        }
        if (!parent) {
          call.emitOpError("must be inside a func.func to be lowered");
          ok = false;
          return;
        }
        calls.push_back(call);
      });
  if (!ok)
    return failure();
  return calls;
}

/// Checks the kernel ops of the body clone or index map function `fn`,
/// reporting the first one that cannot be lowered.
static LogicalResult checkBody(func::FuncOp fn, const BodyInfo &info) {
  WalkResult result = fn.walk([&](Operation *op) {
    if (!isa<KernelDialect>(op->getDialect()))
      return WalkResult::advance();
    std::optional<uint64_t> axis;
    if (auto programId = dyn_cast<ProgramIdOp>(op))
      axis = programId.getAxis();
    else if (auto numPrograms = dyn_cast<NumProgramsOp>(op))
      axis = numPrograms.getAxis();
    if (axis) {
      if (*axis < info.gridRank())
        return WalkResult::advance();
      op->emitOpError("axis ")
          << *axis << " is out of range for the grid of rank "
          << info.gridRank() << " of the kernel.call it is lowered for";
      return WalkResult::interrupt();
    }
    if (isa<LoadOp, StoreOp, AsyncCopyOp, SemaphoreSignalOp, SemaphoreWaitOp,
            SemaphoreReadOp, RunScopedOp, YieldOp>(op))
      return WalkResult::advance();
    op->emitOpError("cannot be lowered in a kernel body");
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

/// Prepares the bodies registered by the call patterns for their patterns:
/// their linalg ops and DMA directions recorded (from the memory spaces,
/// before they are dropped).
static void prepareBody(func::FuncOp fn, BodyInfo &info,
                        KernelLoweringState::Impl &state) {
  fn.walk([&](Operation *op) {
    if (isa<linalg::LinalgOp>(op)) {
      state.bodyLinalgOps.insert(op);
      return;
    }
    auto copy = dyn_cast<AsyncCopyOp>(op);
    if (!copy)
      return;
    auto local = [](Value v) {
      std::optional<MemorySpace> space =
          getMemorySpace(cast<MemRefType>(v.getType()));
      return space == MemorySpace::Vmem || space == MemorySpace::Smem;
    };
    bool src = local(copy.getSrc()), dst = local(copy.getDst());
    info.copyDirections[op] = !src && dst   ? TESSERA_RT_DMA_TO_LOCAL
                              : src && !dst ? TESSERA_RT_DMA_TO_HBM
                                            : TESSERA_RT_DMA_WITHIN;
  });
}

/// True if `op` keeps no kernel op and no kernel memory space in its types
/// (and, for a body's linalg op on buffers, has been rewritten on tensors).
static bool isLowered(Operation *op, const TypeConverter &converter,
                      const KernelLoweringState::Impl &state) {
  if (isa<KernelDialect>(op->getDialect()) || state.bodyLinalgOps.contains(op))
    return false;
  if (auto fn = dyn_cast<FunctionOpInterface>(op))
    if (auto type = dyn_cast<FunctionType>(fn.getFunctionType());
        type && !converter.isSignatureLegal(type))
      return false;
  if (!converter.isLegal(op))
    return false;
  return llvm::all_of(op->getRegions(), [&](Region &region) {
    return converter.isLegal(&region);
  });
}

LogicalResult
mlir::tessera::kernel::convertKernelToRuntime(ModuleOp module,
                                              KernelLoweringMode mode) {
  MLIRContext *context = module.getContext();
  KernelLoweringState state(module, mode);
  KernelLoweringState::Impl &impl = state.getImpl();
  ConversionConfig config;
  config.foldingMode = DialectConversionFoldingMode::Never;

  // The calls.
  FailureOr<SmallVector<CallOp>> calls = collectCalls(module, impl.symbols);
  if (failed(calls))
    return failure();
  llvm::DenseSet<Operation *> toLower(calls->begin(), calls->end());
  ConversionTarget callTarget(*context);
  callTarget.markUnknownOpDynamicallyLegal(
      [&](Operation *op) { return !toLower.contains(op); });
  RewritePatternSet callPatterns(context);
  populateKernelCallToRuntimePatterns(callPatterns, state);
  if (failed(applyPartialConversion(module, callTarget, std::move(callPatterns),
                                    config)))
    return failure();

  // The bodies: checked, then prepared.
  SmallVector<std::pair<func::FuncOp, BodyInfo *>> bodies;
  for (auto &[op, info] : impl.bodies)
    bodies.emplace_back(cast<func::FuncOp>(op), &info);
  llvm::sort(bodies, [](auto &a, auto &b) {
    return a.first->isBeforeInBlock(b.first);
  });
  bool ok = true;
  for (auto &[fn, info] : bodies)
    if (failed(checkBody(fn, *info)))
      ok = false;
  if (!ok)
    return failure();
  for (auto &[fn, info] : bodies)
    prepareBody(fn, *info, impl);
  // The original bodies are no longer called.
  for (func::FuncOp body : impl.originals)
    if (SymbolTable::symbolKnownUseEmpty(body, module)) {
      impl.symbols.erase(body);
    }
  // Kernel ops left are in functions that are not bodies.
  WalkResult left = module.walk([&](Operation *op) {
    if (!isa<KernelDialect>(op->getDialect()) || impl.getBody(op))
      return WalkResult::advance();
    op->emitOpError("is outside a kernel body and cannot be lowered (kernel "
                    "ops belong in the body of a kernel.call, not in "
                    "functions it calls)");
    return WalkResult::interrupt();
  });
  if (left.wasInterrupted())
    return failure();

  TypeConverter converter;
  populateKernelMemorySpaceTypeConversion(converter);
  ConversionTarget bodyTarget(*context);
  bodyTarget.markUnknownOpDynamicallyLegal(
      [&](Operation *op) { return isLowered(op, converter, impl); });
  RewritePatternSet bodyPatterns(context);
  populateKernelBodyToRuntimePatterns(converter, bodyPatterns, state);
  return applyPartialConversion(module, bodyTarget, std::move(bodyPatterns),
                                config);
}

namespace {
struct ConvertKernelToRuntimePass
    : public mlir::tessera::impl::ConvertKernelToRuntimePassBase<
          ConvertKernelToRuntimePass> {
  using ConvertKernelToRuntimePassBase::ConvertKernelToRuntimePassBase;

  void runOnOperation() override {
    if (failed(convertKernelToRuntime(getOperation(), mode)))
      signalPassFailure();
  }
};
} // namespace
