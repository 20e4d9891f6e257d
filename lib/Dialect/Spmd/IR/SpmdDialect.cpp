//===- SpmdDialect.cpp - spmd dialect registration and attribute hooks ----===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/SpmdDialect.h"
#include "tessera/Dialect/Spmd/IR/SpmdAttrs.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdVerifiers.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

#include "tessera/Dialect/Spmd/IR/SpmdDialect.cpp.inc"
#include "tessera/Dialect/Spmd/IR/SpmdEnums.cpp.inc"

void SpmdDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "tessera/Dialect/Spmd/IR/SpmdOps.cpp.inc"
      >();
}

/// Verifies a `spmd.sharding` / `spmd.out_sharding` attribute attached to
/// `op`: a per-value sharding with one entry per result (a single
/// `#spmd.sharding` is also accepted for `spmd.out_sharding` on a
/// single-result op).
static LogicalResult verifyOpShardingAttr(Operation *op, NamedAttribute attr,
                                          bool allowSingle) {
  EmitErrorFn emitError = getEmitErrorFn(op);
  if (auto perValue = dyn_cast<TensorShardingPerValueAttr>(attr.getValue()))
    return verifyTensorShardingPerValue(perValue, op->getResultTypes(), op,
                                        emitError);
  if (auto single = dyn_cast<TensorShardingAttr>(attr.getValue());
      single && allowSingle) {
    if (op->getNumResults() != 1)
      return op->emitOpError("'")
             << attr.getName().getValue()
             << "' given as a single #spmd.sharding needs exactly one "
                "result, got "
             << op->getNumResults();
    return verifyTensorSharding(
        single, op->getResult(0).getType(), op,
        getEmitValueInRangeErrorFn(
            [op](StringRef msg) { return op->emitOpError("result ") << msg; },
            1, 0));
  }
  return op->emitOpError("should have a sharding attribute of type "
                         "TensorShardingPerValueAttr for '")
         << attr.getName().getValue() << "'";
}

LogicalResult SpmdDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kShardingAttrName)
    return verifyOpShardingAttr(op, attr, /*allowSingle=*/false);
  if (name == kOutShardingAttrName) {
    if (failed(verifyOpShardingAttr(op, attr, /*allowSingle=*/true)))
      return failure();
    // A result may not be given two different shardings: the one the user
    // asked for (out_sharding) and another one (spmd.sharding).
    if (op->hasAttr(kShardingAttrName))
      for (OpResult result : op->getResults()) {
        auto perValue =
            op->getAttrOfType<TensorShardingPerValueAttr>(kShardingAttrName);
        if (!perValue ||
            result.getResultNumber() >= perValue.getShardings().size())
          continue;
        TensorShardingAttr other =
            perValue.getShardings()[result.getResultNumber()];
        TensorShardingAttr out =
            isa<TensorShardingAttr>(attr.getValue())
                ? cast<TensorShardingAttr>(attr.getValue())
                : cast<TensorShardingPerValueAttr>(attr.getValue())
                      .getShardings()[result.getResultNumber()];
        if (other != out)
          return op->emitOpError("'")
                 << kShardingAttrName << "' and '" << kOutShardingAttrName
                 << "' disagree on result " << result.getResultNumber() << ": "
                 << other << " vs " << out;
      }
    return success();
  }
  if (name == kShardingRuleAttrName)
    return verifyShardingRuleAttribute(op, attr);
  if (name == "spmd.sharding_origins" || name == "spmd.propagation_edges") {
    if (!isa<DictionaryAttr, ArrayAttr>(attr.getValue()))
      return op->emitOpError("'")
             << name << "' must be a dictionary or array attribute";
    return success();
  }
  return op->emitOpError("unknown spmd attribute '") << name << "'";
}

/// Verifies a `spmd.sharding` on a function argument or result.
static LogicalResult verifyFunctionValueAttr(Operation *op, Type type,
                                             unsigned index, StringRef kind,
                                             NamedAttribute attr) {
  EmitErrorFn emitError = [op, index, kind](StringRef msg) {
    return op->emitOpError(kind) << " " << index << " - " << msg;
  };
  if (attr.getName() != SpmdDialect::kShardingAttrName) {
    if (attr.getName().getValue() == "spmd.sharding_origins")
      return success();
    return emitError("unknown spmd attribute '")
           << attr.getName().getValue() << "'";
  }
  auto sharding = dyn_cast<TensorShardingAttr>(attr.getValue());
  if (!sharding)
    return emitError("should have a sharding attribute of type "
                     "TensorShardingAttr");
  return verifyTensorSharding(sharding, type, op, emitError);
}

LogicalResult SpmdDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  Type type;
  if (auto func = dyn_cast<FunctionOpInterface>(op)) {
    if (argIndex < func.getNumArguments())
      type = func.getArgumentTypes()[argIndex];
  } else if (regionIndex < op->getNumRegions() &&
             !op->getRegion(regionIndex).empty() &&
             argIndex < op->getRegion(regionIndex).getNumArguments()) {
    type = op->getRegion(regionIndex).getArgument(argIndex).getType();
  }
  return verifyFunctionValueAttr(op, type, argIndex, "arg", attr);
}

LogicalResult SpmdDialect::verifyRegionResultAttribute(Operation *op,
                                                       unsigned regionIndex,
                                                       unsigned resultIndex,
                                                       NamedAttribute attr) {
  Type type;
  if (auto func = dyn_cast<FunctionOpInterface>(op)) {
    if (resultIndex < func.getNumResults())
      type = func.getResultTypes()[resultIndex];
  }
  return verifyFunctionValueAttr(op, type, resultIndex, "result", attr);
}
