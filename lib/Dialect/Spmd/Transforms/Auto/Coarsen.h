//===- Coarsen.h - merging nodes that follow one another --------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Coarsening of a decision graph before the ILP (XLA's auto-sharding calls
// it "follow"): a node that follows another along an edge (an elementwise
// op after its producer, an argument used by one op) stops being a
// decision of its own; for each strategy of the node it follows, it takes
// its best answer (the strategy with the cheapest reshard on that edge
// plus its own cost), so chains of such nodes become one node.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_AUTO_COARSEN_H
#define TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_AUTO_COARSEN_H

#include "PlanGraph.h"

#include <vector>

namespace mlir::tessera::spmd::autopart {

/// One merge: the node at the `to` end of edge `edge` follows the node at
/// its `from` end (or the other way round when `followerIsFrom`).
struct FollowMerge {
  unsigned edge = 0;
  bool followerIsFrom = false;
  /// Per strategy pair of the edge's ends (`from * numTo + to`, as the
  /// edge's costs): whether the follower's strategy keeps the value's
  /// sharding as the leader's gives it. When not empty, the follower
  /// answers with such a strategy where the leader's strategy has one: a
  /// follower's cheaper answer on another sharding (a finer one is a free
  /// slice) would be paid for by its other neighbours, which the merge does
  /// not see.
  std::vector<bool> keeps;
};

/// A coarse graph and the way back to the original nodes.
struct Coarsening {
  PlanGraph graph;
  /// Per original node: its coarse node.
  std::vector<unsigned> groupOf;
  /// Per original node, per strategy of its coarse node: the node's own
  /// strategy.
  std::vector<std::vector<unsigned>> strategyOf;

  /// The strategy of every original node under `coarseChoice`.
  std::vector<unsigned> expand(llvm::ArrayRef<unsigned> coarseChoice) const;
};

/// Applies `merges` in order (a merge whose two ends are already in one
/// group is skipped) and builds the coarse graph: a group's strategy costs
/// sum its members' (work bytes: the largest) plus the edges inside it;
/// edges between two groups are summed into one. Deterministic.
Coarsening coarsenGraph(const PlanGraph &graph,
                        llvm::ArrayRef<FollowMerge> merges);

} // namespace mlir::tessera::spmd::autopart

#endif // TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_AUTO_COARSEN_H
