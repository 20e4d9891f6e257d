//===- PlanGraph.h - the decision graph of spmd-auto-partition --*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The problem spmd-auto-partition solves, without IR: decision nodes (an op,
// a function argument, or a group of them after coarsening), each with a
// list of strategies and their costs, and edges between nodes whose cost
// depends on both ends' strategies (the reshard of the value between
// them). Pure C++, tested in unittests/Dialect/Spmd.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_AUTO_PLANGRAPH_H
#define TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_AUTO_PLANGRAPH_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <vector>

namespace mlir::tessera::spmd::autopart {

/// The cost of one strategy of a node.
struct StrategyCost {
  /// Compute time per device, seconds.
  double compute = 0;
  /// Communication time of the node's own collectives (the all-reduce of
  /// sharded reduction factors), seconds.
  double comm = 0;
  /// Bytes each device sends in those collectives.
  double commBytes = 0;
  /// Bytes per device live for the whole step (arguments).
  double persistentBytes = 0;
  /// Bytes per device live while the node's ops run (their operands and
  /// results; a group of nodes: the largest of its members).
  double workBytes = 0;
};

/// A decision node: exactly one strategy is chosen.
struct PlanNode {
  std::vector<StrategyCost> strategies;
};

/// The reshard cost between the strategies of two nodes:
/// `time[k * numTo + l]` for strategy k of `from` and l of `to`.
struct PlanEdge {
  unsigned from = 0;
  unsigned to = 0;
  std::vector<double> time;
  std::vector<double> bytes;
};

/// A decision graph.
struct PlanGraph {
  std::vector<PlanNode> nodes;
  std::vector<PlanEdge> edges;

  unsigned getNumStrategies(unsigned node) const {
    return nodes[node].strategies.size();
  }
};

/// The totals of a plan: one strategy per node.
struct PlanTotals {
  double compute = 0;
  double comm = 0;
  double commBytes = 0;
  double persistentBytes = 0;
  double peakWorkBytes = 0;

  /// The estimated step time: compute plus communication.
  double getTime() const { return compute + comm; }
  /// The estimated per-device peak: the arguments plus the largest working
  /// set of one node.
  double getPeakBytes() const { return persistentBytes + peakWorkBytes; }
};

/// The totals of `choice` (a strategy per node of `graph`).
PlanTotals evaluatePlan(const PlanGraph &graph,
                        llvm::ArrayRef<unsigned> choice);

} // namespace mlir::tessera::spmd::autopart

#endif // TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_AUTO_PLANGRAPH_H
