//===- IlpSolver.h - the 0-1 ILP of a decision graph, with CBC --*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The integer linear program of a decision graph (the formulation of XLA's
// auto-sharding and Alpa): a 0-1 variable per node and strategy (one per
// node), a variable per edge and strategy pair tied to both ends'
// variables, the estimated step time as the objective and the per-device
// peak under a limit. Solved with COIN-OR CBC.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_AUTO_ILPSOLVER_H
#define TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_AUTO_ILPSOLVER_H

#include "PlanGraph.h"

#include <optional>
#include <vector>

namespace mlir::tessera::spmd::autopart {

struct IlpOptions {
  /// CBC's time limit, seconds.
  double timeLimit = 10;
  /// CBC's limit on branch-and-bound nodes (-1: none).
  long maxNodes = -1;
  /// The per-device peak limit, bytes (std::nullopt: none).
  std::optional<double> memoryLimit;
  /// Give CBC a feasible plan to start from (a greedy one), so that a limit
  /// that stops it always leaves a plan.
  bool mipStart = true;
};

enum class IlpStatus {
  /// Proven optimal.
  Optimal,
  /// A limit stopped the solver; `choice` is its best plan.
  Incumbent,
  /// No plan satisfies the constraints.
  Infeasible,
  /// A limit stopped the solver before it found a plan (only without a
  /// start, or when no start fits the memory limit).
  NoSolution,
};

struct IlpResult {
  IlpStatus status = IlpStatus::NoSolution;
  /// A strategy per node (Optimal and Incumbent).
  std::vector<unsigned> choice;
  /// The size of the graph CBC solved (after the eliminations of
  /// Reduce.h, when there is no memory limit) and of its programs (one per
  /// batch of connected components).
  unsigned numNodes = 0;
  unsigned numEdges = 0;
  unsigned numPrograms = 0;
  unsigned numVariables = 0;
  unsigned numConstraints = 0;
};

/// The plan of least estimated step time whose peak fits
/// `options.memoryLimit` (ties: fewer collective bytes, then fewer
/// persistent bytes). Without a limit, nodes of degree 1 and 2 are first
/// eliminated exactly (Reduce.h) and each batch of connected components of
/// what is left is its own program; with one, the plan without the limit
/// is taken when it fits, else the whole graph is one program.
IlpResult solveMinimumTime(const PlanGraph &graph, const IlpOptions &options);

/// The plan of least estimated per-device peak (ties: less time); the
/// memory limit is ignored.
IlpResult solveMinimumPeak(const PlanGraph &graph, const IlpOptions &options);

} // namespace mlir::tessera::spmd::autopart

#endif // TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_AUTO_ILPSOLVER_H
