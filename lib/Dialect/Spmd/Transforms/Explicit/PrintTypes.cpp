//===- PrintTypes.cpp - remark the JAX-style type of every value ----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/JaxType.h"
#include "tessera/Dialect/Spmd/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::tessera::spmd {
#define GEN_PASS_DEF_SPMDPRINTTYPESPASS
#include "tessera/Dialect/Spmd/Transforms/Passes.h.inc"

namespace {

struct SpmdPrintTypesPass
    : public impl::SpmdPrintTypesPassBase<SpmdPrintTypesPass> {
  using Base::Base;

  void runOnOperation() override {
    JaxTypeOptions options;
    options.allAxes = allAxes;
    JaxTypePrinter printer(&getContext(), options);
    SmallString<128> message;
    // Pre-order, so that remarks come out in source order (a region op
    // before the ops in its body).
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      // Ops without a source location (e.g. the implicit bodies of named
      // linalg ops, which are not in the source text) have nowhere to
      // report at.
      if (op->getNumResults() == 0 || isa<UnknownLoc>(op->getLoc()))
        return;
      // The scalar payloads of linalg ops and of tensor.pad/generate are
      // not values of the program in JAX's sense.
      if (Operation *parent = op->getParentOp();
          parent && (isa<linalg::LinalgOp>(parent) ||
                     isa<tensor::PadOp, tensor::GenerateOp>(parent)))
        return;
      message.clear();
      llvm::raw_svector_ostream os(message);
      llvm::interleave(
          op->getResults(), os, [&](Value value) { printer.print(os, value); },
          ", ");
      // Not Operation::emitRemark: with the default
      // --mlir-print-op-on-diagnostic it prints the op into a note, which
      // costs a walk of the enclosing function per remark.
      mlir::emitRemark(op->getLoc(), message);
    });
    markAllAnalysesPreserved();
  }
};

} // namespace
} // namespace mlir::tessera::spmd
