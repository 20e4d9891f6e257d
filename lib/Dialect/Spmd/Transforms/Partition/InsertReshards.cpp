//===- InsertReshards.cpp - one consistent sharding per op ------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// After propagation the operands and results of an op may disagree (a
// closed input sharded one way, a weight another). This pass picks, for each
// op with a sharding rule, one sharding of the rule's factors, reshards the
// operands to it, and marks results whose reduction factors are sharded as
// unreduced (see the pass description in Passes.td for the rules). How the
// factor sharding is chosen is in FactorChoice.cpp; select reductions over
// sharded dimensions are split where the walk meets them (SplitReductions.cpp).
//
//===----------------------------------------------------------------------===//

#include "FactorChoice.h"
#include "SplitReductions.h"

#include "tessera/Dialect/Spmd/IR/CollectiveShardings.h"
#include "tessera/Dialect/Spmd/IR/DataFlow.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdShardingRule.h"
#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"
#include "tessera/Dialect/Spmd/IR/SpmdVerifiers.h"
#include "tessera/Dialect/Spmd/Transforms/CheckVma.h"
#include "tessera/Dialect/Spmd/Transforms/FactorPropagation.h"
#include "tessera/Dialect/Spmd/Transforms/Passes.h"
#include "tessera/Dialect/Spmd/Transforms/SignatureCache.h"
#include "tessera/Dialect/Spmd/Transforms/TensorValues.h"
#include "tessera/Dialect/Spmd/Transforms/TensorWalk.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/Sequence.h"

namespace mlir::tessera::spmd {
#define GEN_PASS_DEF_SPMDINSERTRESHARDSPASS
#include "tessera/Dialect/Spmd/Transforms/Passes.h.inc"

using detail::buildSharding;
using detail::chooseFactorAxes;
using detail::getHaloDims;
using detail::getPaddableFactors;
using detail::isPaddingSafe;
using detail::WindowedDim;

namespace {

//===----------------------------------------------------------------------===//
// Shardings
//===----------------------------------------------------------------------===//

/// A closed, replicated sharding of rank `rank` on `meshRef`.
TensorShardingAttr replicated(MLIRContext *ctx, Attribute meshRef,
                              int64_t rank) {
  return TensorShardingAttr::getReplicated(ctx, meshRef, rank,
                                           /*closed=*/true);
}

/// True if `sharding` (null: replicated) already has the layout of
/// `target`: the same mesh, dimension axes and unreduced axes and kind.
/// Fully replicated shardings on meshes of the same number of devices
/// agree (every device holds everything), as in Shardy; so do those on a
/// maximal (single-device) mesh, whose values every device holds whole
/// (see getCommonMesh).
bool hasLayout(TensorShardingAttr sharding, TensorShardingAttr target,
               Operation *scope, MeshResolver *meshes = nullptr) {
  if (!sharding)
    return target.isFullyReplicated();
  if (sharding.isFullyReplicated() && target.isFullyReplicated() &&
      sharding.getMeshOrRef() != target.getMeshOrRef()) {
    auto resolve = [&](TensorShardingAttr s) {
      return meshes ? meshes->get(s, scope) : s.getMesh(scope);
    };
    MeshAttr from = resolve(sharding), to = resolve(target);
    if (from && to &&
        (from.getTotalSize() == to.getTotalSize() || from.isMaximal() ||
         to.isMaximal()))
      return true;
  }
  return isEquivalentLayout(sharding, target, scope, meshes);
}

/// The number of elements of `type` (dynamic dims count as 1).
int64_t numElements(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return 1;
  int64_t size = 1;
  for (int64_t dim : tensor.getShape())
    size *= ShapedType::isDynamic(dim) ? 1 : dim;
  return size;
}

//===----------------------------------------------------------------------===//
// The rewriter
//===----------------------------------------------------------------------===//

class ReshardInserter {
public:
  ReshardInserter(ModuleOp module, bool checkVma)
      : module(module), ctx(module.getContext()), checkVma(checkVma) {}

  LogicalResult run();

private:
  /// Processes the ops of `block` and what they nest in post-order (nested
  /// ops before their parent, linalg bodies left out), inlining axis-type
  /// regions where they come (their ops are processed where they land).
  LogicalResult processBlock(Block &block);
  /// Reshards the operands and results of `op`.
  LogicalResult processOp(Operation *op);

  /// The mesh (symbol and attribute) of the shardings of the operands and
  /// results of `op`, or failure when they are on different meshes. Null
  /// when none is sharded.
  FailureOr<std::pair<Attribute, MeshAttr>> getCommonMesh(Operation *op);
  /// getCommonMesh with the shardings of the operands and results given.
  FailureOr<std::pair<Attribute, MeshAttr>>
  getCommonMesh(Operation *op, ArrayRef<TensorShardingAttr> operandShardings,
                ArrayRef<TensorShardingAttr> resultShardings);

  /// Reshards operand `operand` to `target` unless it has that layout.
  void reshardOperand(OpOperand &operand, TensorShardingAttr target);

  /// Sets the sharding of `result` in its op's `spmd.sharding` to `actual`
  /// (the other results keep theirs) and drops the op's
  /// `spmd.out_sharding`.
  void setOwnSharding(OpResult result, TensorShardingAttr actual);
  /// Sets the sharding of `result` to `actual`; if its users expect the
  /// layout `expected` (null: `actual` without unreduced axes), a reshard
  /// after the op gives it.
  void setResultSharding(OpResult result, TensorShardingAttr actual,
                         TensorShardingAttr expected);
  /// Like setResultSharding for a result whose values are partial over
  /// `partial` (with `kind`): the axes `expected` also leaves unreduced by
  /// `kind` stay unreduced; the others are all-reduced right after the op,
  /// as Shardy does, before any reshard to `expected`.
  void setPartialResultSharding(OpResult result, TensorShardingAttr actual,
                                ArrayRef<AxisRefAttr> partial,
                                ReductionKind kind,
                                TensorShardingAttr expected);

  /// What processRuleOp decides for an op: the sharding of every tensor
  /// operand (null for others), and of every tensor result with the axes
  /// it is partial over and how they combine.
  struct Decision {
    SmallVector<TensorShardingAttr> operands;
    /// Whether each operand already has its target layout.
    SmallVector<bool> operandHasLayout;
    SmallVector<TensorShardingAttr> results;
    SmallVector<SmallVector<AxisRefAttr>> unreduced;
    SmallVector<std::optional<ReductionKind>> kinds;
  };
  /// The decision for `op`, computed once per signature: the rule, the op
  /// name, the mesh, whether the op is padding-safe, its results' reduction
  /// kinds and its operands' and results' types and shardings determine it
  /// (the MLP or transformer layers of a large model repeat a handful).
  const Decision &decide(Operation *op, OpShardingRuleAttr rule,
                         Attribute meshRef, MeshAttr mesh,
                         ArrayRef<TensorShardingAttr> operandShardings,
                         ArrayRef<TensorShardingAttr> resultShardings);

  LogicalResult processRuleOp(Operation *op, OpShardingRuleAttr rule);
  /// A closed, replicated sharding of rank `rank` on the mesh of `like`;
  /// `like` itself when that mesh is maximal (or empty), whose shardings
  /// have rank 0.
  TensorShardingAttr replicatedLike(TensorShardingAttr like, int64_t rank,
                                    Operation *scope);
  LogicalResult processOpWithoutRule(Operation *op);
  LogicalResult processControlFlow(Operation *op);

  /// The nearest symbol table around `op` (remembered for the last block
  /// asked about: consecutive ops mostly share one).
  Operation *symbolTableOf(Operation *op) {
    if (op->getBlock() != lastBlock) {
      lastBlock = op->getBlock();
      lastTable = op->getParentWithTrait<OpTrait::SymbolTable>();
    }
    return lastTable;
  }
  Block *lastBlock = nullptr;
  Operation *lastTable = nullptr;
  /// Whether the last getCommonMesh met a mesh of other axes.
  bool sawOtherAxes = false;

  /// hasLayout(sharding, target, scope), remembered per symbol table (the
  /// answer depends only on the meshes the symbols resolve to).
  bool sameLayout(TensorShardingAttr sharding, TensorShardingAttr target,
                  Operation *scope) {
    if (sharding == target)
      return true;
    auto [it, inserted] = layouts.try_emplace(
        std::make_tuple(sharding, target, symbolTableOf(scope)), false);
    if (inserted)
      it->second = hasLayout(sharding, target, scope, &meshes);
    return it->second;
  }
  DenseMap<std::tuple<Attribute, Attribute, Operation *>, bool> layouts;

  ModuleOp module;
  /// The context (an op's getContext() loads its location, rarely in cache).
  MLIRContext *ctx;
  /// Whether manual computations are checked (spmd-check-vma) when the
  /// walk reaches them; those nested in a checked one are checked with it.
  bool checkVma;
  DenseSet<Operation *> vmaChecked;
  /// How many manual computations enclose the block being processed.
  unsigned manualDepth = 0;
  /// The ops a split select reduction became (SplitReductions.cpp).
  DenseSet<Operation *> splitOps;
  /// Whether the linalg op `op` may be a select reduction over a sharded
  /// dimension: its rule has a reduction factor that shards an operand
  /// (ops without a derived rule are left to the split's own analysis).
  /// Most ops are not, and this answers from the rule the walk reads
  /// anyway, without touching the op's body.
  bool mayReduceShardedFactor(Operation *op);

  MeshResolver meshes;
  ShardingRuleCache rules;
  /// The rule of the op the walk is at: rules.get, asked once per op (the
  /// walk forgets it at each op, so an erased op's address is never
  /// matched).
  OpShardingRuleAttr getRule(Operation *op) {
    if (op != ruleOp) {
      ruleOp = op;
      ruleOfOp = rules.get(op);
    }
    return ruleOfOp;
  }
  Operation *ruleOp = nullptr;
  OpShardingRuleAttr ruleOfOp;
  /// The discardable attributes of an op before and after its sharding is
  /// set (see setResultSharding).
  DenseMap<std::pair<DictionaryAttr, Attribute>, DictionaryAttr> rewrittenAttrs;
  /// The same for single-result ops, keyed by the result's sharding.
  DenseMap<std::pair<DictionaryAttr, Attribute>, DictionaryAttr>
      rewrittenSingleAttrs;
  SignatureCache<Decision> decisions;
  /// Whether a factor of a rule that may be padded is not a multiple of
  /// the mesh's size, per rule and mesh.
  DenseMap<std::pair<Attribute, Attribute>, bool> mayPad;
};

FailureOr<std::pair<Attribute, MeshAttr>>
ReshardInserter::getCommonMesh(Operation *op) {
  SmallVector<TensorShardingAttr> operandShardings, resultShardings;
  for (Value operand : op->getOperands())
    operandShardings.push_back(getSharding(operand));
  for (Value result : op->getResults())
    resultShardings.push_back(getSharding(result));
  return getCommonMesh(op, operandShardings, resultShardings);
}

FailureOr<std::pair<Attribute, MeshAttr>>
ReshardInserter::getCommonMesh(Operation *op,
                               ArrayRef<TensorShardingAttr> operandShardings,
                               ArrayRef<TensorShardingAttr> resultShardings) {
  // The results' mesh (one per op), else the first operand's. Operands on
  // a mesh with the same axes in another device order, or with other axes
  // over as many devices, are resharded to it (spmd-reshard-to-collectives
  // moves them); meshes of different device counts cannot meet (the pass
  // checks the mesh symbols; inlined meshes are checked here). A maximal
  // (single-device) sharding names no mesh of the op: Tessera runs a
  // single-device value's ops on every device over the whole value (no device
  // idles, and nothing is broadcast from the one device afterwards), so such a
  // value has the replicated layout on any mesh, and an op computed on a mesh
  // and given a single-device result is gathered for it.
  Attribute meshRef;
  MeshAttr mesh;
  sawOtherAxes = false;
  for (TensorShardingAttr sharding : llvm::concat<const TensorShardingAttr>(
           resultShardings, operandShardings)) {
    // (Most values of an op name one mesh.)
    if (!sharding || (mesh && sharding.getMeshOrRef() == meshRef))
      continue;
    MeshAttr current = meshes.get(sharding, op);
    if (!current)
      return op->emitOpError("has a sharding whose mesh cannot be resolved");
    if (current.isMaximal() || current.empty())
      continue;
    if (mesh && current != mesh && current.getAxes() != mesh.getAxes()) {
      // (Only inlined meshes get here: the pass checked the symbols.)
      if (current.getTotalSize() != mesh.getTotalSize())
        return op->emitOpError("has operands or results on meshes of ")
               << mesh.getTotalSize() << " and " << current.getTotalSize()
               << " devices; all non-maximal meshes of a module must have "
                  "the same number of devices";
      sawOtherAxes = true;
    }
    if (mesh)
      continue;
    mesh = current;
    meshRef = sharding.getMeshOrRef();
  }
  return std::make_pair(meshRef, mesh);
}

/// Whether `op` reads no tensor.
static bool readsNoTensor(Operation *op) {
  return llvm::none_of(op->getOperandTypes(),
                       [](Type type) { return isa<RankedTensorType>(type); });
}

/// True if `op` creates its tensor without reading one: a side-effect-free
/// op of one tensor result that reads no tensor (an empty tensor, a splat)
/// or only destinations that read none (a fill of an empty tensor), or a
/// constant that is a splat. Any layout of it is made locally, without
/// communication, by creating it again in that layout.
bool isCreation(Operation *op) {
  // (The cheap structural checks first; the side-effect query walks the
  // op's interfaces.)
  if (!op || op->getNumResults() != 1 ||
      !isa<RankedTensorType>(op->getResult(0).getType()))
    return false;
  if (op->hasTrait<OpTrait::ConstantLike>()) {
    Attribute value;
    auto dense = matchPattern(op->getResult(0), m_Constant(&value))
                     ? dyn_cast<DenseElementsAttr>(value)
                     : DenseElementsAttr();
    return dense && dense.isSplat() && isMemoryEffectFree(op);
  }
  auto dps = dyn_cast<DestinationStyleOpInterface>(op);
  if (!dps)
    return op->getNumRegions() == 0 && readsNoTensor(op) &&
           isMemoryEffectFree(op);
  return llvm::all_of(op->getOpOperands(),
                      [&](OpOperand &operand) {
                        if (!isa<RankedTensorType>(operand.get().getType()))
                          return true;
                        Operation *init = operand.get().getDefiningOp();
                        return dps.isDpsInit(&operand) && init &&
                               readsNoTensor(init) && isCreation(init);
                      }) &&
         isMemoryEffectFree(op);
}

void ReshardInserter::reshardOperand(OpOperand &operand,
                                     TensorShardingAttr target) {
  Operation *owner = operand.getOwner();
  TensorShardingAttr current = getSharding(operand.get());
  if (sameLayout(current, target, owner))
    return;
  OpBuilder builder(ctx);
  builder.setInsertionPoint(owner);
  // A created tensor is created again in the wanted layout (unreduced axes
  // are still introduced by a reshard below).
  Operation *def = operand.get().getDefiningOp();
  TensorShardingAttr layout = target.withUnreduced({}, ReductionKind::Sum);
  if (isCreation(def) && def->getBlock() == owner->getBlock() &&
      !sameLayout(getSharding(operand.get()), layout, owner)) {
    auto perValue = TensorShardingPerValueAttr::get(ctx, {layout});
    IRMapping mapping;
    // A destination it fills is created again too.
    for (Value init : def->getOperands()) {
      if (!isa<RankedTensorType>(init.getType()))
        continue;
      Operation *initDef = init.getDefiningOp();
      Operation *newInit = builder.clone(*initDef);
      newInit->setAttr(SpmdDialect::kShardingAttrName, perValue);
      mapping.map(init, newInit->getResult(0));
    }
    Operation *copy = builder.clone(*def, mapping);
    copy->setAttr(SpmdDialect::kShardingAttrName, perValue);
    copy->removeAttr(SpmdDialect::kOutShardingAttrName);
    operand.set(copy->getResult(0));
    if (sameLayout(layout, target, owner))
      return;
  }
  // Zeros are their own unreduced form (the value on one device of each
  // group, zeros on the others): a zero splat made for this operand alone
  // is made unreduced where it is, without a reshard.
  Value value = operand.get();
  def = value.getDefiningOp();
  if (def && def->getNumResults() == 1 && value.hasOneUse() &&
      def->getBlock() == owner->getBlock() && isZeroSplat(value) &&
      sameLayout(getSharding(value), layout, owner)) {
    setOwnSharding(cast<OpResult>(value), target);
    return;
  }
  auto reshard =
      ReshardOp::create(builder, owner->getLoc(), operand.get(), target);
  operand.set(reshard);
}

void ReshardInserter::setOwnSharding(OpResult result,
                                     TensorShardingAttr actual) {
  Operation *op = result.getOwner();
  auto getPerValue = [&]() {
    SmallVector<TensorShardingAttr> shardings;
    for (OpResult r : op->getResults()) {
      if (r == result) {
        shardings.push_back(actual);
        continue;
      }
      TensorShardingAttr existing = getSharding(r);
      auto type = dyn_cast<RankedTensorType>(r.getType());
      shardings.push_back(
          existing ? existing
                   : replicatedLike(actual, type ? type.getRank() : 0, op));
    }
    return TensorShardingPerValueAttr::get(ctx, shardings);
  };
  // Many ops have the same attributes before and after: the new dictionary
  // is built once per pair. (The raw dictionary: the discardable attributes,
  // and for ops without properties also the inherent ones, which stay.) The
  // sharding of a single-result op is `actual` alone, which stands for it in
  // the key.
  DictionaryAttr before = op->getRawDictionaryAttrs();
  TensorShardingPerValueAttr perValue;
  bool single = op->getNumResults() == 1;
  if (!single)
    perValue = getPerValue();
  auto [it, inserted] =
      (single ? rewrittenSingleAttrs : rewrittenAttrs)
          .try_emplace(std::make_pair(before, single ? Attribute(actual)
                                                     : Attribute(perValue)));
  if (inserted) {
    if (single)
      perValue = getPerValue();
    NamedAttrList attrs(before);
    attrs.set(SpmdDialect::kShardingAttrName, perValue);
    attrs.erase(SpmdDialect::kOutShardingAttrName);
    it->second = attrs.getDictionary(ctx);
  }
  if (it->second != before)
    op->setDiscardableAttrs(it->second);
}

void ReshardInserter::setResultSharding(OpResult result,
                                        TensorShardingAttr actual,
                                        TensorShardingAttr expected) {
  Operation *op = result.getOwner();
  // What the user asked for in `spmd.out_sharding` is `expected` now.
  setOwnSharding(result, actual);
  // Unless users were promised a sharding, they take the actual one (with
  // its unreduced axes reduced).
  if (!expected)
    expected = actual.withUnreduced({}, ReductionKind::Sum);
  if (sameLayout(actual, expected, op))
    return;
  OpBuilder builder(ctx);
  builder.setInsertionPointAfter(op);
  auto reshard = ReshardOp::create(builder, op->getLoc(), result, expected);
  result.replaceAllUsesExcept(reshard, reshard);
}

void ReshardInserter::setPartialResultSharding(OpResult result,
                                               TensorShardingAttr actual,
                                               ArrayRef<AxisRefAttr> partial,
                                               ReductionKind kind,
                                               TensorShardingAttr expected) {
  SmallVector<AxisRefAttr> keep, reduce;
  bool declared = expected && expected.getUnreducedKind() == kind;
  for (AxisRefAttr ref : partial)
    (declared && llvm::is_contained(expected.getUnreducedAxes(), ref) ? keep
                                                                      : reduce)
        .push_back(ref);
  TensorShardingAttr kept =
      actual.withUnreduced(keep, keep.empty() ? ReductionKind::Sum : kind);
  if (reduce.empty())
    return setResultSharding(result, kept, expected);
  // The op's sharding lists only the axes that stay unreduced; the
  // all-reduce finishes the others.
  Operation *op = result.getOwner();
  setResultSharding(result, kept, kept);
  OpBuilder builder(ctx);
  builder.setInsertionPointAfter(op);
  auto allReduce = AllReduceOp::create(
      builder, op->getLoc(), result, AxisRefListAttr::get(ctx, reduce), kept,
      /*in_sharding=*/TensorShardingAttr(), kind);
  result.replaceAllUsesExcept(allReduce, allReduce);
  if (!expected)
    expected = kept.withUnreduced({}, ReductionKind::Sum);
  if (sameLayout(kept, expected, op))
    return;
  auto reshard =
      ReshardOp::create(builder, op->getLoc(), allReduce.getResult(), expected);
  allReduce.getResult().replaceAllUsesExcept(reshard, reshard);
}

const ReshardInserter::Decision &
ReshardInserter::decide(Operation *op, OpShardingRuleAttr rule,
                        Attribute meshRef, MeshAttr mesh,
                        ArrayRef<TensorShardingAttr> operandShardings,
                        ArrayRef<TensorShardingAttr> resultShardings) {
  // The reduction kinds matter only to rules with reduction factors, and
  // whether the op is padding-safe only when a factor that could be padded
  // is not a multiple of the mesh size (every product of axes divides it).
  // Both are read from the op's body. The body of an op without regions or
  // of a named linalg op is fixed by its name and element types, which the
  // key holds: its reduction kinds are found only for a new key.
  auto [mayPadIt, newPair] = mayPad.try_emplace(std::make_pair(rule, mesh));
  if (newPair) {
    llvm::BitVector paddable = getPaddableFactors(rule);
    for (int64_t f : paddable.set_bits())
      mayPadIt->second |= rule.getFactorSize(f) % mesh.getTotalSize() != 0;
  }
  bool paddingSafe = mayPadIt->second && isPaddingSafe(op);
  SmallVector<std::optional<ReductionKind>> kinds(op->getNumResults());
  auto findKinds = [&] {
    bool hasReduction = false;
    for (int64_t f = 0; f < rule.getNumFactors(); ++f)
      hasReduction |= rule.isReduction(f);
    if (hasReduction)
      for (unsigned r = 0; r < op->getNumResults(); ++r)
        kinds[r] = getCollectiveKind(getReductionCombiner(op, r));
  };
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  bool namedBody = op->getNumRegions() == 0 ||
                   (linalgOp && linalgOp.getRegionBuilder() != nullptr);

  SmallVector<const void *, 24> key = {
      rule.getAsOpaquePointer(), op->getName().getAsOpaquePointer(),
      mesh.getAsOpaquePointer(), meshRef.getAsOpaquePointer(),
      signatureInt(paddingSafe)};
  if (!namedBody) {
    findKinds();
    for (std::optional<ReductionKind> kind : kinds)
      key.push_back(signatureInt(kind ? uintptr_t(*kind) + 1 : 0));
  }
  // The symbol table the meshes are resolved in (operands on another mesh
  // than the common one are compared with their targets there).
  key.push_back(symbolTableOf(op));
  // Whether a permutation factor is a window's output loop, which may be
  // sharded, depends on the indexing maps (strides and dilations).
  if (linalgOp &&
      llvm::any_of(llvm::seq<int64_t>(rule.getNumFactors()),
                   [&](int64_t f) { return rule.isPermutation(f); }))
    key.push_back(linalgOp.getIndexingMaps().getAsOpaquePointer());
  // (For a pad, on a constant padding value.)
  if (auto pad = dyn_cast<tensor::PadOp>(op))
    key.push_back(signatureInt(pad.getConstantPaddingValue() != nullptr));
  for (auto [operand, sharding] :
       llvm::zip_equal(op->getOperands(), operandShardings)) {
    key.push_back(operand.getType().getAsOpaquePointer());
    key.push_back(sharding.getAsOpaquePointer());
  }
  for (auto [result, sharding] :
       llvm::zip_equal(op->getResults(), resultShardings)) {
    key.push_back(result.getType().getAsOpaquePointer());
    key.push_back(sharding.getAsOpaquePointer());
  }
  if (Decision *found = decisions.lookup(key))
    return *found;
  if (namedBody)
    findKinds();
  llvm::BitVector paddable = getPaddableFactors(rule);
  if (!paddingSafe)
    paddable.reset();

  SmallVector<int64_t> sizes;
  for (Value operand : op->getOperands())
    sizes.push_back(numElements(operand.getType()));
  for (Value result : op->getResults())
    sizes.push_back(numElements(result.getType()));
  ShardingProjection projection =
      ShardingProjection::build(operandShardings, resultShardings, rule, mesh);

  // Which factors may be sharded; a reduction factor only when every result
  // it is reduced into has a kind the mesh can finish.
  llvm::BitVector shardable(rule.getNumFactors());
  for (int64_t f = 0; f < rule.getNumFactors(); ++f) {
    if (rule.isNeedReplication(f) || rule.isPermutation(f) || rule.isBlocked(f))
      continue;
    if (rule.isReduction(f)) {
      bool ok = true;
      for (unsigned r = 0; r < op->getNumResults(); ++r)
        if (!rule.getResultMapping(r).containsFactor(f) && !kinds[r])
          ok = false;
      if (!ok)
        continue;
    }
    shardable.set(f);
  }
  // Windowed ops (convolutions, poolings, and pads, windows of one
  // element): the output loop of a windowed input dimension may be sharded
  // when that input has the dimension sharded (spmd-partition then gives
  // each device the window overlap from its neighbours, a halo exchange),
  // if its axes divide both the output and the input dimension; the window
  // loop stays unsharded (the input dimension does not carry it).
  SmallVector<WindowedDim> windowed = getHaloDims(op, rule);
  for (const WindowedDim &w : windowed)
    if (w.windowLoop != detail::kNoWindowLoop)
      shardable.reset(w.windowLoop);
  for (const WindowedDim &w : windowed) {
    TensorShardingAttr sharding = operandShardings[w.operand];
    int64_t size = cast<RankedTensorType>(op->getOperand(w.operand).getType())
                       .getDimSize(w.dim);
    if (sharding && w.dim < sharding.getRank() &&
        !sharding.getDimSharding(w.dim).getAxes().empty() &&
        !ShapedType::isDynamic(size) &&
        !ShapedType::isDynamic(rule.getFactorSize(w.outLoop)) &&
        (w.windowLoop == detail::kNoWindowLoop ||
         !ShapedType::isDynamic(rule.getFactorSize(w.windowLoop)))) {
      shardable.set(w.outLoop);
      // (A pad's result may be padded; a window's output may not.)
      if (w.windowLoop != detail::kNoWindowLoop)
        paddable.reset(w.outLoop);
    }
  }
  SmallVector<SmallVector<AxisRefAttr>> chosen =
      chooseFactorAxes(rule, projection, sizes, shardable, paddable, mesh);
  // A window's output loop whose axes do not divide its size, and a pad's
  // dimension whose axes do not divide its source, stay unsharded (the
  // dimension is gathered for the op). (A windowed input may be padded: its
  // windows never read past its end.)
  for (bool again = !windowed.empty(); again;) {
    again = false;
    for (const WindowedDim &w : windowed) {
      int64_t parts = 1;
      for (AxisRefAttr axis : chosen[w.outLoop])
        parts *= axis.getSize(mesh);
      int64_t size = cast<RankedTensorType>(op->getOperand(w.operand).getType())
                         .getDimSize(w.dim);
      if (w.windowLoop == detail::kNoWindowLoop
              ? size % parts == 0
              : rule.getFactorSize(w.outLoop) % parts == 0)
        continue;
      shardable.reset(w.outLoop);
      again = true;
    }
    if (again)
      chosen =
          chooseFactorAxes(rule, projection, sizes, shardable, paddable, mesh);
  }

  Decision decision;
  decision.kinds = kinds;
  // The unreduced axes of each result.
  decision.unreduced.resize(op->getNumResults());
  for (unsigned r = 0; r < op->getNumResults(); ++r) {
    for (int64_t f = 0; f < rule.getNumFactors(); ++f)
      if (rule.isReduction(f) && !rule.getResultMapping(r).containsFactor(f))
        llvm::append_range(decision.unreduced[r], chosen[f]);
    sortAndMergeAxes(decision.unreduced[r], mesh);
  }

  auto dps = dyn_cast<DestinationStyleOpInterface>(op);
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<RankedTensorType>(operand.get().getType())) {
      decision.operands.push_back({});
      decision.operandHasLayout.push_back(true);
      continue;
    }
    unsigned index = operand.getOperandNumber();
    TensorShardingAttr target = buildSharding(
        ctx, rule.getOperandMapping(index), chosen, meshRef, mesh);
    // The destination of a sum reduction over sharded factors is added
    // once, not once per device: it is itself unreduced over those axes
    // (resharding a replicated value there keeps it on one device of each
    // group and zeros on the others).
    if (dps && dps.isDpsInit(&operand)) {
      unsigned r = dps.getTiedOpResult(&operand).getResultNumber();
      if (!decision.unreduced[r].empty() && kinds[r] == ReductionKind::Sum)
        target =
            target.withUnreduced(decision.unreduced[r], ReductionKind::Sum);
    }
    decision.operands.push_back(target);
    decision.operandHasLayout.push_back(
        sameLayout(operandShardings[index], target, op));
  }
  for (OpResult result : op->getResults()) {
    decision.results.push_back(
        isa<RankedTensorType>(result.getType())
            ? buildSharding(ctx,
                            rule.getResultMapping(result.getResultNumber()),
                            chosen, meshRef, mesh)
            : TensorShardingAttr());
  }

  return decisions.insert(key, std::move(decision));
}

LogicalResult ReshardInserter::processRuleOp(Operation *op,
                                             OpShardingRuleAttr rule) {
  SmallVector<TensorShardingAttr, 4> operandShardings, resultShardings;
  for (Value operand : op->getOperands())
    operandShardings.push_back(getSharding(operand));
  for (Value result : op->getResults())
    resultShardings.push_back(getSharding(result));
  auto common = getCommonMesh(op, operandShardings, resultShardings);
  if (failed(common))
    return failure();
  auto [meshRef, mesh] = *common;
  if (!mesh)
    return success();
  // Shardings on meshes of other axes take part in the choice as the op's
  // mesh spells them; their values are resharded to it in any case.
  SmallVector<bool, 4> foreign(operandShardings.size(), false);
  if (sawOtherAxes) {
    Attribute toRef = meshRef;
    MeshAttr to = mesh;
    auto translate = [&](TensorShardingAttr &sharding) {
      if (!sharding || sharding.getMeshOrRef() == toRef)
        return false;
      MeshAttr from = meshes.get(sharding, op);
      // (A single-device sharding has no axes to translate: it has the
      // replicated layout, and a result keeps it as what it must become.)
      if (!from || from.getAxes() == to.getAxes() || from.isMaximal() ||
          from.empty())
        return false;
      FailureOr<TensorShardingAttr> translated =
          translateShardingToMesh(sharding, from, toRef, to);
      sharding = succeeded(translated) ? *translated : TensorShardingAttr();
      return true;
    };
    for (auto [i, sharding] : llvm::enumerate(operandShardings))
      foreign[i] = translate(sharding);
    for (TensorShardingAttr &sharding : resultShardings)
      translate(sharding);
  }

  const Decision &decision =
      decide(op, rule, meshRef, mesh, operandShardings, resultShardings);
  for (OpOperand &operand : op->getOpOperands()) {
    unsigned index = operand.getOperandNumber();
    if (!decision.operandHasLayout[index] || foreign[index])
      reshardOperand(operand, decision.operands[index]);
  }
  for (OpResult result : op->getResults()) {
    unsigned r = result.getResultNumber();
    TensorShardingAttr actual = decision.results[r];
    if (!actual)
      continue;
    if (decision.unreduced[r].empty())
      setResultSharding(result, actual, resultShardings[r]);
    else
      setPartialResultSharding(result, actual, decision.unreduced[r],
                               *decision.kinds[r], resultShardings[r]);
  }
  return success();
}

TensorShardingAttr ReshardInserter::replicatedLike(TensorShardingAttr like,
                                                   int64_t rank,
                                                   Operation *scope) {
  MeshAttr mesh = meshes.get(like, scope);
  if (mesh && (mesh.isMaximal() || mesh.empty()))
    return like;
  return replicated(ctx, like.getMeshOrRef(), rank);
}

LogicalResult ReshardInserter::processOpWithoutRule(Operation *op) {
  auto common = getCommonMesh(op);
  if (failed(common))
    return failure();
  auto [meshRef, mesh] = *common;
  if (!mesh)
    return success();
  // Ops that read no tensor (creation ops: constants, empty tensors,
  // splats) keep their sharding: their local block is made directly.
  if (op->getNumRegions() == 0 && readsNoTensor(op) && isMemoryEffectFree(op))
    return success();
  for (OpOperand &operand : op->getOpOperands())
    if (auto type = dyn_cast<RankedTensorType>(operand.get().getType()))
      reshardOperand(operand, replicated(ctx, meshRef, type.getRank()));
  for (OpResult result : op->getResults()) {
    auto type = dyn_cast<RankedTensorType>(result.getType());
    if (!type)
      continue;
    TensorShardingAttr expected = getSharding(result);
    setResultSharding(result, replicated(ctx, meshRef, type.getRank()),
                      expected);
  }
  return success();
}

LogicalResult ReshardInserter::processControlFlow(Operation *op) {
  // Each carried value must have the sharding of the loop's (or
  // conditional's) result, where propagation stored it.
  auto targetOf = [&](OpResult result) -> TensorShardingAttr {
    auto type = dyn_cast<RankedTensorType>(result.getType());
    if (!type)
      return {};
    if (TensorShardingAttr sharding = getSharding(result))
      return sharding.withUnreduced({}, ReductionKind::Sum);
    return {};
  };
  auto reshardTo = [&](OpOperand &operand, OpResult result) {
    TensorShardingAttr target = targetOf(result);
    if (target)
      reshardOperand(operand, target);
    else if (TensorShardingAttr current = getSharding(operand.get()))
      reshardOperand(
          operand,
          replicatedLike(
              current, cast<RankedTensorType>(result.getType()).getRank(), op));
  };
  SmallVector<DataFlowEdge> edges = getDataFlowEdges(op);
  if (!edges.empty()) {
    for (const DataFlowEdge &edge : edges)
      for (OpOperand *operand : edge.sourceOperands)
        reshardTo(*operand, cast<OpResult>(edge.owner));
    // Values carried through the regions that no result owns (the entry
    // block arguments of an scf.while whose condition forwards other
    // values) are replicated.
    auto branch = cast<RegionBranchOpInterface>(op);
    RegionBranchSuccessorMapping mapping;
    branch.getSuccessorOperandInputMapping(mapping);
    for (auto &entry : mapping) {
      OpOperand *operand = entry.first;
      auto type = dyn_cast<RankedTensorType>(operand->get().getType());
      if (!type || llvm::any_of(edges, [&](const DataFlowEdge &edge) {
            return llvm::is_contained(edge.sourceOperands, operand);
          }))
        continue;
      if (TensorShardingAttr current = getSharding(operand->get()))
        reshardOperand(*operand, replicatedLike(current, type.getRank(), op));
    }
    return success();
  }
  // Other region ops carrying sharded tensors are not partitioned.
  for (Value value : op->getResults())
    if (TensorShardingAttr sharding = getSharding(value))
      if (!sharding.isFullyReplicated())
        return op->emitOpError("carries sharded tensors through its "
                               "regions, which spmd-insert-reshards does not "
                               "support");
  return success();
}

/// Inlines an `spmd.auto_axes` or `spmd.explicit_axes` op: their bodies
/// are global-view code whose ops propagation (or explicit inference)
/// annotated, so only their boundaries move data. An explicit_axes operand
/// is resharded to its `in_shardings`, an auto_axes result to its
/// `out_shardings`. (An auto_axes operand enters with the listed axes
/// erased from its sharding, and an explicit_axes result leaves so, the
/// same data, which the ops that use it reshard as they need.)
void inlineAxisTypeRegion(Operation *op) {
  OpBuilder builder(op);
  Block &body = op->getRegion(0).front();
  auto explicitOp = dyn_cast<ExplicitAxesOp>(op);
  for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
    Value arg = operand;
    if (explicitOp && explicitOp.getInShardings())
      arg = ReshardOp::create(builder, op->getLoc(), operand,
                              explicitOp.getInShardings()->getShardings()[i]);
    body.getArgument(i).replaceAllUsesWith(arg);
  }
  Operation *terminator = body.getTerminator();
  SmallVector<Value> returned(terminator->getOperands());
  SmallVector<TensorShardingAttr> targets(op->getNumResults());
  if (auto autoOp = dyn_cast<AutoAxesOp>(op);
      autoOp && autoOp.getOutShardings())
    llvm::copy(autoOp.getOutShardings()->getShardings(), targets.begin());
  terminator->erase();
  op->getBlock()->getOperations().splice(Block::iterator(op),
                                         body.getOperations());
  builder.setInsertionPoint(op);
  SmallVector<Value> results;
  for (auto [value, target] : llvm::zip(returned, targets))
    results.push_back(
        target ? ReshardOp::create(builder, op->getLoc(), value, target)
               : value);
  op->replaceAllUsesWith(results);
  op->erase();
}

LogicalResult ReshardInserter::run() {
  for (Region &region : module->getRegions())
    for (Block &block : region)
      if (failed(processBlock(block)))
        return failure();
  return success();
}

bool ReshardInserter::mayReduceShardedFactor(Operation *op) {
  OpShardingRuleAttr rule = getRule(op);
  if (!rule || rule.isCustom())
    return true;
  ArrayRef<int64_t> reductions = rule.getReductionFactors();
  if (reductions.empty())
    return false;
  for (auto [operand, mapping] :
       llvm::zip(op->getOperands(), rule.getOperandMappings())) {
    TensorShardingAttr sharding = getSharding(operand);
    if (!sharding)
      continue;
    int64_t rank = std::min(sharding.getRank(), mapping.getRank());
    for (int64_t d = 0; d < rank; ++d)
      if (!sharding.getDimSharding(d).getAxes().empty() &&
          llvm::any_of(mapping.getDimMapping(d).getFactorIndices(),
                       [&](int64_t factor) {
                         return llvm::is_contained(reductions, factor);
                       }))
        return true;
  }
  return false;
}

LogicalResult ReshardInserter::processBlock(Block &block) {
  for (Operation *op = block.empty() ? nullptr : &block.front(); op;) {
    ruleOp = nullptr;
    if (isa<AutoAxesOp, ExplicitAxesOp>(op)) {
      // The body's ops land before `op`, after the reshards of its
      // operands; the walk goes on from the first of them.
      Operation *previous = op->getPrevNode();
      inlineAxisTypeRegion(op);
      // (The region's block is gone.)
      lastBlock = nullptr;
      op = previous        ? previous->getNextNode()
           : block.empty() ? nullptr
                           : &block.front();
      continue;
    }
    Operation *next = op->getNextNode();
    // A select reduction over a sharded dimension becomes a reduction of
    // each device's block and a combine of the partial results
    // (SplitReductions.cpp), whose ops are processed next (not split again:
    // the combine reduces over the sharded blocks). Ops in manual
    // computations are left as they are.
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
        linalgOp && manualDepth == 0 && !splitOps.contains(op) &&
        mayReduceShardedFactor(op)) {
      Operation *previous = op->getPrevNode();
      if (detail::splitSelectReduction(linalgOp)) {
        op = previous ? previous->getNextNode() : &block.front();
        for (Operation *created = op; created != next;
             created = created->getNextNode())
          splitOps.insert(created);
        continue;
      }
    }
    if (next)
      prefetchOp(next->getNextNode());
    // A manual computation is checked before anything in it changes, with
    // the ones nested in it (innermost first, as spmd-check-vma goes).
    if (checkVma && isa<ManualComputationOp>(op) && !vmaChecked.contains(op)) {
      auto check = [&](Operation *nested) {
        auto manual = dyn_cast<ManualComputationOp>(nested);
        if (!manual)
          return WalkResult::advance();
        vmaChecked.insert(manual);
        return failed(spmd::checkVma(manual)) ? WalkResult::interrupt()
                                              : WalkResult::advance();
      };
      if (walkTensorOps(op, WalkOrder::PostOrder, check).wasInterrupted() ||
          check(op).wasInterrupted())
        return failure();
    }
    if (op->getNumRegions() != 0 && !isa<linalg::LinalgOp>(op)) {
      bool manual = isa<ManualComputationOp>(op);
      manualDepth += manual;
      for (Region &region : op->getRegions())
        for (Block &nested : region)
          if (failed(processBlock(nested)))
            return failure();
      manualDepth -= manual;
    }
    if (!isa<ModuleOp, MeshOp>(op) && !isa<FunctionOpInterface>(op) &&
        failed(processOp(op)))
      return failure();
    op = next;
  }
  return success();
}

LogicalResult ReshardInserter::processOp(Operation *op) {
  // Ops that only move or describe data.
  if (auto constraint = dyn_cast<ShardingConstraintOp>(op)) {
    OpBuilder builder(op);
    Value input = constraint.getInput();
    Value replacement = input;
    if (!hasLayout(getSharding(input), constraint.getSharding(), op))
      replacement = ReshardOp::create(builder, op->getLoc(), input,
                                      constraint.getSharding());
    constraint.replaceAllUsesWith(replacement);
    op->erase();
    return success();
  }
  if (auto barrier = dyn_cast<PropagationBarrierOp>(op)) {
    OpBuilder builder(op);
    Value input = barrier.getInput();
    Value replacement = input;
    TensorShardingAttr sharding = getSharding(barrier.getResult());
    if (sharding && !hasLayout(getSharding(input), sharding, op))
      replacement = ReshardOp::create(builder, op->getLoc(), input, sharding);
    barrier.replaceAllUsesWith(replacement);
    op->erase();
    return success();
  }
  if (isa<ShardingGroupOp>(op)) {
    op->erase();
    return success();
  }
  if (isa<ReshardOp, AllGatherOp, AllSliceOp, AllToAllOp, CollectivePermuteOp,
          AllReduceOp, ReduceScatterOp, ShardedToUnreducedOp,
          ReplicatedToUnreducedOp>(op))
    return success();
  if (auto manual = dyn_cast<ManualComputationOp>(op)) {
    for (OpOperand &operand : manual->getOpOperands())
      if (TensorShardingAttr sharding =
              manual.getInSharding(operand.getOperandNumber()))
        reshardOperand(operand, sharding);
    return success();
  }
  if (auto ret = dyn_cast<ReturnOp>(op)) {
    auto manual = cast<ManualComputationOp>(op->getParentOp());
    for (OpOperand &operand : ret->getOpOperands())
      if (TensorShardingAttr sharding =
              manual.getOutSharding(operand.getOperandNumber()))
        reshardOperand(
            operand,
            removeManualAxes(sharding, manual.getManualAxes().getValue()));
    return success();
  }
  if (op->hasTrait<OpTrait::ReturnLike>() &&
      isa_and_nonnull<FunctionOpInterface>(op->getParentOp())) {
    Operation *func = op->getParentOp();
    Operation *ret = op;
    for (OpOperand &operand : ret->getOpOperands()) {
      auto type = dyn_cast<RankedTensorType>(operand.get().getType());
      if (!type)
        continue;
      TensorShardingAttr target =
          getFuncResultSharding(func, operand.getOperandNumber());
      TensorShardingAttr current = getSharding(operand.get());
      if (!target && current)
        target = replicatedLike(current, type.getRank(), op);
      if (target)
        reshardOperand(operand, target);
    }
    return success();
  }
  if (auto call = dyn_cast<CallOpInterface>(op)) {
    auto callee = dyn_cast_or_null<FunctionOpInterface>(
        call.resolveCallableInTable(&meshes.getSymbolTables()));
    if (callee && !callee.isExternal()) {
      for (OpOperand &operand : call.getArgOperandsMutable()) {
        auto type = dyn_cast<RankedTensorType>(operand.get().getType());
        if (!type)
          continue;
        unsigned index =
            operand.getOperandNumber() - call.getArgOperandsMutable()
                                             .getAsOperandRange()
                                             .getBeginOperandIndex();
        auto target = dyn_cast_or_null<TensorShardingAttr>(
            callee.getArgAttr(index, SpmdDialect::kShardingAttrName));
        TensorShardingAttr current = getSharding(operand.get());
        if (!target && current)
          target = replicatedLike(current, type.getRank(), op);
        if (target)
          reshardOperand(operand, target);
      }
      for (OpResult result : call->getResults()) {
        auto type = dyn_cast<RankedTensorType>(result.getType());
        if (!type)
          continue;
        TensorShardingAttr actual =
            getFuncResultSharding(callee, result.getResultNumber());
        TensorShardingAttr expected = getSharding(result);
        if (!actual && !expected)
          continue;
        if (!actual)
          actual = replicatedLike(expected, type.getRank(), op);
        setResultSharding(result, actual, expected);
      }
      return success();
    }
  }
  if (op->getNumRegions() > 0 && !isa<linalg::LinalgOp>(op) && !getRule(op)) {
    if (failed(processControlFlow(op)))
      return failure();
    return success();
  }
  // Terminators of control flow and ops inside linalg bodies.
  if (op->hasTrait<OpTrait::IsTerminator>() ||
      isa_and_nonnull<linalg::LinalgOp>(op->getParentOp()))
    return success();
  if (OpShardingRuleAttr rule = getRule(op)) {
    if (failed(processRuleOp(op, rule)))
      return failure();
    return success();
  }
  if (failed(processOpWithoutRule(op)))
    return failure();
  return success();
}

struct SpmdInsertReshardsPass
    : public impl::SpmdInsertReshardsPassBase<SpmdInsertReshardsPass> {
  using SpmdInsertReshardsPassBase::SpmdInsertReshardsPassBase;

  void runOnOperation() override {
    // One set of devices runs the program (maximal meshes name one of
    // them). Only the mesh symbols are checked here, without a walk of the
    // module; ops are checked as they are met (getCommonMesh).
    if (failed(verifyOneDeviceCount(getOperation(), /*inlinedMeshes=*/false)))
      return signalPassFailure();
    ReshardInserter inserter(getOperation(), checkVma);
    if (failed(inserter.run()))
      signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tessera::spmd
