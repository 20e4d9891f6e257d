//===- CheckVma.cpp - replication of manual computation results -----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// JAX's `check_vma` for `spmd.manual_computation`: every value of a body has
// a set of *varying manual axes* (the manual axes along which its value may
// differ between devices), and a result whose `out_shardings` entry does not
// mention a manual axis must not vary along it.
//
// - A body argument varies along the manual axes its `in_shardings` entry
//   mentions (in a dimension or as unreduced); constants vary along none.
// - `comm.axis_index` varies along its axes; `comm.all_reduce` and
//   `comm.all_gather` make their result invariant along theirs;
//   `comm.reduce_scatter`, `comm.all_to_all` and `comm.permute` make it
//   varying along theirs.
// - Any other op's results vary along the union of what its operands (and
//   the values its regions use or yield, iterated to a fixed point for
//   loops) vary along.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/Transforms/CheckVma.h"
#include "tessera/Dialect/Comm/IR/CommOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/Transforms/Passes.h"
#include "tessera/Dialect/Spmd/Transforms/TensorWalk.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"

#include <cstdint>

namespace mlir::tessera::spmd {
#define GEN_PASS_DEF_SPMDCHECKVMAPASS
#include "tessera/Dialect/Spmd/Transforms/Passes.h.inc"

namespace {

/// A set of manual axes, one bit per manual axis of the computation.
using AxisSet = uint64_t;

class VmaAnalysis {
public:
  explicit VmaAnalysis(ManualComputationOp op) : op(op) {
    for (StringAttr name : op.getManualAxes().getValue())
      axes.push_back(name.getValue());
  }

  /// Fails with JAX's message when a result is not provably replicated
  /// where its out_shardings entry says it is.
  LogicalResult check();

private:
  /// The bit of manual axis `name`, or 0 for a free axis.
  AxisSet bitOf(StringRef name) const {
    for (auto [i, axis] : llvm::enumerate(axes))
      if (axis == name)
        return AxisSet(1) << i;
    return 0;
  }
  AxisSet bitsOf(ArrayRef<AxisRefAttr> refs) const {
    AxisSet set = 0;
    for (AxisRefAttr ref : refs)
      set |= bitOf(ref.getName());
    return set;
  }
  /// The manual axes `sharding` mentions.
  AxisSet mentioned(TensorShardingAttr sharding) const {
    if (!sharding)
      return 0;
    AxisSet set = bitsOf(sharding.getUnreducedAxes());
    for (DimensionShardingAttr dim : sharding.getDimShardings())
      set |= bitsOf(dim.getAxes());
    return set;
  }
  std::string format(AxisSet set) const {
    std::string text;
    for (auto [i, axis] : llvm::enumerate(axes)) {
      if (!(set & (AxisSet(1) << i)))
        continue;
      if (!text.empty())
        text += ",";
      text += axis.str();
    }
    return text;
  }

  AxisSet get(Value value) const { return vma.lookup(value); }
  /// Merges `set` into `value`; returns whether it grew.
  bool merge(Value value, AxisSet set) {
    AxisSet &entry = vma[value];
    AxisSet old = entry;
    entry |= set;
    return entry != old;
  }

  /// Visits the ops of `block`; returns whether any set grew.
  bool visitBlock(Block &block);
  bool visitOp(Operation *op);

  ManualComputationOp op;
  SmallVector<StringRef> axes;
  llvm::DenseMap<Value, AxisSet> vma;
};

bool VmaAnalysis::visitBlock(Block &block) {
  bool changed = false;
  for (Operation &op : block)
    changed |= visitOp(&op);
  return changed;
}

bool VmaAnalysis::visitOp(Operation *inner) {
  AxisSet operands = 0;
  for (Value operand : inner->getOperands())
    operands |= get(operand);
  if (auto comm = dyn_cast<comm::MeshAxesOpInterface>(inner)) {
    AxisSet group = bitsOf(comm.getAxesAttr().getValue());
    AxisSet result = operands;
    if (isa<comm::AxisIndexOp, comm::ReduceScatterOp, comm::AllToAllOp,
            comm::PermuteOp>(inner))
      result |= group;
    else if (isa<comm::AllReduceOp, comm::AllGatherOp>(inner))
      result &= ~group;
    else if (isa<comm::AxisSizeOp>(inner))
      result = 0;
    bool changed = false;
    for (Value value : inner->getResults())
      changed |= merge(value, result);
    return changed;
  }
  if (auto nested = dyn_cast<ManualComputationOp>(inner)) {
    // A nested computation's results vary along what its outputs mention.
    bool changed = false;
    for (auto [i, value] : llvm::enumerate(nested->getResults()))
      changed |= merge(value, operands | mentioned(nested.getOutSharding(i)));
    return changed;
  }
  if (inner->getNumRegions() == 0) {
    bool changed = false;
    for (Value value : inner->getResults())
      changed |= merge(value, operands);
    return changed;
  }
  // Region ops: what flows in (operands, block arguments) and out
  // (terminator operands) all mix; iterate until nothing grows.
  bool changed = false;
  bool again = true;
  while (again) {
    again = false;
    AxisSet flowing = operands;
    for (Region &region : inner->getRegions())
      for (Block &block : region) {
        for (Operation &nestedOp : block)
          if (nestedOp.hasTrait<OpTrait::IsTerminator>())
            for (Value value : nestedOp.getOperands())
              flowing |= get(value);
        for (BlockArgument arg : block.getArguments())
          flowing |= get(arg);
      }
    for (Region &region : inner->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          again |= merge(arg, flowing);
    for (Region &region : inner->getRegions())
      for (Block &block : region)
        again |= visitBlock(block);
    for (Value value : inner->getResults())
      again |= merge(value, flowing);
    changed |= again;
  }
  return changed;
}

LogicalResult VmaAnalysis::check() {
  if (axes.size() > 64)
    return success();
  Block &body = op.getBody().front();
  for (auto [i, arg] : llvm::enumerate(body.getArguments()))
    merge(arg, mentioned(op.getInSharding(i)));
  while (visitBlock(body)) {
  }
  Operation *terminator = body.getTerminator();
  AxisSet all =
      (axes.size() == 64) ? ~AxisSet(0) : ((AxisSet(1) << axes.size()) - 1);
  for (auto [i, value] : llvm::enumerate(terminator->getOperands())) {
    TensorShardingAttr sharding = op.getOutSharding(i);
    AxisSet allowed = mentioned(sharding);
    AxisSet varying = get(value);
    AxisSet bad = varying & ~allowed & all;
    if (!bad)
      continue;
    AxisSet unmentioned = all & ~allowed;
    std::string spec;
    llvm::raw_string_ostream os(spec);
    if (sharding)
      Attribute(sharding).print(os);
    else
      os << "none";
    InFlightDiagnostic diag =
        op.emitOpError("was given out_shardings which require replication "
                       "which can't be statically inferred given the mesh: ");
    if (llvm::popcount(unmentioned) > 1)
      diag << "out_shardings[" << i << "] is " << spec
           << " which implies that the corresponding output value is only "
              "varying across mesh axes {"
           << format(allowed) << "} and not {" << format(bad)
           << "}, but it was inferred to be possibly varying over {"
           << format(varying) << "}";
    else
      diag << "out_shardings[" << i << "] is " << spec
           << " which implies that the corresponding output value is "
              "replicated across mesh axis '"
           << format(unmentioned)
           << "', but could not infer replication over any axes";
    if (Operation *def = value.getDefiningOp())
      diag.attachNote(def->getLoc())
          << "the output value, possibly varying over {" << format(varying)
          << "}, is defined here";
    return failure();
  }
  return success();
}

struct SpmdCheckVmaPass : public impl::SpmdCheckVmaPassBase<SpmdCheckVmaPass> {
  void runOnOperation() override {
    WalkResult result = walkTensorOps(
        getOperation(), WalkOrder::PostOrder, [](Operation *nested) {
          auto op = dyn_cast<ManualComputationOp>(nested);
          return op && failed(checkVma(op)) ? WalkResult::interrupt()
                                            : WalkResult::advance();
        });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

LogicalResult checkVma(ManualComputationOp op) {
  if (auto flag = op->getAttrOfType<BoolAttr>("spmd.check_vma"))
    if (!flag.getValue())
      return success();
  return VmaAnalysis(op).check();
}

} // namespace mlir::tessera::spmd
