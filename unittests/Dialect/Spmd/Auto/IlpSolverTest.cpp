//===- IlpSolverTest.cpp - the 0-1 ILP of a decision graph ----------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "IlpSolver.h"

#include <gtest/gtest.h>

using namespace mlir::tessera::spmd::autopart;

namespace {

StrategyCost cost(double compute, double persistent = 0, double work = 0) {
  StrategyCost c;
  c.compute = compute;
  c.persistentBytes = persistent;
  c.workBytes = work;
  return c;
}

PlanEdge edge(unsigned from, unsigned to, std::vector<double> time) {
  PlanEdge e;
  e.from = from;
  e.to = to;
  e.bytes.assign(time.size(), 0);
  e.time = std::move(time);
  return e;
}

TEST(IlpSolverTest, PicksTheCheapestConsistentPlan) {
  // Strategy 1 computes faster on both nodes, but switching between them
  // costs 10.
  PlanGraph graph;
  graph.nodes = {{{cost(4), cost(1)}}, {{cost(1), cost(3)}}};
  graph.edges = {edge(0, 1, {0, 10, 10, 0})};
  IlpResult result = solveMinimumTime(graph, {});
  ASSERT_EQ(result.status, IlpStatus::Optimal);
  // (1, 1) costs 4, (0, 0) 5, (1, 0) 12.
  EXPECT_EQ(result.choice, (std::vector<unsigned>{1, 1}));
  // Node 1 is eliminated into node 0 before the ILP.
  EXPECT_EQ(result.numNodes, 1u);
  EXPECT_EQ(result.numEdges, 0u);
  EXPECT_EQ(result.numPrograms, 1u);
}

TEST(IlpSolverTest, EdgeVariablesPerClassOfEqualCosts) {
  // K4 (no node of degree below 3, so nothing is eliminated) with three
  // strategies per node, the last two equal on every edge: per edge, two
  // classes per end, four edge variables.
  PlanGraph graph;
  for (int n = 0; n < 4; ++n)
    graph.nodes.push_back({{cost(1), cost(2), cost(2)}});
  for (unsigned a = 0; a < 4; ++a)
    for (unsigned b = a + 1; b < 4; ++b)
      graph.edges.push_back(edge(a, b, {0, 3, 3, 3, 0, 0, 3, 0, 0}));
  IlpResult result = solveMinimumTime(graph, {});
  ASSERT_EQ(result.status, IlpStatus::Optimal);
  EXPECT_EQ(result.choice, (std::vector<unsigned>{0, 0, 0, 0}));
  EXPECT_EQ(result.numNodes, 4u);
  EXPECT_EQ(result.numEdges, 6u);
  EXPECT_EQ(result.numVariables, 4u * 3 + 6u * 4);
}

TEST(IlpSolverTest, MemoryLimit) {
  // Replicated weights (strategy 0) are fast but big.
  PlanGraph graph;
  graph.nodes = {{{cost(1, 100, 10), cost(2, 25, 10)}},
                 {{cost(1, 100, 10), cost(2, 25, 10)}}};
  graph.edges = {edge(0, 1, {0, 1, 1, 0})};
  EXPECT_EQ(solveMinimumTime(graph, {}).choice, (std::vector<unsigned>{0, 0}));
  IlpOptions limited;
  limited.memoryLimit = 140; // 100 + 25 + 10 fits, 200 + 10 does not
  IlpResult result = solveMinimumTime(graph, limited);
  ASSERT_EQ(result.status, IlpStatus::Optimal);
  EXPECT_NE(result.choice, (std::vector<unsigned>{0, 0}));
  EXPECT_LE(evaluatePlan(graph, result.choice).getPeakBytes(), 140);
  limited.memoryLimit = 59; // below 25 + 25 + 10
  EXPECT_EQ(solveMinimumTime(graph, limited).status, IlpStatus::Infeasible);
  IlpResult smallest = solveMinimumPeak(graph, limited);
  ASSERT_EQ(smallest.status, IlpStatus::Optimal);
  EXPECT_EQ(smallest.choice, (std::vector<unsigned>{1, 1}));
  EXPECT_DOUBLE_EQ(evaluatePlan(graph, smallest.choice).getPeakBytes(), 60);
}

TEST(IlpSolverTest, TieBreaksOnCollectiveBytes) {
  PlanGraph graph;
  StrategyCost a = cost(1), b = cost(1);
  a.commBytes = 1000;
  graph.nodes = {{{a, b}}};
  EXPECT_EQ(solveMinimumTime(graph, {}).choice, (std::vector<unsigned>{1}));
}

TEST(IlpSolverTest, OneStrategyEndsFoldIntoTheOther) {
  // Strategy 1 of node 1 avoids the reshard but is too big for the limit,
  // so the whole graph is one program (the plan without the limit does
  // not fit).
  PlanGraph graph;
  graph.nodes = {{{cost(0)}}, {{cost(1), cost(1, 100)}}};
  graph.edges = {edge(0, 1, {5, 0})};
  EXPECT_EQ(solveMinimumTime(graph, {}).choice, (std::vector<unsigned>{0, 1}));
  IlpOptions limited;
  limited.memoryLimit = 50;
  IlpResult result = solveMinimumTime(graph, limited);
  EXPECT_EQ(result.choice, (std::vector<unsigned>{0, 0}));
  // Three node columns (the edge folds into node 1's), the persistent
  // column.
  EXPECT_EQ(result.numVariables, 4u);
}

TEST(IlpSolverTest, Deterministic) {
  // A chain with many equal plans gives the same answer every time.
  PlanGraph graph;
  for (int n = 0; n < 30; ++n)
    graph.nodes.push_back({{cost(1), cost(1), cost(1)}});
  for (unsigned n = 0; n + 1 < 30; ++n)
    graph.edges.push_back(edge(n, n + 1, {0, 1, 1, 1, 0, 1, 1, 1, 0}));
  IlpResult first = solveMinimumTime(graph, {});
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(solveMinimumTime(graph, {}).choice, first.choice);
}

TEST(IlpSolverTest, NodeLimitKeepsAFeasiblePlan) {
  // A knapsack: which weights to keep replicated under the limit. With no
  // branch-and-bound node the solver returns the best plan it has (or
  // proves optimality at the root); any plan it returns fits.
  PlanGraph graph;
  double sizes[] = {31, 29, 23, 19, 17, 13, 11, 7};
  for (double size : sizes)
    graph.nodes.push_back({{cost(size, 2 * size), cost(size * 1.9, 0)}});
  IlpOptions options;
  options.memoryLimit = 101;
  options.maxNodes = 0;
  IlpResult result = solveMinimumTime(graph, options);
  ASSERT_TRUE(result.status == IlpStatus::Optimal ||
              result.status == IlpStatus::Incumbent ||
              result.status == IlpStatus::NoSolution);
  if (!result.choice.empty())
    EXPECT_LE(evaluatePlan(graph, result.choice).getPeakBytes(), 101);
}

} // namespace

TEST(IlpSolverTest, StopAtTheRootKeepsTheGreedyStart) {
  // A knapsack under the memory limit: three nodes whose fast strategy
  // (0) is big; one and a half fit, so the relaxation at the root is
  // fractional and a node limit of 0 stops CBC there. It starts from each
  // node's least-memory strategy (all 1), which fits.
  PlanGraph graph;
  for (int n = 0; n < 3; ++n)
    graph.nodes.push_back({{cost(1, 60, 0), cost(3, 20, 0)}});
  IlpOptions options;
  options.memoryLimit = 120; // 60 + 20 + 20 fits, 60 + 60 + 20 does not
  options.maxNodes = 0;
  IlpResult stopped = solveMinimumTime(graph, options);
  ASSERT_EQ(stopped.status, IlpStatus::Incumbent);
  EXPECT_LE(evaluatePlan(graph, stopped.choice).getPeakBytes(), 120);
  options.mipStart = false;
  EXPECT_EQ(solveMinimumTime(graph, options).status, IlpStatus::NoSolution);
  options.maxNodes = -1;
  IlpResult solved = solveMinimumTime(graph, options);
  ASSERT_EQ(solved.status, IlpStatus::Optimal);
  EXPECT_EQ(evaluatePlan(graph, solved.choice).getTime(), 1 + 3 + 3);
}
