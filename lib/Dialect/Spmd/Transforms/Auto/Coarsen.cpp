//===- Coarsen.cpp - merging nodes that follow one another ----------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "Coarsen.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <numeric>

namespace mlir::tessera::spmd::autopart {

std::vector<unsigned>
Coarsening::expand(llvm::ArrayRef<unsigned> coarseChoice) const {
  std::vector<unsigned> choice(groupOf.size());
  for (size_t n = 0; n < groupOf.size(); ++n)
    choice[n] = strategyOf[n][coarseChoice[groupOf[n]]];
  return choice;
}

/// `cost` plus `other`: sums, except work bytes (the larger).
static void addCost(StrategyCost &cost, const StrategyCost &other) {
  cost.compute += other.compute;
  cost.comm += other.comm;
  cost.commBytes += other.commBytes;
  cost.persistentBytes += other.persistentBytes;
  cost.workBytes = std::max(cost.workBytes, other.workBytes);
}

namespace {
/// The state of the merges: a group per leader node.
class Merger {
public:
  explicit Merger(const PlanGraph &graph) : graph(graph) {
    size_t n = graph.nodes.size();
    leader.resize(n);
    std::iota(leader.begin(), leader.end(), 0u);
    strategyOf.resize(n);
    members.resize(n);
    costs.resize(n);
    incident.resize(n);
    stamp.assign(n, 0);
    for (unsigned i = 0; i < n; ++i) {
      strategyOf[i].resize(graph.getNumStrategies(i));
      std::iota(strategyOf[i].begin(), strategyOf[i].end(), 0u);
      members[i] = {i};
      costs[i] = graph.nodes[i].strategies;
    }
    for (unsigned e = 0; e < graph.edges.size(); ++e) {
      incident[graph.edges[e].from].push_back(e);
      incident[graph.edges[e].to].push_back(e);
    }
  }

  void merge(const FollowMerge &m);
  Coarsening finish();

private:
  /// The time and bytes of edge `e` with its ends at their strategies.
  std::pair<double, double> edgeCost(unsigned e, unsigned fromStrategy,
                                     unsigned toStrategy) const {
    const PlanEdge &edge = graph.edges[e];
    size_t index =
        static_cast<size_t>(fromStrategy) * graph.getNumStrategies(edge.to) +
        toStrategy;
    return {edge.time[index], edge.bytes[index]};
  }

  const PlanGraph &graph;
  std::vector<unsigned> leader;
  std::vector<std::vector<unsigned>> strategyOf;
  std::vector<std::vector<unsigned>> members;
  std::vector<std::vector<StrategyCost>> costs;
  std::vector<std::vector<unsigned>> incident;
  /// Marks the members of the follower group of the current merge.
  std::vector<unsigned> stamp;
  unsigned mergeCount = 0;
};
} // namespace

void Merger::merge(const FollowMerge &m) {
  const PlanEdge &edge = graph.edges[m.edge];
  unsigned lead = m.followerIsFrom ? edge.to : edge.from;
  unsigned follow = m.followerIsFrom ? edge.from : edge.to;
  unsigned g = leader[lead], f = leader[follow];
  if (g == f)
    return;
  size_t numG = costs[g].size(), numF = costs[f].size();
  // The follower's best answer to each strategy of the leader's group.
  std::vector<unsigned> answer(numG);
  auto keeps = [&](unsigned leadStrategy, unsigned followStrategy) {
    if (m.keeps.empty())
      return true;
    size_t index = m.followerIsFrom ? static_cast<size_t>(followStrategy) *
                                              graph.getNumStrategies(edge.to) +
                                          leadStrategy
                                    : static_cast<size_t>(leadStrategy) *
                                              graph.getNumStrategies(edge.to) +
                                          followStrategy;
    return static_cast<bool>(m.keeps[index]);
  };
  for (size_t k = 0; k < numG; ++k) {
    unsigned best = 0;
    bool bestKeeps = false;
    double bestTime = 0, bestBytes = 0;
    for (unsigned l = 0; l < numF; ++l) {
      unsigned leadStrategy = strategyOf[lead][k];
      unsigned followStrategy = strategyOf[follow][l];
      bool kept = keeps(leadStrategy, followStrategy);
      auto [time, bytes] = m.followerIsFrom
                               ? edgeCost(m.edge, followStrategy, leadStrategy)
                               : edgeCost(m.edge, leadStrategy, followStrategy);
      const StrategyCost &own = costs[f][l];
      time += own.compute + own.comm;
      double memory = own.persistentBytes + own.workBytes + bytes;
      if (l == 0 || (kept && !bestKeeps) ||
          (kept == bestKeeps &&
           (time < bestTime || (time == bestTime && memory < bestBytes)))) {
        best = l;
        bestKeeps = kept;
        bestTime = time;
        bestBytes = memory;
      }
    }
    answer[k] = best;
  }
  // The follower's group now answers to the leader's strategies.
  for (unsigned member : members[f]) {
    std::vector<unsigned> mapped(numG);
    for (size_t k = 0; k < numG; ++k)
      mapped[k] = strategyOf[member][answer[k]];
    strategyOf[member] = std::move(mapped);
  }
  std::vector<StrategyCost> merged = costs[g];
  for (size_t k = 0; k < numG; ++k)
    addCost(merged[k], costs[f][answer[k]]);
  ++mergeCount;
  for (unsigned member : members[f]) {
    leader[member] = g;
    stamp[member] = mergeCount;
  }
  // The edges between the two groups become costs inside the group (each
  // once: seen from the follower's members, whose ends are now both in g).
  for (unsigned member : members[f])
    for (unsigned e : incident[member]) {
      const PlanEdge &inner = graph.edges[e];
      unsigned other = inner.from == member ? inner.to : inner.from;
      if (leader[other] != g)
        continue;
      // An edge between two follower members was counted in f's costs.
      if (stamp[other] == mergeCount)
        continue;
      for (size_t k = 0; k < numG; ++k) {
        auto [time, bytes] =
            edgeCost(e, strategyOf[inner.from][k], strategyOf[inner.to][k]);
        merged[k].comm += time;
        merged[k].commBytes += bytes;
      }
    }
  costs[g] = std::move(merged);
  costs[f].clear();
  members[g].insert(members[g].end(), members[f].begin(), members[f].end());
  members[f].clear();
}

Coarsening Merger::finish() {
  Coarsening result;
  size_t n = graph.nodes.size();
  std::vector<unsigned> coarseIndex(n, ~0u);
  for (unsigned i = 0; i < n; ++i)
    if (leader[i] == i) {
      coarseIndex[i] = result.graph.nodes.size();
      result.graph.nodes.push_back({costs[i]});
    }
  result.groupOf.resize(n);
  for (unsigned i = 0; i < n; ++i)
    result.groupOf[i] = coarseIndex[leader[i]];
  result.strategyOf = strategyOf;
  llvm::DenseMap<std::pair<unsigned, unsigned>, unsigned> edgeIndex;
  for (const PlanEdge &edge : graph.edges) {
    unsigned a = result.groupOf[edge.from], b = result.groupOf[edge.to];
    if (a == b)
      continue;
    bool swapped = a > b;
    if (swapped)
      std::swap(a, b);
    auto [it, inserted] =
        edgeIndex.try_emplace({a, b}, result.graph.edges.size());
    if (inserted) {
      PlanEdge coarse;
      coarse.from = a;
      coarse.to = b;
      size_t size = static_cast<size_t>(result.graph.getNumStrategies(a)) *
                    result.graph.getNumStrategies(b);
      coarse.time.assign(size, 0);
      coarse.bytes.assign(size, 0);
      result.graph.edges.push_back(std::move(coarse));
    }
    PlanEdge &coarse = result.graph.edges[it->second];
    unsigned numA = result.graph.getNumStrategies(a);
    unsigned numB = result.graph.getNumStrategies(b);
    for (unsigned k = 0; k < numA; ++k)
      for (unsigned l = 0; l < numB; ++l) {
        unsigned fromGroupStrategy = swapped ? l : k;
        unsigned toGroupStrategy = swapped ? k : l;
        auto [time, bytes] =
            edgeCost(static_cast<unsigned>(&edge - graph.edges.data()),
                     strategyOf[edge.from][fromGroupStrategy],
                     strategyOf[edge.to][toGroupStrategy]);
        coarse.time[k * numB + l] += time;
        coarse.bytes[k * numB + l] += bytes;
      }
  }
  return result;
}

Coarsening coarsenGraph(const PlanGraph &graph,
                        llvm::ArrayRef<FollowMerge> merges) {
  Merger merger(graph);
  for (const FollowMerge &m : merges)
    merger.merge(m);
  return merger.finish();
}

} // namespace mlir::tessera::spmd::autopart
