//===- LowerPasses.cpp - kernel-lower-interpret and kernel-lower-pipelined ===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The two kernel lowering passes: both run lowerKernelCalls (LowerCalls.cpp)
// and differ only in its mode.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Kernel/Transforms/Passes.h"

#include "LowerCalls.h"

#include "tessera/Dialect/Kernel/IR/KernelDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::tessera::kernel {
#define GEN_PASS_DEF_KERNELLOWERINTERPRETPASS
#define GEN_PASS_DEF_KERNELLOWERPIPELINEDPASS
#include "tessera/Dialect/Kernel/Transforms/Passes.h.inc"
} // namespace mlir::tessera::kernel

using namespace mlir;
using namespace mlir::tessera::kernel;

namespace {
/// The pass that runs lowerKernelCalls in `Mode`.
template <typename Base, KernelLoweringMode Mode>
struct KernelLowerPass : public Base {
  void runOnOperation() override {
    if (failed(lowerKernelCalls(this->getOperation(), Mode)))
      this->signalPassFailure();
  }
};

struct KernelLowerInterpretPass
    : KernelLowerPass<mlir::tessera::kernel::impl::KernelLowerInterpretPassBase<
                          KernelLowerInterpretPass>,
                      KernelLoweringMode::Interpret> {};

struct KernelLowerPipelinedPass
    : KernelLowerPass<mlir::tessera::kernel::impl::KernelLowerPipelinedPassBase<
                          KernelLowerPipelinedPass>,
                      KernelLoweringMode::Pipelined> {};
} // namespace
