//===- NormalFormTest.cpp - normal form, order, printing, arithmetic ------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "SymbolicShapeTestBase.h"

using namespace mlir::tessera::symbolic;
using namespace mlir::tessera::symbolic::testing;

namespace {

//===----------------------------------------------------------------------===//
// Printing of parsed expressions (JAX's test_parse_dim / test_print_dim)
//===----------------------------------------------------------------------===//

struct PrintCase {
  const char *input;
  const char *expected;
};

class PrintTest : public SymbolicShapeTest,
                  public ::testing::WithParamInterface<PrintCase> {};

TEST_P(PrintTest, NormalForm) {
  EXPECT_EQ(norm(GetParam().input), GetParam().expected);
  // The printed form parses back to the same expression (JAX's
  // `_DimExpr.__str__` is a valid spec).
  EXPECT_TRUE(expr(GetParam().expected).isIdenticalTo(expr(GetParam().input)));
}

INSTANTIATE_TEST_SUITE_P(
    JaxVectors, PrintTest,
    ::testing::Values(
        PrintCase{"2*b*a", "2*a*b"},
        PrintCase{"-2 * b * a^2 + b^2", "- 2*a^2*b + b^2"},
        PrintCase{"-2 * a^2 * b + -1 *b^2*a", "- a*b^2 - 2*a^2*b"},
        PrintCase{"3 * a * b * a - 2", "3*a^2*b - 2"},
        PrintCase{"a - b", "- b + a"}, PrintCase{"b - a", "b - a"},
        PrintCase{"-1 * a", "- a"}, PrintCase{"-2*a", "- 2*a"},
        PrintCase{"a + -1", "a - 1"}, PrintCase{"a - 1", "a - 1"},
        PrintCase{"+ a - b", "- b + a"}, PrintCase{"+ 2", "2"},
        PrintCase{"3 * a * mod(a + 2, b + 2)", "3*a*mod(a + 2, b + 2)"},
        PrintCase{"3 * floordiv(a + 2, b + 2) * 2", "6*floordiv(a + 2, b + 2)"},
        PrintCase{"max(a, b)", "max(a, b)"},
        PrintCase{"min(a, b)", "min(a, b)"}, PrintCase{"b + a", "b + a"},
        PrintCase{"a + b", "b + a"}, PrintCase{"b + 3*a", "b + 3*a"},
        PrintCase{"a*b + a^2 + b + a", "a*b + a^2 + b + a"},
        PrintCase{"mod(a, 4) + floordiv(a, 4) + a",
                  "mod(a, 4) + floordiv(a, 4) + a"},
        PrintCase{"2*a^2 - 3*a - 1", "2*a^2 - 3*a - 1"},
        PrintCase{"a^2 + 3*a - 1", "a^2 + 3*a - 1"},
        PrintCase{"- a + 3", "- a + 3"},
        PrintCase{"- mod(a, 4) + 3", "- mod(a, 4) + 3"},
        PrintCase{"- 2*a + 3", "- 2*a + 3"},
        PrintCase{"a*floordiv(b, 8)*mod(b, 4)", "a*floordiv(b, 8)*mod(b, 4)"},
        PrintCase{"b + b", "2*b"}, PrintCase{"a + b + a", "b + 2*a"},
        PrintCase{"4*a + b + 3", "b + 4*a + 3"},
        PrintCase{"mod(b + 1, -2)", "mod(b + 1, - 2)"},
        PrintCase{"floordiv(-11, a + 1)", "floordiv(- 11, a + 1)"},
        PrintCase{"mod(-b, 2)", "mod(- b, 2)"},
        PrintCase{"max(2, b)", "max(2, b)"},
        PrintCase{"max(b, 2)", "max(b, 2)"}, PrintCase{"a^1", "a"},
        PrintCase{"a^0", "1"}, PrintCase{"-2^2", "-4"},
        PrintCase{"a + -2^2", "a + 4"}, PrintCase{"2^10", "1024"},
        PrintCase{"1_000 * a", "1000*a"}, PrintCase{"00", "0"},
        PrintCase{"a*a*a", "a^3"}, PrintCase{"a^2 * a^3", "a^5"},
        PrintCase{"mod(a, 0)", "mod(a, 0)"},
        PrintCase{"mod(5, 3)", "mod(5, 3)"}, PrintCase{"a + 2 - a", "2"},
        PrintCase{"4*a*0", "0"}, PrintCase{"max(a, a + 2)", "a + 2"},
        PrintCase{"max(a, a - 2)", "a"},
        PrintCase{"max(mod(a, 2) - 1, 0)", "0"}, PrintCase{"min(a, -2)", "-2"},
        PrintCase{"min(15 - a, 20)", "- a + 15"}, PrintCase{"max(a, 0)", "a"},
        PrintCase{"min(a, a + 2)", "a"}, PrintCase{"min(a, a - 2)", "a - 2"},
        PrintCase{"max(0, mod(a, 2) - 1)", "0"},
        PrintCase{"min(mod(a, 2) - 1, -1)", "-1"},
        PrintCase{"mod(3*b, 3)", "mod(3*b, 3)"},
        PrintCase{"non_negative", "non_negative"}));

//===----------------------------------------------------------------------===//
// Sizes and syntactic order (JAX's test_sizes, test_*_ordering)
//===----------------------------------------------------------------------===//

TEST_F(SymbolicShapeTest, Sizes) {
  EXPECT_EQ(expr("a").getSize(), expr("b").getSize());
  EXPECT_EQ(expr("a").getSize(), 3u);
  EXPECT_EQ(DimExpr(1).getSize(), 1u);
  EXPECT_GT(expr("a + 1").getSize(), expr("a").getSize());
  EXPECT_GT(expr("a + b").getSize(), expr("a").getSize());
  EXPECT_GT(expr("a + b").getSize(), expr("a + 1").getSize());
  EXPECT_GT(expr("2*a").getSize(), expr("a").getSize());
  EXPECT_GT(expr("2*a").getSize(), expr("a + 1").getSize());
  EXPECT_GT(expr("a*a").getSize(), expr("a").getSize());
  EXPECT_GT(expr("a*a*a").getSize(), expr("a*a").getSize());
  EXPECT_GT(expr("a*b").getSize(), expr("a").getSize());
  // mod(a, 4) as a factor has size 1 + 3 + 1 = 5; as a term 1 + 5.
  EXPECT_EQ(expr("mod(a, 4)").getSingleFactor()->getSize(), 5u);
  EXPECT_EQ(expr("mod(a, 4)").getTerm(0).getSize(), 6u);
}

TEST_F(SymbolicShapeTest, FactorOrdering) {
  EXPECT_LT(expr("a").compareSyntactic(expr("b")), 0);
  EXPECT_LT(expr("a").compareSyntactic(expr("mod(a, 4)")), 0);
  // floordiv < max < min < mod by name.
  EXPECT_LT(expr("floordiv(a, 4)").compareSyntactic(expr("mod(a, 4)")), 0);
  EXPECT_LT(expr("floordiv(a, 4)").compareSyntactic(expr("max(a, 4)")), 0);
  EXPECT_LT(expr("max(a, b)").compareSyntactic(expr("min(a, b)")), 0);
  EXPECT_EQ(expr("floordiv(a, 4)").compareSyntactic(expr("floordiv(a, 4)")), 0);
}

TEST_F(SymbolicShapeTest, TermOrdering) {
  EXPECT_LT(expr("a").compareSyntactic(expr("b")), 0);
  EXPECT_LT(expr("a").compareSyntactic(expr("a*a")), 0);
  EXPECT_LT(expr("b").compareSyntactic(expr("a*a")), 0);
  EXPECT_LT(expr("a*a*b").compareSyntactic(expr("a*b*b")), 0);
  EXPECT_EQ(norm("2 + a*a*b + a*b*b + a*b + a*a + a + b"),
            "a*b^2 + a^2*b + a*b + a^2 + b + a + 2");
  EXPECT_EQ(norm("a*floordiv(a, 4) + floordiv(a, 4) + b*floordiv(a, 4) + "
                 "b*mod(a, 4) + a*a + b + 15"),
            "b*mod(a, 4) + b*floordiv(a, 4) + a*floordiv(a, 4) + "
            "floordiv(a, 4) + a^2 + b + 15");
}

TEST_F(SymbolicShapeTest, ConstantsAreIntegers) {
  DimExpr a = expr("a");
  auto r = a + 2 - a;
  ASSERT_TRUE(r.succeeded());
  EXPECT_EQ(r->getConstant(), 2);
  EXPECT_EQ((a * 4 * 0)->getConstant(), 0);
  EXPECT_EQ((0 * (4 * a))->getConstant(), 0);
  EXPECT_EQ(floorDiv(a * 2, a)->getConstant(), 2);
  EXPECT_TRUE(expr("a - a").isConstant());
}

TEST_F(SymbolicShapeTest, HashConsing) {
  DimExpr e1 = expr("a*b + 3"), e2 = expr("3 + b*a");
  EXPECT_EQ(e1.getImpl(), e2.getImpl());
  EXPECT_TRUE(e1.isIdenticalTo(e2));
  EXPECT_EQ(hash_value(e1), hash_value(e2));
}

TEST_F(SymbolicShapeTest, Structure) {
  DimExpr e = expr("3*a*mod(a + 2, b + 2) - 2*b + 7");
  EXPECT_EQ(e.getNumTerms(), 3u);
  EXPECT_EQ(e.getCoefficient(0), 3);
  EXPECT_EQ(e.getConstantTerm(), 7);
  auto [lead, k] = e.getLeadingTerm();
  EXPECT_EQ(lead.str(), "a*mod(a + 2, b + 2)");
  EXPECT_EQ(k, 3);
  ASSERT_EQ(lead.getNumFactors(), 2u);
  DimFactor modF = lead.getFactor(0);
  EXPECT_EQ(modF.getKind(), FactorKind::Mod);
  EXPECT_EQ(modF.getOperand(0).str(), "a + 2");
  EXPECT_EQ(modF.getOperand(1).str(), "b + 2");
  EXPECT_EQ(lead.getFactor(1).getVariableName(), "a");
  EXPECT_EQ(getFactorKindName(FactorKind::FloorDiv), "floordiv");
  EXPECT_EQ(expr("a").getVariable(), llvm::StringRef("a"));
  EXPECT_FALSE(expr("2*a").getVariable());
  EXPECT_EQ((llvm::SmallVector<std::string>{"a", "b"}),
            expr("a*b*a + mod(b, 2)").getVariables());
  EXPECT_EQ(expr("a^3").getTerm(0).getExponent(0), 3);
  EXPECT_EQ(expr("a + 2").getTerm(1).isConstant(), true);
  auto termExpr = expr("2*a*b").getTerm(0).toExpr();
  EXPECT_EQ(str(termExpr), "a*b");
}

TEST_F(SymbolicShapeTest, RequireConstant) {
  EXPECT_EQ(*DimExpr(4).requireConstant(), 4);
  auto r = expr("a").requireConstant();
  ASSERT_TRUE(r.failed());
  EXPECT_EQ(r.getError().getKind(), DimErrorKind::Inconclusive);
  EXPECT_EQ(r.getError().getMessage(),
            std::string("Symbolic dimension 'a' used in a context that "
                        "requires a constant") +
                kInconclusiveHelp);
}

TEST_F(SymbolicShapeTest, FormatShape) {
  EXPECT_EQ(formatShape({}), "()");
  EXPECT_EQ(formatShape({expr("a")}), "(a,)");
  EXPECT_EQ(formatShape({DimExpr(3), expr("a"), expr("b + a")}),
            "(3, a, b + a)");
}

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

struct ArithCase {
  const char *lhs;
  char op;
  const char *rhs;
  const char *expected;
};

class ArithTest : public SymbolicShapeTest,
                  public ::testing::WithParamInterface<ArithCase> {};

TEST_P(ArithTest, Result) {
  const ArithCase &c = GetParam();
  DimExpr a = expr(c.lhs), b = expr(c.rhs);
  DimResult<DimExpr> r = DimExpr(0);
  switch (c.op) {
  case '+':
    r = a + b;
    break;
  case '-':
    r = a - b;
    break;
  case '*':
    r = a * b;
    break;
  case '/':
    r = floorDiv(a, b);
    break;
  case '%':
    r = mod(a, b);
    break;
  case 'M':
    r = maxDim(a, b);
    break;
  case 'm':
    r = minDim(a, b);
    break;
  }
  EXPECT_EQ(str(r), c.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Polynomials, ArithTest,
    ::testing::Values(
        ArithCase{"a", '+', "b", "b + a"}, ArithCase{"a", '-', "b", "- b + a"},
        ArithCase{"a + 1", '*', "a - 1", "a^2 - 1"},
        ArithCase{"a + b", '*', "a - b", "- b^2 + a^2"},
        ArithCase{"2*a", '*', "3*b", "6*a*b"}, ArithCase{"a", '*', "0", "0"},
        ArithCase{"a", '*', "1", "a"}, ArithCase{"a", '+', "0", "a"},
        ArithCase{"0", '-', "a", "- a"}, ArithCase{"a*b", '-', "b*a", "0"},
        // divmod, with Python's semantics (JAX's `_DimExpr._divmod`)
        ArithCase{"3*a + 5", '/', "3", "a + 1"},
        ArithCase{"3*a + 5", '%', "3", "2"},
        ArithCase{"3*a - 2", '/', "3", "a - 1"},
        ArithCase{"3*a - 2", '%', "3", "1"},
        ArithCase{"3*a^2*b + 2*a*b^2", '/', "a*b", "2*b + 3*a"},
        ArithCase{"a^2 - b^2", '/', "a + b", "- b + a"},
        ArithCase{"256*a*b", '/', "32", "8*a*b"}, ArithCase{"0", '/', "b", "0"},
        ArithCase{"0", '%', "b", "0"},
        ArithCase{"a", '/', "b", "floordiv(a, b)"},
        ArithCase{"a", '%', "b", "mod(a, b)"},
        ArithCase{"3*a", '/', "2", "floordiv(3*a, 2)"},
        ArithCase{"3*a", '%', "2", "mod(3*a, 2)"},
        ArithCase{"2*b", '/', "4", "floordiv(2*b, 4)"},
        ArithCase{"3", '/', "a", "floordiv(3, a)"},
        ArithCase{"3", '%', "a", "mod(3, a)"},
        ArithCase{"2*a*b + b^2", '/', "a + b", "floordiv(2*a*b + b^2, b + a)"},
        ArithCase{"2*a*b + b^2", '%', "a + b", "mod(2*a*b + b^2, b + a)"},
        ArithCase{"a", '/', "1", "a"}, ArithCase{"3*a", '/', "3", "a"},
        ArithCase{"3*a + 3", '/', "3", "a + 1"},
        ArithCase{"3*a + 2", '/', "3", "a"},
        ArithCase{"3*a + 2", '%', "3", "2"}, ArithCase{"3*b", '%', "3", "0"},
        ArithCase{"a*b + a", '/', "b + 1", "a"},
        ArithCase{"6*a + 4", '%', "3", "1"}, ArithCase{"2*a", '/', "a", "2"},
        ArithCase{"7", '/', "2", "3"}, ArithCase{"-7", '/', "2", "-4"},
        ArithCase{"-7", '%', "2", "1"}, ArithCase{"7", '%', "-2", "-1"},
        ArithCase{"a", '/', "0", "error: integer division or modulo by zero"},
        // max/min, simplified when the bounds decide them
        ArithCase{"a", 'M', "a + 2", "a + 2"},
        ArithCase{"a", 'M', "a - 2", "a"}, ArithCase{"a", 'M', "0", "a"},
        ArithCase{"a", 'm', "-2", "-2"}, ArithCase{"a", 'M', "b", "max(a, b)"},
        ArithCase{"2", 'M', "b", "max(2, b)"},
        ArithCase{"b", 'M', "2", "max(b, 2)"},
        ArithCase{"2", 'm', "b", "min(2, b)"},
        ArithCase{"a", 'm', "b", "min(a, b)"}, ArithCase{"3", 'M', "4", "4"},
        ArithCase{"3", 'm', "4", "3"}));

TEST_F(SymbolicShapeTest, DivModIdentity) {
  // E = D*floordiv(E, D) + mod(E, D) for opaque results, checked by value.
  DimExpr e = expr("3*a + 7"), d = expr("b + 1");
  auto qr = divMod(e, d);
  ASSERT_TRUE(qr.succeeded());
  for (int64_t a = 1; a <= 6; ++a)
    for (int64_t b = 1; b <= 6; ++b) {
      DimBindings env{{"a", a}, {"b", b}};
      auto sum = d * qr->first + qr->second;
      EXPECT_EQ(*evaluate(*sum, env), *evaluate(e, env));
    }
}

TEST_F(SymbolicShapeTest, Pow) {
  DimExpr a = expr("a");
  EXPECT_EQ(str(pow(a + 1, 2)), "a^2 + 2*a + 1");
  EXPECT_EQ(str(pow(a, 0)), "1");
  EXPECT_EQ(str(pow(a, 3)), "a^3");
  EXPECT_EQ(str(pow(a, -2)),
            "error: Symbolic dimension cannot be raised to negative powers: "
            "'a' ** '-2'");
  EXPECT_EQ(str(pow(DimExpr(3), 4)), "81");
}

TEST_F(SymbolicShapeTest, OperatorChainsPropagateErrors) {
  SymbolicScope &s1 = scope(), &s2 = scope();
  DimExpr a1 = expr(s1, "a"), a2 = expr(s2, "a");
  auto r = (a1 + 1) * 2 - a2 + 3;
  ASSERT_TRUE(r.failed());
  EXPECT_EQ(r.getError().getKind(), DimErrorKind::ValueError);
  EXPECT_TRUE(llvm::StringRef(r.getError().getMessage())
                  .starts_with("Invalid mixing of symbolic scopes for linear "
                               "combination."));
}

TEST_F(SymbolicShapeTest, Overflow) {
  DimExpr a = expr("a");
  auto big = a * INT64_MAX;
  ASSERT_TRUE(big.succeeded());
  auto r = big + a;
  ASSERT_TRUE(r.failed());
  EXPECT_EQ(r.getError().getKind(), DimErrorKind::Overflow);
  EXPECT_EQ(r.getError().getMessage(),
            "integer overflow in a linear combination: the result does not "
            "fit in 64 bits");
  EXPECT_EQ((DimExpr(INT64_MAX) * 2).getError().getKind(),
            DimErrorKind::Overflow);
  EXPECT_EQ(pow(DimExpr(2), 64).getError().getKind(), DimErrorKind::Overflow);
  EXPECT_EQ(floorDiv(DimExpr(INT64_MIN), DimExpr(-1)).getError().getKind(),
            DimErrorKind::Overflow);
}

//===----------------------------------------------------------------------===//
// Equality (JAX's: the normalized difference is the constant 0)
//===----------------------------------------------------------------------===//

TEST_F(SymbolicShapeTest, Equality) {
  DimExpr a = expr("a"), b = expr("b");
  EXPECT_TRUE(a == a);
  EXPECT_TRUE(a == expr("a"));
  EXPECT_FALSE(a != a);
  EXPECT_FALSE(a == b);
  EXPECT_FALSE(b == 1);
  EXPECT_TRUE(*(a + 3 - a) == 3);
  EXPECT_TRUE(expr("b + b") == expr("2*b"));
  EXPECT_TRUE(*(2 * a * b * a + 3) == *(1 + b * a * a + a * a * b + 2));
  EXPECT_FALSE(*(2 * a * b * a + 3) == *(a * b * a + 3));
  EXPECT_FALSE(*(a * b * a + 3) == *(a * b * a + 4));
  EXPECT_FALSE(*(3 * a * b * a - 1) == *(a * b * a));
}

TEST_F(SymbolicShapeTest, EqualityCaveats) {
  // Mathematically equal but not decided by normalization.
  EXPECT_FALSE(*(floorDiv(expr("a"), 2) * 2) ==
               *(expr("a") - mod(expr("a"), 2)));
  EXPECT_FALSE(expr("max(2, b)") == expr("max(b, 2)"));
  EXPECT_FALSE(expr("mod(3*b, 3)") == 0);
  EXPECT_TRUE(*mod(expr("3*b"), 3) == 0);
  EXPECT_FALSE(expr("floordiv(s + 1, 2)") == *neg(expr("floordiv(- s, 2)")));
  EXPECT_TRUE(definitelyEqual(expr("a"), expr("a")));
  EXPECT_FALSE(definitelyEqual(expr("a"), 1));
  EXPECT_FALSE(definitelyEqual(expr("a"), expr("b")));
}

TEST_F(SymbolicShapeTest, EqualityAcrossScopes) {
  SymbolicScope &s1 = scope({"a >= 5"}), &s2 = scope({"a >= 5"});
  DimExpr a1 = expr(s1, "a"), a2 = expr(s2, "a");
  EXPECT_EQ(a1.str(), a2.str());
  EXPECT_FALSE(a1 == a2);
  EXPECT_TRUE(a1 != a2);
  EXPECT_NE(hash_value(a1), hash_value(a2));
  auto c = compare(a1, CompareOp::EQ, a2);
  ASSERT_TRUE(c.succeeded());
  EXPECT_FALSE(*c);
}

TEST_F(SymbolicShapeTest, EqualityWithDeclaredConstraint) {
  SymbolicScope &s = scope({"floordiv(s + 1, 2) == - floordiv(- s, 2)"});
  EXPECT_TRUE(expr(s, "floordiv(s + 1, 2)") ==
              *neg(expr(s, "floordiv(- s, 2)")));
}

} // namespace
