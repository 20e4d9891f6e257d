//===- DimExprToArithTest.cpp - tests of the DimExpr -> arith emitter -----===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The emitted arithmetic must compute exactly what `symbolic::evaluate`
// computes (Python's floor division and modulo), for every sign of every
// operand, and give XLA's results instead of trapping when a symbolic divisor
// is 0. The emitted code is evaluated by binding the variables to function
// arguments, replacing the arguments by constants and folding.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Poly/Transforms/DimExprToArith.h"

#include "tessera/SymbolicShape/Evaluate.h"
#include "tessera/SymbolicShape/Parser.h"
#include "tessera/SymbolicShape/Scope.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tessera;
using symbolic::DimExpr;

namespace {

class DimExprToArithTest : public ::testing::Test {
protected:
  DimExprToArithTest() {
    context.loadDialect<arith::ArithDialect, func::FuncDialect>();
    auto created = symbolic::SymbolicScope::create(dimContext);
    EXPECT_TRUE(created.succeeded());
    scope = std::move(*created);
  }

  DimExpr parse(StringRef text) {
    auto expr = symbolic::parseDimExpr(text, *scope);
    EXPECT_TRUE(expr.succeeded())
        << (expr.failed() ? expr.getError().getMessage() : "");
    return expr.succeeded() ? *expr : DimExpr();
  }

  /// A function `@f(%a: index, %b: index) -> index` whose body computes
  /// `exprs` (returns the first), with `a`, `b` bound to the arguments.
  func::FuncOp emit(ArrayRef<StringRef> exprs) {
    OpBuilder builder(&context);
    Location loc = builder.getUnknownLoc();
    module = ModuleOp::create(loc);
    builder.setInsertionPointToEnd(module->getBody());
    Type index = builder.getIndexType();
    auto func = func::FuncOp::create(
        builder, loc, "f", builder.getFunctionType({index, index}, {index}));
    Block *entry = func.addEntryBlock();
    builder.setInsertionPointToStart(entry);
    poly::DimExprToArith emitter(builder, loc);
    emitter.bind("a", entry->getArgument(0));
    emitter.bind("b", entry->getArgument(1));
    SmallVector<Value> values;
    for (StringRef text : exprs) {
      auto value = emitter.emit(parse(text));
      EXPECT_TRUE(value.succeeded())
          << (value.failed() ? value.getError().getMessage() : "");
      if (value.succeeded())
        values.push_back(*value);
    }
    func::ReturnOp::create(builder, loc, values.front());
    return func;
  }

  /// The value the emitted `text` computes for `a`, `b` (std::nullopt if it
  /// does not fold to a constant).
  std::optional<int64_t> run(StringRef text, int64_t a, int64_t b) {
    func::FuncOp func = emit({text});
    Block &entry = func.getBody().front();
    OpBuilder builder = OpBuilder::atBlockBegin(&entry);
    int64_t values[] = {a, b};
    for (auto [arg, value] : llvm::zip_equal(entry.getArguments(), values))
      arg.replaceAllUsesWith(
          arith::ConstantIndexOp::create(builder, func.getLoc(), value));
    (void)applyPatternsGreedily(func, RewritePatternSet(&context));
    APInt result;
    Value returned = entry.getTerminator()->getOperand(0);
    if (!matchPattern(returned, m_ConstantInt(&result)))
      return std::nullopt;
    return result.getSExtValue();
  }

  /// The number of ops named `name` in the body of `func`.
  static unsigned count(func::FuncOp func, StringRef name) {
    unsigned n = 0;
    func.walk(
        [&](Operation *op) { n += op->getName().getStringRef() == name; });
    return n;
  }

  MLIRContext context;
  symbolic::DimContext dimContext;
  std::unique_ptr<symbolic::SymbolicScope> scope;
  OwningOpRef<ModuleOp> module;
};

// Tests that every operation computes Python's integer semantics (floor
// division, modulo with the sign of the divisor) for all signs of the
// operands, against the library's evaluator.
TEST_F(DimExprToArithTest, MatchesPythonSemantics) {
  const char *exprs[] = {
      "floordiv(a, 3)",   "mod(a, 3)",
      "floordiv(a, - 3)", "mod(a, - 3)",
      "floordiv(a, b)",   "mod(a, b)",
      "mod(2*a + 1, b)",  "max(a, b)",
      "min(a, 2*b)",      "max(a, b) - min(a, 2*b) + 7",
      "a^3 - 2*a*b + 5",  "- a - 1",
      "- b + a",          "3*floordiv(2*a + 1, b) + mod(a*b, 4)",
      "a^2*b^3",          "- 2*a^2*b - a*b^2"};
  for (const char *text : exprs) {
    DimExpr expr = parse(text);
    for (int64_t a = -7; a <= 7; ++a) {
      for (int64_t b = -4; b <= 4; ++b) {
        symbolic::DimBindings bindings;
        bindings["a"] = a;
        bindings["b"] = b;
        auto expected = symbolic::evaluate(expr, bindings);
        if (expected.failed())
          continue; // Division by zero: see DivisionByZeroGivesXlaResults.
        std::optional<int64_t> actual = run(text, a, b);
        ASSERT_TRUE(actual.has_value()) << text;
        EXPECT_EQ(*actual, *expected)
            << text << " with a = " << a << ", b = " << b;
      }
    }
  }
}

// Tests that a symbolic divisor that is 0 at run time gives XLA's results
// (floordiv -1, mod the dividend) instead of a division by zero.
TEST_F(DimExprToArithTest, DivisionByZeroGivesXlaResults) {
  for (int64_t a : {-5, 0, 7}) {
    EXPECT_EQ(run("floordiv(a, b)", a, 0), -1);
    EXPECT_EQ(run("mod(a, b)", a, 0), a);
  }
  // The guard is only emitted for divisors that are not constants.
  func::FuncOp guarded = emit({"floordiv(a, b)"});
  EXPECT_EQ(count(guarded, "arith.select"), 2u);
  func::FuncOp constant = emit({"floordiv(a, 4)"});
  EXPECT_EQ(count(constant, "arith.select"), 0u);
}

// Tests that floordiv and mod of the same operands share one division, and
// that repeated expressions, terms and constants are emitted once.
TEST_F(DimExprToArithTest, SharesDivisionsAndSubexpressions) {
  func::FuncOp func =
      emit({"floordiv(a, 2)", "mod(a, 2)", "floordiv(a, 2) + 1", "mod(a, 2)"});
  EXPECT_EQ(count(func, "arith.floordivsi"), 1u);
  // mod: one multiplication and one subtraction; `+ 1`: one addition.
  EXPECT_EQ(count(func, "arith.muli"), 1u);
  EXPECT_EQ(count(func, "arith.subi"), 1u);
  EXPECT_EQ(count(func, "arith.addi"), 1u);
  // The constants 2 and 1.
  EXPECT_EQ(count(func, "arith.constant"), 2u);
}

// Tests that powers use square-and-multiply: a^5 needs three products.
TEST_F(DimExprToArithTest, PowersBySquaring) {
  func::FuncOp func = emit({"a^5"});
  EXPECT_EQ(count(func, "arith.muli"), 3u);
  EXPECT_EQ(run("a^5", 3, 0), 243);
}

// Tests that a variable without a value is JAX's UnexpectedDimVar error.
TEST_F(DimExprToArithTest, UnboundVariable) {
  OpBuilder builder(&context);
  Location loc = builder.getUnknownLoc();
  module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());
  poly::DimExprToArith emitter(builder, loc);
  emitter.bind("a", arith::ConstantIndexOp::create(builder, loc, 1));
  auto value = emitter.emit(parse("a + c"));
  ASSERT_TRUE(value.failed());
  EXPECT_EQ(value.getError().getKind(),
            symbolic::DimErrorKind::UnexpectedDimVar);
  EXPECT_EQ(value.getError().getMessage(),
            "Encountered dimension variable 'c' that is not appearing in the "
            "shapes of the function arguments.\nThe following dimension "
            "variables are appearing in the shapes of the function "
            "arguments: ['a']\nPlease see "
            "https://docs.jax.dev/en/latest/export/"
            "shape_poly.html#dimension-variables-must-be-solvable-from-the-"
            "input-shapes for more details.");
}

} // namespace
