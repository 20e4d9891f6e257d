//===- LowerInterpret.cpp - the kernel-lower-interpret pass ---------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
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
#include "tessera/Dialect/Kernel/Transforms/Passes.h.inc"
} // namespace mlir::tessera::kernel

using namespace mlir;
using namespace mlir::tessera::kernel;

namespace {
struct KernelLowerInterpretPass
    : public mlir::tessera::kernel::impl::KernelLowerInterpretPassBase<
          KernelLowerInterpretPass> {
  void runOnOperation() override {
    if (failed(lowerKernelCalls(getOperation(), KernelLoweringMode::Interpret)))
      signalPassFailure();
  }
};
} // namespace
