//===- AutoPartition.cpp - spmd-auto-partition ----------------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Chooses shardings for the Auto axes of a mesh: builds a decision graph of
// each function (Strategies.h), coarsens it (Coarsen.h), solves its ILP
// with CBC (IlpSolver.h) and writes the plan as annotations (see the pass
// description in Passes.td and docs/AutoPartition.md).
//
//===----------------------------------------------------------------------===//

#include "Coarsen.h"
#include "CostModel.h"
#include "IlpSolver.h"
#include "PlanGraph.h"
#include "Strategies.h"

#include "tessera/Dialect/Spmd/IR/DataFlow.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdShardingRule.h"
#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"
#include "tessera/Dialect/Spmd/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

namespace mlir::tessera::spmd {
#define GEN_PASS_DEF_SPMDAUTOPARTITIONPASS
#include "tessera/Dialect/Spmd/Transforms/Passes.h.inc"

using namespace autopart;

namespace {

/// What a decision node stands for.
enum class NodeKind {
  /// A function argument the pass shards.
  Argument,
  /// An op with a sharding rule.
  Op,
  /// Something with one strategy: an annotated argument, result, op or
  /// constraint, or an op without a rule (replicated).
  Fixed,
};

struct DecisionNode {
  NodeKind kind = NodeKind::Fixed;
  Operation *op = nullptr;
  /// Argument nodes and annotated arguments.
  BlockArgument arg;
  OpShardingRuleAttr rule;
  std::vector<Strategy> strategies;
  /// The strategy of the data-parallel baseline (Op nodes).
  unsigned dataParallel = 0;
  /// Elementwise under its rule: every tensor has the same factors.
  bool pointwise = false;
};

/// Where an edge's value is used.
struct EdgeUse {
  unsigned producerResult = 0;
  /// The consumer operand (null for nothing to rewrite).
  OpOperand *use = nullptr;
  unsigned operandIndex = 0;
  RankedTensorType type;
};

/// The plan of one function.
class FunctionPlanner {
public:
  FunctionPlanner(func::FuncOp func, const PlanMesh &mesh,
                  ShardingRuleCache &rules, ReshardCoster &coster)
      : func(func), mesh(mesh), rules(rules), coster(coster) {}

  /// Builds the decision graph.
  void build();
  /// Solves it and writes the plan; fails after an error.
  LogicalResult solveAndApply(const IlpOptions &options, bool coarsen,
                              bool report, double memoryLimit);

private:
  unsigned addNode(DecisionNode node) {
    nodes.push_back(std::move(node));
    return nodes.size() - 1;
  }
  /// Adds the edge from the producer of `value` (if a node) to operand
  /// `operandIndex` of node `consumer`.
  void addEdge(Value value, unsigned consumer, unsigned operandIndex,
               OpOperand *use);
  void visitOp(Operation *op);
  /// Whether an op's region inside the function uses `value` (a use no
  /// decision's operands see).
  bool isCapturedInRegion(Value value) const {
    Operation *funcOp = func;
    return llvm::any_of(value.getUses(), [&](OpOperand &use) {
      return use.getOwner()->getParentOp() != funcOp;
    });
  }
  static bool isReplicated(TensorShardingAttr sharding) {
    return !sharding || llvm::all_of(sharding.getDimShardings(),
                                     [](DimensionShardingAttr dim) {
                                       return dim.getAxes().empty();
                                     });
  }
  std::vector<unsigned> bestResponses(std::vector<unsigned> choice) const;
  void apply(ArrayRef<unsigned> choice);
  void printReport(ArrayRef<unsigned> choice, const PlanTotals &totals,
                   const Coarsening *coarse, const IlpResult &result,
                   double seconds);

  func::FuncOp func;
  const PlanMesh &mesh;
  ShardingRuleCache &rules;
  ReshardCoster &coster;
  std::vector<DecisionNode> nodes;
  PlanGraph graph;
  std::vector<EdgeUse> edgeUses;
  /// The node and result index that produce a value.
  DenseMap<Value, std::pair<unsigned, unsigned>> producers;
  /// Values made by side-effect-free ops from nothing (tensor.empty,
  /// constants, fills of them): propagation shards them for free.
  DenseSet<Value> freeValues;
  /// Merges for coarsening.
  std::vector<FollowMerge> merges;
};

void FunctionPlanner::addEdge(Value value, unsigned consumer,
                              unsigned operandIndex, OpOperand *use) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || freeValues.contains(value))
    return;
  auto it = producers.find(value);
  if (it == producers.end())
    return;
  auto [producer, result] = it->second;
  PlanEdge edge;
  edge.from = producer;
  edge.to = consumer;
  const DecisionNode &from = nodes[producer], &to = nodes[consumer];
  for (const Strategy &k : from.strategies)
    for (const Strategy &l : to.strategies) {
      auto [time, bytes] =
          coster.get(type, k.results[result], l.operands[operandIndex]);
      edge.time.push_back(time);
      edge.bytes.push_back(bytes);
    }
  graph.edges.push_back(std::move(edge));
  edgeUses.push_back({result, use, operandIndex, type});
}

/// `time-limit=10 s, max-nodes=0` (max-nodes only when set).
static std::string describeLimits(const IlpOptions &options) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "time-limit=" << llvm::format("%g", options.timeLimit) << " s";
  if (options.maxNodes >= 0)
    os << ", max-nodes=" << options.maxNodes;
  return text;
}

/// A one-strategy node: `operands` needed, `results` given.
static DecisionNode makeFixed(Operation *op,
                              SmallVector<TensorShardingAttr> operands,
                              SmallVector<TensorShardingAttr> results,
                              double work) {
  DecisionNode node;
  node.kind = NodeKind::Fixed;
  node.op = op;
  Strategy strategy;
  strategy.operands = std::move(operands);
  strategy.results = std::move(results);
  strategy.cost.workBytes = work;
  node.strategies.push_back(std::move(strategy));
  return node;
}

/// Whether every tensor of `rule` has the factors of its first result,
/// one per dimension, all pass-through.
static bool isPointwise(OpShardingRuleAttr rule) {
  if (rule.getNumResults() == 0)
    return false;
  for (int64_t f = 0; f < rule.getNumFactors(); ++f)
    if (!rule.isPassThrough(f))
      return false;
  TensorMappingAttr first = rule.getResultMapping(0);
  for (TensorMappingAttr mapping : rule.getOperandMappings())
    if (mapping != first && !mapping.getDimMappings().empty())
      return false;
  for (TensorMappingAttr mapping : rule.getResultMappings())
    if (mapping != first)
      return false;
  return true;
}

void FunctionPlanner::visitOp(Operation *op) {
  MLIRContext *ctx = op->getContext();
  auto isTensor = [](Type type) { return isa<RankedTensorType>(type); };
  bool hasTensors = llvm::any_of(op->getOperandTypes(), isTensor) ||
                    llvm::any_of(op->getResultTypes(), isTensor);
  if (!hasTensors)
    return;
  if (isa<func::ReturnOp>(op)) {
    for (OpOperand &operand : op->getOpOperands()) {
      TensorShardingAttr declared =
          getFuncResultSharding(func, operand.getOperandNumber());
      if (!declared)
        continue;
      unsigned node = addNode(makeFixed(op, {declared}, {}, 0));
      addEdge(operand.get(), node, 0, nullptr);
    }
    return;
  }
  // Values made from nothing.
  bool fromNothing =
      isMemoryEffectFree(op) && llvm::all_of(op->getOperands(), [&](Value v) {
        return !isTensor(v.getType()) || freeValues.contains(v);
      });
  if (fromNothing) {
    for (Value result : op->getResults())
      freeValues.insert(result);
    return;
  }
  auto addResults = [&](unsigned node) {
    for (OpResult result : op->getResults())
      if (isTensor(result.getType()))
        producers[result] = {node, result.getResultNumber()};
  };
  auto addOperandEdges = [&](unsigned node) {
    for (OpOperand &operand : op->getOpOperands())
      addEdge(operand.get(), node, operand.getOperandNumber(), &operand);
  };
  if (auto fixed = dyn_cast<ResultShardingOpInterface>(op)) {
    SmallVector<TensorShardingAttr> results;
    for (unsigned r = 0; r < op->getNumResults(); ++r)
      results.push_back(fixed.getResultSharding(r));
    SmallVector<TensorShardingAttr> operands(op->getNumOperands());
    if (op->getNumOperands() == 1 && op->getNumResults() == 1)
      operands[0] = results[0];
    unsigned node = addNode(makeFixed(op, operands, results, 0));
    addOperandEdges(node);
    addResults(node);
    return;
  }
  OpShardingRuleAttr rule = rules.get(op);
  bool staticTensors =
      llvm::all_of(op->getOperandTypes(),
                   [](Type t) {
                     auto tensor = dyn_cast<RankedTensorType>(t);
                     return !isa<ShapedType>(t) ||
                            (tensor && tensor.hasStaticShape());
                   }) &&
      llvm::all_of(op->getResultTypes(), [](Type t) {
        auto tensor = dyn_cast<RankedTensorType>(t);
        return !isa<ShapedType>(t) || (tensor && tensor.hasStaticShape());
      });
  if (!rule || !staticTensors) {
    op->emitWarning("op has no sharding rule; spmd-auto-partition treats it "
                    "as replicated");
    SmallVector<TensorShardingAttr> operands, results;
    double work = 0;
    for (Value operand : op->getOperands()) {
      auto type = dyn_cast<RankedTensorType>(operand.getType());
      operands.push_back(type ? TensorShardingAttr::getReplicated(
                                    ctx, mesh.meshRef, type.getRank(), true)
                              : TensorShardingAttr());
      if (type)
        work += getLocalBytes(type, {}, mesh.mesh);
    }
    for (Value result : op->getResults()) {
      auto type = dyn_cast<RankedTensorType>(result.getType());
      results.push_back(type ? TensorShardingAttr::getReplicated(
                                   ctx, mesh.meshRef, type.getRank(), true)
                             : TensorShardingAttr());
      if (type)
        work += getLocalBytes(type, {}, mesh.mesh);
    }
    DecisionNode node = makeFixed(op, operands, results, work);
    node.strategies[0].cost.compute =
        mesh.machine->getComputeTime(0, work, /*isContraction=*/false);
    unsigned index = addNode(std::move(node));
    addOperandEdges(index);
    addResults(index);
    return;
  }
  DecisionNode node;
  node.kind = NodeKind::Op;
  node.op = op;
  node.rule = rule;
  node.pointwise = isPointwise(rule);
  node.strategies = enumerateOpStrategies(op, rule, mesh, node.dataParallel);
  // A result that an op's region uses (captured, not an operand) stays
  // replicated: no decision sees that use.
  for (OpResult result : op->getResults()) {
    if (!isCapturedInRegion(result))
      continue;
    std::vector<Strategy> kept;
    for (Strategy &strategy : node.strategies)
      if (isReplicated(strategy.results[result.getResultNumber()]))
        kept.push_back(std::move(strategy));
    node.strategies = std::move(kept);
    node.dataParallel = 0;
  }
  // An annotated op keeps its annotation: only strategies that give it.
  if (auto declared = op->getAttrOfType<TensorShardingPerValueAttr>(
          SpmdDialect::kShardingAttrName)) {
    ArrayRef<TensorShardingAttr> wanted = declared.getShardings();
    std::vector<Strategy> kept;
    for (Strategy &strategy : node.strategies) {
      bool same = wanted.size() == strategy.results.size();
      for (size_t r = 0; r < wanted.size() && same; ++r)
        same = haveSameDimAxes(wanted[r], strategy.results[r]);
      if (same)
        kept.push_back(std::move(strategy));
    }
    if (kept.empty()) {
      unsigned index = addNode(
          makeFixed(op, SmallVector<TensorShardingAttr>(op->getNumOperands()),
                    SmallVector<TensorShardingAttr>(wanted), 0));
      addResults(index);
      return;
    }
    node.strategies = std::move(kept);
    node.dataParallel = 0;
    node.kind = NodeKind::Fixed;
    node.pointwise = false;
  }
  unsigned index = addNode(std::move(node));
  addOperandEdges(index);
  addResults(index);
  // An elementwise op follows the op that makes its first operand.
  if (!nodes[index].pointwise)
    return;
  std::optional<unsigned> first;
  for (unsigned e = graph.edges.size(); e-- > 0;) {
    if (graph.edges[e].to != index)
      break;
    if (nodes[graph.edges[e].from].kind == NodeKind::Op)
      first = e;
  }
  if (first) {
    // The follower keeps its leader's sharding of the operand.
    FollowMerge merge{*first, /*followerIsFrom=*/false, {}};
    const PlanEdge &edge = graph.edges[*first];
    const EdgeUse &use = edgeUses[*first];
    for (const Strategy &k : nodes[edge.from].strategies)
      for (const Strategy &l : nodes[index].strategies)
        merge.keeps.push_back(haveSameDimAxes(k.results[use.producerResult],
                                              l.operands[use.operandIndex]));
    merges.push_back(std::move(merge));
  }
}

void FunctionPlanner::build() {
  MLIRContext *ctx = func.getContext();
  for (BlockArgument arg : func.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || !type.hasStaticShape())
      continue;
    DecisionNode node;
    node.arg = arg;
    if (TensorShardingAttr declared = getSharding(arg)) {
      node = makeFixed(nullptr, {declared}, {declared}, 0);
      node.arg = arg;
      node.strategies[0].cost.persistentBytes =
          getLocalBytes(type, declared, mesh.mesh);
    } else {
      node.kind = NodeKind::Argument;
      node.strategies = enumerateValueStrategies(type, mesh);
      // Used inside a region (e.g. a linalg body's tensor.extract): the
      // replicated strategy (the first) only.
      if (isCapturedInRegion(arg))
        node.strategies.resize(1);
    }
    producers[arg] = {addNode(std::move(node)), 0};
  }
  (void)ctx;
  for (Block &block : func.getBody())
    for (Operation &op : block)
      visitOp(&op);
  // Arguments used once follow their user; then the elementwise ops (in
  // program order).
  std::vector<unsigned> degree(nodes.size(), 0);
  for (const PlanEdge &edge : graph.edges) {
    ++degree[edge.from];
    ++degree[edge.to];
  }
  std::vector<FollowMerge> argumentMerges;
  for (unsigned e = 0; e < graph.edges.size(); ++e) {
    unsigned from = graph.edges[e].from;
    if (nodes[from].kind != NodeKind::Op && nodes[from].arg &&
        degree[from] == 1)
      argumentMerges.push_back({e, /*followerIsFrom=*/true, {}});
  }
  argumentMerges.insert(argumentMerges.end(), merges.begin(), merges.end());
  merges = std::move(argumentMerges);
}

std::vector<unsigned>
FunctionPlanner::bestResponses(std::vector<unsigned> choice) const {
  // Each argument node takes the sharding its users' strategies want most.
  std::vector<std::vector<unsigned>> incident(nodes.size());
  for (unsigned e = 0; e < graph.edges.size(); ++e)
    incident[graph.edges[e].from].push_back(e);
  for (unsigned n = 0; n < nodes.size(); ++n) {
    if (nodes[n].kind != NodeKind::Argument)
      continue;
    double best = 0;
    for (unsigned k = 0; k < nodes[n].strategies.size(); ++k) {
      double time = 0;
      for (unsigned e : incident[n]) {
        const PlanEdge &edge = graph.edges[e];
        time +=
            edge.time[k * graph.getNumStrategies(edge.to) + choice[edge.to]];
      }
      if (k == 0 || time < best) {
        best = time;
        choice[n] = k;
      }
    }
  }
  return choice;
}

void FunctionPlanner::apply(ArrayRef<unsigned> choice) {
  MLIRContext *ctx = func.getContext();
  for (auto [n, node] : llvm::enumerate(nodes)) {
    const Strategy &strategy = node.strategies[choice[n]];
    if (node.kind == NodeKind::Argument)
      func.setArgAttr(node.arg.getArgNumber(), SpmdDialect::kShardingAttrName,
                      strategy.results[0]);
    if (node.kind == NodeKind::Op)
      for (OpResult result : node.op->getResults())
        if (isa<RankedTensorType>(result.getType()))
          (void)setSharding(result, strategy.results[result.getResultNumber()]);
  }
  // Operands an op wants resharded get a constraint.
  for (auto [e, edge] : llvm::enumerate(graph.edges)) {
    const EdgeUse &use = edgeUses[e];
    const DecisionNode &consumer = nodes[edge.to];
    if (!use.use || consumer.kind != NodeKind::Op)
      continue;
    TensorShardingAttr have = nodes[edge.from]
                                  .strategies[choice[edge.from]]
                                  .results[use.producerResult];
    TensorShardingAttr want =
        consumer.strategies[choice[edge.to]].operands[use.operandIndex];
    if (!want || haveSameDimAxes(have, want))
      continue;
    OpBuilder builder(consumer.op);
    Value value = use.use->get();
    auto constraint = ShardingConstraintOp::create(
        builder, consumer.op->getLoc(), value, want);
    use.use->set(constraint);
  }
  // Results take the sharding of what they return.
  for (Block &block : func.getBody())
    if (auto ret = dyn_cast<func::ReturnOp>(block.getTerminator()))
      for (OpOperand &operand : ret->getOpOperands()) {
        unsigned i = operand.getOperandNumber();
        if (getFuncResultSharding(func, i))
          continue;
        auto it = producers.find(operand.get());
        if (it == producers.end())
          continue;
        TensorShardingAttr sharding = nodes[it->second.first]
                                          .strategies[choice[it->second.first]]
                                          .results[it->second.second];
        if (sharding)
          func.setResultAttr(i, SpmdDialect::kShardingAttrName, sharding);
      }
  (void)ctx;
}

void FunctionPlanner::printReport(ArrayRef<unsigned> choice,
                                  const PlanTotals &totals,
                                  const Coarsening *coarse,
                                  const IlpResult &result, double seconds) {
  // Incoming reshards count at their consumer.
  std::vector<double> reshardTime(nodes.size(), 0);
  for (const PlanEdge &edge : graph.edges)
    reshardTime[edge.to] +=
        edge.time[choice[edge.from] * graph.getNumStrategies(edge.to) +
                  choice[edge.to]];
  // An argument's remark is at its first use: its own location is on the
  // function's first line, which the diagnostic printer would print again
  // for every argument (quadratic in the arguments).
  std::vector<std::optional<Location>> firstUse(nodes.size());
  for (auto [e, edge] : llvm::enumerate(graph.edges))
    if (!firstUse[edge.from] && edgeUses[e].use)
      firstUse[edge.from] = edgeUses[e].use->getOwner()->getLoc();
  for (auto [n, node] : llvm::enumerate(nodes)) {
    const Strategy &strategy = node.strategies[choice[n]];
    const StrategyCost &cost = strategy.cost;
    std::string comm = formatSeconds(cost.comm + reshardTime[n]);
    if (node.arg) {
      emitRemark(firstUse[n].value_or(node.arg.getLoc()))
          << "auto-partition: argument #" << node.arg.getArgNumber() << ": "
          << describeStrategy(strategy, {}) << ", memory "
          << formatBytes(cost.persistentBytes);
      continue;
    }
    if (!node.op || isa<func::ReturnOp>(node.op))
      continue;
    std::string what = node.rule ? describeStrategy(strategy, node.rule)
                                 : std::string("replicated");
    emitRemark(node.op->getLoc())
        << "auto-partition: " << what << ", compute "
        << formatSeconds(cost.compute) << ", communication " << comm
        << ", memory " << formatBytes(cost.workBytes);
  }
  std::vector<unsigned> dataParallel(nodes.size(), 0), replicated;
  for (auto [n, node] : llvm::enumerate(nodes))
    if (node.kind == NodeKind::Op)
      dataParallel[n] = node.dataParallel;
  dataParallel = bestResponses(dataParallel);
  replicated = bestResponses(std::vector<unsigned>(nodes.size(), 0));
  auto line = [&](StringRef name, const PlanTotals &t) {
    emitRemark(func.getLoc())
        << "auto-partition: " << name << ": step " << formatSeconds(t.getTime())
        << " (compute " << formatSeconds(t.compute) << ", communication "
        << formatSeconds(t.comm) << "), collective bytes "
        << formatBytes(t.commBytes) << ", peak "
        << formatBytes(t.getPeakBytes()) << " per device";
  };
  line("plan", totals);
  line("data parallel on \"" + mesh.autoAxes[mesh.getLargestAxis()].first +
           "\"",
       evaluatePlan(graph, dataParallel));
  line("replicated", evaluatePlan(graph, replicated));
  const PlanGraph &solved = coarse ? coarse->graph : graph;
  emitRemark(func.getLoc())
      << "auto-partition: " << graph.nodes.size() << " nodes and "
      << graph.edges.size() << " edges, coarsened to " << solved.nodes.size()
      << " nodes and " << solved.edges.size() << " edges, reduced to "
      << result.numNodes << " nodes and " << result.numEdges << " edges; "
      << result.numPrograms << " ILP" << (result.numPrograms == 1 ? "" : "s")
      << " of " << result.numVariables << " variables and "
      << result.numConstraints << " constraints solved in "
      << formatSeconds(seconds);
}

LogicalResult FunctionPlanner::solveAndApply(const IlpOptions &options,
                                             bool coarsen, bool report,
                                             double memoryLimit) {
  for (const DecisionNode &node : nodes) {
    PlanNode &planNode = graph.nodes.emplace_back();
    for (const Strategy &strategy : node.strategies)
      planNode.strategies.push_back(strategy.cost);
  }
  if (graph.nodes.empty())
    return success();
  std::optional<Coarsening> coarse;
  if (coarsen)
    coarse = coarsenGraph(graph, merges);
  const PlanGraph &solved = coarse ? coarse->graph : graph;
  auto start = std::chrono::steady_clock::now();
  IlpResult result = solveMinimumTime(solved, options);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  switch (result.status) {
  case IlpStatus::Optimal:
    break;
  case IlpStatus::Incumbent:
    func.emitWarning() << "the ILP solver stopped at its limit ("
                       << describeLimits(options)
                       << "); using the best plan it found, which may not be "
                          "optimal";
    break;
  case IlpStatus::Infeasible: {
    IlpResult smallest = solveMinimumPeak(solved, options);
    InFlightDiagnostic diag = func.emitError()
                              << "no sharding plan fits memory-limit="
                              << formatBytes(memoryLimit) << " ("
                              << static_cast<int64_t>(memoryLimit)
                              << " bytes) per device";
    if (!smallest.choice.empty()) {
      std::vector<unsigned> choice =
          coarse ? coarse->expand(smallest.choice) : smallest.choice;
      double peak = evaluatePlan(graph, choice).getPeakBytes();
      diag << "; the smallest peak found is " << formatBytes(peak) << " ("
           << static_cast<int64_t>(peak) << " bytes)";
    }
    return failure();
  }
  case IlpStatus::NoSolution:
    return func.emitError() << "the ILP solver found no plan within its limit ("
                            << describeLimits(options) << ")";
  }
  std::vector<unsigned> choice =
      coarse ? coarse->expand(result.choice) : result.choice;
  if (report)
    printReport(choice, evaluatePlan(graph, choice),
                coarse ? &*coarse : nullptr, result, seconds);
  apply(choice);
  return success();
}

struct SpmdAutoPartitionPass
    : public impl::SpmdAutoPartitionPassBase<SpmdAutoPartitionPass> {
  using SpmdAutoPartitionPassBase::SpmdAutoPartitionPassBase;

  void runOnOperation() override;

  /// The machine constants of the options, or an error.
  FailureOr<MachineModel> getMachine();
};

FailureOr<MachineModel> SpmdAutoPartitionPass::getMachine() {
  ModuleOp module = getOperation();
  if (!calibration.empty()) {
    auto buffer = llvm::MemoryBuffer::getFile(calibration);
    if (!buffer)
      return module.emitError()
             << "cannot read calibration file '" << calibration
             << "': " << buffer.getError().message();
    std::string error;
    std::optional<MachineModel> model =
        parseCalibration((*buffer)->getBuffer(), error);
    if (!model)
      return module.emitError()
             << "invalid calibration file '" << calibration << "': " << error;
    return *model;
  }
  std::optional<MachineModel> model = getBuiltinMachineModel(machine);
  if (!model)
    return module.emitError()
           << "unknown machine '" << machine << "'; expected one of "
           << getBuiltinMachineModelNames();
  return *model;
}

void SpmdAutoPartitionPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  IlpOptions ilp;
  ilp.timeLimit = timeLimit;
  ilp.maxNodes = maxNodes;
  ilp.mipStart = mipStart;
  double limit = 0;
  if (!memoryLimit.empty()) {
    std::optional<double> bytes = parseByteSize(memoryLimit);
    if (!bytes) {
      module.emitError() << "invalid memory-limit '" << memoryLimit
                         << "': expected a number of bytes with an optional "
                            "suffix KiB, MiB, GiB, KB, MB or GB";
      return signalPassFailure();
    }
    limit = *bytes;
    ilp.memoryLimit = limit;
  }
  FailureOr<MachineModel> model = getMachine();
  if (failed(model))
    return signalPassFailure();
  // The mesh.
  SmallVector<MeshOp> meshes(module.getOps<MeshOp>());
  MeshOp meshOp;
  if (!meshName.empty()) {
    for (MeshOp candidate : meshes)
      if (candidate.getSymName() == meshName)
        meshOp = candidate;
    if (!meshOp) {
      module.emitError() << "no mesh named '" << meshName << "'";
      return signalPassFailure();
    }
  } else if (meshes.size() > 1) {
    module.emitError() << "the module has " << meshes.size()
                       << " meshes; choose one with mesh=";
    return signalPassFailure();
  } else if (meshes.size() == 1) {
    meshOp = meshes.front();
  }
  if (!meshOp)
    return;
  PlanMesh mesh;
  mesh.mesh = meshOp.getMesh();
  mesh.meshRef = FlatSymbolRefAttr::get(ctx, meshOp.getSymName());
  mesh.machine = &*model;
  for (MeshAxisAttr axis : mesh.mesh.getAxes())
    if (axis.getSize() > 1 &&
        mesh.mesh.getAxisType(axis.getName()) == AxisType::Auto)
      mesh.autoAxes.emplace_back(axis.getName().str(), axis.getSize());
  if (mesh.autoAxes.empty())
    return;
  ShardingRuleCache rules;
  ReshardCoster coster(mesh);
  for (func::FuncOp func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    FunctionPlanner planner(func, mesh, rules, coster);
    planner.build();
    if (failed(planner.solveAndApply(ilp, coarsen, report, limit)))
      return signalPassFailure();
  }
}

} // namespace
} // namespace mlir::tessera::spmd
