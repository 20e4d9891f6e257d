//===- ScfExtension.cpp - symbolic shape rules of scf ops -----------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Control flow with JAX's rules: a loop carry must keep its symbolic shape
// (JAX's `while_loop`/`scan` carry check), the branches of `scf.if` /
// `scf.index_switch` must yield equal shapes (JAX's `cond`/`switch`). The
// regions are inferred once: since the carried shapes are loop-invariant, the
// body sees the loop's initial shapes. Index values carried by a loop vary
// and are unknown in the body.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Poly/Extensions/SymbolicShapeExternalModels.h"

#include "ModelUtils.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::poly;
using namespace mlir::tessera::poly::models;

/// What a loop carries into its body or branches yield out: the shape of a
/// shaped value (its element values may change), nothing for a scalar.
static SymbolicValue carried(const SymbolicValue &value) {
  return value.hasShape() ? value.withoutElements() : SymbolicValue();
}

/// The values the terminator of `region` yields.
static SmallVector<SymbolicValue>
getYielded(Region &region, SymbolicShapeContext &context, unsigned skip = 0) {
  SmallVector<SymbolicValue> values;
  Operation *terminator = region.front().getTerminator();
  for (Value v : terminator->getOperands().drop_front(skip))
    values.push_back(context.lookup(v));
  return values;
}

/// The positions where the shaped values `first` and `second` differ, with
/// their JAX types (element types from `types`).
static SmallVector<TypeMismatch> findMismatches(ArrayRef<SymbolicValue> first,
                                                ArrayRef<SymbolicValue> second,
                                                TypeRange types) {
  SmallVector<TypeMismatch> mismatches;
  for (auto [i, a, b, type] : llvm::enumerate(first, second, types)) {
    if (!a.hasShape() || !b.hasShape() ||
        definitelyEqualShapes(a.getShape(), b.getShape()))
      continue;
    Type element = getElementTypeOrSelf(type);
    mismatches.push_back({static_cast<unsigned>(i),
                          formatJaxAval(element, a.getShape()),
                          formatJaxAval(element, b.getShape())});
  }
  return mismatches;
}

/// Merges branch outputs: shapes (already checked equal) from `first`,
/// scalars only where every branch agrees.
static SymbolicValue merge(const SymbolicValue &first,
                           const SymbolicValue &second) {
  if (first.hasShape())
    return first.withoutElements();
  if (first.hasScalar() && second.hasScalar() &&
      definitelyEqual(first.getScalar(), second.getScalar()))
    return first;
  return {};
}

static LogicalResult infer(scf::ForOp op, ArrayRef<SymbolicValue> operands,
                           SmallVectorImpl<SymbolicValue> &results,
                           SymbolicShapeContext &context) {
  SmallVector<SymbolicValue> inits;
  for (Value init : op.getInitArgs())
    inits.push_back(carried(getOperandValue(op, operands, init, context)));
  SmallVector<SymbolicValue> args = {SymbolicValue()};
  args.append(inits.begin(), inits.end());
  if (failed(context.inferRegion(op.getRegion(), args)))
    return failure();
  SmallVector<SymbolicValue> yielded = getYielded(op.getRegion(), context);
  SmallVector<TypeMismatch> mismatches =
      findMismatches(inits, yielded, op.getResultTypes());
  if (!mismatches.empty()) {
    // JAX's fori_loop is a scan for a static trip count, else a while_loop.
    bool staticTrip = getOperandValue(op, operands, op.getLowerBound(), context)
                          .getConstantScalar() &&
                      getOperandValue(op, operands, op.getUpperBound(), context)
                          .getConstantScalar() &&
                      getOperandValue(op, operands, op.getStep(), context)
                          .getConstantScalar();
    return op.emitOpError() << formatCarryMismatch(
               staticTrip ? "scan body" : "while_loop body", mismatches);
  }
  results.append(inits.begin(), inits.end());
  return success();
}

static LogicalResult infer(scf::WhileOp op, ArrayRef<SymbolicValue> operands,
                           SmallVectorImpl<SymbolicValue> &results,
                           SymbolicShapeContext &context) {
  SmallVector<SymbolicValue> inits;
  for (const SymbolicValue &operand : operands)
    inits.push_back(carried(operand));
  if (failed(context.inferRegion(op.getBefore(), inits)))
    return failure();
  SmallVector<SymbolicValue> forwarded;
  for (const SymbolicValue &v : getYielded(op.getBefore(), context, /*skip=*/1))
    forwarded.push_back(carried(v));
  if (failed(context.inferRegion(op.getAfter(), forwarded)))
    return failure();
  SmallVector<SymbolicValue> yielded = getYielded(op.getAfter(), context);
  SmallVector<TypeMismatch> mismatches =
      findMismatches(inits, yielded, op.getOperandTypes());
  if (!mismatches.empty())
    return op.emitOpError()
           << formatCarryMismatch("while_loop body", mismatches);
  results.append(forwarded.begin(), forwarded.end());
  return success();
}

static LogicalResult infer(scf::IfOp op, ArrayRef<SymbolicValue> operands,
                           SmallVectorImpl<SymbolicValue> &results,
                           SymbolicShapeContext &context) {
  if (failed(context.inferRegion(op.getThenRegion(), {})))
    return failure();
  if (op.getElseRegion().empty())
    return success();
  if (failed(context.inferRegion(op.getElseRegion(), {})))
    return failure();
  if (op.getNumResults() == 0)
    return success();
  SmallVector<SymbolicValue> thenValues =
      getYielded(op.getThenRegion(), context);
  SmallVector<SymbolicValue> elseValues =
      getYielded(op.getElseRegion(), context);
  SmallVector<TypeMismatch> mismatches =
      findMismatches(thenValues, elseValues, op.getResultTypes());
  if (!mismatches.empty())
    return op.emitOpError()
           << formatBranchMismatch("cond", "true_fun", "false_fun", mismatches);
  for (auto [a, b] : llvm::zip_equal(thenValues, elseValues))
    results.push_back(merge(a, b));
  return success();
}

static LogicalResult infer(scf::IndexSwitchOp op,
                           ArrayRef<SymbolicValue> operands,
                           SmallVectorImpl<SymbolicValue> &results,
                           SymbolicShapeContext &context) {
  // Branch i is case i; the default region is the last branch.
  SmallVector<Region *> regions;
  for (Region &region : op.getCaseRegions())
    regions.push_back(&region);
  regions.push_back(&op.getDefaultRegion());
  SmallVector<SmallVector<SymbolicValue>> outputs;
  for (Region *region : regions) {
    if (failed(context.inferRegion(*region, {})))
      return failure();
    outputs.push_back(getYielded(*region, context));
  }
  auto branchName = [&](unsigned i) -> std::string {
    return i + 1 == regions.size() ? "the default branch"
                                   : ("branch " + Twine(i)).str();
  };
  for (unsigned i = 1; i < outputs.size(); ++i) {
    SmallVector<TypeMismatch> mismatches =
        findMismatches(outputs[0], outputs[i], op.getResultTypes());
    if (!mismatches.empty())
      return op.emitOpError() << formatBranchMismatch(
                 "switch", branchName(0), branchName(i), mismatches);
  }
  for (unsigned r = 0, e = op.getNumResults(); r < e; ++r) {
    SymbolicValue value = outputs[0][r];
    for (unsigned i = 1; i < outputs.size(); ++i)
      value = merge(value, outputs[i][r]);
    results.push_back(value);
  }
  return success();
}

static LogicalResult infer(scf::ExecuteRegionOp op,
                           ArrayRef<SymbolicValue> operands,
                           SmallVectorImpl<SymbolicValue> &results,
                           SymbolicShapeContext &context) {
  if (failed(context.inferRegion(op.getRegion(), {})))
    return failure();
  for (const SymbolicValue &v : getYielded(op.getRegion(), context))
    results.push_back(v);
  return success();
}

/// Terminators: nothing to compute; their parents read their operands.
template <typename OpTy>
static LogicalResult inferTerminator(OpTy, ArrayRef<SymbolicValue>,
                                     SmallVectorImpl<SymbolicValue> &,
                                     SymbolicShapeContext &) {
  return success();
}

static LogicalResult infer(scf::YieldOp op, ArrayRef<SymbolicValue> operands,
                           SmallVectorImpl<SymbolicValue> &results,
                           SymbolicShapeContext &context) {
  return inferTerminator(op, operands, results, context);
}

static LogicalResult infer(scf::ConditionOp op,
                           ArrayRef<SymbolicValue> operands,
                           SmallVectorImpl<SymbolicValue> &results,
                           SymbolicShapeContext &context) {
  return inferTerminator(op, operands, results, context);
}

namespace {
/// The model of one scf op, dispatching to its `infer` overload.
template <typename OpTy>
struct ScfModel
    : public SymbolicShapeOpInterface::ExternalModel<ScfModel<OpTy>, OpTy> {
  LogicalResult inferSymbolicShapes(Operation *op,
                                    ArrayRef<SymbolicValue> operands,
                                    SmallVectorImpl<SymbolicValue> &results,
                                    SymbolicShapeContext &context) const {
    return infer(cast<OpTy>(op), operands, results, context);
  }
  StringRef getJaxPrimitiveName(Operation *op) const {
    if (isa<scf::ForOp, scf::WhileOp>(op))
      return "while";
    if (isa<scf::IfOp, scf::IndexSwitchOp>(op))
      return "cond";
    return op->getName().getStringRef();
  }
};
} // namespace

template <typename... OpTys> static void attachScfModels(MLIRContext *context) {
  (OpTys::template attachInterface<ScfModel<OpTys>>(*context), ...);
}

void poly::registerScfSymbolicShapeModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, scf::SCFDialect *) {
    attachScfModels<scf::ConditionOp, scf::ExecuteRegionOp, scf::ForOp,
                    scf::IfOp, scf::IndexSwitchOp, scf::WhileOp, scf::YieldOp>(
        context);
  });
}
