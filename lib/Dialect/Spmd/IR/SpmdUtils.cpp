//===- SpmdUtils.cpp - queries over shardings in the IR -------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"
#include "tessera/Dialect/Spmd/IR/DataFlow.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

/// Entry `index` of a per-value sharding attribute or, for a single-result
/// op, a plain sharding.
static TensorShardingAttr getEntry(Attribute attr, unsigned index) {
  if (auto perValue = dyn_cast_or_null<TensorShardingPerValueAttr>(attr)) {
    if (index < perValue.getShardings().size())
      return perValue.getShardings()[index];
    return {};
  }
  if (auto single = dyn_cast_or_null<TensorShardingAttr>(attr))
    return index == 0 ? single : TensorShardingAttr();
  return {};
}

TensorShardingAttr mlir::tessera::spmd::getSharding(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    Operation *parent = arg.getOwner()->getParentOp();
    if (auto func = dyn_cast_or_null<FunctionOpInterface>(parent)) {
      if (arg.getOwner() != &func.getFunctionBody().front())
        return {};
      return dyn_cast_or_null<TensorShardingAttr>(
          func.getArgAttr(arg.getArgNumber(), SpmdDialect::kShardingAttrName));
    }
    // The body of a manual computation sees the local view.
    if (auto manual = dyn_cast_or_null<ManualComputationOp>(parent))
      return removeManualAxes(manual.getInSharding(arg.getArgNumber()),
                              manual.getManualAxes().getValue());
    // The body of spmd.explicit_axes sees its operands resharded to
    // in_shardings.
    if (auto explicitAxes = dyn_cast_or_null<ExplicitAxesOp>(parent)) {
      TensorShardingPerValueAttr ins = explicitAxes.getInShardingsAttr();
      if (ins && arg.getArgNumber() < ins.getShardings().size())
        return ins.getShardings()[arg.getArgNumber()];
      return {};
    }
    // The body of spmd.auto_axes sees its operands as they are (the listed
    // axes are Auto there, so they are no longer part of the type).
    if (auto autoAxes = dyn_cast_or_null<AutoAxesOp>(parent))
      if (arg.getArgNumber() < autoAxes->getNumOperands())
        return getSharding(autoAxes->getOperand(arg.getArgNumber()));
    // A loop's block argument shares the sharding of its edge's owner.
    Value owner = getShardingOwner(arg);
    if (owner == value)
      return {};
    return getSharding(owner);
  }
  auto result = cast<OpResult>(value);
  Operation *op = result.getOwner();
  unsigned index = result.getResultNumber();
  // (Only spmd ops carry their results' shardings: the interface of other
  // ops is not looked up.)
  if (isa_and_nonnull<SpmdDialect>(op->getDialect()))
    if (auto carrier = dyn_cast<ResultShardingOpInterface>(op))
      return carrier.getResultSharding(index);
  // (Both are discardable attributes: no op defines them as inherent ones,
  // so the op's properties are not searched.)
  if (TensorShardingAttr sharding = getEntry(
          op->getDiscardableAttr(SpmdDialect::kShardingAttrName), index))
    return sharding;
  return getEntry(op->getDiscardableAttr(SpmdDialect::kOutShardingAttrName),
                  index);
}

bool mlir::tessera::spmd::hasOutSharding(OpResult result) {
  return bool(getEntry(
      result.getOwner()->getDiscardableAttr(SpmdDialect::kOutShardingAttrName),
      result.getResultNumber()));
}

TensorShardingAttr mlir::tessera::spmd::getFuncResultSharding(Operation *op,
                                                              unsigned index) {
  auto func = dyn_cast_or_null<FunctionOpInterface>(op);
  if (!func || index >= func.getNumResults())
    return {};
  return dyn_cast_or_null<TensorShardingAttr>(
      func.getResultAttr(index, SpmdDialect::kShardingAttrName));
}

MeshAttr mlir::tessera::spmd::getMesh(TensorShardingAttr sharding, Value value,
                                      SymbolTableCollection *symbolTables) {
  if (!sharding)
    return {};
  Operation *anchor = value.getDefiningOp();
  if (!anchor)
    anchor = cast<BlockArgument>(value).getOwner()->getParentOp();
  return sharding.getMesh(anchor, symbolTables);
}

MeshAttr MeshResolver::get(TensorShardingAttr sharding, Operation *from) {
  if (MeshAttr inlined = sharding.getInlinedMesh())
    return inlined;
  if (!from)
    return {};
  Operation *scope =
      from->hasTrait<OpTrait::SymbolTable>() || !from->getParentOp()
          ? from
          : from->getParentOp();
  auto key = std::make_pair(scope, sharding.getMeshOrRef());
  if (last.second && last.first == key)
    return last.second;
  auto [it, inserted] = meshes.try_emplace(key);
  if (inserted)
    it->second = sharding.getMesh(from, &symbolTables);
  last = {key, it->second};
  return it->second;
}

//===----------------------------------------------------------------------===//
// Axis types in context
//===----------------------------------------------------------------------===//

/// True if `names` (an array of axis names) contains `axisName`.
static bool listsAxis(ArrayAttr names, StringRef axisName) {
  return llvm::any_of(names, [&](Attribute attr) {
    auto str = dyn_cast<StringAttr>(attr);
    return str && str.getValue() == axisName;
  });
}

AxisType mlir::tessera::spmd::getAxisTypeAt(Operation *op, MeshAttr mesh,
                                            StringRef axisName,
                                            Operation **owner) {
  if (owner)
    *owner = nullptr;
  for (Operation *parent = op ? op->getParentOp() : nullptr; parent;
       parent = parent->getParentOp()) {
    std::optional<AxisType> type;
    if (auto manual = dyn_cast<ManualComputationOp>(parent)) {
      if (manual.isManualAxis(axisName))
        type = AxisType::Manual;
    } else if (auto autoAxes = dyn_cast<AutoAxesOp>(parent)) {
      if (listsAxis(autoAxes.getAxes(), axisName))
        type = AxisType::Auto;
    } else if (auto explicitAxes = dyn_cast<ExplicitAxesOp>(parent)) {
      if (listsAxis(explicitAxes.getAxes(), axisName))
        type = AxisType::Explicit;
    }
    if (type) {
      if (owner)
        *owner = parent;
      return *type;
    }
  }
  if (!mesh || !mesh.hasAxis(axisName))
    return AxisType::Auto;
  return mesh.getAxisType(axisName);
}

MeshAttr mlir::tessera::spmd::getMeshWithAxisTypesAt(Operation *op,
                                                     MeshAttr mesh) {
  if (!mesh || mesh.getAxes().empty())
    return mesh;
  SmallVector<AxisType> types;
  for (MeshAxisAttr axis : mesh.getAxes())
    types.push_back(getAxisTypeAt(op, mesh, axis.getName()));
  if (llvm::equal(types, llvm::map_range(mesh.getAxes(), [&](MeshAxisAttr a) {
                    return mesh.getAxisType(a.getName());
                  })))
    return mesh;
  // An all-auto list is the canonical "no axis_types" form.
  if (llvm::all_of(types, [](AxisType t) { return t == AxisType::Auto; }))
    types.clear();
  return MeshAttr::get(mesh.getContext(), mesh.getAxes(), mesh.getDeviceIds(),
                       types);
}

//===----------------------------------------------------------------------===//
// Axis-list algebra of the global-view collectives
//===----------------------------------------------------------------------===//

/// The multiplicative range `[begin, end)` a ref covers within its axis.
static std::pair<int64_t, int64_t> getAxisRange(AxisRefAttr ref,
                                                MeshAttr mesh) {
  return {ref.getPreSize(), ref.getNextPreSize(mesh)};
}

LogicalResult
mlir::tessera::spmd::removeAxesSuffix(SmallVectorImpl<AxisRefAttr> &axes,
                                      ArrayRef<AxisRefAttr> suffix,
                                      MeshAttr mesh, AxisRefAttr *failedRef) {
  for (AxisRefAttr ref : llvm::reverse(suffix)) {
    auto fail = [&] {
      if (failedRef)
        *failedRef = ref;
      return failure();
    };
    if (axes.empty() || !mesh.hasAxis(ref.getName()))
      return fail();
    AxisRefAttr last = axes.back();
    if (last.getName() != ref.getName() || !mesh.hasAxis(last.getName()))
      return fail();
    auto [lastBegin, lastEnd] = getAxisRange(last, mesh);
    auto [refBegin, refEnd] = getAxisRange(ref, mesh);
    if (refEnd != lastEnd || refBegin < lastBegin || lastBegin <= 0 ||
        refBegin % lastBegin != 0)
      return fail();
    axes.pop_back();
    if (refBegin == lastBegin)
      continue;
    // Keep the major part `[lastBegin, refBegin)` of `last`.
    axes.push_back(AxisRefAttr::get(mesh.getContext(), last.getName(),
                                    lastBegin, refBegin / lastBegin));
  }
  return success();
}

void mlir::tessera::spmd::appendAxisOrMerge(SmallVectorImpl<AxisRefAttr> &axes,
                                            AxisRefAttr ref, MeshAttr mesh) {
  if (!axes.empty() && axes.back().canMerge(ref)) {
    axes.back() = axes.back().merge(ref, mesh);
    return;
  }
  axes.push_back(ref);
}

bool mlir::tessera::spmd::isEquivalentLayout(TensorShardingAttr lhs,
                                             TensorShardingAttr rhs,
                                             Operation *scope,
                                             MeshResolver *meshes) {
  if (!lhs || !rhs || lhs.getRank() != rhs.getRank())
    return false;
  for (auto [l, r] :
       llvm::zip_equal(lhs.getDimShardings(), rhs.getDimShardings()))
    if (l.getAxes() != r.getAxes())
      return false;
  if (lhs.getUnreducedAxes() != rhs.getUnreducedAxes() ||
      lhs.getUnreducedKind() != rhs.getUnreducedKind())
    return false;
  auto resolve = [&](TensorShardingAttr sharding) {
    return meshes ? meshes->get(sharding, scope) : sharding.getMesh(scope);
  };
  MeshAttr lhsMesh = resolve(lhs);
  if (!lhsMesh)
    return false;
  return lhs.getMeshOrRef() == rhs.getMeshOrRef() || lhsMesh == resolve(rhs);
}

std::string mlir::tessera::spmd::formatAxisList(ArrayRef<AxisRefAttr> axes) {
  std::string result = "[";
  llvm::raw_string_ostream os(result);
  llvm::interleaveComma(axes, os,
                        [&](AxisRefAttr ref) { os << ref.toString(); });
  os << "]";
  return result;
}
