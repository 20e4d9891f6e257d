//===- StrongBudgetTest.cpp - the cost bound of the strong procedure ------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Long chains of constraints `v1 >= v0 + 1, v2 >= v1 + 1, ...` used to make
// the strong mode's exact procedure take exponential time. These tests check
// the answers on chains of 100 and 1000 constraints (the timing is measured
// in bench/, not here), and that a query whose relevant system is beyond
// the work budget gets exactly JAX's answer.
//
//===----------------------------------------------------------------------===//

#include "SymbolicShapeTestBase.h"

#include "llvm/ADT/StringExtras.h"

#include <random>

using namespace mlir::tessera::symbolic;
using namespace mlir::tessera::symbolic::testing;

namespace {

/// `v1 >= 2*v0`, ..., `v<n> >= 2*v<n-1>` (not a difference system).
std::vector<std::string> doublingChain(unsigned n) {
  std::vector<std::string> cs;
  for (unsigned i = 1; i <= n; ++i)
    cs.push_back("v" + std::to_string(i) + " >= 2*v" + std::to_string(i - 1));
  return cs;
}

std::string v(unsigned i) { return "v" + std::to_string(i); }

class LongChainTest : public SymbolicShapeTest,
                      public ::testing::WithParamInterface<unsigned> {};

TEST_P(LongChainTest, BothModesAgree) {
  unsigned n = GetParam();
  for (DecisionMode mode : {DecisionMode::Strong, DecisionMode::JaxExact}) {
    SymbolicScope &s = scope(unitChain(n), mode);
    EXPECT_TRUE(s.verifyConstraints().succeeded());
    // Variables outside the chain are unrelated.
    EXPECT_EQ(cmp(s, "b", CompareOp::GE, "c"), "inconclusive");
    EXPECT_EQ(norm(s, "a"), "a");
    EXPECT_EQ(bounds(s, v(n)), "(" + std::to_string(n + 1) + ", inf)");
    EXPECT_EQ(bounds(s, v(n) + " - v0"), "(" + std::to_string(n) + ", inf)");
    EXPECT_EQ(cmp(s, v(n), CompareOp::GE, "v0 + " + std::to_string(n)), "true");
    EXPECT_EQ(cmp(s, "v0", CompareOp::LT, v(n)), "true");
    EXPECT_EQ(cmp(s, v(n), CompareOp::GE, "v0 + " + std::to_string(n + 1)),
              "inconclusive");
    EXPECT_EQ(cmp(s, v(n / 2), CompareOp::GE, "b"), "inconclusive");
  }
}

TEST_P(LongChainTest, StrongClosesTheChain) {
  // With `v<n> <= v0 + n` every step is exactly 1; JAX's procedure cannot
  // see it, the strong mode's rational relaxation of the facts near the
  // question can.
  unsigned n = GetParam();
  std::vector<std::string> cs = unitChain(n);
  cs.push_back(v(n) + " <= v0 + " + std::to_string(n));
  std::string mid = v(n / 2) + " - v0";
  std::string k = std::to_string(n / 2);
  SymbolicScope &jax = scope(cs, DecisionMode::JaxExact);
  EXPECT_EQ(bounds(jax, mid), "(" + k + ", inf)");
  EXPECT_EQ(cmp(jax, v(n / 2), CompareOp::LE, "v0 + " + k), "inconclusive");
  SymbolicScope &strong = scope(cs);
  EXPECT_EQ(bounds(strong, mid), "(" + k + ", " + k + ")");
  EXPECT_EQ(cmp(strong, v(n / 2), CompareOp::LE, "v0 + " + k), "true");
  EXPECT_EQ(norm(strong, "max(" + v(n / 2) + ", v0 + " + k + ")"), v(n / 2));
  // The same question twice, in a fresh scope, has the same answer.
  SymbolicScope &again = scope(cs);
  EXPECT_EQ(bounds(again, mid), "(" + k + ", " + k + ")");
}

TEST_P(LongChainTest, StrongFindsContradictionAtTheEnd) {
  unsigned n = GetParam();
  std::vector<std::string> cs = unitChain(n);
  cs.push_back(v(n) + " <= v0 + " + std::to_string(n - 1));
  ScopeOptions options;
  auto s = SymbolicScope::create(ctx, cs, options);
  DimStatus st =
      s.succeeded() ? (*s)->verifyConstraints() : DimStatus(s.getError());
  ASSERT_TRUE(st.failed());
  EXPECT_TRUE(llvm::StringRef(st.getError().getMessage())
                  .starts_with("Unsatisfiable constraint"))
      << st.getError().getMessage();
}

INSTANTIATE_TEST_SUITE_P(Lengths, LongChainTest,
                         ::testing::Values(100u, 1000u));

TEST_F(SymbolicShapeTest, StrongWithinBudget) {
  // A small non-difference component: the strong mode decides it.
  SymbolicScope &strong = scope(doublingChain(3));
  EXPECT_EQ(cmp(strong, "v0", CompareOp::GE, "mod(v0, 3)"), "true");
  EXPECT_EQ(bounds(strong, "v0 - mod(v0, 3)"), "(0, inf)");
  SymbolicScope &jax = scope(doublingChain(3), DecisionMode::JaxExact);
  EXPECT_EQ(cmp(jax, "v0", CompareOp::GE, "mod(v0, 3)"), "inconclusive");
  EXPECT_EQ(bounds(jax, "v0 - mod(v0, 3)"), "(-1, inf)");
}

TEST_F(SymbolicShapeTest, StrongBeyondBudgetIsJax) {
  // The same question when the component of v0 is too large for the exact
  // procedure: exactly JAX's answer, for comparisons, bounds and max/min
  // simplification.
  for (unsigned n : {30u, 200u}) {
    SymbolicScope &strong = scope(doublingChain(n));
    SymbolicScope &jax = scope(doublingChain(n), DecisionMode::JaxExact);
    const char *queries[][2] = {
        {"v0", "mod(v0, 3)"}, {"v1", "mod(v0, 3) + v0"}, {"mod(v1, 5)", "1"}};
    for (auto &q : queries)
      for (CompareOp op : {CompareOp::GE, CompareOp::LT})
        EXPECT_EQ(cmp(strong, q[0], op, q[1]), cmp(jax, q[0], op, q[1]))
            << q[0] << " vs " << q[1];
    for (const char *e :
         {"v0 - mod(v0, 3)", "mod(v1, 4)", "v2 - 4*v0 + mod(v0, 2)"})
      EXPECT_EQ(bounds(strong, e), bounds(jax, e)) << e;
    EXPECT_EQ(norm(strong, "max(v0, mod(v0, 3))"),
              norm(jax, "max(v0, mod(v0, 3))"));
    EXPECT_EQ(cmp(strong, "v0", CompareOp::GE, "mod(v0, 3)"), "inconclusive");
  }
}

/// Random difference-constraint systems (decided by the rational relaxation)
/// with some mod terms (which need the exact check): where JAX answers, the
/// strong mode gives the same answer, and every strong answer holds on all
/// integer points of a box that satisfy the constraints.
TEST_F(SymbolicShapeTest, StrongAgreesWithJaxAndIsSound) {
  std::mt19937 rng(7);
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  const char *vars[] = {"a", "b", "c", "d"};
  constexpr int kBox = 7;
  for (int round = 0; round < 60; ++round) {
    std::vector<std::string> cs;
    for (int i = 0, n = pick(1, 5); i < n; ++i) {
      std::string x = vars[pick(0, 3)], y = vars[pick(0, 3)];
      std::string k = std::to_string(pick(-2, 3));
      switch (pick(0, 4)) {
      case 0:
        cs.push_back(x + " >= " + y + " + " + k);
        break;
      case 1:
        cs.push_back(x + " <= " + y + " + " + k);
        break;
      case 2:
        cs.push_back(x + " <= " + std::to_string(pick(1, kBox)));
        break;
      case 3:
        cs.push_back("2*" + x + " >= 2*" + y + " + " + k);
        break;
      default:
        cs.push_back("mod(" + x + ", 3) <= " + std::to_string(pick(0, 2)));
        break;
      }
    }
    ScopeOptions strongOpts, jaxOpts;
    jaxOpts.mode = DecisionMode::JaxExact;
    auto strong = SymbolicScope::create(ctx, cs, strongOpts);
    auto jax = SymbolicScope::create(ctx, cs, jaxOpts);
    if (strong.failed() || jax.failed())
      continue;
    // The satisfying points of the box.
    std::vector<DimBindings> points;
    for (int a = 1; a <= kBox; ++a)
      for (int b = 1; b <= kBox; ++b)
        for (int c = 1; c <= kBox; ++c)
          for (int d = 1; d <= kBox; ++d) {
            DimBindings env{{"a", a}, {"b", b}, {"c", c}, {"d", d}};
            bool ok = true;
            for (const ExplicitConstraint &ec : (*strong)->getConstraints()) {
              int64_t v = *evaluate(ec.diff, env);
              ok &= ec.cmp == Comparator::EQ ? v == 0 : v >= 0;
            }
            if (ok)
              points.push_back(env);
          }
    std::string text = llvm::join(cs, "; ");
    if ((*strong)->verifyConstraints().failed()) {
      // Only an unsatisfiable system may be reported as such.
      EXPECT_TRUE(points.empty()) << text;
      continue;
    }
    if (points.empty())
      continue; // Satisfiable only outside the box.
    for (int q = 0; q < 8; ++q) {
      std::string x = vars[pick(0, 3)], y = vars[pick(0, 3)];
      std::string e = x + " - " + y + " + " + std::to_string(pick(-3, 3));
      if (pick(0, 3) == 0)
        e += " - mod(" + std::string(vars[pick(0, 3)]) + ", 3)";
      std::string js = cmp(**jax, e, CompareOp::GE, "0");
      std::string ss = cmp(**strong, e, CompareOp::GE, "0");
      if (js == "true" || js == "false")
        EXPECT_EQ(ss, js) << e << " with " << text;
      DimExpr se = expr(**strong, e);
      for (const DimBindings &env : points) {
        int64_t v = *evaluate(se, env);
        if (ss == "true")
          EXPECT_GE(v, 0) << e << " with " << text;
        if (ss == "false")
          EXPECT_LT(v, 0) << e << " with " << text;
      }
      auto b = getBounds(se);
      ASSERT_TRUE(b.succeeded()) << e << " with " << text;
      for (const DimBindings &env : points) {
        int64_t v = *evaluate(se, env);
        EXPECT_TRUE(b->lower <= v && b->upper >= v)
            << e << " = " << v << " outside " << b->str() << " with " << text;
      }
    }
  }
}

} // namespace
