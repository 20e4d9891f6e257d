//===- Reduce.h - exact eliminations before the ILP -------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Exact reductions of a decision graph whose objective is a sum of node and
// edge weights (no memory constraint): a node with one neighbour becomes
// part of that neighbour's weights (for each of its strategies, the
// node's best answer), a node with two becomes an edge between them (for
// each pair of their strategies, the node's best answer), and parallel
// edges are summed. Chains, trees and series-parallel graphs (an MLP, the
// residual connections of a transformer) shrink to one node per connected
// component; what is left (the kernel) goes to the ILP, one program per
// connected component.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_AUTO_REDUCE_H
#define TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_AUTO_REDUCE_H

#include "llvm/ADT/ArrayRef.h"

#include <vector>

namespace mlir::tessera::spmd::autopart {

/// A decision graph with one objective weight per node strategy and per
/// edge strategy pair.
struct WeightedGraph {
  struct Edge {
    unsigned from = 0;
    unsigned to = 0;
    /// `weights[k * numTo + l]` for strategy k of `from` and l of `to`.
    std::vector<double> weights;
  };
  std::vector<std::vector<double>> nodes;
  std::vector<Edge> edges;
};

/// The kernel of a graph after the eliminations, and the way back.
class Reduction {
public:
  /// Eliminates nodes of degree 1 and 2 until none is left (a component
  /// keeps one node). Deterministic.
  explicit Reduction(const WeightedGraph &graph);

  /// The graph that is left.
  const WeightedGraph &getKernel() const { return kernel; }
  /// Per kernel node: its original node.
  llvm::ArrayRef<unsigned> getKernelNodes() const { return kernelNodes; }
  /// The connected components of the kernel: per kernel node, its
  /// component (numbered from 0 in order of their first node).
  llvm::ArrayRef<unsigned> getComponents() const { return components; }
  unsigned getNumComponents() const { return numComponents; }

  /// The strategy of every original node given one per kernel node.
  std::vector<unsigned> expand(llvm::ArrayRef<unsigned> kernelChoice) const;

private:
  /// A node eliminated into `first` (and `second`, for a degree-2 node):
  /// its strategy per strategy of `first` (times those of `second`).
  struct Elimination {
    unsigned node = 0;
    unsigned first = 0;
    unsigned second = ~0u;
    unsigned numSecond = 1;
    std::vector<unsigned> answer;
  };

  unsigned numNodes = 0;
  WeightedGraph kernel;
  std::vector<unsigned> kernelNodes;
  std::vector<unsigned> components;
  unsigned numComponents = 0;
  std::vector<Elimination> eliminations;
};

} // namespace mlir::tessera::spmd::autopart

#endif // TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_AUTO_REDUCE_H
