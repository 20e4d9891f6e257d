//===- IlpSolver.cpp - the 0-1 ILP of a decision graph, with CBC ----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Variables: s[n][k] in {0, 1}, one per node and strategy, sum_k s[n][k] =
// 1; for an edge whose ends both have several strategies and whose cost is
// not zero, e[k][l] in [0, 1] with sum_l e[k][l] = s[from][k] and sum_k
// e[k][l] = s[to][l] (integral whenever the s are; on trees the LP
// relaxation is already integral). Edges with a one-strategy end add their
// cost to the other end's variables. Memory: a continuous P (the persistent
// bytes) and, per node, P + sum_k work[n][k] s[n][k] <= limit.
//
//===----------------------------------------------------------------------===//

#include "IlpSolver.h"
#include "Reduce.h"

#include "llvm/ADT/STLExtras.h"

#include <coin/Cbc_C_Interface.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <tuple>

namespace mlir::tessera::spmd::autopart {

namespace {

/// Objective weights: nanoseconds, then collective KiB and persistent KiB as
/// tie-breakers well below one nanosecond per MiB.
constexpr double kTimeWeight = 1e9;
constexpr double kCommByteWeight = 1e-2 / 1024;
constexpr double kPersistentByteWeight = 1e-4 / 1024;
constexpr double kInfinity = std::numeric_limits<double>::max();

/// A sparse linear program, built row by row.
class Program {
public:
  unsigned addColumn(double lower, double upper, double objective,
                     bool integer) {
    lowers.push_back(lower);
    uppers.push_back(upper);
    objectives.push_back(objective);
    integers.push_back(integer);
    return lowers.size() - 1;
  }
  void addObjective(unsigned column, double value) {
    objectives[column] += value;
  }
  /// Adds the row lower <= sum coefficient * column <= upper.
  void addRow(const std::vector<std::pair<unsigned, double>> &terms,
              double lower, double upper) {
    unsigned row = rowLowers.size();
    for (const auto &[column, value] : terms)
      entries.emplace_back(column, row, value);
    rowLowers.push_back(lower);
    rowUppers.push_back(upper);
  }
  unsigned getNumColumns() const { return lowers.size(); }
  unsigned getNumRows() const { return rowLowers.size(); }

  /// Solves with CBC, from `start` (values of the integer columns) if not
  /// empty; `solution` gets the best solution, if any.
  IlpStatus solve(const IlpOptions &options,
                  const std::vector<std::pair<int, double>> &start,
                  std::vector<double> &solution);

private:
  std::vector<double> lowers, uppers, objectives;
  std::vector<bool> integers;
  std::vector<std::tuple<unsigned, unsigned, double>> entries;
  std::vector<double> rowLowers, rowUppers;
};

IlpStatus Program::solve(const IlpOptions &options,
                         const std::vector<std::pair<int, double>> &start,
                         std::vector<double> &solution) {
  std::sort(entries.begin(), entries.end());
  unsigned numColumns = getNumColumns();
  std::vector<CoinBigIndex> starts(numColumns + 1, 0);
  std::vector<int> rows;
  std::vector<double> values;
  rows.reserve(entries.size());
  values.reserve(entries.size());
  for (const auto &[column, row, value] : entries) {
    ++starts[column + 1];
    rows.push_back(static_cast<int>(row));
    values.push_back(value);
  }
  for (unsigned c = 0; c < numColumns; ++c)
    starts[c + 1] += starts[c];
  Cbc_Model *model = Cbc_newModel();
  Cbc_loadProblem(model, static_cast<int>(numColumns),
                  static_cast<int>(getNumRows()), starts.data(), rows.data(),
                  values.data(), lowers.data(), uppers.data(),
                  objectives.data(), rowLowers.data(), rowUppers.data());
  for (unsigned c = 0; c < numColumns; ++c)
    if (integers[c])
      Cbc_setInteger(model, static_cast<int>(c));
  Cbc_setLogLevel(model, 0);
  // The relaxation of these programs is integral or nearly (on trees it is
  // exactly): CBC's preprocessing, cuts and heuristics cost more than they
  // save.
  Cbc_setParameter(model, "preprocess", "off");
  Cbc_setParameter(model, "cuts", "off");
  Cbc_setParameter(model, "heuristicsOnOff", "off");
  std::string seconds = std::to_string(std::max(0.0, options.timeLimit));
  Cbc_setParameter(model, "sec", seconds.c_str());
  if (options.maxNodes >= 0) {
    std::string nodes = std::to_string(options.maxNodes);
    Cbc_setParameter(model, "maxN", nodes.c_str());
  }
  if (!start.empty()) {
    std::vector<int> indices;
    std::vector<double> startValues;
    for (const auto &[column, value] : start) {
      indices.push_back(column);
      startValues.push_back(value);
    }
    Cbc_setMIPStartI(model, static_cast<int>(indices.size()), indices.data(),
                     startValues.data());
  }
  Cbc_solve(model);
  IlpStatus status;
  const double *best = Cbc_bestSolution(model);
  if (Cbc_isProvenOptimal(model) && best)
    status = IlpStatus::Optimal;
  else if (Cbc_isProvenInfeasible(model))
    status = IlpStatus::Infeasible;
  else if (best)
    status = IlpStatus::Incumbent;
  else
    status = IlpStatus::NoSolution;
  if (best)
    solution.assign(best, best + numColumns);
  Cbc_deleteModel(model);
  return status;
}

/// The variables of a graph's nodes and edges in a Program.
struct Formulation {
  Program program;
  /// Per node: the column of its first strategy (strategies consecutive).
  std::vector<unsigned> firstColumn;
  /// The persistent-bytes column (with a memory graph).
  unsigned persistent = 0;
};

/// The objective weights of `graph`: `timeWeight` on time and the
/// tie-breakers.
WeightedGraph weigh(const PlanGraph &graph, double timeWeight) {
  WeightedGraph w;
  for (const PlanNode &node : graph.nodes) {
    std::vector<double> &weights = w.nodes.emplace_back();
    for (const StrategyCost &cost : node.strategies)
      weights.push_back(timeWeight * (cost.compute + cost.comm) +
                        kCommByteWeight * cost.commBytes +
                        kPersistentByteWeight * cost.persistentBytes);
  }
  for (const PlanEdge &edge : graph.edges) {
    WeightedGraph::Edge &weighted = w.edges.emplace_back();
    weighted.from = edge.from;
    weighted.to = edge.to;
    for (size_t i = 0; i < edge.time.size(); ++i)
      weighted.weights.push_back(timeWeight * edge.time[i] +
                                 kCommByteWeight * edge.bytes[i]);
  }
  return w;
}

/// Builds the node and edge variables of `graph`; with `memory` (the same
/// graph's bytes), the persistent-bytes column too.
Formulation formulate(const WeightedGraph &graph, const PlanGraph *memory) {
  Formulation f;
  Program &p = f.program;
  for (const std::vector<double> &weights : graph.nodes) {
    f.firstColumn.push_back(p.getNumColumns());
    std::vector<std::pair<unsigned, double>> one;
    for (double objective : weights)
      one.emplace_back(p.addColumn(0, 1, objective, /*integer=*/true), 1.0);
    p.addRow(one, 1, 1);
  }
  for (const WeightedGraph::Edge &edge : graph.edges) {
    unsigned numFrom = graph.nodes[edge.from].size();
    unsigned numTo = graph.nodes[edge.to].size();
    auto weight = [&](size_t index) { return edge.weights[index]; };
    bool zero = std::all_of(edge.weights.begin(), edge.weights.end(),
                            [](double w) { return w == 0; });
    if (zero)
      continue;
    // Strategies whose rows (columns) of costs are equal need no variables
    // of their own: the edge's variables are per class of rows and class
    // of columns (e.g. strategies that give the value the same sharding).
    std::vector<unsigned> rowClass(numFrom), columnClass(numTo);
    std::vector<unsigned> rowOf, columnOf; // a representative per class
    {
      std::map<std::vector<double>, unsigned> classes;
      for (unsigned k = 0; k < numFrom; ++k) {
        std::vector<double> row;
        for (unsigned l = 0; l < numTo; ++l)
          row.push_back(weight(static_cast<size_t>(k) * numTo + l));
        auto [it, inserted] = classes.try_emplace(row, rowOf.size());
        if (inserted)
          rowOf.push_back(k);
        rowClass[k] = it->second;
      }
      classes.clear();
      for (unsigned l = 0; l < numTo; ++l) {
        std::vector<double> column;
        for (unsigned k = 0; k < numFrom; ++k)
          column.push_back(weight(static_cast<size_t>(k) * numTo + l));
        auto [it, inserted] = classes.try_emplace(column, columnOf.size());
        if (inserted)
          columnOf.push_back(l);
        columnClass[l] = it->second;
      }
    }
    unsigned numRows = rowOf.size(), numColumns = columnOf.size();
    if (numRows == 1 || numColumns == 1) {
      // The cost is linear in one end's variables.
      for (unsigned k = 0; k < numFrom; ++k)
        for (unsigned l = 0; l < numTo; ++l) {
          if ((numRows == 1 && k != 0) || (numRows != 1 && l != 0))
            continue;
          double w = weight(static_cast<size_t>(k) * numTo + l);
          unsigned column = numRows == 1 ? f.firstColumn[edge.to] + l
                                         : f.firstColumn[edge.from] + k;
          p.addObjective(column, w);
        }
      continue;
    }
    unsigned first = p.getNumColumns();
    for (unsigned r = 0; r < numRows; ++r)
      for (unsigned c = 0; c < numColumns; ++c)
        p.addColumn(0, 1,
                    weight(static_cast<size_t>(rowOf[r]) * numTo + columnOf[c]),
                    /*integer=*/false);
    for (unsigned r = 0; r < numRows; ++r) {
      std::vector<std::pair<unsigned, double>> terms;
      for (unsigned c = 0; c < numColumns; ++c)
        terms.emplace_back(first + r * numColumns + c, 1.0);
      for (unsigned k = 0; k < numFrom; ++k)
        if (rowClass[k] == r)
          terms.emplace_back(f.firstColumn[edge.from] + k, -1.0);
      p.addRow(terms, 0, 0);
    }
    for (unsigned c = 0; c < numColumns; ++c) {
      std::vector<std::pair<unsigned, double>> terms;
      for (unsigned r = 0; r < numRows; ++r)
        terms.emplace_back(first + r * numColumns + c, 1.0);
      for (unsigned l = 0; l < numTo; ++l)
        if (columnClass[l] == c)
          terms.emplace_back(f.firstColumn[edge.to] + l, -1.0);
      p.addRow(terms, 0, 0);
    }
  }
  if (!memory)
    return f;
  // P = the persistent bytes of the chosen strategies.
  f.persistent = p.addColumn(0, kInfinity, 0, /*integer=*/false);
  std::vector<std::pair<unsigned, double>> terms = {{f.persistent, 1.0}};
  for (size_t n = 0; n < memory->nodes.size(); ++n)
    for (size_t k = 0; k < memory->nodes[n].strategies.size(); ++k)
      if (double bytes = memory->nodes[n].strategies[k].persistentBytes)
        terms.emplace_back(f.firstColumn[n] + k, -bytes);
  p.addRow(terms, 0, 0);
  return f;
}

/// The working-set terms of node `n`: sum_k work[n][k] s[n][k].
std::vector<std::pair<unsigned, double>>
workTerms(const PlanGraph &graph, const Formulation &f, size_t n) {
  std::vector<std::pair<unsigned, double>> terms;
  for (size_t k = 0; k < graph.nodes[n].strategies.size(); ++k)
    if (double bytes = graph.nodes[n].strategies[k].workBytes)
      terms.emplace_back(f.firstColumn[n] + k, bytes);
  return terms;
}

/// Solves `f` (the program of `graph`) with `options`, from the plan
/// `start` (a strategy per node) if not empty and `options.mipStart`; fills
/// `result`'s status, sizes and choice.
IlpResult finish(const WeightedGraph &graph, Formulation &f,
                 const IlpOptions &options,
                 const std::vector<unsigned> &start = {}) {
  IlpResult result;
  result.numVariables = f.program.getNumColumns();
  result.numConstraints = f.program.getNumRows();
  result.numNodes = graph.nodes.size();
  result.numEdges = graph.edges.size();
  result.numPrograms = 1;
  std::vector<std::pair<int, double>> startValues;
  if (options.mipStart && start.size() == graph.nodes.size())
    for (size_t n = 0; n < graph.nodes.size(); ++n)
      for (unsigned k = 0; k < graph.nodes[n].size(); ++k)
        startValues.emplace_back(f.firstColumn[n] + k,
                                 start[n] == k ? 1.0 : 0.0);
  std::vector<double> solution;
  result.status = f.program.solve(options, startValues, solution);
  if (solution.empty())
    return result;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    unsigned best = 0;
    for (unsigned k = 1; k < graph.nodes[n].size(); ++k)
      if (solution[f.firstColumn[n] + k] > solution[f.firstColumn[n] + best])
        best = k;
    result.choice.push_back(best);
  }
  return result;
}

/// Each node's strategy of least weight of its own (without its edges):
/// a plan to start from when nothing constrains the plan.
std::vector<unsigned> getGreedyStart(const WeightedGraph &graph) {
  std::vector<unsigned> choice;
  for (const std::vector<double> &weights : graph.nodes)
    choice.push_back(static_cast<unsigned>(
        std::min_element(weights.begin(), weights.end()) - weights.begin()));
  return choice;
}

/// Each node's strategy of least memory (persistent plus working bytes,
/// then time): the plan with the smallest peak a node at a time finds.
std::vector<unsigned> getLeastMemoryStart(const PlanGraph &graph) {
  std::vector<unsigned> choice;
  for (const PlanNode &node : graph.nodes) {
    unsigned best = 0;
    auto key = [&](unsigned k) {
      const StrategyCost &cost = node.strategies[k];
      return std::make_pair(cost.persistentBytes + cost.workBytes,
                            cost.compute + cost.comm);
    };
    for (unsigned k = 1; k < node.strategies.size(); ++k)
      if (key(k) < key(best))
        best = k;
    choice.push_back(best);
  }
  return choice;
}

/// The plan of least weight of `graph` without a memory constraint: the
/// eliminations of Reduce.h, then one program per batch of connected
/// components of the kernel (at least kBatchNodes nodes, except the last).
IlpResult solveReduced(const WeightedGraph &graph, const IlpOptions &options) {
  constexpr unsigned kBatchNodes = 256;
  auto start = std::chrono::steady_clock::now();
  Reduction reduction(graph);
  const WeightedGraph &kernel = reduction.getKernel();
  llvm::ArrayRef<unsigned> component = reduction.getComponents();
  IlpResult result;
  result.status = IlpStatus::Optimal;
  result.numNodes = kernel.nodes.size();
  result.numEdges = kernel.edges.size();
  // The nodes and edges of each component, in order.
  std::vector<std::vector<unsigned>> nodesOf(reduction.getNumComponents());
  std::vector<std::vector<unsigned>> edgesOf(reduction.getNumComponents());
  for (unsigned n = 0; n < kernel.nodes.size(); ++n)
    nodesOf[component[n]].push_back(n);
  for (unsigned e = 0; e < kernel.edges.size(); ++e)
    edgesOf[component[kernel.edges[e].from]].push_back(e);
  std::vector<unsigned> kernelChoice(kernel.nodes.size(), 0);
  std::vector<unsigned> local(kernel.nodes.size(), 0);
  WeightedGraph batch;
  std::vector<unsigned> batchNodes;
  auto flush = [&]() {
    if (batchNodes.empty())
      return;
    IlpOptions remaining = options;
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    remaining.timeLimit = std::max(0.0, options.timeLimit - elapsed);
    Formulation f = formulate(batch, /*memory=*/nullptr);
    IlpResult part = finish(batch, f, remaining, getGreedyStart(batch));
    result.numVariables += part.numVariables;
    result.numConstraints += part.numConstraints;
    ++result.numPrograms;
    if (part.status == IlpStatus::NoSolution)
      result.status = IlpStatus::NoSolution;
    else if (part.status == IlpStatus::Incumbent &&
             result.status == IlpStatus::Optimal)
      result.status = IlpStatus::Incumbent;
    for (auto [i, n] : llvm::enumerate(batchNodes))
      kernelChoice[n] = part.choice.empty() ? 0 : part.choice[i];
    batch = WeightedGraph();
    batchNodes.clear();
  };
  for (unsigned c = 0; c < reduction.getNumComponents(); ++c) {
    for (unsigned n : nodesOf[c]) {
      local[n] = batch.nodes.size();
      batch.nodes.push_back(kernel.nodes[n]);
      batchNodes.push_back(n);
    }
    for (unsigned e : edgesOf[c]) {
      WeightedGraph::Edge edge = kernel.edges[e];
      edge.from = local[edge.from];
      edge.to = local[edge.to];
      batch.edges.push_back(std::move(edge));
    }
    if (batch.nodes.size() >= kBatchNodes)
      flush();
  }
  flush();
  if (result.status != IlpStatus::NoSolution)
    result.choice = reduction.expand(kernelChoice);
  return result;
}

} // namespace

IlpResult solveMinimumTime(const PlanGraph &graph, const IlpOptions &options) {
  if (!options.memoryLimit)
    return solveReduced(weigh(graph, kTimeWeight), options);
  // The best plan without the limit is the best plan with it when it fits.
  IlpOptions unlimited = options;
  unlimited.memoryLimit.reset();
  IlpResult free = solveMinimumTime(graph, unlimited);
  if (free.status == IlpStatus::Optimal &&
      evaluatePlan(graph, free.choice).getPeakBytes() <= *options.memoryLimit)
    return free;
  WeightedGraph weighted = weigh(graph, kTimeWeight);
  Formulation f = formulate(weighted, &graph);
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    std::vector<std::pair<unsigned, double>> terms = workTerms(graph, f, n);
    terms.emplace_back(f.persistent, 1.0);
    f.program.addRow(terms, -kInfinity, *options.memoryLimit);
  }
  // Start from the plan of least memory a node at a time, when it fits.
  std::vector<unsigned> start = getLeastMemoryStart(graph);
  if (evaluatePlan(graph, start).getPeakBytes() > *options.memoryLimit)
    start.clear();
  return finish(weighted, f, options, start);
}

IlpResult solveMinimumPeak(const PlanGraph &graph, const IlpOptions &options) {
  // Time only breaks ties: one nanosecond weighs as one millionth of a
  // byte.
  WeightedGraph weighted = weigh(graph, 1e9 * 1e-6 * 1e-9);
  Formulation f = formulate(weighted, &graph);
  f.program.addObjective(f.persistent, 1.0);
  unsigned work = f.program.addColumn(0, kInfinity, 1.0, /*integer=*/false);
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    std::vector<std::pair<unsigned, double>> terms = workTerms(graph, f, n);
    for (auto &term : terms)
      term.second = -term.second;
    terms.emplace_back(work, 1.0);
    f.program.addRow(terms, 0, kInfinity);
  }
  return finish(weighted, f, options, getLeastMemoryStart(graph));
}

} // namespace mlir::tessera::spmd::autopart
