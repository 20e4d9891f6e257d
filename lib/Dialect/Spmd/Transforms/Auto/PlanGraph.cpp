//===- PlanGraph.cpp - the decision graph of spmd-auto-partition ----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "PlanGraph.h"

#include <algorithm>
#include <cassert>

namespace mlir::tessera::spmd::autopart {

PlanTotals evaluatePlan(const PlanGraph &graph,
                        llvm::ArrayRef<unsigned> choice) {
  assert(choice.size() == graph.nodes.size() && "one strategy per node");
  PlanTotals totals;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const StrategyCost &cost = graph.nodes[n].strategies[choice[n]];
    totals.compute += cost.compute;
    totals.comm += cost.comm;
    totals.commBytes += cost.commBytes;
    totals.persistentBytes += cost.persistentBytes;
    totals.peakWorkBytes = std::max(totals.peakWorkBytes, cost.workBytes);
  }
  for (const PlanEdge &edge : graph.edges) {
    size_t index = static_cast<size_t>(choice[edge.from]) *
                       graph.getNumStrategies(edge.to) +
                   choice[edge.to];
    totals.comm += edge.time[index];
    totals.commBytes += edge.bytes[index];
  }
  return totals;
}

} // namespace mlir::tessera::spmd::autopart
