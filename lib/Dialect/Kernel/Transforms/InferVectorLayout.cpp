//===- InferVectorLayout.cpp - the kernel-infer-vector-layout pass --------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Gives every vector result of a kernel body its native layout
// (kernel.out_layouts), after checking that the layout passes support the
// body (verifyVectorLayoutSupport).
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Kernel/Transforms/Passes.h"

#include "tessera/Dialect/Kernel/IR/KernelDialect.h"
#include "tessera/Dialect/Kernel/Transforms/VectorLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::tessera::kernel {
#define GEN_PASS_DEF_KERNELINFERVECTORLAYOUTPASS
#include "tessera/Dialect/Kernel/Transforms/Passes.h.inc"
} // namespace mlir::tessera::kernel

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::kernel;

/// The layout of `result`: native for its type, except that a mask takes
/// the tiling of the values it compares (arith.cmpf/cmpi) or of its first
/// mask operand (boolean ops, selects of masks).
static Attribute inferLayout(OpResult result) {
  auto type = dyn_cast<VectorType>(result.getType());
  if (!type || type.getRank() == 0)
    return UnitAttr::get(result.getContext());
  Operation *op = result.getOwner();
  if (type.getElementType().isInteger(1)) {
    unsigned bitwidth = 0;
    if (isa<arith::CmpFOp, arith::CmpIOp>(op)) {
      Type compared = getElementTypeOrSelf(op->getOperand(0));
      if (compared.isIntOrFloat())
        bitwidth = compared.getIntOrFloatBitWidth();
    } else if (OpTrait::hasElementwiseMappableTraits(op)) {
      for (Value operand : op->getOperands())
        if (operand.getType() == type)
          if (VectorLayoutAttr layout = getAssignedLayout(operand))
            return layout;
    }
    return getNativeLayout(type, bitwidth);
  }
  return getNativeLayout(type);
}

namespace {
struct KernelInferVectorLayoutPass
    : public kernel::impl::KernelInferVectorLayoutPassBase<
          KernelInferVectorLayoutPass> {
  void runOnOperation() override {
    bool ok = true;
    for (func::FuncOp body : getKernelBodies(getOperation())) {
      if (failed(verifyVectorLayoutSupport(body))) {
        ok = false;
        continue;
      }
      body.walk<WalkOrder::PreOrder>([&](Operation *op) {
        // Layouts given by hand are kept.
        if (op->hasAttr(KernelDialect::getOutLayoutsAttrName()) ||
            llvm::none_of(op->getResultTypes(),
                          [](Type type) { return isa<VectorType>(type); }))
          return;
        SmallVector<Attribute> layouts;
        for (OpResult result : op->getResults())
          layouts.push_back(inferLayout(result));
        op->setAttr(KernelDialect::getOutLayoutsAttrName(),
                    ArrayAttr::get(op->getContext(), layouts));
      });
    }
    if (!ok)
      signalPassFailure();
  }
};
} // namespace
