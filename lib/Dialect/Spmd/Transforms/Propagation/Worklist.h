//===- Worklist.h - spmd-propagate's worklist of ops ------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Dialect/Spmd/Transforms/Propagation: how spmd-propagate
// classifies an op (OpKind, computed once from its sharding rule) and the
// worklist of the ops it visits, in program order.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_PROPAGATION_WORKLIST_H
#define TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_PROPAGATION_WORKLIST_H

#include "tessera/Dialect/Spmd/IR/SpmdShardingRule.h"
#include "tessera/Dialect/Spmd/Transforms/TensorWalk.h"

#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <vector>

namespace mlir::tessera::spmd::detail {

/// How propagation treats an op.
enum class OpCategory : uint8_t {
  /// A function's return: returned values <-> result attributes and callers.
  Return,
  /// Call operands <-> callee arguments.
  Call,
  /// Operands <-> in_shardings, body results <-> out_shardings.
  Manual,
  /// One identity per data-flow edge (loops, conditionals).
  DataFlow,
  Barrier,
  Constraint,
  /// An op with a sharding rule that fits it.
  Rule,
  /// Nothing to propagate through.
  Skip,
};

/// What the op-priority schedule needs to know about an op, computed once.
struct OpKind {
  OpShardingRuleAttr rule;
  OpCategory category = OpCategory::Skip;
  /// Identity-like connections: data-flow edges, calls, manual
  /// computations, function results.
  bool isEdge = false;
  bool isElementwise = false;
  bool isReshapeOrTranspose = false;
  bool isBroadcast = false;
  bool hasMultiUseOperand = false;
};

/// The ops propagation visits (see `mayPropagate`), numbered in pre-order
/// once, with what propagation keeps per op. Ops to visit come out last in,
/// first out; an op already waiting keeps its place.
class Worklist {
public:
  /// (A module holds tens of thousands: kept small.)
  struct Entry {
    Operation *op = nullptr;
    /// Computed on the first visit (`classified`).
    OpKind kind;
    /// The directions of the op's last visit while nothing around it
    /// changed since (if `clean`; see `Propagation::dirty`).
    uint64_t cleanSignature = 0;
    /// The directions along the op's factors in sweep `directionsSweep`
    /// (they hold for a whole sweep); if `hasDirections`: they may not fit
    /// 64 bits.
    uint64_t directions = 0;
    unsigned directionsSweep = 0;
    bool classified = false;
    bool clean = false;
    bool hasDirections = false;
    bool queued = false;
  };

  /// Appends `op` if propagation may visit it and returns its entry (null
  /// otherwise); ops come in pre-order. `index` makes them known to `find`.
  Entry *add(Operation *op) {
    if (!mayPropagate(op))
      return nullptr;
    Entry &entry = entries.emplace_back();
    entry.op = op;
    return &entry;
  }
  void index() {
    ids.reserve(entries.size());
    for (auto [i, entry] : llvm::enumerate(entries))
      ids.try_emplace(entry.op, i);
  }
  /// Forgets every op (before ops are inserted; numbered again with `add`).
  void clear() {
    entries.clear();
    ids.clear();
    stack.clear();
  }
  bool empty() const { return entries.empty(); }
  /// The entry of `op`, or null if propagation never visits it.
  Entry *find(Operation *op) {
    auto it = ids.find(op);
    return it == ids.end() ? nullptr : &entries[it->second];
  }
  void push(Entry &entry) {
    if (entry.queued)
      return;
    entry.queued = true;
    stack.push_back(&entry - entries.data());
  }
  Entry *pop() {
    if (stack.empty())
      return nullptr;
    Entry &entry = entries[stack.pop_back_val()];
    entry.queued = false;
    // The next two ops to visit start loading while this one is visited.
    for (size_t ahead = 1; ahead <= 2 && ahead <= stack.size(); ++ahead)
      prefetchOp(entries[stack[stack.size() - ahead]].op);
    return &entry;
  }
  /// Queues every op so that they come out in pre-order (ops already
  /// waiting move to their place in that order).
  void fill() {
    stack.clear();
    for (size_t i = entries.size(); i-- > 0;) {
      entries[i].queued = true;
      stack.push_back(i);
    }
  }
  MutableArrayRef<Entry> getEntries() { return entries; }

private:
  /// Whether `op` touches a ranked tensor (operand, result or region
  /// argument; no other op can carry a sharding) and may move shardings:
  /// an op without regions needs two tensors to move one between them,
  /// unless it passes values on (terminators, calls).
  static bool mayPropagate(Operation *op) {
    auto isTensor = [](Type type) { return isa<RankedTensorType>(type); };
    if (op->getNumRegions() == 0) {
      size_t tensors = llvm::count_if(op->getOperandTypes(), isTensor) +
                       llvm::count_if(op->getResultTypes(), isTensor);
      return tensors >= 2 ||
             (tensors == 1 && (op->hasTrait<OpTrait::IsTerminator>() ||
                               isa<CallOpInterface>(op)));
    }
    if (llvm::any_of(op->getOperandTypes(), isTensor) ||
        llvm::any_of(op->getResultTypes(), isTensor))
      return true;
    for (Region &region : op->getRegions())
      if (!region.empty() &&
          llvm::any_of(region.front().getArgumentTypes(), isTensor))
        return true;
    return false;
  }

  std::vector<Entry> entries;
  llvm::DenseMap<Operation *, unsigned> ids;
  SmallVector<unsigned> stack;
};

} // namespace mlir::tessera::spmd::detail

#endif // TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_PROPAGATION_WORKLIST_H
