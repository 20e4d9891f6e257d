//===- TensorWalkTest.cpp - spmd::walkTensorOps ---------------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/Transforms/TensorWalk.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

namespace {

class TensorWalkTest : public ::testing::Test {
protected:
  TensorWalkTest() {
    DialectRegistry registry;
    registry
        .insert<arith::ArithDialect, func::FuncDialect, linalg::LinalgDialect,
                scf::SCFDialect, tensor::TensorDialect>();
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    module = parseSourceString<ModuleOp>(R"mlir(
      #id = affine_map<(d0) -> (d0)>
      func.func @f(%a: tensor<4xf32>, %n: index) -> tensor<4xf32> {
        %c0 = arith.constant 0 : index
        %c1 = arith.constant 1 : index
        %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %a) -> tensor<4xf32> {
          %e = tensor.empty() : tensor<4xf32>
          %g = linalg.generic {indexing_maps = [#id, #id],
                               iterator_types = ["parallel"]}
              ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
          ^bb0(%in: f32, %out: f32):
            %s = arith.addf %in, %in : f32
            linalg.yield %s : f32
          } -> tensor<4xf32>
          scf.yield %g : tensor<4xf32>
        }
        return %r : tensor<4xf32>
      }
    )mlir",
                                         &context);
  }

  /// The names of the ops `walkTensorOps` visits in `order`, where
  /// `callback` (by default: advance) decides how to go on.
  std::vector<std::string>
  visit(WalkOrder order,
        function_ref<WalkResult(Operation *)> decide = nullptr) {
    std::vector<std::string> names;
    walkTensorOps(*module, order, [&](Operation *op) {
      names.push_back(op->getName().getStringRef().str());
      return decide ? decide(op) : WalkResult::advance();
    });
    return names;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

// Post-order: nested ops before their parent, the root left out, linalg ops
// visited but not their scalar bodies.
TEST_F(TensorWalkTest, PostOrderSkipsLinalgBodies) {
  ASSERT_TRUE(module);
  EXPECT_EQ(
      visit(WalkOrder::PostOrder),
      (std::vector<std::string>{"arith.constant", "arith.constant",
                                "tensor.empty", "linalg.generic", "scf.yield",
                                "scf.for", "func.return", "func.func"}));
}

// Pre-order: parents before what they nest.
TEST_F(TensorWalkTest, PreOrderSkipsLinalgBodies) {
  ASSERT_TRUE(module);
  EXPECT_EQ(visit(WalkOrder::PreOrder),
            (std::vector<std::string>{
                "func.func", "arith.constant", "arith.constant", "scf.for",
                "tensor.empty", "linalg.generic", "scf.yield", "func.return"}));
}

// In pre-order a callback may skip an op's regions; the walk goes on after
// the op.
TEST_F(TensorWalkTest, PreOrderSkip) {
  ASSERT_TRUE(module);
  EXPECT_EQ(
      visit(WalkOrder::PreOrder,
            [](Operation *op) {
              return isa<scf::ForOp>(op) ? WalkResult::skip()
                                         : WalkResult::advance();
            }),
      (std::vector<std::string>{"func.func", "arith.constant", "arith.constant",
                                "scf.for", "func.return"}));
}

// Interrupting stops the whole walk and is reported.
TEST_F(TensorWalkTest, Interrupt) {
  ASSERT_TRUE(module);
  for (WalkOrder order : {WalkOrder::PreOrder, WalkOrder::PostOrder}) {
    std::vector<std::string> names;
    WalkResult result = walkTensorOps(*module, order, [&](Operation *op) {
      names.push_back(op->getName().getStringRef().str());
      return isa<tensor::EmptyOp>(op) ? WalkResult::interrupt()
                                      : WalkResult::advance();
    });
    EXPECT_TRUE(result.wasInterrupted());
    EXPECT_EQ(names.back(), "tensor.empty");
    EXPECT_EQ(llvm::count(names, "func.return"), 0);
  }
}

// In post-order a callback may erase the op it is given (here the
// terminators, which have no results), and the walk goes on.
TEST_F(TensorWalkTest, PostOrderErase) {
  ASSERT_TRUE(module);
  int erased = 0;
  walkTensorOps(*module, WalkOrder::PostOrder, [&](Operation *op) {
    if (isa<scf::YieldOp, func::ReturnOp>(op)) {
      op->erase();
      ++erased;
    }
    return WalkResult::advance();
  });
  EXPECT_EQ(erased, 2);
  EXPECT_EQ(visit(WalkOrder::PostOrder),
            (std::vector<std::string>{"arith.constant", "arith.constant",
                                      "tensor.empty", "linalg.generic",
                                      "scf.for", "func.func"}));
}

} // namespace
