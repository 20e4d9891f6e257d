//===- SpmdShardingOps.cpp - constraints, reshards, groups, barriers ------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Syntax, result shardings and verifiers of spmd.sharding_constraint,
// spmd.reshard, spmd.sharding_group and spmd.propagation_barrier (the ops
// declared in SpmdShardingOps.td). Messages follow Shardy's wording.
//
//===----------------------------------------------------------------------===//

#include "SpmdOpsCommon.h"

#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"
#include "tessera/Dialect/Spmd/IR/SpmdVerifiers.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tessera::spmd;
using namespace mlir::tessera::spmd::detail;

/// The entry `index` of the discardable `spmd.sharding` of `op`, or null.
static TensorShardingAttr getDiscardableSharding(Operation *op,
                                                 unsigned index) {
  auto perValue = op->getAttrOfType<TensorShardingPerValueAttr>(
      SpmdDialect::kShardingAttrName);
  if (!perValue || index >= perValue.getShardings().size())
    return {};
  return perValue.getShardings()[index];
}

TensorShardingAttr ShardingConstraintOp::getResultSharding(unsigned index) {
  return index == 0 ? getSharding() : TensorShardingAttr();
}

TensorShardingAttr ReshardOp::getResultSharding(unsigned index) {
  return index == 0 ? getSharding() : TensorShardingAttr();
}

TensorShardingAttr PropagationBarrierOp::getResultSharding(unsigned index) {
  return getDiscardableSharding(getOperation(), index);
}

ParseResult PropagationBarrierOp::parse(OpAsmParser &parser,
                                        OperationState &result) {
  OpAsmParser::UnresolvedOperand input;
  StringRef keyword;
  Type type;
  if (parser.parseOperand(input) || parser.parseKeyword("allowed_direction") ||
      parser.parseEqual())
    return failure();
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<PropagationDirection> direction =
      symbolizePropagationDirection(keyword);
  if (!direction)
    return parser.emitError(loc, "unknown propagation direction '")
           << keyword << "', expected NONE, FORWARD, BACKWARD or BOTH";
  result.addAttribute(
      getAllowedDirectionAttrName(result.name),
      PropagationDirectionAttr::get(parser.getContext(), *direction));
  if (parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(type) ||
      parser.resolveOperand(input, type, result.operands))
    return failure();
  result.addTypes(type);
  return success();
}

void PropagationBarrierOp::print(OpAsmPrinter &printer) {
  printer << " ";
  printer.printOperand(getInput());
  printer << " allowed_direction="
          << stringifyPropagationDirection(getAllowedDirection());
  printer.printOptionalAttrDict((*this)->getAttrs(), getAttributeNames());
  printer << " : " << getType();
}

/// A reshard or sharding constraint to `target` may reduce any unreduced
/// axis of its operand's sharding and introduce new `sum`-unreduced axes; the
/// axes that stay unreduced keep their kind.
static LogicalResult verifyReshardUnreduced(Operation *op, Value input,
                                            TensorShardingAttr target,
                                            SymbolTableCollection *tables) {
  TensorShardingAttr source = getSharding(input);
  if (!source)
    return success();
  MeshAttr mesh = target.getMesh(op, tables);
  if (!mesh || mesh != getMesh(source, input, tables))
    return success();
  return verifyUnreducedChange(op, source, target, mesh, ReductionKind::Sum,
                               source.getUnreducedKind());
}

LogicalResult
ShardingConstraintOp::verifyWithMeshes(SymbolTableCollection *symbolTables) {
  if (failed(verifyTensorSharding(getSharding(), getType(), getOperation(),
                                  getEmitErrorFn(getOperation()),
                                  /*checkDivisibility=*/false, symbolTables)))
    return failure();
  return verifyReshardUnreduced(getOperation(), getInput(), getSharding(),
                                symbolTables);
}

LogicalResult ReshardOp::verifyWithMeshes(SymbolTableCollection *symbolTables) {
  if (failed(verifyTensorSharding(getSharding(), getType(), getOperation(),
                                  getEmitErrorFn(getOperation()),
                                  /*checkDivisibility=*/false, symbolTables)))
    return failure();
  return verifyReshardUnreduced(getOperation(), getInput(), getSharding(),
                                symbolTables);
}

LogicalResult PropagationBarrierOp::verify() {
  if (getAllowedDirection() == PropagationDirection::BOTH)
    return emitOpError("cannot specify `BOTH` as the direction. Not blocking "
                       "propagation direction makes the op redundant");
  return success();
}

LogicalResult ShardingGroupOp::verify() {
  int64_t groupId = getGroupIdAttr().getInt();
  if (groupId < 0)
    return emitOpError("group_id must be non-negative, got: ") << groupId;

  // Compare with the first member of the group that comes before this op in
  // the enclosing symbol table (module); each violation is reported once, on
  // the later member.
  Operation *root = SymbolTable::getNearestSymbolTable(getOperation());
  if (!root)
    return success();
  auto scope = (*this)->getParentOfType<ManualComputationOp>();
  ShardingGroupOp first;
  root->walk([&](ShardingGroupOp other) {
    if (other == *this)
      return WalkResult::interrupt();
    if (other.getGroupIdAttr().getInt() != groupId)
      return WalkResult::advance();
    first = other;
    return WalkResult::interrupt();
  });
  if (!first)
    return success();
  if (first->getParentOfType<ManualComputationOp>() != scope)
    return (emitOpError("ShardingGroupOps values cannot cross "
                        "ManualComputationOp boundaries for groupId: ")
            << groupId)
               .attachNote(first.getLoc())
           << "first member of the group";
  if (first.getInput().getType().getShape() != getInput().getType().getShape())
    return (emitOpError("ShardingGroupOps values must have the same shape for "
                        "groupId: ")
            << groupId)
               .attachNote(first.getLoc())
           << "first member of the group";
  return success();
}
