//===- PropagationOrigins.cpp - debug origins of shardings ------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// spmd-propagate's `debug-origins`: where each axis of each sharding came
// from, named as Shardy names them (`input: N`, `output: N`, `constraint_N`,
// `mc_N_input: N`...), recorded as propagation moves axes and attached as
// `spmd.sharding_origins` afterwards.
//
//===----------------------------------------------------------------------===//

#include "Propagation.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>

namespace mlir::tessera::spmd::detail {

void ShardingOrigins::seed() {
  // Shardy's names, in walk order: constraint_N and mc_N.
  module.walk([&](Operation *op) {
    if (isa<ShardingConstraintOp>(op))
      originNames[op] = "constraint_" + std::to_string(originNames.size());
    else if (isa<ManualComputationOp>(op))
      manualNames[op] = "mc_" + std::to_string(manualNames.size());
  });
  auto seed = [&](Value value, TensorShardingAttr s, const std::string &name) {
    if (!s)
      return;
    for (DimensionShardingAttr dim : s.getDimShardings())
      for (AxisRefAttr ref : dim.getAxes())
        valueOrigins[value][originKey(ref)] = name;
  };
  // A value whose sharding a closed constraint gave it
  // (spmd-apply-sharding-constraints) has that constraint as its origin.
  auto appliedConstraint =
      [&](Value value, TensorShardingAttr s) -> std::optional<std::string> {
    for (Operation *user : value.getUsers())
      if (auto constraint = dyn_cast<ShardingConstraintOp>(user))
        if (constraint.getSharding() == s)
          return originNames.lookup(user);
    return std::nullopt;
  };
  module.walk([&](Operation *op) {
    if (auto func = dyn_cast<FunctionOpInterface>(op)) {
      if (func.isExternal())
        return;
      for (BlockArgument arg : func.getArguments()) {
        TensorShardingAttr s = getSharding(arg);
        seed(arg, s,
             appliedConstraint(arg, s).value_or(
                 "input: " + std::to_string(arg.getArgNumber())));
      }
      for (unsigned i = 0; i < func.getNumResults(); ++i)
        if (TensorShardingAttr s = getFuncResultSharding(func, i))
          for (DimensionShardingAttr dim : s.getDimShardings())
            for (AxisRefAttr ref : dim.getAxes())
              resultOrigins[{func, i}][originKey(ref)] =
                  "output: " + std::to_string(i);
      return;
    }
    if (auto constraint = dyn_cast<ShardingConstraintOp>(op)) {
      seed(constraint.getResult(), constraint.getSharding(),
           originNames.lookup(op));
      return;
    }
    if (auto manual = dyn_cast<ManualComputationOp>(op)) {
      std::string name = manualNames.lookup(op);
      Block &body = manual.getBody().front();
      for (unsigned i = 0; i < manual->getNumOperands(); ++i)
        seed(body.getArgument(i), manual.getInSharding(i),
             name + "_input: " + std::to_string(i));
      for (unsigned i = 0; i < manual->getNumResults(); ++i)
        seed(manual->getResult(i), manual.getOutSharding(i),
             name + "_output: " + std::to_string(i));
      return;
    }
    // Tessera also names any other op's own sharding by the op.
    for (OpResult result : op->getResults()) {
      TensorShardingAttr s = getSharding(result);
      if (!s)
        continue;
      std::string name;
      llvm::raw_string_ostream os(name);
      os << op->getName().getStringRef() << " at " << op->getLoc();
      seed(result, s, appliedConstraint(result, s).value_or(name));
    }
  });
}

void ShardingOrigins::save() {
  MLIRContext *ctx = module.getContext();
  auto toDict = [&](const llvm::MapVector<StringRef, std::string> &origins) {
    SmallVector<NamedAttribute> entries;
    for (const auto &[axis, origin] : origins)
      entries.emplace_back(StringAttr::get(ctx, axis),
                           StringAttr::get(ctx, origin));
    return DictionaryAttr::get(ctx, entries);
  };
  // A value's own sharding is `self` (not its own origin name).
  auto withSelf = [](llvm::MapVector<StringRef, std::string> origins,
                     StringRef own) {
    for (auto &[axis, origin] : origins)
      if (origin == own)
        origin = "self";
    return origins;
  };
  constexpr StringLiteral kOrigins = "spmd.sharding_origins";
  constexpr StringLiteral kOriginName = "spmd.sharding_origin_name";
  module.walk([&](Operation *op) {
    if (auto func = dyn_cast<FunctionOpInterface>(op)) {
      if (func.isExternal())
        return;
      for (BlockArgument arg : func.getArguments()) {
        auto it = valueOrigins.find(arg);
        if (it != valueOrigins.end() && !it->second.empty())
          func.setArgAttr(
              arg.getArgNumber(), kOrigins,
              toDict(withSelf(it->second,
                              "input: " + std::to_string(arg.getArgNumber()))));
      }
      for (unsigned i = 0; i < func.getNumResults(); ++i) {
        auto it = resultOrigins.find({func, i});
        if (it != resultOrigins.end() && !it->second.empty())
          func.setResultAttr(
              i, kOrigins,
              toDict(withSelf(it->second, "output: " + std::to_string(i))));
      }
      return;
    }
    if (isa<ShardingConstraintOp>(op)) {
      std::string name = originNames.lookup(op);
      op->setAttr(kOriginName, StringAttr::get(ctx, name));
      auto it = valueOrigins.find(op->getResult(0));
      if (it != valueOrigins.end() && !it->second.empty())
        op->setAttr(kOrigins, toDict(withSelf(it->second, name)));
      return;
    }
    if (isa<ManualComputationOp>(op))
      op->setAttr(kOriginName, StringAttr::get(ctx, manualNames.lookup(op)));
    if (op->getNumResults() == 0)
      return;
    SmallVector<Attribute> perResult;
    bool any = false;
    for (OpResult result : op->getResults()) {
      auto it = valueOrigins.find(result);
      if (it != valueOrigins.end() && !it->second.empty()) {
        perResult.push_back(toDict(it->second));
        any = true;
      } else {
        perResult.push_back(DictionaryAttr::get(ctx, {}));
      }
    }
    if (any)
      op->setAttr(kOrigins, ArrayAttr::get(ctx, perResult));
  });
}

StringRef ShardingOrigins::originKey(AxisRefAttr ref) {
  std::string key = ref.getName().str();
  if (SubAxisInfoAttr info = ref.getSubAxisInfo())
    key += ":(" + std::to_string(info.getPreSize()) + ")" +
           std::to_string(info.getSize());
  return StringAttr::get(module.getContext(), key).getValue();
}

const std::string *ShardingOrigins::findOrigin(
    const llvm::MapVector<StringRef, std::string> &origins, AxisRefAttr ref,
    StringRef key) {
  auto it = origins.find(key);
  if (it != origins.end())
    return &it->second;
  std::string subAxisPrefix = (ref.getName() + ":(").str();
  for (const auto &[candidate, origin] : origins)
    if (candidate == ref.getName() || candidate.starts_with(subAxisPrefix))
      return &origin;
  return nullptr;
}

llvm::MapVector<StringRef, std::string> &
ShardingOrigins::originsOf(const Slot &slot) {
  if (slot.func)
    return resultOrigins[{slot.func, slot.index}];
  if (slot.manual && slot.isInput)
    return valueOrigins[slot.manual.getBody().front().getArgument(slot.index)];
  if (slot.manual)
    return valueOrigins
        [slot.manual.getBody().front().getTerminator()->getOperand(slot.index)];
  return valueOrigins[slot.value];
}

void ShardingOrigins::recordFactorOrigins(
    ArrayRef<Slot> operands, ArrayRef<Slot> results,
    const ShardingProjection &oldProjection,
    const ShardingProjection &newProjection, int64_t t,
    TensorShardingAttr updated) {
  auto slotAt = [&](int64_t i) -> const Slot & {
    return i < static_cast<int64_t>(operands.size())
               ? operands[i]
               : results[i - operands.size()];
  };
  auto projectedAt = [](const ShardingProjection &p,
                        int64_t i) -> const TensorFactorShardings & {
    return i < p.getNumOperands() ? p.getOperands()[i]
                                  : p.getResults()[i - p.getNumOperands()];
  };
  const TensorFactorShardings &oldTensor = projectedAt(oldProjection, t);
  const TensorFactorShardings &newTensor = projectedAt(newProjection, t);
  auto &origins = originsOf(slotAt(t));
  // Origins of the new factor axes; sub-axes that merged into a whole
  // axis of the result are matched by name below.
  llvm::MapVector<StringRef, std::string> pieces;
  for (const auto &[factor, fs] : newTensor.factorIndexToSharding) {
    auto oldIt = oldTensor.factorIndexToSharding.find(factor);
    ArrayRef<AxisRefAttr> oldAxes;
    if (oldIt != oldTensor.factorIndexToSharding.end())
      oldAxes = oldIt->second.axisRefs;
    if (fs.axisRefs == SmallVector<AxisRefAttr, 2>(oldAxes))
      continue;
    std::optional<int64_t> source;
    ArrayRef<TensorFactorShardings> olds[2] = {oldProjection.getOperands(),
                                               oldProjection.getResults()};
    for (int side = 0; side < 2 && !source; ++side)
      for (auto [i, candidate] : llvm::enumerate(olds[side])) {
        auto it = candidate.factorIndexToSharding.find(factor);
        if (it != candidate.factorIndexToSharding.end() &&
            isAxisListPrefixOf(fs.axisRefs, it->second.axisRefs) !=
                PrefixStatus::NotAPrefix) {
          source = side == 0 ? static_cast<int64_t>(i)
                             : static_cast<int64_t>(operands.size() + i);
          break;
        }
      }
    if (!source)
      continue;
    auto &sourceOrigins = originsOf(slotAt(*source));
    for (AxisRefAttr ref : fs.axisRefs) {
      StringRef key = originKey(ref);
      if (origins.count(key) || pieces.count(key))
        continue;
      // The source may hold the axis whole or as a larger sub-axis.
      if (const std::string *origin = findOrigin(sourceOrigins, ref, key))
        pieces[key] = *origin;
    }
  }
  for (DimensionShardingAttr dim : updated.getDimShardings())
    for (AxisRefAttr ref : dim.getAxes()) {
      StringRef key = originKey(ref);
      if (origins.count(key))
        continue;
      if (const std::string *origin = findOrigin(pieces, ref, key))
        origins[key] = *origin;
    }
}

void ShardingOrigins::copyOrigins(const Slot &from, const Slot &to) {
  auto &memberOrigins = originsOf(to);
  for (const auto &[axis, origin] : originsOf(from))
    if (!memberOrigins.count(axis))
      memberOrigins[axis] = origin;
}

} // namespace mlir::tessera::spmd::detail
