//===- Reduce.cpp - exact eliminations before the ILP ---------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "Reduce.h"

#include <deque>
#include <map>

namespace mlir::tessera::spmd::autopart {

namespace {
/// The graph while nodes are eliminated.
class Eliminator {
public:
  explicit Eliminator(const WeightedGraph &graph)
      : nodes(graph.nodes), alive(graph.nodes.size(), true),
        adjacent(graph.nodes.size()) {
    for (const WeightedGraph::Edge &edge : graph.edges)
      addEdge(edge.from, edge.to, edge.weights);
  }

  /// The weight of the edge between `x` and `y` at strategies `k` and `l`.
  double get(unsigned e, unsigned x, unsigned k, unsigned l) const {
    const WeightedGraph::Edge &edge = edges[e];
    size_t numTo = nodes[edge.to].size();
    return edge.from == x ? edge.weights[k * numTo + l]
                          : edge.weights[l * numTo + k];
  }

  /// Adds `weights` (indexed [k * |to| + l]) to the edge between `from`
  /// and `to`, making one if there is none.
  void addEdge(unsigned from, unsigned to, const std::vector<double> &weights) {
    if (from == to)
      return;
    auto it = adjacent[from].find(to);
    if (it == adjacent[from].end()) {
      unsigned e = edges.size();
      edges.push_back({from, to, weights});
      adjacent[from][to] = e;
      adjacent[to][from] = e;
      return;
    }
    WeightedGraph::Edge &edge = edges[it->second];
    size_t numTo = nodes[to].size();
    size_t numEdgeTo = nodes[edge.to].size();
    for (size_t k = 0; k < nodes[from].size(); ++k)
      for (size_t l = 0; l < numTo; ++l) {
        size_t index =
            edge.from == from ? k * numEdgeTo + l : l * numEdgeTo + k;
        edge.weights[index] += weights[k * numTo + l];
      }
  }

  void removeEdge(unsigned x, unsigned y) {
    adjacent[x].erase(y);
    adjacent[y].erase(x);
  }

  std::vector<std::vector<double>> nodes;
  std::vector<bool> alive;
  std::vector<WeightedGraph::Edge> edges;
  /// Per node: neighbour to edge (ordered, for determinism).
  std::vector<std::map<unsigned, unsigned>> adjacent;
};
} // namespace

Reduction::Reduction(const WeightedGraph &graph) {
  numNodes = graph.nodes.size();
  Eliminator g(graph);
  std::deque<unsigned> work;
  std::vector<bool> queued(numNodes, false);
  for (unsigned n = 0; n < numNodes; ++n)
    if (g.adjacent[n].size() == 1 || g.adjacent[n].size() == 2) {
      work.push_back(n);
      queued[n] = true;
    }
  auto requeue = [&](unsigned n) {
    size_t degree = g.adjacent[n].size();
    if (!queued[n] && g.alive[n] && (degree == 1 || degree == 2)) {
      work.push_back(n);
      queued[n] = true;
    }
  };
  while (!work.empty()) {
    unsigned b = work.front();
    work.pop_front();
    queued[b] = false;
    if (!g.alive[b])
      continue;
    const std::vector<double> &own = g.nodes[b];
    size_t numB = own.size();
    if (g.adjacent[b].size() == 1) {
      auto [a, e] = *g.adjacent[b].begin();
      size_t numA = g.nodes[a].size();
      Elimination record;
      record.node = b;
      record.first = a;
      record.answer.resize(numA);
      for (size_t k = 0; k < numA; ++k) {
        double best = 0;
        for (unsigned l = 0; l < numB; ++l) {
          double weight = own[l] + g.get(e, a, k, l);
          if (l == 0 || weight < best) {
            best = weight;
            record.answer[k] = l;
          }
        }
        g.nodes[a][k] += best;
      }
      g.removeEdge(a, b);
      g.alive[b] = false;
      eliminations.push_back(std::move(record));
      requeue(a);
      continue;
    }
    if (g.adjacent[b].size() != 2)
      continue;
    auto first = g.adjacent[b].begin(), second = std::next(first);
    auto [a, ea] = *first;
    auto [c, ec] = *second;
    size_t numA = g.nodes[a].size(), numC = g.nodes[c].size();
    Elimination record;
    record.node = b;
    record.first = a;
    record.second = c;
    record.numSecond = numC;
    record.answer.resize(numA * numC);
    std::vector<double> weights(numA * numC);
    for (size_t k = 0; k < numA; ++k)
      for (size_t m = 0; m < numC; ++m) {
        double best = 0;
        for (unsigned l = 0; l < numB; ++l) {
          double weight = own[l] + g.get(ea, a, k, l) + g.get(ec, c, m, l);
          if (l == 0 || weight < best) {
            best = weight;
            record.answer[k * numC + m] = l;
          }
        }
        weights[k * numC + m] = best;
      }
    g.removeEdge(a, b);
    g.removeEdge(b, c);
    g.alive[b] = false;
    g.addEdge(a, c, weights);
    eliminations.push_back(std::move(record));
    requeue(a);
    requeue(c);
  }
  // The kernel: the nodes left and the edges between them.
  std::vector<unsigned> index(numNodes, ~0u);
  for (unsigned n = 0; n < numNodes; ++n)
    if (g.alive[n]) {
      index[n] = kernel.nodes.size();
      kernel.nodes.push_back(g.nodes[n]);
      kernelNodes.push_back(n);
    }
  for (unsigned n = 0; n < numNodes; ++n)
    for (auto [m, e] : g.adjacent[n])
      if (n < m) {
        const WeightedGraph::Edge &edge = g.edges[e];
        kernel.edges.push_back(
            {index[edge.from], index[edge.to], edge.weights});
      }
  // Its components.
  std::vector<unsigned> parent(kernel.nodes.size());
  for (unsigned n = 0; n < parent.size(); ++n)
    parent[n] = n;
  auto find = [&](unsigned n) {
    while (parent[n] != n)
      n = parent[n] = parent[parent[n]];
    return n;
  };
  for (const WeightedGraph::Edge &edge : kernel.edges) {
    unsigned x = find(edge.from), y = find(edge.to);
    if (x != y)
      parent[std::max(x, y)] = std::min(x, y);
  }
  components.assign(kernel.nodes.size(), 0);
  std::vector<unsigned> number(kernel.nodes.size(), ~0u);
  for (unsigned n = 0; n < kernel.nodes.size(); ++n) {
    unsigned root = find(n);
    if (number[root] == ~0u)
      number[root] = numComponents++;
    components[n] = number[root];
  }
}

std::vector<unsigned>
Reduction::expand(llvm::ArrayRef<unsigned> kernelChoice) const {
  std::vector<unsigned> choice(numNodes, 0);
  for (auto [k, n] : llvm::enumerate(kernelNodes))
    choice[n] = kernelChoice[k];
  for (auto it = eliminations.rbegin(); it != eliminations.rend(); ++it) {
    size_t index = choice[it->first];
    if (it->second != ~0u)
      index = index * it->numSecond + choice[it->second];
    choice[it->node] = it->answer[index];
  }
  return choice;
}

} // namespace mlir::tessera::spmd::autopart
