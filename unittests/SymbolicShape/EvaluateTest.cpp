//===- EvaluateTest.cpp - evaluation and substitution ---------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "SymbolicShapeTestBase.h"

using namespace mlir::tessera::symbolic;
using namespace mlir::tessera::symbolic::testing;

#include <functional>

namespace {

/// The variable `name` as a raw (unnormalized) expression of `s`.
DimExpr rawVariable(SymbolicScope &s, llvm::StringRef name) {
  DimContext &ctx = s.getContext();
  detail::FactorPower fp{ctx.getVariableFactor(name), 1};
  detail::TermCoeff tc{ctx.getTerm(fp), 1};
  return DimExpr(ctx.getExpr(tc), &s);
}

struct EvalCase {
  const char *expr;
  int64_t a, b;
  int64_t expected;
};

class EvalTest : public SymbolicShapeTest,
                 public ::testing::WithParamInterface<EvalCase> {};

TEST_P(EvalTest, Value) {
  const EvalCase &c = GetParam();
  auto v = evaluate(expr(c.expr), DimBindings{{"a", c.a}, {"b", c.b}});
  ASSERT_TRUE(v.succeeded()) << v.getError().getMessage();
  EXPECT_EQ(*v, c.expected);
}

INSTANTIATE_TEST_SUITE_P(
    PythonSemantics, EvalTest,
    ::testing::Values(
        EvalCase{"a*a - b", 2, 3, 1}, EvalCase{"floordiv(a*a, b)", 2, 3, 1},
        EvalCase{"mod(a*a, b)", 5, 7, 4}, EvalCase{"floordiv(-7, b)", 1, 2, -4},
        EvalCase{"mod(-7, b)", 1, 2, 1}, EvalCase{"mod(a, -2)", 7, 1, -1},
        EvalCase{"floordiv(a, -2)", 7, 1, -4}, EvalCase{"max(a, b)", 3, 4, 4},
        EvalCase{"min(a, b) - 1", 3, 4, 2}, EvalCase{"a^3 + 2*a*b", 2, 5, 28},
        EvalCase{"b + 2*a", 3, 4, 10},
        EvalCase{"3*a*mod(a + 2, b + 2)", 3, 1, 18},
        EvalCase{"- b + a", 3, 4, -1}, EvalCase{"7", 0, 0, 7}));

TEST_F(SymbolicShapeTest, EvaluateErrors) {
  auto unbound = evaluate(expr("a + k"), DimBindings{{"a", 1}, {"b", 2}});
  ASSERT_TRUE(unbound.failed());
  EXPECT_EQ(unbound.getError().getKind(), DimErrorKind::UnexpectedDimVar);
  EXPECT_EQ(unbound.getError().getMessage(),
            "Encountered dimension variable 'k' that is not appearing in the "
            "shapes of the function arguments.\nThe following dimension "
            "variables are appearing in the shapes of the function "
            "arguments: ['a', 'b']\nPlease see "
            "https://docs.jax.dev/en/latest/export/"
            "shape_poly.html#dimension-variables-must-be-solvable-from-the-"
            "input-shapes for more details.");
  auto zero = evaluate(expr("floordiv(a, b)"), DimBindings{{"a", 1}, {"b", 0}});
  ASSERT_TRUE(zero.failed());
  EXPECT_EQ(zero.getError().getKind(), DimErrorKind::DivisionByZero);
  EXPECT_EQ(zero.getError().getMessage(), "integer division or modulo by zero");
  auto big = evaluate(expr("a*b"), DimBindings{{"a", INT64_MAX}, {"b", 2}});
  ASSERT_TRUE(big.failed());
  EXPECT_EQ(big.getError().getKind(), DimErrorKind::Overflow);
  auto pw = evaluate(expr("a^70"), DimBindings{{"a", 2}});
  EXPECT_EQ(pw.getError().getKind(), DimErrorKind::Overflow);
}

TEST_F(SymbolicShapeTest, EvaluateUsesNormalizationRules) {
  SymbolicScope &s = scope({"d == 5", "c == a + 1"});
  // `c` and `d` never appear in normalized expressions, but a raw variable
  // without a value is normalized before it is reported missing.
  DimExpr raw = rawVariable(s, "c");
  EXPECT_EQ(*evaluate(raw, DimBindings{{"a", 3}}), 4);
  EXPECT_EQ(*evaluate(expr(s, "c + d"), DimBindings{{"a", 3}}), 9);
}

TEST_F(SymbolicShapeTest, Substitute) {
  SymbolicScope &callee = scope(), &caller = scope({"c >= 4"});
  DimExpr e = expr(callee, "floordiv(x, 2) + max(y, 3) + 2*x*y");
  auto lookup = [&](llvm::StringRef v) -> std::optional<DimExpr> {
    if (v == "x")
      return expr(caller, "2*c");
    if (v == "y")
      return expr(caller, "c");
    return std::nullopt;
  };
  auto r = substitute(e, lookup, caller);
  ASSERT_TRUE(r.succeeded()) << r.getError().getMessage();
  // max(c, 3) simplifies with the caller's constraint c >= 4.
  EXPECT_EQ(r->str(), "4*c^2 + 2*c");
  EXPECT_EQ(r->getScope(), &caller);

  auto partial = substitute(expr(callee, "x + z"), lookup, caller);
  ASSERT_TRUE(partial.succeeded());
  EXPECT_EQ(partial->str(), "z + 2*c");
  auto strict = substitute(expr(callee, "x + z"), lookup, caller,
                           /*keepUnbound=*/false);
  ASSERT_TRUE(strict.failed());
  EXPECT_EQ(strict.getError().getKind(), DimErrorKind::UnexpectedDimVar);

  // Specialization: every variable to a constant.
  auto special = substitute(
      expr(callee, "mod(x*y, 5) + 1"),
      [](llvm::StringRef v) -> std::optional<DimExpr> {
        return DimExpr(v == "x" ? 3 : 4);
      },
      caller);
  ASSERT_TRUE(special.succeeded());
  EXPECT_EQ(special->getConstant(), 3);

  auto moved = translate(expr(callee, "3*x + mod(y, 2)"), caller);
  ASSERT_TRUE(moved.succeeded());
  EXPECT_EQ(moved->str(), "mod(y, 2) + 3*x");
  EXPECT_EQ(moved->getScope(), &caller);
}

TEST_F(SymbolicShapeTest, LoweringWalk) {
  // A pass lowers an expression to arith ops by walking its structure; this
  // re-evaluates the structure to check that it is complete.
  std::function<int64_t(const DimExpr &)> walk = [&](const DimExpr &e) {
    if (auto c = e.getConstant())
      return *c;
    int64_t sum = 0;
    for (auto &[term, coeff] : e.getTerms()) {
      int64_t prod = 1;
      for (auto &[factor, exp] : term.getFactors()) {
        int64_t v = 0;
        switch (factor.getKind()) {
        case FactorKind::Variable:
          v = factor.getVariableName() == "a" ? 7 : 3;
          break;
        case FactorKind::FloorDiv:
          v = walk(factor.getOperand(0)) / walk(factor.getOperand(1));
          break;
        case FactorKind::Mod:
          v = walk(factor.getOperand(0)) % walk(factor.getOperand(1));
          break;
        case FactorKind::Max:
          v = std::max(walk(factor.getOperand(0)), walk(factor.getOperand(1)));
          break;
        case FactorKind::Min:
          v = std::min(walk(factor.getOperand(0)), walk(factor.getOperand(1)));
          break;
        }
        for (int64_t i = 0; i < exp; ++i)
          prod *= v;
      }
      sum += coeff * prod;
    }
    return sum;
  };
  DimExpr e = expr("3*a*mod(a + 2, b + 2) - floordiv(a, 2)^2 + max(a, b) + 4");
  EXPECT_EQ(walk(e), *evaluate(e, DimBindings{{"a", 7}, {"b", 3}}));
}

} // namespace
