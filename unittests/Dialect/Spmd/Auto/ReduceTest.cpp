//===- ReduceTest.cpp - exact eliminations before the ILP -----------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "Reduce.h"

#include <gtest/gtest.h>

#include <random>

using namespace mlir::tessera::spmd::autopart;

namespace {

/// The weight of `choice` in `graph`.
double weightOf(const WeightedGraph &graph,
                const std::vector<unsigned> &choice) {
  double total = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n)
    total += graph.nodes[n][choice[n]];
  for (const WeightedGraph::Edge &edge : graph.edges)
    total += edge.weights[choice[edge.from] * graph.nodes[edge.to].size() +
                          choice[edge.to]];
  return total;
}

/// A plan of least weight of `graph`, by enumeration.
std::vector<unsigned> bestChoice(const WeightedGraph &graph) {
  std::vector<unsigned> choice(graph.nodes.size(), 0), best = choice;
  double bestWeight = weightOf(graph, choice);
  while (true) {
    size_t n = 0;
    while (n < choice.size() && ++choice[n] == graph.nodes[n].size())
      choice[n++] = 0;
    if (n == choice.size())
      return best;
    if (double w = weightOf(graph, choice); w < bestWeight) {
      bestWeight = w;
      best = choice;
    }
  }
}

WeightedGraph::Edge randomEdge(std::mt19937 &random, unsigned from, unsigned to,
                               size_t size) {
  std::uniform_int_distribution<int> weight(0, 9);
  WeightedGraph::Edge edge{from, to, {}};
  for (size_t i = 0; i < size; ++i)
    edge.weights.push_back(weight(random));
  return edge;
}

TEST(ReduceTest, ChainBecomesOneNode) {
  WeightedGraph graph;
  for (int n = 0; n < 50; ++n)
    graph.nodes.push_back({1, 2, 3});
  for (unsigned n = 0; n + 1 < 50; ++n)
    graph.edges.push_back({n, n + 1, {0, 5, 5, 5, 0, 5, 5, 5, 0}});
  Reduction reduction(graph);
  EXPECT_EQ(reduction.getKernel().nodes.size(), 1u);
  EXPECT_TRUE(reduction.getKernel().edges.empty());
  EXPECT_EQ(reduction.getNumComponents(), 1u);
  std::vector<unsigned> choice =
      reduction.expand(bestChoice(reduction.getKernel()));
  EXPECT_EQ(choice, std::vector<unsigned>(50, 0));
}

TEST(ReduceTest, K4IsLeftAlone) {
  WeightedGraph graph;
  for (int n = 0; n < 4; ++n)
    graph.nodes.push_back({0, 0});
  for (unsigned a = 0; a < 4; ++a)
    for (unsigned b = a + 1; b < 4; ++b)
      graph.edges.push_back({a, b, {1, 0, 0, 1}});
  Reduction reduction(graph);
  EXPECT_EQ(reduction.getKernel().nodes.size(), 4u);
  EXPECT_EQ(reduction.getKernel().edges.size(), 6u);
}

TEST(ReduceTest, ComponentsAreNumberedInOrder) {
  // Two K4s side by side and an isolated node.
  WeightedGraph graph;
  for (int n = 0; n < 9; ++n)
    graph.nodes.push_back({0, 1});
  for (unsigned base : {0u, 4u})
    for (unsigned a = 0; a < 4; ++a)
      for (unsigned b = a + 1; b < 4; ++b)
        graph.edges.push_back({base + a, base + b, {1, 0, 0, 1}});
  Reduction reduction(graph);
  ASSERT_EQ(reduction.getKernel().nodes.size(), 9u);
  EXPECT_EQ(reduction.getNumComponents(), 3u);
  EXPECT_EQ(reduction.getComponents()[0], 0u);
  EXPECT_EQ(reduction.getComponents()[4], 1u);
  EXPECT_EQ(reduction.getComponents()[8], 2u);
}

TEST(ReduceTest, ExactOnRandomGraphs) {
  // Fixed-seed sample of small graphs (trees, cycles, parallel edges and
  // dense ones): the kernel's best plan expands to a best plan.
  std::mt19937 random(35);
  for (int trial = 0; trial < 200; ++trial) {
    unsigned numNodes = 2 + random() % 6;
    WeightedGraph graph;
    for (unsigned n = 0; n < numNodes; ++n) {
      std::vector<double> weights(1 + random() % 3);
      for (double &w : weights)
        w = random() % 10;
      graph.nodes.push_back(weights);
    }
    unsigned numEdges = random() % (2 * numNodes);
    for (unsigned e = 0; e < numEdges; ++e) {
      unsigned a = random() % numNodes, b = random() % numNodes;
      if (a == b)
        continue;
      graph.edges.push_back(randomEdge(
          random, a, b, graph.nodes[a].size() * graph.nodes[b].size()));
    }
    Reduction reduction(graph);
    std::vector<unsigned> choice =
        reduction.expand(bestChoice(reduction.getKernel()));
    ASSERT_EQ(choice.size(), numNodes);
    for (unsigned n = 0; n < numNodes; ++n)
      ASSERT_LT(choice[n], graph.nodes[n].size());
    EXPECT_DOUBLE_EQ(weightOf(graph, choice),
                     weightOf(graph, bestChoice(graph)))
        << "trial " << trial;
  }
}

} // namespace
