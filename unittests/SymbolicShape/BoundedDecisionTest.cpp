//===- BoundedDecisionTest.cpp - long constraint chains stay cheap --------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Chains of constraints `v1 >= v0 + 1`, ..., `vn >= v(n-1) + 1` once made the
// strong decision procedure exponential (an exact integer check over all the
// chain's variables on every query) and JAX's state building cubic. These
// tests pin the answers for long chains; the benchmark in bench/ measures the
// time. The answers are deterministic: the strong procedure's work is bounded
// by counts, not by a clock.
//
//===----------------------------------------------------------------------===//

#include "SymbolicShapeTestBase.h"

using namespace mlir::tessera::symbolic;
using namespace mlir::tessera::symbolic::testing;

namespace {

struct ChainCase {
  unsigned n;
  DecisionMode mode;
};

class ChainTest : public SymbolicShapeTest,
                  public ::testing::WithParamInterface<ChainCase> {};

TEST_P(ChainTest, UnrelatedVariablesStayInconclusive) {
  SymbolicScope &s = scope(unitChain(GetParam().n), GetParam().mode);
  EXPECT_EQ(cmp(s, "b", CompareOp::GE, "c"), "inconclusive");
  EXPECT_EQ(cmp(s, "b + c", CompareOp::GE, "2"), "true");
}

TEST_P(ChainTest, NormalizesAndChecksSatisfiability) {
  SymbolicScope &s = scope(unitChain(GetParam().n), GetParam().mode);
  EXPECT_TRUE(s.verifyConstraints().succeeded());
  EXPECT_EQ(str(parseDimExpr("a", s)), "a");
}

TEST_P(ChainTest, NeighboursAreOrdered) {
  unsigned n = GetParam().n;
  SymbolicScope &s = scope(unitChain(n), GetParam().mode);
  std::string last = "v" + std::to_string(n);
  std::string prev = "v" + std::to_string(n - 1);
  // JAX's procedure finds these bounds by recursing through the constraints
  // whose leading term is `prev`; on long chains that recursion passes its
  // work limit and the answer is inconclusive. The strong procedure proves
  // them from the few facts next to the query.
  bool decided = GetParam().mode == DecisionMode::Strong || n <= 10;
  EXPECT_EQ(cmp(s, last, CompareOp::GE, prev + " + 1"),
            decided ? "true" : "inconclusive");
  EXPECT_EQ(cmp(s, last, CompareOp::LT, prev + " + 1"),
            decided ? "false" : "inconclusive");
  EXPECT_EQ(cmp(s, last, CompareOp::GE, prev + " + 2"), "inconclusive");
}

TEST_P(ChainTest, WholeChain) {
  unsigned n = GetParam().n;
  SymbolicScope &s = scope(unitChain(n), GetParam().mode);
  std::string last = "v" + std::to_string(n);
  // JAX's state combines each constraint with the ones before it, so the
  // whole chain's difference is known in both modes.
  EXPECT_EQ(cmp(s, last, CompareOp::GE, "v0 + " + std::to_string(n)), "true");
  EXPECT_EQ(cmp(s, last, CompareOp::GE, "v0 + " + std::to_string(n + 1)),
            "inconclusive");
  EXPECT_EQ(bounds(s, last + " - v0"), "(" + std::to_string(n) + ", inf)");
}

INSTANTIATE_TEST_SUITE_P(
    Chains, ChainTest,
    ::testing::Values(ChainCase{10, DecisionMode::JaxExact},
                      ChainCase{10, DecisionMode::Strong},
                      ChainCase{100, DecisionMode::JaxExact},
                      ChainCase{100, DecisionMode::Strong},
                      ChainCase{1000, DecisionMode::JaxExact},
                      ChainCase{1000, DecisionMode::Strong}));

/// A case only the strong procedure decides, next to a long unrelated chain:
/// the chain must not use up the strong procedure's budget or make it give
/// up on the small, independent part of the system.
TEST_F(SymbolicShapeTest, StrongDecidesBesideLongChain) {
  std::vector<std::string> constraints = unitChain(1000);
  SymbolicScope &jax = scope(constraints, DecisionMode::JaxExact);
  SymbolicScope &strong = scope(constraints, DecisionMode::Strong);
  EXPECT_EQ(cmp(jax, "b", CompareOp::GE, "mod(b, 3)"), "inconclusive");
  EXPECT_EQ(cmp(strong, "b", CompareOp::GE, "mod(b, 3)"), "true");
}

/// A chain whose facts are long but whose query needs an exact integer
/// argument over few variables still gets it.
TEST_F(SymbolicShapeTest, StrongExactOnSmallPartOfLargeSystem) {
  std::vector<std::string> constraints = unitChain(200);
  constraints.push_back("2*x >= 5");
  constraints.push_back("3*x <= 10");
  SymbolicScope &strong = scope(constraints, DecisionMode::Strong);
  // x is 3 (the only integer in [2.5, 3.33]).
  EXPECT_EQ(bounds(strong, "x"), "(3, 3)");
}

} // namespace
