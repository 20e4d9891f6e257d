//===- BlockAttrTest.cpp - invariants of #kernel.block
//---------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The text syntax of `#kernel.block` cannot write some malformed blocks (a
// `full` block with dimensions, padding on a blocked dimension, both an index
// map and an index function). Code that builds blocks in C++ can, so the
// verifier rejects them; these tests build them through `getChecked`.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Kernel/IR/KernelDialect.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

#include <string>

using namespace mlir;
using namespace mlir::tessera::kernel;

namespace {

class BlockAttrTest : public ::testing::Test {
protected:
  BlockAttrTest() { context.loadDialect<KernelDialect>(); }

  /// Builds a block with `getChecked`; returns the null attribute and sets
  /// `message` on a verifier error.
  BlockAttr build(ArrayRef<BlockDim> dims, bool full, AffineMap map,
                  FlatSymbolRefAttr fn) {
    message.clear();
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      message = diag.str();
      return success();
    });
    auto emit = [&] { return emitError(UnknownLoc::get(&context)); };
    return BlockAttr::getChecked(llvm::function_ref<InFlightDiagnostic()>(emit),
                                 &context, dims, full, map, fn,
                                 MemorySpace::Vmem, /*buffers=*/int64_t{2});
  }

  AffineMap rowMap() {
    return AffineMap::get(
        1, 0,
        {getAffineDimExpr(0, &context), getAffineConstantExpr(0, &context)},
        &context);
  }

  MLIRContext context;
  std::string message;
};

TEST_F(BlockAttrTest, WellFormedBlockVerifies) {
  BlockAttr block = build({BlockDim::blocked(8), BlockDim::element(130, 1, 1)},
                          /*full=*/false, rowMap(), {});
  ASSERT_TRUE(block);
  EXPECT_EQ(block.getRank(), 2);
  EXPECT_TRUE(block.hasElementDims());
  EXPECT_TRUE(message.empty());
}

TEST_F(BlockAttrTest, FullBlockHasNoDimensions) {
  EXPECT_FALSE(build({BlockDim::blocked(8)}, /*full=*/true, {}, {}));
  EXPECT_EQ(message, "a 'full' block has no explicit dimensions");
}

TEST_F(BlockAttrTest, OnlyElementDimensionsArePadded) {
  BlockDim padded = BlockDim::blocked(8);
  padded.padHigh = 2;
  EXPECT_FALSE(
      build({padded, BlockDim::blocked(128)}, /*full=*/false, rowMap(), {}));
  EXPECT_EQ(message, "only element dimensions have padding");
}

TEST_F(BlockAttrTest, MapAndFunctionAreExclusive) {
  EXPECT_FALSE(build({BlockDim::blocked(8), BlockDim::blocked(128)},
                     /*full=*/false, rowMap(),
                     FlatSymbolRefAttr::get(&context, "block_index")));
  EXPECT_EQ(message, "a block has an affine index map or an index function, "
                     "not both");
}

} // namespace
