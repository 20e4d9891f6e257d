//===- Partition.cpp - the per-device program -------------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// After spmd-insert-reshards and spmd-reshard-to-collectives every op's
// operands and results agree on one factor sharding, so each op computes its
// local block from local blocks. The pass inlines manual computations, then
// converts the global view to the local one with MLIR's dialect conversion
// (GlobalToLocal.h): every value takes its local type, the global-view
// collectives become `comm` ones (one pattern each), ops whose attributes
// spell shapes or global positions build their local form through
// PartitionOpInterface, and every other op is cloned with its local types.
// Finally each function records its global interface.
//
// Inside a manual computation a value's type is already divided by the
// manual axes and its sharding names only the free axes, so "type divided by
// the axes of its sharding" is the local type everywhere.
//
// This file holds the driver and the pass; PartitionCollectives.cpp has the
// collectives' patterns and PartitionLocalOps.cpp the local types and the
// other patterns.
//
//===----------------------------------------------------------------------===//

#include "GlobalToLocal.h"

#include "tessera/Dialect/Comm/IR/CommOps.h"
#include "tessera/Dialect/Spmd/Transforms/Passes.h"
#include "tessera/Dialect/Spmd/Transforms/TensorWalk.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Rewrite/PatternApplicator.h"

namespace mlir::tessera::spmd {
#define GEN_PASS_DEF_SPMDPARTITIONPASS
#include "tessera/Dialect/Spmd/Transforms/Passes.h.inc"

namespace detail {

static constexpr StringLiteral kPerDeviceAttrName = "tessera.per_device";
static constexpr StringLiteral kGlobalTypeAttrName = "spmd.global_type";
static constexpr StringLiteral kGlobalShardingAttrName = "spmd.global_sharding";

/// Inlines `manuals` (in pre-order); `collectives` are all the collectives
/// of their function.
static void inlineManualComputations(RewriterBase &rewriter,
                                     ArrayRef<ManualComputationOp> manuals,
                                     ArrayRef<Operation *> collectives) {
  if (manuals.empty())
    return;
  // Collectives inside bodies read their input sharding from the global
  // view; pin it before the bodies' arguments disappear.
  for (Operation *op : collectives) {
    if (op->getAttr("in_sharding"))
      continue;
    if (TensorShardingAttr sharding = getSharding(op->getOperand(0)))
      op->setAttr("in_sharding", sharding);
  }
  for (ManualComputationOp manual : manuals) {
    Block &body = manual.getBody().front();
    Operation *terminator = body.getTerminator();
    SmallVector<Value> results;
    for (Value value : terminator->getOperands()) {
      auto arg = dyn_cast<BlockArgument>(value);
      results.push_back(arg && arg.getOwner() == &body
                            ? manual->getOperand(arg.getArgNumber())
                            : value);
    }
    rewriter.eraseOp(terminator);
    rewriter.inlineBlockBefore(&body, manual, manual->getOperands());
    // Users of the results read the global sharding from the collectives'
    // pinned in_sharding; keep the value's own (local-view) sharding.
    rewriter.replaceOp(manual, results);
  }
}

/// Removes the `spmd.sharding` of every argument and result.
static void stripShardings(func::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  auto strip = [&](ArrayRef<DictionaryAttr> old) {
    SmallVector<DictionaryAttr> dicts;
    for (DictionaryAttr dict : old) {
      NamedAttrList attrs(dict ? dict : DictionaryAttr::get(ctx));
      attrs.erase(SpmdDialect::kShardingAttrName);
      dicts.push_back(attrs.getDictionary(ctx));
    }
    return dicts;
  };
  SmallVector<DictionaryAttr> args, results;
  func.getAllArgAttrs(args);
  func.getAllResultAttrs(results);
  func.setAllArgAttrs(strip(args));
  func.setAllResultAttrs(strip(results));
}

/// The global interface of a function, recorded before it is partitioned.
struct GlobalInterface {
  SmallVector<TensorShardingAttr> argShardings, resultShardings;
  SmallVector<Type> argTypes, resultTypes;
};

/// Records the global interface on the partitioned `func`: the attribute
/// `tessera.per_device` and, per argument and result, `spmd.global_type`
/// and `spmd.global_sharding` (the `spmd.sharding`s go).
static void recordInterface(func::FuncOp func, const GlobalInterface &global) {
  MLIRContext *ctx = func.getContext();
  ArrayRef<TensorShardingAttr> argShardings = global.argShardings;
  ArrayRef<TensorShardingAttr> resultShardings = global.resultShardings;
  ArrayRef<Type> argTypes = global.argTypes;
  ArrayRef<Type> resultTypes = global.resultTypes;
  // A replicated sharding stands for an unannotated tensor.
  Attribute meshRef;
  for (TensorShardingAttr sharding : argShardings)
    if (sharding && !meshRef)
      meshRef = sharding.getMeshOrRef();
  for (TensorShardingAttr sharding : resultShardings)
    if (sharding && !meshRef)
      meshRef = sharding.getMeshOrRef();
  if (!meshRef)
    return stripShardings(func);
  auto complete = [&](ArrayRef<TensorShardingAttr> shardings,
                      ArrayRef<Type> types) {
    SmallVector<TensorShardingAttr> all;
    for (auto [sharding, type] : llvm::zip(shardings, types)) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      all.push_back(
          sharding ? sharding
                   : TensorShardingAttr::getReplicated(
                         ctx, meshRef, tensor ? tensor.getRank() : 0, true));
    }
    return TensorShardingPerValueAttr::get(ctx, all);
  };
  func->setAttr(kPerDeviceAttrName,
                ArrayAttr::get(ctx, {complete(argShardings, argTypes),
                                     complete(resultShardings, resultTypes)}));
  // One update of each attribute array (per-argument updates would rebuild
  // the array once per argument).
  // Many arguments have the same attributes, type and sharding: each new
  // dictionary is built once.
  DenseMap<std::tuple<Attribute, Type, Attribute>, DictionaryAttr> rebuilt;
  auto rebuild = [&](ArrayRef<DictionaryAttr> old, ArrayRef<Type> types,
                     ArrayRef<TensorShardingAttr> shardings) {
    SmallVector<DictionaryAttr> dicts;
    for (auto [i, type] : llvm::enumerate(types)) {
      DictionaryAttr before =
          i < old.size() && old[i] ? old[i] : DictionaryAttr::get(ctx);
      auto [it, inserted] =
          rebuilt.try_emplace(std::make_tuple(before, type, shardings[i]));
      if (inserted) {
        NamedAttrList attrs(before);
        attrs.erase(SpmdDialect::kShardingAttrName);
        attrs.set(kGlobalTypeAttrName, TypeAttr::get(type));
        if (shardings[i])
          attrs.set(kGlobalShardingAttrName, shardings[i]);
        it->second = attrs.getDictionary(ctx);
      }
      dicts.push_back(it->second);
    }
    return dicts;
  };
  SmallVector<DictionaryAttr> oldArgs, oldResults;
  func.getAllArgAttrs(oldArgs);
  func.getAllResultAttrs(oldResults);
  func.setAllArgAttrs(rebuild(oldArgs, argTypes, argShardings));
  func.setAllResultAttrs(rebuild(oldResults, resultTypes, resultShardings));
}

/// The attributes that describe the global view, removed from every op
/// once its function is local. Many ops share one raw attribute
/// dictionary, so each is rewritten once.
class GlobalViewStripper {
public:
  explicit GlobalViewStripper(MLIRContext *ctx) : ctx(ctx) {
    for (StringRef name : {StringRef(SpmdDialect::kShardingAttrName),
                           StringRef(SpmdDialect::kOutShardingAttrName),
                           StringRef(SpmdDialect::kShardingRuleAttrName),
                           StringRef("spmd.sharding_origins")})
      names.push_back(StringAttr::get(ctx, name));
  }

  void strip(Operation *op) {
    // The raw dictionary holds the discardable attributes (and for ops
    // without properties the inherent ones, which stay).
    DictionaryAttr before = op->getRawDictionaryAttrs();
    if (before.empty())
      return;
    auto [it, inserted] = stripped.try_emplace(before);
    if (inserted) {
      NamedAttrList attrs(before);
      for (StringAttr name : names)
        attrs.erase(name);
      it->second = attrs.getDictionary(ctx);
    }
    if (it->second != before)
      op->setDiscardableAttrs(it->second);
  }

private:
  MLIRContext *ctx;
  SmallVector<StringAttr, 4> names;
  DenseMap<DictionaryAttr, DictionaryAttr> stripped;
};

/// Whether `op` has regions whose block arguments are values of the
/// program (control flow; a linalg body's arguments are scalars).
static bool hasValueRegions(Operation *op) {
  return op->getNumRegions() != 0 && !isa<linalg::LinalgOp>(op);
}

/// The ops of `func` outside linalg bodies, in pre-order, after checking
/// that none must be gone before spmd-partition or is not supported by it;
/// collects the manual computations, the collectives and the ops with
/// value regions (hasValueRegions) too.
static LogicalResult collectOps(func::FuncOp func,
                                SmallVectorImpl<Operation *> &ops,
                                SmallVectorImpl<ManualComputationOp> &manuals,
                                SmallVectorImpl<Operation *> &collectives,
                                SmallVectorImpl<Operation *> &regionOps) {
  WalkResult walk =
      walkTensorOps(func, WalkOrder::PreOrder, [&](Operation *op) {
        ops.push_back(op);
        if (hasValueRegions(op))
          regionOps.push_back(op);
        // Everything must have been resharded and lowered to collectives.
        if (isa<ReshardOp, ShardingConstraintOp, PropagationBarrierOp>(op)) {
          op->emitOpError("must be removed before spmd-partition (run "
                          "spmd-insert-reshards and "
                          "spmd-reshard-to-collectives first)");
          return WalkResult::interrupt();
        }
        if (isa<AutoAxesOp, ExplicitAxesOp>(op)) {
          op->emitOpError("is not supported by spmd-partition");
          return WalkResult::interrupt();
        }
        if (auto manual = dyn_cast<ManualComputationOp>(op))
          manuals.push_back(manual);
        else if (isGlobalCollective(op))
          collectives.push_back(op);
        return WalkResult::advance();
      });
  return failure(walk.wasInterrupted());
}

/// Remembers the ops a rewrite erases (lowered collectives, ops replaced by
/// their local form), and makes `state` forget their results.
struct ErasedOps : public RewriterBase::Listener {
  explicit ErasedOps(PartitionState &state) : state(state) {}
  void notifyOperationErased(Operation *op) override {
    erased.insert(op);
    for (Value result : op->getResults())
      state.forget(result);
  }
  PartitionState &state;
  llvm::DenseSet<Operation *> erased;
};

/// spmd-partition on `module`.
static LogicalResult partitionModule(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  // Only func.func bodies are partitioned: sharded code anywhere else would
  // stay global.
  for (Operation &top : module.getBody()->getOperations()) {
    if (isa<func::FuncOp, MeshOp>(top))
      continue;
    WalkResult outside = top.walk([&](Operation *op) {
      if (isa<MeshOp>(op) || (!isa_and_nonnull<SpmdDialect>(op->getDialect()) &&
                              !op->hasAttr(SpmdDialect::kShardingAttrName)))
        return WalkResult::advance();
      op->emitOpError("is outside a func.func: spmd-partition partitions "
                      "func.func bodies only");
      return WalkResult::interrupt();
    });
    if (outside.wasInterrupted())
      return failure();
  }

  PartitionState state(ctx);
  GlobalToLocalTypeConverter converter(state);
  RewritePatternSet patterns(ctx);
  populateCollectivePartitionPatterns(patterns, converter, state);
  FrozenRewritePatternSet frozen(std::move(patterns));
  PatternApplicator collectivePatterns(frozen);
  collectivePatterns.applyDefaultCostModel();
  ErasedOps erasedOps(state);
  PatternRewriter rewriter(ctx);
  rewriter.setListener(&erasedOps);
  GlobalViewStripper stripper(ctx);
  SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
  for (func::FuncOp func : funcs) {
    if (func.isExternal())
      continue;
    // The global interface, before anything changes.
    GlobalInterface global;
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      global.argShardings.push_back(spmd::getSharding(func.getArgument(i)));
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      global.resultShardings.push_back(getFuncResultSharding(func, i));
    llvm::append_range(global.argTypes, func.getArgumentTypes());
    llvm::append_range(global.resultTypes, func.getResultTypes());

    // Every op outside linalg bodies, in pre-order (again after manual
    // computations are inlined).
    SmallVector<Operation *> ops;
    SmallVector<ManualComputationOp> manuals;
    SmallVector<Operation *> collectives;
    SmallVector<Operation *> regionOps;
    if (failed(collectOps(func, ops, manuals, collectives, regionOps)))
      return failure();
    if (!manuals.empty()) {
      inlineManualComputations(rewriter, manuals, collectives);
      // Manual computations (parents of resolved ops) are gone.
      state.meshes.clear();
      ops.clear();
      regionOps.clear();
      walkTensorOps(func, WalkOrder::PreOrder, [&](Operation *op) {
        ops.push_back(op);
        if (hasValueRegions(op))
          regionOps.push_back(op);
        return WalkResult::advance();
      });
    }

    // The global shardings of block arguments, before any type changes
    // (control flow's data-flow edges compare types).
    for (BlockArgument arg : func.getArguments())
      state.recordBlockArgument(arg);
    for (Operation *op : regionOps)
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            state.recordBlockArgument(arg);

    // The arguments, then each op in order: collectives through their
    // patterns, ops with a local form through PartitionOpInterface, the
    // others take their local types.
    for (BlockArgument arg : func.getArguments()) {
      Type local = converter.getLocalType(arg);
      if (!local)
        return failure();
      arg.setType(local);
    }
    for (auto [i, op] : llvm::enumerate(ops)) {
      // An earlier rewrite (a halo exchange, a collective's lowering) may
      // have erased an op of the list: ErasedOps remembers it.
      if (erasedOps.erased.contains(op))
        continue;
      if (i + 4 < ops.size() && !erasedOps.erased.contains(ops[i + 4]))
        prefetchOp(ops[i + 4]);
      LogicalResult partitioned = success();
      // A convolution or pooling over a sharded spatial dimension reads
      // its neighbours' halos first.
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
          linalgOp && failed(exchangeHalos(linalgOp, state, rewriter)))
        return failure();
      // So does a pad of a sharded dimension, which it replaces.
      if (auto pad = dyn_cast<tensor::PadOp>(op)) {
        FailureOr<bool> replaced =
            exchangePadHalos(pad, state, converter, rewriter);
        if (failed(replaced))
          return failure();
        if (*replaced)
          continue;
      }
      if (isGlobalCollective(op))
        partitioned = collectivePatterns.matchAndRewrite(op, rewriter);
      else if (auto withLocalForm = dyn_cast<PartitionOpInterface>(op))
        partitioned =
            partitionLocalForm(withLocalForm, converter, state, rewriter);
      else
        partitioned = setLocalTypes(op, converter);
      if (failed(partitioned))
        return failure();
    }
    SmallVector<Type> resultTypes;
    for (auto [i, type] : llvm::enumerate(func.getResultTypes())) {
      FailureOr<std::pair<Type, bool>> local = state.getLocalType(
          type, getFuncResultSharding(func, i), func, "result");
      if (failed(local))
        return failure();
      resultTypes.push_back(local->first);
    }
    func.setFunctionType(FunctionType::get(
        ctx, func.getBody().front().getArgumentTypes(), resultTypes));
    // The function is local now: the shardings that described the global
    // view go (it keeps its own as spmd.global_sharding). Ops the rewrite
    // created carry none.
    recordInterface(func, global);
    for (auto [i, op] : llvm::enumerate(ops)) {
      if (erasedOps.erased.contains(op))
        continue;
      if (i + 2 < ops.size())
        prefetchOp(ops[i + 2]);
      stripper.strip(op);
    }
    erasedOps.erased.clear();
  }
  // Other ops outside these functions, and external functions.
  for (Operation &op : module.getOps()) {
    auto func = dyn_cast<func::FuncOp>(op);
    if (func && !func.isExternal())
      continue;
    walkTensorOps(&op, WalkOrder::PostOrder, [&](Operation *nested) {
      stripper.strip(nested);
      return WalkResult::advance();
    });
    stripper.strip(&op);
    if (func)
      stripShardings(func);
  }
  return success();
}

} // namespace detail

namespace {

struct SpmdPartitionPass
    : public impl::SpmdPartitionPassBase<SpmdPartitionPass> {
  void runOnOperation() override {
    if (failed(detail::partitionModule(getOperation())))
      signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tessera::spmd
