//===- CoarsenTest.cpp - merging nodes that follow one another ------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "Coarsen.h"

#include <gtest/gtest.h>

using namespace mlir::tessera::spmd::autopart;

namespace {

/// A node whose strategies have these compute times.
PlanNode node(std::vector<double> compute) {
  PlanNode n;
  for (double c : compute) {
    StrategyCost cost;
    cost.compute = c;
    cost.workBytes = 10 * c;
    n.strategies.push_back(cost);
  }
  return n;
}

/// An edge whose cost is 0 on the diagonal and `offDiagonal` elsewhere.
PlanEdge edge(unsigned from, unsigned to, unsigned numFrom, unsigned numTo,
              double offDiagonal) {
  PlanEdge e;
  e.from = from;
  e.to = to;
  for (unsigned k = 0; k < numFrom; ++k)
    for (unsigned l = 0; l < numTo; ++l) {
      e.time.push_back(k == l ? 0 : offDiagonal);
      e.bytes.push_back(k == l ? 0 : 100);
    }
  return e;
}

TEST(CoarsenTest, EvaluateSumsNodesAndEdges) {
  PlanGraph graph;
  graph.nodes = {node({1, 2}), node({3, 4})};
  graph.nodes[0].strategies[1].persistentBytes = 7;
  graph.edges = {edge(0, 1, 2, 2, 5)};
  PlanTotals totals = evaluatePlan(graph, {1, 0});
  EXPECT_DOUBLE_EQ(totals.compute, 5);
  EXPECT_DOUBLE_EQ(totals.comm, 5);
  EXPECT_DOUBLE_EQ(totals.commBytes, 100);
  EXPECT_DOUBLE_EQ(totals.getPeakBytes(), 7 + 30);
  EXPECT_DOUBLE_EQ(evaluatePlan(graph, {0, 0}).getTime(), 4);
}

TEST(CoarsenTest, FollowerTakesItsBestAnswer) {
  // 0 -> 1 -> 2; node 1 follows node 0.
  PlanGraph graph;
  graph.nodes = {node({1, 1}), node({5, 1}), node({1, 1})};
  graph.edges = {edge(0, 1, 2, 2, 10), edge(1, 2, 2, 2, 3)};
  Coarsening coarse = coarsenGraph(graph, {{0, false, {}}});
  ASSERT_EQ(coarse.graph.nodes.size(), 2u);
  ASSERT_EQ(coarse.graph.edges.size(), 1u);
  EXPECT_EQ(coarse.groupOf, (std::vector<unsigned>{0, 0, 1}));
  // Strategy k of node 0: node 1 answers k (reshard 10 costs more than the
  // compute difference of 4).
  EXPECT_EQ(coarse.strategyOf[1], (std::vector<unsigned>{0, 1}));
  EXPECT_DOUBLE_EQ(coarse.graph.nodes[0].strategies[0].compute, 6);
  EXPECT_DOUBLE_EQ(coarse.graph.nodes[0].strategies[1].compute, 2);
  // The work bytes of a group are the largest of its members'.
  EXPECT_DOUBLE_EQ(coarse.graph.nodes[0].strategies[0].workBytes, 50);
  EXPECT_EQ(coarse.expand({1, 0}), (std::vector<unsigned>{1, 1, 0}));
  // The coarse plan costs what its expansion costs.
  for (unsigned a = 0; a < 2; ++a)
    for (unsigned b = 0; b < 2; ++b)
      EXPECT_DOUBLE_EQ(evaluatePlan(coarse.graph, {a, b}).getTime(),
                       evaluatePlan(graph, coarse.expand({a, b})).getTime());
}

TEST(CoarsenTest, CheapReshardBeatsCostlyCompute) {
  PlanGraph graph;
  graph.nodes = {node({1, 1}), node({9, 1})};
  graph.edges = {edge(0, 1, 2, 2, 2)};
  Coarsening coarse = coarsenGraph(graph, {{0, false, {}}});
  // Under strategy 0 of node 0, node 1 pays the reshard (2) to compute in 1.
  EXPECT_EQ(coarse.strategyOf[1], (std::vector<unsigned>{1, 1}));
  EXPECT_DOUBLE_EQ(coarse.graph.nodes[0].strategies[0].comm, 2);
}

TEST(CoarsenTest, EdgesInsideAGroupAreCountedOnce) {
  // A triangle 0 -> 1, 0 -> 2, 1 -> 2: merging 1 and 2 into 0 makes every
  // edge internal.
  PlanGraph graph;
  graph.nodes = {node({0, 0}), node({0, 0}), node({0, 0})};
  graph.edges = {edge(0, 1, 2, 2, 1), edge(0, 2, 2, 2, 1), edge(1, 2, 2, 2, 1)};
  Coarsening coarse = coarsenGraph(graph, {{0, false, {}}, {1, false, {}}});
  ASSERT_EQ(coarse.graph.nodes.size(), 1u);
  EXPECT_TRUE(coarse.graph.edges.empty());
  for (unsigned k = 0; k < 2; ++k)
    EXPECT_DOUBLE_EQ(coarse.graph.nodes[0].strategies[k].comm,
                     evaluatePlan(graph, coarse.expand({k})).comm);
  // A merge inside one group is skipped.
  Coarsening twice =
      coarsenGraph(graph, {{0, false, {}}, {1, false, {}}, {2, false, {}}});
  EXPECT_EQ(twice.graph.nodes.size(), 1u);
}

TEST(CoarsenTest, FollowerAtTheFromEnd) {
  // An argument (node 0, three shardings) used once by node 1.
  PlanGraph graph;
  graph.nodes = {node({0, 0, 0}), node({2, 1})};
  graph.nodes[0].strategies[2].persistentBytes = 4;
  graph.edges = {edge(0, 1, 3, 2, 6)};
  Coarsening coarse = coarsenGraph(graph, {{0, true, {}}});
  ASSERT_EQ(coarse.graph.nodes.size(), 1u);
  EXPECT_EQ(coarse.groupOf, (std::vector<unsigned>{0, 0}));
  EXPECT_EQ(coarse.strategyOf[0], (std::vector<unsigned>{0, 1}));
  EXPECT_EQ(coarse.graph.getNumStrategies(0), 2u);
}

TEST(CoarsenTest, ParallelEdgesAreSummed) {
  PlanGraph graph;
  graph.nodes = {node({0, 0}), node({0, 0}), node({0, 0})};
  // 0 -> 2 and 1 -> 2, with 1 following 0: two coarse edges become one.
  graph.edges = {edge(0, 2, 2, 2, 1), edge(1, 2, 2, 2, 2),
                 edge(0, 1, 2, 2, 100)};
  Coarsening coarse = coarsenGraph(graph, {{2, false, {}}});
  ASSERT_EQ(coarse.graph.edges.size(), 1u);
  EXPECT_DOUBLE_EQ(coarse.graph.edges[0].time[1], 3);
  EXPECT_DOUBLE_EQ(coarse.graph.edges[0].time[0], 0);
}

} // namespace

TEST(CoarsenTest, FollowerKeepsItsLeadersSharding) {
  // Node 1 follows node 0 over a free edge: its strategy 1 (a finer
  // sharding, a free slice) is cheaper on its own, but only strategy k
  // keeps the sharding of the leader's strategy k; strategy 1 of node 0 has
  // no such follower strategy and takes the cheapest.
  PlanGraph graph;
  graph.nodes = {node({1, 1, 1}), node({5, 1})};
  PlanEdge free;
  free.from = 0;
  free.to = 1;
  free.time.assign(6, 0);
  free.bytes.assign(6, 0);
  graph.edges = {free};
  Coarsening greedy = coarsenGraph(graph, {{0, false, {}}});
  EXPECT_EQ(greedy.strategyOf[1], (std::vector<unsigned>{1, 1, 1}));
  // keeps[k * 2 + l]: (0, 0) and (2, 0) keep; node 0's strategy 1 none.
  Coarsening kept = coarsenGraph(
      graph, {{0, false, {true, false, false, false, true, false}}});
  EXPECT_EQ(kept.strategyOf[1], (std::vector<unsigned>{0, 1, 0}));
  ASSERT_EQ(kept.graph.nodes.size(), 1u);
  EXPECT_DOUBLE_EQ(kept.graph.nodes[0].strategies[0].compute, 6);
  EXPECT_DOUBLE_EQ(kept.graph.nodes[0].strategies[1].compute, 2);
}
