//===- DataFlow.h - shardings of every value, and data-flow edges -*- C++
//-*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Where the sharding of each value lives, and which values must share one.
//
// A value's sharding is stored once, on its *owner*:
// - a function argument: the argument's `spmd.sharding` attribute;
// - an op result: the op's `spmd.sharding` (one entry per result), or the
//   sharding the op itself carries (spmd.reshard, the collectives);
// - a region-carried value of a region-branching op (scf.for, scf.while,
//   scf.if, scf.index_switch, or any op implementing RegionBranchOpInterface):
//   the op's result on the same data-flow edge (the block argument, the
//   result, the init operand and the yielded value of a loop form one edge
//   and share that sharding);
// - a manual_computation body argument: the op's `in_shardings` entry, seen
//   in the local view (the manual axes removed: only free axes remain).
//
// A data-flow edge (as in Shardy) groups the values that must have the same
// sharding across a control-flow op or a call: the *sources* flow into the edge
// (init operands, yielded values), the *targets* take its sharding (the loop's
// block arguments and results, an scf.if's results). Propagation moves
// shardings across an edge through its owner.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_IR_DATAFLOW_H
#define TESSERA_DIALECT_SPMD_IR_DATAFLOW_H

#include "tessera/Dialect/Spmd/IR/SpmdAttrs.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Value.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::tessera::spmd {

/// The values that must share one sharding across a control-flow op.
struct DataFlowEdge {
  /// Where the edge's sharding is stored (a result of the op).
  Value owner;
  /// Values that flow into the edge (init operands, yielded values).
  llvm::SmallVector<Value> sources;
  /// Values that take the edge's sharding (block arguments, results).
  llvm::SmallVector<Value> targets;
  /// The uses that forward the sources, in the same order (the op's or a
  /// terminator's operands; a call's operand, or the callee's return
  /// operands).
  llvm::SmallVector<OpOperand *> sourceOperands;
};

/// The data-flow edge `value` belongs to (as a source or a target) of a
/// region-branching op (RegionBranchOpInterface), or std::nullopt. A value
/// yielded by a loop body is the source of that loop's edge; an init operand
/// likewise.
/// Values that are sources of several edges (one value yielded twice)
/// return the first.
std::optional<DataFlowEdge> getDataFlowEdge(Value value);

/// Every data-flow edge owned by `op`, in result order: for an op
/// implementing RegionBranchOpInterface, the successor inputs (block
/// arguments and results) that a common successor operand reaches form one
/// edge, owned by its first result, with those operands as sources (entry
/// operands first, then each region's terminators). Block arguments no
/// result owns join the result at the same position when their region has
/// one argument per result of equal type (scf.while's entry block). Empty
/// for other ops, and for an op with a tensor result nothing flows into.
llvm::SmallVector<DataFlowEdge> getDataFlowEdges(Operation *op);

/// The data-flow edges between a call and its callee (a function in the
/// call's symbol table, resolved through `symbolTables` when given): one per
/// tensor argument, from the call's operand to the callee's argument (the
/// owner, whose `spmd.sharding` argument attribute stores the sharding), and
/// one per tensor result, from the value the callee returns to the call's
/// result (the owner). Empty when the callee is not a function with a body
/// in reach. A callee called from several places gets one argument edge per
/// call, all owned by its argument: propagation merges the callers'
/// shardings there, as Shardy does for calls it keeps.
llvm::SmallVector<DataFlowEdge>
getCallDataFlowEdges(CallOpInterface call,
                     SymbolTableCollection *symbolTables = nullptr);

/// The value whose owner stores the sharding of `value`: `value` itself,
/// except for the block arguments of loops, whose edge owner (the loop
/// result) stores it.
Value getShardingOwner(Value value);

/// Sets the sharding of `value` where getSharding reads it (see above).
/// For an op result without a `spmd.sharding` yet, the other results get a
/// fully open sharding on the same mesh. Fails (changing nothing) for
/// values whose sharding is fixed by their op (spmd.reshard, collectives)
/// or that have no place for one (block arguments of other regions, values
/// that are not ranked tensors) and for a manual_computation body argument
/// whose sharding uses a manual axis or has another rank.
LogicalResult setSharding(Value value, TensorShardingAttr sharding);

/// The local-view sharding of `global` inside a manual computation with
/// `manualAxes`: every manual axis removed from dimensions, replicated and
/// unreduced axes.
TensorShardingAttr removeManualAxes(TensorShardingAttr global,
                                    llvm::ArrayRef<StringAttr> manualAxes);

} // namespace mlir::tessera::spmd

#endif // TESSERA_DIALECT_SPMD_IR_DATAFLOW_H
