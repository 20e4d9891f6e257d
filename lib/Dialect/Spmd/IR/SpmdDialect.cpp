//===- SpmdDialect.cpp - spmd dialect registration and attribute hooks ----===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/SpmdDialect.h"
#include "tessera/Dialect/Spmd/IR/SpmdAttrs.h"
#include "tessera/Dialect/Spmd/IR/SpmdBytecode.h"
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
  registerBytecodeInterface(*this);
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "tessera/Dialect/Spmd/IR/SpmdOps.cpp.inc"
      >();
}

/// True if the shardings of an attribute on `op` are verified later, by a
/// `verifySymbolUses` hook: some refer to a mesh symbol, and `op` sits in a
/// symbol table whose verifier runs those hooks with one shared
/// `SymbolTableCollection`.
static bool deferToSymbolUses(Operation *op,
                              ArrayRef<TensorShardingAttr> shardings) {
  return llvm::any_of(shardings, needsMeshLookup) &&
         op->getParentWithTrait<OpTrait::SymbolTable>();
}

/// Verifies a `spmd.sharding` / `spmd.out_sharding` attribute attached to
/// `op`: a per-value sharding with one entry per result (a single
/// `#spmd.sharding` is also accepted for `spmd.out_sharding` on a
/// single-result op). With `symbolTables` (from a `verifySymbolUses` hook)
/// the meshes are resolved through it; without, shardings that need a mesh
/// lookup are left to that hook when there is one.
static LogicalResult
verifyOpShardingAttr(Operation *op, NamedAttribute attr, bool allowSingle,
                     SymbolTableCollection *symbolTables = nullptr) {
  EmitErrorFn emitError = getEmitErrorFn(op);
  if (auto perValue = dyn_cast<TensorShardingPerValueAttr>(attr.getValue())) {
    if (!symbolTables && deferToSymbolUses(op, perValue.getShardings())) {
      if (perValue.getShardings().size() != op->getNumResults() &&
          !(op->getNumResults() == 0 && perValue.getShardings().size() == 1))
        return emitError("result")
               << " shardings don't match number of values: "
               << perValue.getShardings().size() << " shardings vs "
               << op->getNumResults() << " values";
      return success();
    }
    return verifyTensorShardingPerValue(perValue, op->getResultTypes(), op,
                                        emitError, "result", symbolTables);
  }
  if (auto single = dyn_cast<TensorShardingAttr>(attr.getValue());
      single && allowSingle) {
    if (op->getNumResults() != 1)
      return op->emitOpError("'")
             << attr.getName().getValue()
             << "' given as a single #spmd.sharding needs exactly one "
                "result, got "
             << op->getNumResults();
    if (!symbolTables && deferToSymbolUses(op, single))
      return success();
    return verifyTensorSharding(
        single, op->getResult(0).getType(), op,
        getEmitValueInRangeErrorFn(
            [op](StringRef msg) { return op->emitOpError("result ") << msg; },
            1, 0),
        /*checkDivisibility=*/false, symbolTables);
  }
  return op->emitOpError("should have a sharding attribute of type "
                         "TensorShardingPerValueAttr for '")
         << attr.getName().getValue() << "'";
}

LogicalResult mlir::tessera::spmd::verifyOpShardingSymbolUses(
    Operation *op, SymbolTableCollection &symbolTables) {
  for (StringRef name :
       {SpmdDialect::kShardingAttrName, SpmdDialect::kOutShardingAttrName}) {
    Attribute value = op->getDiscardableAttr(name);
    if (!value)
      continue;
    NamedAttribute attr(StringAttr::get(op->getContext(), name), value);
    if (failed(verifyOpShardingAttr(op, attr,
                                    name == SpmdDialect::kOutShardingAttrName,
                                    &symbolTables)))
      return failure();
  }
  return success();
}

/// The attribute hook of SymbolUserAttrInterface: `attr` is one of the
/// discardable attributes of `op`; only the spmd ones are checked (once per
/// op, by the first of them).
static LogicalResult verifyShardingSymbolUses(Attribute attr, Operation *op,
                                              SymbolTableCollection &tables) {
  Attribute sharding = op->getDiscardableAttr(SpmdDialect::kShardingAttrName);
  Attribute outSharding =
      op->getDiscardableAttr(SpmdDialect::kOutShardingAttrName);
  if (attr != sharding && attr != outSharding)
    return success();
  if (attr != sharding && sharding)
    return success(); // Already checked by the `spmd.sharding` attribute.
  return verifyOpShardingSymbolUses(op, tables);
}

LogicalResult TensorShardingAttr::verifySymbolUses(
    Operation *op, SymbolTableCollection &symbolTables) const {
  return verifyShardingSymbolUses(*this, op, symbolTables);
}

LogicalResult TensorShardingPerValueAttr::verifySymbolUses(
    Operation *op, SymbolTableCollection &symbolTables) const {
  return verifyShardingSymbolUses(*this, op, symbolTables);
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
  if (name == "spmd.check_vma") {
    if (!isa<BoolAttr>(attr.getValue()) || !isa<ManualComputationOp>(op))
      return op->emitOpError("'")
             << name << "' must be a boolean on an 'spmd.manual_computation'";
    return success();
  }
  if (name == "spmd.sharding_origin_name") {
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitOpError("'") << name << "' must be a string attribute";
    return success();
  }
  // The function a copy made by spmd-flatten-call-graph copies.
  if (name == "spmd.original_func_name") {
    if (!isa<StringAttr>(attr.getValue()) || !isa<FunctionOpInterface>(op))
      return op->emitOpError("'")
             << name << "' must be a string attribute on a function";
    return success();
  }
  return op->emitOpError("unknown spmd attribute '") << name << "'";
}

/// Verifies a `spmd.sharding` on a function argument or result. Without
/// `symbolTables`, a sharding whose mesh needs a lookup is left to the
/// function's `verifySymbolUses` hook when it has one (see
/// registerFunctionShardingVerifierModels).
static LogicalResult
verifyFunctionValueAttr(Operation *op, Type type, unsigned index,
                        StringRef kind, NamedAttribute attr,
                        SymbolTableCollection *symbolTables = nullptr) {
  EmitErrorFn emitError = [op, index, kind](StringRef msg) {
    return op->emitOpError(kind) << " " << index << " - " << msg;
  };
  if (attr.getName() != SpmdDialect::kShardingAttrName) {
    if (attr.getName().getValue() == "spmd.sharding_origins")
      return success();
    // The global interface spmd-partition records on per-device functions.
    if (attr.getName().getValue() == "spmd.global_type") {
      if (!isa<TypeAttr>(attr.getValue()))
        return emitError("'spmd.global_type' must be a type attribute");
      return success();
    }
    if (attr.getName().getValue() == "spmd.global_sharding") {
      if (!isa<TensorShardingAttr>(attr.getValue()))
        return emitError("'spmd.global_sharding' must be a sharding");
      return success();
    }
    return emitError("unknown spmd attribute '")
           << attr.getName().getValue() << "'";
  }
  auto sharding = dyn_cast<TensorShardingAttr>(attr.getValue());
  if (!sharding)
    return emitError("should have a sharding attribute of type "
                     "TensorShardingAttr");
  if (!symbolTables && needsMeshLookup(sharding) &&
      op->getParentWithTrait<OpTrait::SymbolTable>() &&
      op->getContext()->getLoadedDialect<SpmdDialect>()->hasShardingSymbolUses(
          op->getName()))
    return success();
  return verifyTensorSharding(sharding, type, op, emitError,
                              /*checkDivisibility=*/false, symbolTables);
}

LogicalResult mlir::tessera::spmd::verifyFunctionShardingSymbolUses(
    FunctionOpInterface func, SymbolTableCollection &symbolTables) {
  Operation *op = func.getOperation();
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (Attribute attr = func.getArgAttr(i, SpmdDialect::kShardingAttrName))
      if (failed(verifyFunctionValueAttr(
              op, func.getArgumentTypes()[i], i, "arg",
              NamedAttribute(StringAttr::get(op->getContext(),
                                             SpmdDialect::kShardingAttrName),
                             attr),
              &symbolTables)))
        return failure();
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
    if (Attribute attr = func.getResultAttr(i, SpmdDialect::kShardingAttrName))
      if (failed(verifyFunctionValueAttr(
              op, func.getResultTypes()[i], i, "result",
              NamedAttribute(StringAttr::get(op->getContext(),
                                             SpmdDialect::kShardingAttrName),
                             attr),
              &symbolTables)))
        return failure();
  return success();
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
