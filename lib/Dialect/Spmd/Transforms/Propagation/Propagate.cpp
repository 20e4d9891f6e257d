//===- Propagate.cpp - sharding propagation over Auto axes ------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// `spmd-propagate`: Shardy's factor-based propagation, in three layers.
//
// - The core: a worklist of ops in program order. Visiting an op projects
//   the shardings of its operands and results onto the factors of its rule
//   (FactorPropagation.h), lets the strategy (basic or aggressive) decide the
//   axes of each factor, and writes back every tensor that grew; the ops
//   that read or write a changed value go back on the worklist (last in,
//   first out, as MLIR's greedy driver does), so one sweep converges.
//   Identity-like connections take part as identity rules: sharding
//   constraints, propagation barriers (in their allowed direction), the
//   data-flow edges of scf loops and conditionals, manual computations
//   (operands <-> in_shardings, body results <-> out_shardings), calls
//   (operands <-> callee arguments, returned values <-> call results) and
//   function results (returned value <-> result attribute).
// - Op priorities: five sweeps, each allowing more: pass-through ops
//   (elementwise, reshapes, transposes, data-flow edges) whose operands
//   have one use; the same with any uses; only pass-through factors, with
//   broadcasts backward only; everything but broadcasts forward; everything.
// - User priorities: dims with priority pN > 0 start out closed and empty
//   (their axes explicitly replicated) and are restored, one priority at a
//   time in increasing order, each followed by a full propagation; lower
//   priorities never take axes from higher ones, but may shard further.
//
// Sharding groups (spmd.sharding_group) are merged transitively and keep
// all members identical. (Copying closed constraints onto their inputs is a
// separate step, `spmd-apply-sharding-constraints`, as in Shardy.)
//
// Only Auto axes move: Explicit axes belong to `spmd-infer-explicit`, Manual
// axes to the manual computation that owns them.
//
// The core and the pass are here; PropagationShardings.cpp reads and writes
// the shardings where they are stored, PropagationOrigins.cpp records the
// debug origins.
//
//===----------------------------------------------------------------------===//

#include "Propagation.h"
#include "Worklist.h"

#include "tessera/Dialect/Spmd/IR/DataFlow.h"
#include "tessera/Dialect/Spmd/IR/ExplicitSharding.h"
#include "tessera/Dialect/Spmd/IR/SpmdDialect.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdShardingRule.h"
#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"
#include "tessera/Dialect/Spmd/Transforms/FactorPropagation.h"
#include "tessera/Dialect/Spmd/Transforms/Passes.h"
#include "tessera/Dialect/Spmd/Transforms/SignatureCache.h"
#include "tessera/Dialect/Spmd/Transforms/TensorWalk.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

#include <functional>
#include <map>
#include <optional>

namespace mlir::tessera::spmd {
#define GEN_PASS_DEF_SPMDPROPAGATEPASS
#include "tessera/Dialect/Spmd/Transforms/Passes.h.inc"

using detail::dropPriority;
using detail::OpCategory;
using detail::OpKind;
using detail::setSlotSharding;
using detail::ShardingOrigins;
using detail::Slot;
using detail::transformShardings;
using detail::Worklist;

//===----------------------------------------------------------------------===//
// Op classes for the op-priority schedule
//===----------------------------------------------------------------------===//

/// Whether some non-scalar operand of `op` has more than one use.
static bool hasMultiUseOperand(Operation *op) {
  return llvm::any_of(op->getOperands(), [](Value v) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    return type && type.getRank() > 0 && !v.hasOneUse();
  });
}

namespace {

//===----------------------------------------------------------------------===//
// The worklist
//===----------------------------------------------------------------------===//

/// The factors of tensor `t` of `rule`, dimension by dimension, without the
/// factors of size 1.
static SmallVector<int64_t> getFactorList(OpShardingRuleAttr rule, int64_t t) {
  SmallVector<int64_t> factors;
  for (DimMappingAttr dim : rule.getTensorMapping(t).getDimMappings())
    for (int64_t f : dim.getFactorIndices())
      if (rule.getFactorSize(f) != 1)
        factors.push_back(f);
  return factors;
}

/// The factors of tensor `t` of `rule` that tensor `other` also has, in
/// `t`'s dimension order, size-1 factors included: a transpose that moves
/// a dimension of size 1 (`1x8 -> 8x1`) reorders these even though its
/// factors of other sizes keep their order.
static SmallVector<int64_t> getSharedFactorOrder(OpShardingRuleAttr rule,
                                                 int64_t t, int64_t other) {
  llvm::SmallDenseSet<int64_t, 8> otherFactors;
  for (DimMappingAttr dim : rule.getTensorMapping(other).getDimMappings())
    otherFactors.insert(dim.getFactorIndices().begin(),
                        dim.getFactorIndices().end());
  SmallVector<int64_t> factors;
  for (DimMappingAttr dim : rule.getTensorMapping(t).getDimMappings())
    for (int64_t f : dim.getFactorIndices())
      if (otherFactors.contains(f))
        factors.push_back(f);
  return factors;
}

/// Whether conservative propagation stops at `factor` of `rule`, as Shardy's
/// conservative rules do: a permutation factor (a sliced or padded
/// dimension), and a need-replication factor that an operand and a result
/// share (a concatenated dimension, a strided slice's dimension), whose
/// sharding would have to move data. Need-replication factors of one side
/// only (a gather's collapsed dimension) still propagate, as in Shardy.
static bool isConservativelyBlocked(OpShardingRuleAttr rule, int64_t factor) {
  if (rule.isPermutation(factor))
    return true;
  if (!rule.isNeedReplication(factor))
    return false;
  auto has = [&](TensorMappingAttr mapping) {
    return llvm::any_of(mapping.getDimMappings(), [&](DimMappingAttr dim) {
      return llvm::is_contained(dim.getFactorIndices(), factor);
    });
  };
  return llvm::any_of(rule.getOperandMappings(), has) &&
         llvm::any_of(rule.getResultMappings(), has);
}

/// Whether tensor `t` of `rule` has a dimension of several factors.
static bool hasCompoundDims(OpShardingRuleAttr rule, int64_t t) {
  return llvm::any_of(
      rule.getTensorMapping(t).getDimMappings(),
      [](DimMappingAttr dim) { return dim.getFactorIndices().size() > 1; });
}

/// The op kinds of the op-priority schedule (Shardy schedules elementwise
/// ops first, then reshapes and transposes, then broadcasts), read from the
/// op's sharding rule rather than from op names:
/// - elementwise: every tensor (data inputs and results) has the same rank
///   and each dimension one factor, the same in every tensor;
/// - reshape or transpose: one tensor input and one result with the same
///   factors (sizes 1 aside), differently arranged (another order, also
///   of the size-1 factors both have, as in a transpose of `1x8`; a
///   dimension of several factors; another rank);
/// - broadcast: one tensor input whose factors the result has, with more.
/// Reduction, need-replication and permutation factors make none of them.
static void classifyByRule(Operation *op, OpShardingRuleAttr rule,
                           OpKind &kind) {
  if (!rule || rule.getNumOperands() != op->getNumOperands() ||
      rule.getNumResults() != op->getNumResults())
    return;
  for (int64_t f = 0; f < rule.getNumFactors(); ++f)
    if (!rule.isPassThrough(f))
      return;
  SmallVector<int64_t> tensors;
  for (unsigned i : getExplicitInputOperandIndices(op))
    if (isa<RankedTensorType>(op->getOperand(i).getType()))
      tensors.push_back(i);
  int64_t numInputs = tensors.size();
  for (OpResult result : op->getResults())
    if (isa<RankedTensorType>(result.getType()))
      tensors.push_back(rule.getNumOperands() + result.getResultNumber());
  if (tensors.empty())
    return;

  ArrayRef<DimMappingAttr> first =
      rule.getTensorMapping(tensors.front()).getDimMappings();
  kind.isElementwise = llvm::all_of(tensors, [&](int64_t t) {
    ArrayRef<DimMappingAttr> dims = rule.getTensorMapping(t).getDimMappings();
    return dims.size() == first.size() &&
           llvm::all_of(llvm::zip_equal(dims, first), [](auto pair) {
             auto [dim, other] = pair;
             return dim.getFactorIndices().size() == 1 &&
                    dim.getFactorIndices() == other.getFactorIndices();
           });
  });
  if (kind.isElementwise || numInputs != 1 || tensors.size() != 2)
    return;
  int64_t in = tensors[0], out = tensors[1];
  SmallVector<int64_t> inFactors = getFactorList(rule, in);
  SmallVector<int64_t> outFactors = getFactorList(rule, out);
  llvm::SmallSetVector<int64_t, 8> inSet(inFactors.begin(), inFactors.end());
  llvm::SmallSetVector<int64_t, 8> outSet(outFactors.begin(), outFactors.end());
  if (!llvm::all_of(inSet, [&](int64_t f) { return outSet.contains(f); }))
    return;
  if (inSet.size() != outSet.size()) {
    kind.isBroadcast = true;
    return;
  }
  kind.isReshapeOrTranspose = inFactors != outFactors ||
                              getSharedFactorOrder(rule, in, out) !=
                                  getSharedFactorOrder(rule, out, in) ||
                              hasCompoundDims(rule, in) ||
                              hasCompoundDims(rule, out) ||
                              rule.getTensorMapping(in).getRank() !=
                                  rule.getTensorMapping(out).getRank();
}

//===----------------------------------------------------------------------===//
// The propagation
//===----------------------------------------------------------------------===//

/// The direction allowed along `factor` (-1 for edges) of an op of `kind`.
using DirectionFn =
    std::function<PropagationDirection(const OpKind &kind, int64_t factor)>;

class Propagation {
public:
  /// Surveys `module` in one walk: the ops to visit, the callers of every
  /// function with a body, sharding groups, user-written rules and the ops
  /// that hold shardings.
  Propagation(ModuleOp module, const FactorPropagation &strategy,
              bool conservative)
      : module(module), strategy(strategy), conservative(conservative),
        origins(module) {
    // (The bodies of linalg ops compute on scalars: nothing to see.)
    walkTensorOps(module, WalkOrder::PreOrder, [&](Operation *op) {
      // Each op is classified while the walk has it in cache.
      if (Worklist::Entry *entry = worklist.add(op))
        kindOf(*entry);
      // (Dialect attributes are discardable.)
      if (op->getDiscardableAttr(kShardingRuleAttrName))
        ruleOps.push_back(op);
      if (auto group = dyn_cast<ShardingGroupOp>(op))
        groupOps.push_back(group);
      if (isa<FunctionOpInterface, ShardingConstraintOp, ManualComputationOp>(
              op) ||
          op->getDiscardableAttr(SpmdDialect::kShardingAttrName))
        holders.push_back(op);
      auto call = dyn_cast<CallOpInterface>(op);
      if (!call)
        return WalkResult::advance();
      auto callee = dyn_cast_or_null<FunctionOpInterface>(
          call.resolveCallableInTable(&symbolTables));
      if (callee && !callee.isExternal())
        callers[callee].push_back(call);
      return WalkResult::advance();
    });
    worklist.index();
  }

  /// Ops with a user-written sharding rule.
  ArrayRef<Operation *> getRuleOps() const { return ruleOps; }
  /// Ops that hold shardings (as attributes or in their properties).
  ArrayRef<Operation *> getShardingHolders() const { return holders; }

  /// Merges the sharding groups and syncs their members; warns about
  /// members whose shardings disagree (they get an open constraint).
  void importShardingGroups();

  /// One full sweep with `direction`.
  void run(const DirectionFn &direction);

  /// Forgets which ops are known to be stable (shardings were changed from
  /// outside, e.g. a user-priority round restored some).
  void invalidate() {
    for (Worklist::Entry &entry : worklist.getEntries())
      entry.clean = false;
  }

  /// Records where each sharding comes from (`debug-origins`); seeded
  /// before propagation, attached as `spmd.sharding_origins` after it.
  void enableOrigins() { recordOrigins = true; }
  void seedOrigins() { origins.seed(); }
  void saveOrigins() { origins.save(); }

private:
  void visit(Worklist::Entry &entry);
  bool propagateTensors(Operation *anchor, ArrayRef<Slot> operands,
                        ArrayRef<Slot> results, OpShardingRuleAttr rule,
                        function_ref<PropagationDirection(int64_t)> direction,
                        bool isElementwise);
  bool propagateIdentity(Operation *anchor, ArrayRef<Slot> sources, Slot target,
                         PropagationDirection direction);
  PropagationDirection directionFor(const OpKind &kind, int64_t factor) {
    return (*currentDirection)(kind, factor);
  }
  /// The kind of the op of `entry` (cached there).
  const OpKind &kindOf(Worklist::Entry &entry) {
    if (!entry.classified) {
      entry.kind = classify(entry.op);
      entry.classified = true;
    }
    return entry.kind;
  }
  OpKind classify(Operation *op);
  /// Resolves the mesh of `sharding` (cached per symbol).
  MeshAttr meshOf(TensorShardingAttr sharding, Operation *scope) {
    Attribute ref = sharding.getMeshOrRef();
    if (auto mesh = dyn_cast<MeshAttr>(ref))
      return mesh;
    auto [it, inserted] = meshes.try_emplace(ref);
    if (inserted)
      it->second = sharding.getMesh(scope, &symbolTables);
    return it->second;
  }
  static const OpKind &edgeKind() {
    static const OpKind kind = [] {
      OpKind k;
      k.isEdge = true;
      return k;
    }();
    return kind;
  }
  OpShardingRuleAttr identityRule(Type type, unsigned numSources);

  /// `setSlotSharding`, with the attribute dictionaries of single-result
  /// ops rewritten once per op name, distinct dictionary and sharding.
  bool writeSharding(const Slot &slot, TensorShardingAttr sharding);
  llvm::DenseMap<std::tuple<OperationName, DictionaryAttr, TensorShardingAttr>,
                 DictionaryAttr>
      rewrittenAttrs;

  /// Puts the ops affected by a new sharding of `slot` on the worklist.
  void notifyChanged(const Slot &slot);
  void notifyUsers(Value value);

  /// `mesh` with the axis types that hold at `op` (cached per parent).
  MeshAttr meshAt(Operation *op, MeshAttr mesh) {
    auto [it, inserted] =
        meshesAt.try_emplace(std::make_pair(op->getParentOp(), mesh));
    if (inserted)
      it->second = getMeshWithAxisTypesAt(op, mesh);
    return it->second;
  }

  ModuleOp module;
  const FactorPropagation &strategy;
  bool conservative;
  SymbolTableCollection symbolTables;
  ShardingRuleCache rules;
  llvm::DenseMap<Attribute, MeshAttr> meshes;
  llvm::DenseMap<std::pair<Operation *, MeshAttr>, MeshAttr> meshesAt;
  /// Queues `op` and forgets its clean visit (an op visited again with the
  /// same directions and unchanged neighbors would change nothing).
  void dirty(Operation *op) {
    if (Worklist::Entry *entry = worklist.find(op)) {
      entry->clean = false;
      worklist.push(*entry);
    }
  }
  llvm::DenseMap<Operation *, SmallVector<CallOpInterface>> callers;
  SmallVector<Operation *> ruleOps, holders;
  SmallVector<ShardingGroupOp> groupOps;
  Worklist worklist;
  Operation *current = nullptr;
  const DirectionFn *currentDirection = nullptr;
  /// Counts the sweeps (`run`); 0 before the first.
  unsigned sweep = 0;
  llvm::DenseMap<std::pair<Type, unsigned>, OpShardingRuleAttr> identityRules;
  /// What propagateTensors writes, by signature.
  SignatureCache<SmallVector<TensorShardingAttr>> outcomes;

  // Sharding groups: every member of a value's group.
  llvm::DenseMap<Value, unsigned> groupOf;
  SmallVector<SmallVector<Value>> groups;

  // Debug origins.
  bool recordOrigins = false;
  ShardingOrigins origins;
};

OpShardingRuleAttr Propagation::identityRule(Type type, unsigned numSources) {
  auto &rule = identityRules[{type, numSources}];
  if (rule)
    return rule;
  auto tensor = cast<RankedTensorType>(type);
  MLIRContext *ctx = type.getContext();
  SmallVector<DimMappingAttr> dims;
  SmallVector<int64_t> sizes;
  for (int64_t d = 0; d < tensor.getRank(); ++d) {
    dims.push_back(DimMappingAttr::get(ctx, {d}));
    sizes.push_back(tensor.getDimSize(d));
  }
  auto mapping = TensorMappingAttr::get(ctx, dims);
  SmallVector<TensorMappingAttr> operands(numSources, mapping);
  rule = OpShardingRuleAttr::get(ctx, sizes, operands, {mapping}, {}, {}, {},
                                 {}, /*isCustomRule=*/false);
  return rule;
}

bool Propagation::writeSharding(const Slot &slot, TensorShardingAttr sharding) {
  auto result = dyn_cast_or_null<OpResult>(slot.value);
  if (!result || result.getOwner()->getNumResults() != 1 ||
      cast<RankedTensorType>(result.getType()).getRank() != sharding.getRank())
    return setSlotSharding(slot, sharding);
  Operation *op = result.getOwner();
  DictionaryAttr before = op->getRawDictionaryAttrs();
  auto key = std::make_tuple(op->getName(), before, sharding);
  auto it = rewrittenAttrs.find(key);
  if (it != rewrittenAttrs.end()) {
    op->setDiscardableAttrs(it->second);
    return true;
  }
  if (!setSlotSharding(slot, sharding))
    return false;
  // (Ops that keep their sharding elsewhere, e.g. constraints in their
  // properties, are not remembered.)
  if (!isa<ResultShardingOpInterface>(op))
    rewrittenAttrs[key] = op->getRawDictionaryAttrs();
  return true;
}

void Propagation::notifyUsers(Value value) {
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    // A terminator forwards into its parent's data-flow edges (or its
    // manual computation's results).
    if (isa<RegionBranchTerminatorOpInterface, ReturnOp>(user)) {
      dirty(user->getParentOp());
      continue;
    }
    dirty(user);
  }
}

void Propagation::notifyChanged(const Slot &slot) {
  if (slot.func) {
    // The returned values and the callers' results.
    for (Block &block : slot.func.getFunctionBody())
      if (!block.empty() && block.back().hasTrait<OpTrait::ReturnLike>())
        dirty(&block.back());
    return;
  }
  if (slot.manual && slot.isInput) {
    dirty(slot.manual);
    notifyUsers(slot.manual.getBody().front().getArgument(slot.index));
    return;
  }
  if (slot.manual) {
    dirty(slot.manual);
    notifyUsers(slot.manual->getResult(slot.index));
    return;
  }
  Value value = slot.value;
  if (auto result = dyn_cast<OpResult>(value)) {
    Operation *op = result.getOwner();
    Worklist::Entry *entry = worklist.find(op);
    if (!entry) {
      notifyUsers(value);
      return;
    }
    if (op != current) {
      entry->clean = false;
      worklist.push(*entry);
    }
    OpCategory category = kindOf(*entry).category;
    // A loop's result also shares the sharding of its block arguments.
    if (category == OpCategory::DataFlow)
      for (const DataFlowEdge &edge : getDataFlowEdges(op))
        if (edge.owner == value)
          for (Value target : edge.targets)
            if (target != value)
              notifyUsers(target);
    // A call result: the callee's return sees it.
    if (category == OpCategory::Call)
      if (auto callee = dyn_cast_or_null<FunctionOpInterface>(
              cast<CallOpInterface>(op).resolveCallableInTable(&symbolTables)))
        if (!callee.isExternal())
          for (Block &block : callee.getFunctionBody())
            if (!block.empty() && block.back().hasTrait<OpTrait::ReturnLike>())
              dirty(&block.back());
  } else {
    auto arg = cast<BlockArgument>(value);
    Operation *parent = arg.getOwner()->getParentOp();
    if (parent != current)
      dirty(parent);
    if (auto func = dyn_cast<FunctionOpInterface>(parent)) {
      auto it = callers.find(func);
      if (it != callers.end())
        for (CallOpInterface call : it->second)
          dirty(call);
    }
  }
  notifyUsers(value);
}

bool Propagation::propagateTensors(
    Operation *anchor, ArrayRef<Slot> operands, ArrayRef<Slot> results,
    OpShardingRuleAttr rule,
    function_ref<PropagationDirection(int64_t)> direction, bool isElementwise) {
  // Every tensor must be on one mesh (or have no sharding yet). Shardings
  // on meshes with different names but equal axes and devices agree, and a
  // sharding on an empty mesh is replaced (its dims keep their closedness).
  SmallVector<TensorShardingAttr> shardings;
  Attribute meshRef;
  MeshAttr mesh;
  for (const Slot &slot : llvm::concat<const Slot>(operands, results)) {
    TensorShardingAttr sharding = slot.get();
    shardings.push_back(sharding);
    if (!sharding)
      continue;
    MeshAttr found = meshOf(sharding, slot.scope());
    if (!found || found.empty())
      continue;
    if (!mesh) {
      mesh = found;
      meshRef = sharding.getMeshOrRef();
    } else if (found != mesh) {
      return false;
    }
  }
  if (!mesh || mesh.isMaximal())
    return false;
  mesh = meshAt(anchor, mesh);
  ArrayRef<TensorShardingAttr> operandShardings =
      ArrayRef(shardings).take_front(operands.size());
  ArrayRef<TensorShardingAttr> resultShardings =
      ArrayRef(shardings).drop_front(operands.size());
  auto localDirection = [&](int64_t factor) {
    if (rule.isBlocked(factor) ||
        (conservative && isConservativelyBlocked(rule, factor)))
      return PropagationDirection::NONE;
    return direction(factor);
  };
  auto mappingAt = [&](size_t t) {
    return t < operands.size() ? rule.getOperandMapping(t)
                               : rule.getResultMapping(t - operands.size());
  };
  // The new sharding of every tensor (null: it keeps its own).
  std::optional<ShardingProjection> projection, oldProjection;
  auto computeUpdates = [&]() {
    projection = ShardingProjection::build(operandShardings, resultShardings,
                                           rule, mesh);
    if (recordOrigins)
      oldProjection = projection;
    UpdateTensorShardings updates = strategy.propagateFactorShardings(
        *projection, localDirection, rule.getFactorSizes(), mesh, conservative,
        isElementwise);
    SmallVector<TensorShardingAttr> newShardings(shardings.size());
    auto create = [&](size_t t, const TensorFactorShardings &tensor) {
      TensorShardingAttr old = shardings[t];
      TensorShardingAttr updated = tensor.createTensorSharding(
          mappingAt(t), rule.getFactorSizes(), meshRef, mesh, old);
      bool emptyAxes =
          llvm::all_of(updated.getDimShardings(),
                       [](DimensionShardingAttr d) { return d.emptyAxes(); });
      if ((old || !emptyAxes) && updated != old)
        newShardings[t] = updated;
    };
    for (unsigned i : updates.updateOperands.set_bits())
      create(i, projection->getOperands()[i]);
    for (unsigned i : updates.updateResults.set_bits())
      create(operands.size() + i, projection->getResults()[i]);
    return newShardings;
  };
  // The outcome depends only on the rule, the mesh, the directions along
  // the factors and the shardings: computed once per signature (debug
  // origins need the projections, so they compute every time).
  SmallVector<TensorShardingAttr> computed;
  ArrayRef<TensorShardingAttr> newShardings;
  if (recordOrigins) {
    computed = computeUpdates();
    newShardings = computed;
  } else {
    SmallVector<const void *, 24> signature = {
        rule.getAsOpaquePointer(), mesh.getAsOpaquePointer(),
        meshRef.getAsOpaquePointer(), signatureInt(isElementwise)};
    for (int64_t f = 0, e = rule.getNumFactors(); f < e; ++f)
      signature.push_back(signatureInt(uintptr_t(localDirection(f))));
    for (TensorShardingAttr sharding : shardings)
      signature.push_back(sharding.getAsOpaquePointer());
    if (auto *found = outcomes.lookup(signature))
      newShardings = *found;
    else
      newShardings = outcomes.insert(signature, computeUpdates());
  }

  bool changed = false;
  auto slotAt = [&](int64_t t) -> const Slot & {
    return t < static_cast<int64_t>(operands.size())
               ? operands[t]
               : results[t - operands.size()];
  };
  for (auto [t, updated] : llvm::enumerate(newShardings)) {
    if (!updated)
      continue;
    const Slot &slot = slotAt(t);
    if (!writeSharding(slot, updated))
      continue;
    changed = true;
    if (recordOrigins)
      origins.recordFactorOrigins(operands, results, *oldProjection,
                                  *projection, t, updated);
    notifyChanged(slot);
    // Every member of the slot's sharding group follows.
    if (!slot.value)
      continue;
    auto group = groupOf.find(slot.value);
    if (group == groupOf.end())
      continue;
    for (Value member : groups[group->second]) {
      if (member == slot.value || getSharding(member) == updated)
        continue;
      if (setSlotSharding(Slot::ofValue(member), updated)) {
        if (recordOrigins)
          origins.copyOrigins(slot, Slot::ofValue(member));
        notifyChanged(Slot::ofValue(member));
      }
    }
  }
  return changed;
}

bool Propagation::propagateIdentity(Operation *anchor, ArrayRef<Slot> sources,
                                    Slot target,
                                    PropagationDirection direction) {
  auto type = dyn_cast<RankedTensorType>(target.getType());
  if (!type || sources.empty())
    return false;
  OpShardingRuleAttr rule = identityRule(type, sources.size());
  return propagateTensors(
      anchor, sources, {target}, rule, [&](int64_t) { return direction; },
      /*isElementwise=*/false);
}

OpKind Propagation::classify(Operation *op) {
  OpKind kind;
  if (op->hasTrait<OpTrait::ReturnLike>() &&
      isa_and_nonnull<FunctionOpInterface>(op->getParentOp())) {
    kind.category = OpCategory::Return;
    return kind;
  }
  if (isa<CallOpInterface>(op)) {
    kind.category = OpCategory::Call;
    return kind;
  }
  if (isa<ManualComputationOp>(op)) {
    kind.category = OpCategory::Manual;
    return kind;
  }
  if (!getDataFlowEdges(op).empty()) {
    kind.category = OpCategory::DataFlow;
    return kind;
  }
  if (isa<PropagationBarrierOp>(op)) {
    kind.category = OpCategory::Barrier;
    return kind;
  }
  kind.hasMultiUseOperand = hasMultiUseOperand(op);
  if (isa<ShardingConstraintOp>(op)) {
    kind.rule = rules.get(op);
    classifyByRule(op, kind.rule, kind);
    kind.category = OpCategory::Constraint;
    return kind;
  }
  if (op->getNumResults() == 0 ||
      isa<ReshardOp, MeshOp, FunctionOpInterface, ModuleOp>(op))
    return kind;
  kind.rule = rules.get(op);
  classifyByRule(op, kind.rule, kind);
  if (kind.rule && kind.rule.getNumOperands() == op->getNumOperands() &&
      kind.rule.getNumResults() == op->getNumResults())
    kind.category = OpCategory::Rule;
  return kind;
}

void Propagation::visit(Worklist::Entry &entry) {
  Operation *op = entry.op;
  current = op;
  auto always = [&](int64_t) { return directionFor(edgeKind(), -1); };
  const OpKind &kind = kindOf(entry);
  switch (kind.category) {
  case OpCategory::Skip:
    return;
  case OpCategory::Return: {
    // A function's returned values <-> its result attributes and the
    // results of its callers.
    auto func = dyn_cast<FunctionOpInterface>(op->getParentOp());
    if (!func)
      return;
    auto it = callers.find(func);
    for (auto [i, value] : llvm::enumerate(op->getOperands())) {
      if (!isa<RankedTensorType>(value.getType()))
        continue;
      // Function results always propagate both ways (as Shardy does).
      propagateIdentity(op, {Slot::ofValue(value)}, Slot::ofFuncResult(func, i),
                        PropagationDirection::BOTH);
      if (it == callers.end())
        continue;
      for (CallOpInterface call : it->second)
        if (i < call->getNumResults())
          propagateIdentity(op, {Slot::ofValue(value)},
                            Slot::ofValue(call->getResult(i)), always(0));
    }
    return;
  }
  case OpCategory::Call: {
    // Call operands <-> the callee's arguments (all callers at once).
    auto call = cast<CallOpInterface>(op);
    auto callee = dyn_cast_or_null<FunctionOpInterface>(
        call.resolveCallableInTable(&symbolTables));
    if (!callee || callee.isExternal())
      return;
    Block &entry = callee.getFunctionBody().front();
    for (BlockArgument arg : entry.getArguments()) {
      if (!isa<RankedTensorType>(arg.getType()))
        continue;
      SmallVector<Slot> sources;
      for (CallOpInterface caller : callers[callee])
        if (arg.getArgNumber() < caller.getArgOperands().size())
          sources.push_back(
              Slot::ofValue(caller.getArgOperands()[arg.getArgNumber()]));
      propagateIdentity(op, sources, Slot::ofValue(arg), always(0));
    }
    return;
  }
  case OpCategory::Manual: {
    auto manual = cast<ManualComputationOp>(op);
    Block &body = manual.getBody().front();
    // Operands and in_shardings meet in the global view (the manual axes
    // are ordinary axes outside); the body sees the local view of them.
    for (auto [i, operand] : llvm::enumerate(manual.getOperands()))
      if (isa<RankedTensorType>(operand.getType()))
        propagateIdentity(op, {Slot::ofValue(operand)},
                          Slot::ofManualInput(manual, i), always(0));
    Operation *terminator = body.getTerminator();
    for (auto [i, value] : llvm::enumerate(terminator->getOperands()))
      if (isa<RankedTensorType>(value.getType()))
        propagateIdentity(terminator, {Slot::ofValue(value)},
                          Slot::ofManualResult(manual, i), always(0));
    return;
  }
  case OpCategory::DataFlow:
    // Loops and conditionals: one identity per data-flow edge.
    for (const DataFlowEdge &edge : getDataFlowEdges(op)) {
      SmallVector<Slot> sources = llvm::map_to_vector(
          edge.sources, [](Value v) { return Slot::ofValue(v); });
      propagateIdentity(op, sources, Slot::ofValue(edge.owner), always(0));
    }
    return;
  case OpCategory::Barrier: {
    auto barrier = cast<PropagationBarrierOp>(op);
    propagateIdentity(op, {Slot::ofValue(barrier.getInput())},
                      Slot::ofValue(barrier.getResult()),
                      barrier.getAllowedDirection());
    return;
  }
  case OpCategory::Constraint: {
    auto constraint = cast<ShardingConstraintOp>(op);
    auto type = cast<RankedTensorType>(constraint.getType());
    propagateTensors(
        op, {Slot::ofValue(constraint.getInput())},
        {Slot::ofValue(constraint.getResult())}, identityRule(type, 1),
        [&](int64_t f) { return directionFor(kind, f); },
        /*isElementwise=*/true);
    return;
  }
  case OpCategory::Rule:
    break;
  }
  OpShardingRuleAttr rule = kind.rule;
  // The directions along the factors hold for the whole sweep: computed on
  // the op's first visit in it. An op visited again with the same
  // directions while nothing around it changed is stable.
  if (entry.directionsSweep != sweep) {
    entry.directionsSweep = sweep;
    int64_t numFactors = rule.getNumFactors();
    uint64_t directions = 0;
    bool anyDirection = false;
    for (int64_t f = 0; f < numFactors; ++f) {
      PropagationDirection direction = directionFor(kind, f);
      anyDirection |= direction != PropagationDirection::NONE;
      directions = directions * 4 + static_cast<uint64_t>(direction);
    }
    // (No factor moves: 0. More factors than fit: no signature.)
    entry.directions = anyDirection ? directions : 0;
    entry.hasDirections = !anyDirection || numFactors <= 31;
  }
  if (entry.hasDirections && entry.directions == 0)
    return;
  if (entry.hasDirections && entry.clean &&
      entry.cleanSignature == entry.directions)
    return;
  entry.clean = entry.hasDirections;
  entry.cleanSignature = entry.directions;
  // (Lambdas, not `Slot::ofValue` itself: a call through a function pointer
  // is not inlined, and this runs for every operand of every visit.)
  SmallVector<Slot, 4> operands = llvm::map_to_vector<4>(
      op->getOperands(), [](Value v) { return Slot::ofValue(v); });
  SmallVector<Slot, 2> results = llvm::map_to_vector<2>(
      op->getResults(), [](Value v) { return Slot::ofValue(v); });
  propagateTensors(
      op, operands, results, rule,
      [&](int64_t f) { return directionFor(kind, f); }, kind.isElementwise);
}

void Propagation::run(const DirectionFn &direction) {
  currentDirection = &direction;
  ++sweep;
  if (worklist.empty()) {
    walkTensorOps(module, WalkOrder::PreOrder, [&](Operation *op) {
      if (Worklist::Entry *entry = worklist.add(op))
        kindOf(*entry);
      return WalkResult::advance();
    });
    worklist.index();
  }
  // As Shardy does, the result shardings of entry functions (those nobody
  // calls) reach their returned values before anything else moves.
  for (Operation &op : module.getBody()->getOperations()) {
    auto func = dyn_cast<FunctionOpInterface>(op);
    if (!func || func.isExternal() || callers.count(func))
      continue;
    for (Block &block : func.getFunctionBody())
      if (!block.empty() && block.back().hasTrait<OpTrait::ReturnLike>())
        if (Worklist::Entry *entry = worklist.find(&block.back()))
          visit(*entry);
  }
  worklist.fill();
  while (Worklist::Entry *entry = worklist.pop())
    visit(*entry);
  current = nullptr;
}

//===----------------------------------------------------------------------===//
// Sharding groups and constraints
//===----------------------------------------------------------------------===//

void Propagation::importShardingGroups() {
  // Values that share a group id, or a value in two groups, merge.
  llvm::EquivalenceClasses<Value> classes;
  llvm::MapVector<int64_t, Value> firstOfGroup;
  SmallVector<Value> order;
  for (ShardingGroupOp op : groupOps) {
    Value input = op.getInput();
    classes.insert(input);
    order.push_back(input);
    auto [it, inserted] = firstOfGroup.try_emplace(op.getGroupId(), input);
    if (!inserted)
      classes.unionSets(it->second, input);
  }
  llvm::DenseMap<Value, unsigned> leaderIndex;
  for (Value value : order) {
    Value leader = classes.getLeaderValue(value);
    auto [it, inserted] = leaderIndex.try_emplace(leader, groups.size());
    if (inserted)
      groups.emplace_back();
    if (groupOf.try_emplace(value, it->second).second)
      groups[it->second].push_back(value);
  }
  // Sync the members to the one sharding they have; if they disagree, warn
  // and let each member start over from an open constraint.
  for (auto [id, members] : llvm::enumerate(groups)) {
    TensorShardingAttr common;
    bool conflict = false;
    for (Value member : members) {
      TensorShardingAttr sharding = getSharding(member);
      if (!sharding || (sharding.isFullyReplicated() &&
                        llvm::none_of(sharding.getDimShardings(),
                                      [](DimensionShardingAttr d) {
                                        return d.getIsClosed();
                                      })))
        continue;
      if (!common)
        common = sharding;
      else if (sharding != common)
        conflict = true;
    }
    if (!common)
      continue;
    if (!conflict) {
      for (Value member : members)
        setSlotSharding(Slot::ofValue(member), common);
      continue;
    }
    Value first = members.front();
    Operation *owner = first.getDefiningOp()
                           ? first.getDefiningOp()
                           : first.getParentBlock()->getParentOp();
    owner->emitWarning("the initial shardings of the members of sharding "
                       "group ")
        << id << " do not match; each member gets an open sharding constraint";
    // New ops: the ops to visit are numbered again.
    worklist.clear();
    for (Value &member : members) {
      OpBuilder builder(module.getContext());
      builder.setInsertionPointAfterValue(member);
      auto type = cast<RankedTensorType>(member.getType());
      auto open = ShardingConstraintOp::create(
          builder, member.getLoc(), member,
          TensorShardingAttr::getReplicated(module.getContext(),
                                            common.getMeshOrRef(),
                                            type.getRank(), /*closed=*/false));
      member.replaceAllUsesExcept(open, open);
      holders.push_back(open);
      groupOf.erase(member);
      member = open.getResult();
      groupOf[member] = id;
    }
  }
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct SpmdPropagatePass
    : public impl::SpmdPropagatePassBase<SpmdPropagatePass> {
  using Base::Base;

  void runOnOperation() override;
};

void SpmdPropagatePass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  if (strategy != "basic" && strategy != "aggressive") {
    module.emitError("unknown propagation strategy '")
        << strategy << "', expected 'basic' or 'aggressive'";
    return signalPassFailure();
  }
  BasicFactorPropagation basic;
  AggressiveFactorPropagation aggressive;
  const FactorPropagation &factorPropagation =
      strategy == "basic" ? static_cast<const FactorPropagation &>(basic)
                          : aggressive;
  Propagation propagation(module, factorPropagation, conservative);
  // Every op's user-written rule must fit the op.
  bool failedRule = false;
  for (Operation *op : propagation.getRuleOps())
    if (auto rule =
            op->getAttrOfType<OpShardingRuleAttr>(kShardingRuleAttrName))
      if (failed(verifyShardingRule(rule, op)))
        failedRule = true;
  if (failedRule)
    return signalPassFailure();
  propagation.importShardingGroups();
  if (debugOrigins) {
    propagation.enableOrigins();
    propagation.seedOrigins();
  }

  if (warnUnknownOps) {
    module.walk([&](Operation *op) {
      if (op->getNumResults() == 0 ||
          isa<func::CallOp, ReshardOp, ManualComputationOp, MeshOp>(op) ||
          op->getDialect() == ctx->getLoadedDialect<SpmdDialect>() ||
          !getDataFlowEdges(op).empty() ||
          op->getParentOfType<linalg::LinalgOp>() ||
          op->getParentOfType<tensor::PadOp>())
        return;
      auto isTensor = [](Type t) { return isa<RankedTensorType>(t); };
      if (!llvm::any_of(op->getResultTypes(), isTensor) ||
          !llvm::any_of(op->getOperandTypes(), isTensor))
        return;
      if (!getShardingRule(op))
        op->emitWarning("no sharding rule for '")
            << op->getName() << "'; shardings do not propagate through it";
    });
  }

  // The op-priority schedule (or a single sweep allowing everything).
  auto runOpPriorities = [&]() {
    if (!opPriorities) {
      DirectionFn any = [](const OpKind &, int64_t) {
        return PropagationDirection::BOTH;
      };
      propagation.run(any);
      return;
    }
    for (int stage = 0; stage < 5; ++stage) {
      DirectionFn direction = [stage](const OpKind &kind, int64_t factor) {
        auto passThrough = [&](bool allowMultiUse) {
          if (kind.isEdge)
            return PropagationDirection::BOTH;
          if (!kind.isElementwise && !kind.isReshapeOrTranspose)
            return PropagationDirection::NONE;
          if (!allowMultiUse && kind.hasMultiUseOperand)
            return PropagationDirection::NONE;
          return PropagationDirection::BOTH;
        };
        OpShardingRuleAttr rule = kind.rule;
        PropagationDirection result = PropagationDirection::NONE;
        if (stage >= 0)
          result = unionOf(result, passThrough(false));
        if (stage >= 1)
          result = unionOf(result, passThrough(true));
        if (stage >= 2) {
          PropagationDirection d = PropagationDirection::BOTH;
          if (rule && factor >= 0 && !rule.isPassThrough(factor))
            d = PropagationDirection::NONE;
          else if (kind.isBroadcast)
            d = PropagationDirection::BACKWARD;
          result = unionOf(result, d);
        }
        if (stage >= 3)
          result =
              unionOf(result, kind.isBroadcast ? PropagationDirection::BACKWARD
                                               : PropagationDirection::BOTH);
        if (stage >= 4)
          result = PropagationDirection::BOTH;
        return result;
      };
      propagation.run(direction);
    }
  };

  // Whether any dim has a user priority (with none, the rounds below would
  // change nothing).
  bool anyPriority = false;
  if (userPriorities)
    transformShardings(propagation.getShardingHolders(),
                       [&](TensorShardingAttr s, Operation *, unsigned) {
                         anyPriority |= llvm::any_of(
                             s.getDimShardings(), [](DimensionShardingAttr d) {
                               return d.getPriority();
                             });
                         return s;
                       });
  if (!anyPriority) {
    runOpPriorities();
  } else {
    // Remember every sharding as written; start with p0 only.
    llvm::DenseMap<std::pair<Operation *, unsigned>, TensorShardingAttr>
        originals;
    std::map<int64_t, bool> priorities;
    transformShardings(
        propagation.getShardingHolders(),
        [&](TensorShardingAttr s, Operation *op, unsigned position) {
          originals[{op, position}] = s;
          SmallVector<DimensionShardingAttr> dims;
          SmallVector<AxisRefAttr> replicated(s.getReplicatedAxes());
          for (DimensionShardingAttr dim : s.getDimShardings()) {
            int64_t p = dim.getPriority().value_or(0);
            if (p == 0) {
              dims.push_back(dropPriority(dim));
              continue;
            }
            priorities[p] = true;
            llvm::append_range(replicated, dim.getAxes());
            dims.push_back(
                DimensionShardingAttr::get(ctx, {}, /*isClosed=*/true));
          }
          if (MeshAttr mesh = s.getMesh(op))
            llvm::sort(replicated, [&](AxisRefAttr a, AxisRefAttr b) {
              return AxisRefAttr::lessInMesh(mesh, a, b);
            });
          return TensorShardingAttr::get(
              ctx, s.getMeshOrRef(), dims, replicated, s.getUnreducedAxes(),
              s.getUnreducedKind(), s.getReducedAxes());
        });
    runOpPriorities();
    for (const auto &entry : priorities) {
      int64_t priority = entry.first;
      transformShardings(
          propagation.getShardingHolders(),
          [&](TensorShardingAttr s, Operation *op, unsigned position) {
            TensorShardingAttr original = originals.lookup({op, position});
            if (!original || original.getRank() != s.getRank())
              return s;
            SmallVector<DimensionShardingAttr> dims(s.getDimShardings());
            llvm::SmallDenseSet<AxisRefAttr> restored;
            for (auto [dim, orig] :
                 llvm::zip_equal(dims, original.getDimShardings())) {
              if (orig.getPriority().value_or(0) != priority)
                continue;
              dim = dropPriority(orig);
              restored.insert(orig.getAxes().begin(), orig.getAxes().end());
            }
            if (restored.empty() &&
                llvm::none_of(original.getDimShardings(),
                              [&](DimensionShardingAttr d) {
                                return d.getPriority().value_or(0) == priority;
                              }))
              return s;
            SmallVector<AxisRefAttr> replicated;
            for (AxisRefAttr ref : s.getReplicatedAxes())
              if (!restored.contains(ref))
                replicated.push_back(ref);
            return TensorShardingAttr::get(
                ctx, s.getMeshOrRef(), dims, replicated, s.getUnreducedAxes(),
                s.getUnreducedKind(), s.getReducedAxes());
          });
      propagation.invalidate();
      runOpPriorities();
    }
  }
  if (debugOrigins)
    propagation.saveOrigins();
}

} // namespace
} // namespace mlir::tessera::spmd
