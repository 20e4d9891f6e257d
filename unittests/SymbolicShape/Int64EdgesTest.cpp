//===- Int64EdgesTest.cpp - checked arithmetic at the int64 edges ---------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Symbolic sizes are int64. Every operation that would leave that range must
// fail with an Overflow error (never wrap, never UB); the decision procedures
// may drop a fact whose arithmetic overflows but must stay sound.
//
//===----------------------------------------------------------------------===//

#include "SymbolicShapeTestBase.h"

#include <limits>

using namespace mlir::tessera::symbolic;
using namespace mlir::tessera::symbolic::testing;

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

bool isOverflow(const DimResult<DimExpr> &r) {
  return r.failed() && r.getError().getKind() == DimErrorKind::Overflow;
}

TEST_F(SymbolicShapeTest, ConstantArithmeticAtEdges) {
  EXPECT_TRUE(isOverflow(DimExpr(kMax) + 1));
  EXPECT_TRUE(isOverflow(DimExpr(kMin) - 1));
  EXPECT_TRUE(isOverflow(neg(DimExpr(kMin))));
  EXPECT_TRUE(isOverflow(DimExpr(int64_t(1) << 62) * 2));
  EXPECT_TRUE(isOverflow(DimExpr(kMin) * -1));
  EXPECT_TRUE(isOverflow(pow(DimExpr(-2), 64)));
  // The largest values that still fit.
  EXPECT_EQ(str(DimExpr(kMax - 1) + 1), std::to_string(kMax));
  EXPECT_EQ(str(DimExpr(int64_t(1) << 62) * -2), std::to_string(kMin));
  EXPECT_EQ(str(pow(DimExpr(-2), 63)), std::to_string(kMin));
  // floordiv(INT64_MIN, -1) = 2^63 does not fit; the remainder is 0.
  EXPECT_TRUE(isOverflow(floorDiv(DimExpr(kMin), DimExpr(-1))));
  EXPECT_TRUE(divMod(DimExpr(kMin), DimExpr(-1)).failed());
  EXPECT_EQ(str(floorDiv(DimExpr(kMin), DimExpr(1))), std::to_string(kMin));
  EXPECT_EQ(str(floorDiv(DimExpr(kMin), DimExpr(kMin))), "1");
  EXPECT_EQ(str(floorDiv(DimExpr(kMax), DimExpr(kMin))), "-1");
}

TEST_F(SymbolicShapeTest, SymbolicArithmeticAtEdges) {
  DimExpr a = expr("a");
  EXPECT_TRUE(isOverflow(a * kMax + a));
  EXPECT_TRUE(isOverflow(a * kMin - a));
  EXPECT_TRUE(isOverflow(a * (int64_t(1) << 62) * 2));
  EXPECT_TRUE(isOverflow(a + kMax + 1));
  EXPECT_TRUE(isOverflow(neg(a * kMin)));
  EXPECT_EQ(str(a * kMax - a * kMax), "0");
  EXPECT_EQ(str(a - kMax - 1), "a - 9223372036854775808");
  // Division of a symbolic expression by -1 negates its coefficients.
  EXPECT_TRUE(isOverflow(floorDiv(a * kMin, DimExpr(-1))));
}

TEST_F(SymbolicShapeTest, ParserAtEdges) {
  SymbolicScope &s = defaultScope();
  auto parseError = [&](llvm::StringRef text) {
    auto r = parseDimExpr(text, s);
    return r.failed() ? r.getError().getMessage() : "<no error>";
  };
  EXPECT_EQ(norm("9223372036854775807"), "9223372036854775807");
  EXPECT_EQ(norm("-9223372036854775807 - 1"), "-9223372036854775808");
  EXPECT_EQ(parseError("9223372036854775807 + 1"),
            "integer overflow in a linear combination: the result does not "
            "fit in 64 bits");
  EXPECT_TRUE(llvm::StringRef(parseError("4611686018427387904*2"))
                  .contains("integer overflow in a multiplication"));
  EXPECT_TRUE(llvm::StringRef(parseError("4611686018427387904*a*2"))
                  .contains("integer overflow in a linear combination"));
  EXPECT_TRUE(llvm::StringRef(parseError("9223372036854775808"))
                  .contains("integer 9223372036854775808 does not fit in 64 "
                            "bits"));
  EXPECT_TRUE(llvm::StringRef(parseError("a^9223372036854775807 * a"))
                  .contains("integer overflow in the exponent of a product"));
}

TEST_F(SymbolicShapeTest, EvaluationAtEdges) {
  SymbolicScope &s = defaultScope();
  auto eval = [&](llvm::StringRef text, DimBindings b) -> std::string {
    auto r = evaluate(expr(s, text), b);
    if (r.failed())
      return "error: " + r.getError().getMessage();
    return std::to_string(*r);
  };
  EXPECT_EQ(eval("a + 1", {{"a", kMax}}),
            "error: integer overflow in evaluating 'a + 1': the result does "
            "not fit in 64 bits");
  EXPECT_EQ(eval("a*b", {{"a", int64_t(1) << 62}, {"b", 2}}),
            "error: integer overflow in evaluating a product: the result does "
            "not fit in 64 bits");
  EXPECT_EQ(eval("a*b", {{"a", int64_t(1) << 62}, {"b", -2}}),
            std::to_string(kMin));
  EXPECT_EQ(eval("floordiv(a, b)", {{"a", kMin}, {"b", -1}}),
            "error: integer overflow in evaluating a division: the result "
            "does not fit in 64 bits");
  EXPECT_EQ(eval("mod(a, b)", {{"a", kMin}, {"b", -1}}), "0");
  EXPECT_EQ(eval("mod(a, b)", {{"a", kMin}, {"b", kMax}}),
            std::to_string(kMax - 1));
  EXPECT_EQ(eval("a - b", {{"a", kMin}, {"b", 1}}).substr(0, 23),
            "error: integer overflow");
  EXPECT_EQ(eval("a^2", {{"a", int64_t(1) << 32}}).substr(0, 23),
            "error: integer overflow");
}

TEST_F(SymbolicShapeTest, DecisionAtEdges) {
  for (DecisionMode mode : {DecisionMode::Strong, DecisionMode::JaxExact}) {
    // Exact steps of INT64_MAX are still representable.
    SymbolicScope &s1 = scope(
        {"v1 >= v0 + 9223372036854775807", "v1 <= v0 + 9223372036854775807"},
        mode);
    EXPECT_EQ(bounds(s1, "v1 - v0"),
              "(9223372036854775807, 9223372036854775807)");
    // Two such steps are not; the bounds give up instead of wrapping.
    SymbolicScope &s2 = scope(
        {"v1 >= v0 + 9223372036854775807", "v2 >= v1 + 9223372036854775807"},
        mode);
    EXPECT_EQ(bounds(s2, "v2 - v0"), "(-inf, inf)");
    // JAX drops the overflowing combination; the strong mode's Presburger
    // arithmetic has arbitrary precision and proves it.
    EXPECT_EQ(cmp(s2, "v2", CompareOp::GE, "v0"),
              mode == DecisionMode::Strong ? "true" : "inconclusive");
    // Huge coefficients in constraints.
    SymbolicScope &s3 = scope({"9223372036854775807*a >= "
                               "9223372036854775807*b + 5"},
                              mode);
    EXPECT_EQ(cmp(s3, "a", CompareOp::GE, "1"), "true");
    EXPECT_NE(cmp(s3, "b", CompareOp::GE, "a"), "true");
    SymbolicScope &s4 = scope(
        {"a >= 4611686018427387904*b", "b >= 4611686018427387904*c"}, mode);
    // JAX's combination of the two overflows and is dropped; the exact
    // procedure does not need it.
    EXPECT_EQ(cmp(s4, "a", CompareOp::GE, "b"),
              mode == DecisionMode::Strong ? "true" : "inconclusive");
    EXPECT_NE(cmp(s4, "a", CompareOp::LT, "c"), "true");
  }
  // A bound at INT64_MIN is an unsatisfiable constraint for a dimension.
  SymbolicScope &s5 = scope({"v0 <= -9223372036854775807 - 1 + 5"});
  DimStatus st = s5.verifyConstraints();
  ASSERT_TRUE(st.failed());
  EXPECT_TRUE(llvm::StringRef(st.getError().getMessage())
                  .starts_with("Unsatisfiable constraint"));
}

} // namespace
