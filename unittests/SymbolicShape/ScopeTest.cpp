//===- ScopeTest.cpp - constraints, normalization rules, scope mixing -----===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "SymbolicShapeTestBase.h"

using namespace mlir::tessera::symbolic;
using namespace mlir::tessera::symbolic::testing;

namespace {

TEST_F(SymbolicShapeTest, ConstraintErrors) {
  EXPECT_EQ(scopeError({"a != 0"}),
            "Constraint parsing error: must contain one of '==' or '>=' or "
            "'<='");
  EXPECT_EQ(scopeError({"a < b"}),
            "Constraint parsing error: must contain one of '==' or '>=' or "
            "'<='");
  EXPECT_EQ(scopeError({"a == a + 1"}),
            "Unsatisfiable explicit constraint: a == a + 1");
  EXPECT_EQ(scopeError({"a >= a + 1"}),
            "Unsatisfiable explicit constraint: a >= a + 1");
  EXPECT_EQ(scopeError({"a <= a - 1"}),
            "Unsatisfiable explicit constraint: a <= a - 1");
  EXPECT_EQ(scopeError({"a1 >= a1 + 1"}),
            "Unsatisfiable explicit constraint: a1 >= a1 + 1");
  EXPECT_EQ(scopeError({"a == 5", "a == 6"}),
            "Unsatisfiable explicit constraint: a == 6");
  EXPECT_EQ(scopeError({"a + 1 == b"}),
            "Invalid equality constraint: {e1} == {e2}. The left-hand-side "
            "must be of the form `term * coefficient`.");
  EXPECT_EQ(scopeError({"3 == b"}),
            "Invalid equality constraint: {e1} == {e2}. The left-hand-side "
            "must be of the form `term * coefficient`.");
  EXPECT_EQ(scopeError({"2*a == b", "3*a == c"}),
            "Found multiple equality constraints with the same "
            "left-hand-side: a");
  EXPECT_EQ(scopeError({"2*a*b == c", "3*a*b == d"}),
            "Found multiple equality constraints with the same "
            "left-hand-side: a*b");
  EXPECT_EQ(scopeError({"a >= b c"}),
            "syntax error in symbolic shape ' b c' in dimension 0: expecting "
            "one of {STAR} but found NAME. Parsed ' b ', remaining 'c'.");
  EXPECT_EQ(scopeError({">= 3"}),
            "not enough values to unpack (expected 1, got 0)");
  EXPECT_EQ(scopeError({"a, b >= 3"}),
            "too many values to unpack (expected 1)");
  EXPECT_EQ(scopeError({"non_negative(a) >= 0"}),
            "syntax error in symbolic shape 'non_negative(a) ' in dimension "
            "0: expecting one of {STAR} but found LPAR. Parsed "
            "'non_negative', remaining '(a) '.");
  auto notImplemented = SymbolicScope::create(ctx, {"2*a == b", "3*a == c"});
  EXPECT_EQ(notImplemented.getError().getKind(), DimErrorKind::NotImplemented);
}

TEST_F(SymbolicShapeTest, ConstantConstraintsAreDropped) {
  SymbolicScope &s = scope({"a <= a + 1", "3 >= 2"});
  EXPECT_TRUE(s.getConstraints().empty());
}

TEST_F(SymbolicShapeTest, ConstraintRecord) {
  SymbolicScope &s = scope({"a <= b + 1", "c == 2*a"});
  ASSERT_EQ(s.getConstraints().size(), 2u);
  const ExplicitConstraint &c0 = s.getConstraints()[0];
  EXPECT_EQ(c0.cmp, Comparator::GEQ);
  EXPECT_EQ(c0.text, "a <= b + 1");
  EXPECT_EQ(c0.lhs.str(), "b + 1");
  EXPECT_EQ(c0.rhs.str(), "a");
  EXPECT_EQ(c0.diff.str(), "b - a + 1");
  EXPECT_EQ(s.getConstraints()[1].cmp, Comparator::EQ);
  EXPECT_EQ(s.getConstraints()[1].diff.str(), "c - 2*a");
}

TEST_F(SymbolicShapeTest, EqualityRules) {
  SymbolicScope &s = scope({"b == a", "c == a + b", "d == 5"});
  EXPECT_EQ(norm(s, "b"), "a");
  EXPECT_EQ(norm(s, "c"), "2*a");
  EXPECT_EQ(norm(s, "d"), "5");
  auto dims = parseShapeSpec("a, b, c, d", s);
  ASSERT_TRUE(dims.succeeded());
  EXPECT_EQ(formatShape(*dims), "(a, a, 2*a, 5)");
  EXPECT_TRUE((*dims)[3].isConstant());

  SymbolicScope &p = scope({"a * b == c + d"});
  EXPECT_EQ(norm(p, "2*b*a"), "2*d + 2*c");
  EXPECT_EQ(norm(p, "a*b*b"), "b*d + b*c");
  EXPECT_EQ(norm(p, "3*a"), "3*a");

  SymbolicScope &k = scope({"2*a == b"});
  EXPECT_EQ(norm(k, "4*a"), "2*b");
  EXPECT_EQ(norm(k, "3*a"), "3*a");
  EXPECT_EQ(norm(k, "-2*a + 1"), "- b + 1");

  SymbolicScope &f = scope({"floordiv(d, 2) == a + 5"});
  EXPECT_EQ(norm(f, "floordiv(d, 2)"), "a + 5");
  EXPECT_EQ(str(floorDiv(expr(f, "d"), 2)), "a + 5");
}

TEST_F(SymbolicShapeTest, ModZeroRule) {
  SymbolicScope &s = scope({"mod(b, 4) == 0"});
  ASSERT_EQ(s.getConstraints().size(), 2u);
  // The derived rule comes first.
  EXPECT_EQ(s.getConstraints()[0].text, "4*floordiv(b, 4) == b");
  EXPECT_EQ(s.getConstraints()[1].text, "mod(b, 4) == 0");
  EXPECT_EQ(norm(s, "4*floordiv(b, 4)"), "b");
  EXPECT_EQ(norm(s, "8*floordiv(b, 4)"), "2*b");
  EXPECT_EQ(norm(s, "mod(b, 4)"), "0");
  EXPECT_EQ(str(mod(expr(s, "b"), 4)), "0");
  EXPECT_EQ(str(floorDiv(expr(s, "b"), 4)), "floordiv(b, 4)");
}

TEST_F(SymbolicShapeTest, ConstraintsApplyInOrder) {
  // `max(a, 2)` simplifies to `a` because `a >= 4` is already known.
  SymbolicScope &s = scope({"a >= 4", "max(a, 2) >= 6"});
  EXPECT_EQ(s.getConstraints()[1].diff.str(), "a - 6");
  EXPECT_EQ(bounds(s, "a"), "(6, inf)");
}

TEST_F(SymbolicShapeTest, ScopeDescription) {
  ScopeOptions options;
  options.location = "f.py:1:6 (<module>)";
  auto s = SymbolicScope::create(ctx, {"a >= 5", "a <= 10"}, options);
  ASSERT_TRUE(s.succeeded());
  EXPECT_EQ((*s)->str(), std::to_string((*s)->getId()) +
                             " created at f.py:1:6 (<module>) with "
                             "constraints:\n  a >= 5\n  a <= 10");
  SymbolicScope &plain = scope();
  EXPECT_EQ(plain.str(), std::to_string(plain.getId()) + " created at unknown");
  EXPECT_NE(plain.getId(), (*s)->getId());
}

TEST_F(SymbolicShapeTest, ScopeMixing) {
  SymbolicScope &s1 = scope({"a >= 5", "a <= 10"});
  SymbolicScope &s2 = scope({"a <= 10"});
  DimExpr a = expr(s1, "a"), a1 = expr(s2, "a");
  std::string scope1 = s1.str(), scope2 = s2.str();
  auto sum = a + a1;
  ASSERT_TRUE(sum.failed());
  EXPECT_EQ(sum.getError().getMessage(),
            "Invalid mixing of symbolic scopes for linear combination.\n"
            "Expected  scope " +
                scope1 + "\nand found for 'a' (unknown) scope " + scope2 +
                "\nSee https://docs.jax.dev/en/latest/export/"
                "shape_poly.html#user-specified-symbolic-constraints.");
  EXPECT_TRUE(llvm::StringRef((a * a1).getError().getMessage())
                  .starts_with("Invalid mixing of symbolic scopes for "
                               "operation mul.\n"));
  auto ge = compare(a, CompareOp::GE, a1);
  ASSERT_TRUE(ge.failed());
  EXPECT_TRUE(llvm::StringRef(ge.getError().getMessage())
                  .starts_with("Invalid mixing of symbolic scopes when "
                               "comparing 'a' >= 'a'.\n"));
  auto lt = compare(a, CompareOp::LT, a1);
  EXPECT_TRUE(llvm::StringRef(lt.getError().getMessage())
                  .starts_with("Invalid mixing of symbolic scopes when "
                               "comparing 'a' < 'a'.\n"));
  for (auto r :
       {a - a1, floorDiv(a, a1), mod(a, a1), maxDim(a, a1), minDim(a, a1)}) {
    ASSERT_TRUE(r.failed());
    EXPECT_TRUE(llvm::StringRef(r.getError().getMessage())
                    .starts_with("Invalid mixing of symbolic scopes"));
  }
  // Constants mix with every scope.
  EXPECT_EQ(str(a + 3), "a + 3");
  // Operations of one scope stay in it.
  DimExpr b = expr(s1, "b");
  EXPECT_EQ((a + b)->getScope(), &s1);
}

TEST_F(SymbolicShapeTest, VerifyConstraints) {
  EXPECT_TRUE(scope({"a >= b", "b >= 16"}).verifyConstraints().succeeded());
  EXPECT_EQ(scope({"a <= 0"}).verifyConstraints().getError().getMessage(),
            "Unsatisfiable constraint: a <= 0");
}

} // namespace
