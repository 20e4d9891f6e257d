//===- ExplicitSharding.cpp - JAX's sharding in types, per op ---*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// JAX's printers for explicit-sharding messages and the rule an op gets from
// its factor-based sharding rule (see ExplicitSharding.h).
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/ExplicitSharding.h"

#include "tessera/Dialect/Spmd/IR/JaxType.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

int64_t mlir::tessera::spmd::getAxesSize(ArrayRef<AxisRefAttr> axes,
                                         MeshAttr mesh) {
  int64_t size = 1;
  for (AxisRefAttr ref : axes)
    size *= ref.getSize(mesh);
  return size;
}

//===----------------------------------------------------------------------===//
// Data inputs
//===----------------------------------------------------------------------===//

SmallVector<unsigned>
mlir::tessera::spmd::getExplicitInputOperandIndices(Operation *op) {
  SmallVector<unsigned> indices;
  // A destination-style op with a payload region (a linalg op) computes
  // its results from its ins; its outs are where they go (or start from)
  // and never change the result's type. The destination of an op without
  // one (tensor.insert_slice) is the data it updates.
  auto dps = dyn_cast<DestinationStyleOpInterface>(op);
  if (dps && op->getNumRegions() == 0)
    dps = nullptr;
  for (OpOperand &operand : op->getOpOperands())
    if (!dps || !dps.isDpsInit(&operand))
      indices.push_back(operand.getOperandNumber());
  return indices;
}

SmallVector<Value> mlir::tessera::spmd::getExplicitInputs(Operation *op) {
  return llvm::map_to_vector(getExplicitInputOperandIndices(op),
                             [&](unsigned i) { return op->getOperand(i); });
}

//===----------------------------------------------------------------------===//
// The context and JAX's printers
//===----------------------------------------------------------------------===//

OpShardingRuleAttr ExplicitRuleContext::getShardingRule() const {
  if (!rule)
    rule = spmd::getShardingRule(op);
  return rule;
}

std::pair<MeshAttr, Attribute> ExplicitRuleContext::getInputMesh() const {
  for (const ExplicitSpec &spec : inputSpecs)
    if (spec.mesh)
      return {spec.mesh, spec.meshRef};
  return {};
}

ExplicitSpec ExplicitRuleContext::replicatedOnInputMesh(int64_t rank) const {
  ExplicitSpec spec = ExplicitSpec::replicated(rank);
  std::tie(spec.mesh, spec.meshRef) = getInputMesh();
  return spec;
}

TensorShardingAttr ExplicitRuleContext::toSharding(MLIRContext *ctx,
                                                   const ExplicitSpec &spec) {
  bool hasAuto = spec.mesh && spec.mesh.hasAxisOfType(AxisType::Auto);
  SmallVector<DimensionShardingAttr> dims;
  for (const ExplicitDimAxes &axes : spec.dims)
    dims.push_back(
        DimensionShardingAttr::get(ctx, axes, /*isClosed=*/!hasAuto));
  return TensorShardingAttr::get(ctx, spec.meshRef, dims, {}, spec.unreduced,
                                 ReductionKind::Sum, spec.reduced);
}

std::string ExplicitRuleContext::typeString(Type type, const ExplicitSpec &spec,
                                            bool shortDtypes) {
  JaxTypeOptions options;
  options.shortDtypes = shortDtypes;
  TensorShardingAttr sharding =
      spec.meshRef ? toSharding(type.getContext(), spec) : TensorShardingAttr();
  return getJaxTypeString(type, sharding, spec.mesh, options);
}

std::string ExplicitRuleContext::avalString(Type type,
                                            const ExplicitSpec &spec) {
  return "ShapedArray(" + typeString(type, spec, /*shortDtypes=*/false) + ")";
}

std::string ExplicitRuleContext::tupleString(const ExplicitSpec &spec) {
  std::string s = "(";
  llvm::raw_string_ostream os(s);
  for (auto [i, axes] : llvm::enumerate(spec.dims)) {
    if (i)
      os << ", ";
    printPartitionEntry(os, axes, spec.mesh);
  }
  if (spec.dims.size() == 1)
    os << ",";
  os << ")";
  return s;
}

std::string ExplicitRuleContext::partitionSpecString(const ExplicitSpec &spec) {
  std::string s = "P" + tupleString(spec);
  if (spec.unreduced.empty() && spec.reduced.empty())
    return s;
  // As JAX's repr: the entries, then `unreduced={...}` and `reduced={...}`.
  s.pop_back();
  if (s.back() == ',')
    s += " ";
  else if (!spec.dims.empty())
    s += ", ";
  auto set = [](StringRef name, ArrayRef<AxisRefAttr> axes) {
    std::string text = name.str() + "={";
    for (auto [i, ref] : llvm::enumerate(axes))
      text += (i ? ", '" : "'") + ref.getName().str() + "'";
    return text + "}";
  };
  if (!spec.unreduced.empty())
    s += set("unreduced", spec.unreduced);
  if (!spec.unreduced.empty() && !spec.reduced.empty())
    s += ", ";
  if (!spec.reduced.empty())
    s += set("reduced", spec.reduced);
  return s + ")";
}

std::string ExplicitRuleContext::frozensetString(ArrayRef<AxisRefAttr> axes) {
  if (axes.empty())
    return "frozenset()";
  std::string s = "frozenset({";
  for (auto [i, ref] : llvm::enumerate(axes)) {
    if (i)
      s += ", ";
    s += "'" + ref.getName().str() + "'";
  }
  return s + "})";
}

std::string ExplicitRuleContext::shapeString(ArrayRef<int64_t> shape) {
  std::string s = "(";
  for (auto [i, size] : llvm::enumerate(shape)) {
    if (i)
      s += ", ";
    s += std::to_string(size);
  }
  if (shape.size() == 1)
    s += ",";
  return s + ")";
}

LogicalResult
ExplicitRuleContext::emitNotImplemented(llvm::StringRef detail) const {
  return op->emitOpError("sharding rule for ")
         << op->getName().getStringRef() << " is not implemented" << detail
         << ". You can work around this error by dropping that operation "
            "into full auto sharding mode via: `spmd.auto_axes` "
            "(jax.sharding.auto_axes(fun, out_shardings=...))";
}

//===----------------------------------------------------------------------===//
// The rule from the sharding rule
//===----------------------------------------------------------------------===//

namespace {

/// The axes one input gives a factor, and where they come from.
struct FactorEntry {
  unsigned input;
  ExplicitDimAxes axes;
};

} // namespace

/// Hands the axes of an input dimension to its factors, major to minor:
/// each axis must divide what remains of its factor. Fails if the axes do
/// not fit.
static LogicalResult handOut(ArrayRef<int64_t> factors,
                             ArrayRef<AxisRefAttr> axes,
                             OpShardingRuleAttr rule, MeshAttr mesh,
                             SmallVectorImpl<ExplicitDimAxes> &perFactor) {
  perFactor.assign(factors.size(), {});
  if (factors.size() == 1) {
    perFactor[0].assign(axes.begin(), axes.end());
    return success();
  }
  size_t next = 0;
  for (auto [i, factor] : llvm::enumerate(factors)) {
    int64_t remaining = rule.getFactorSize(factor);
    while (remaining > 1 && next < axes.size()) {
      int64_t size = axes[next].getSize(mesh);
      if (ShapedType::isDynamic(remaining) || remaining % size != 0)
        return failure();
      remaining /= size;
      perFactor[i].push_back(axes[next++]);
    }
  }
  return success(next == axes.size());
}

ExplicitSpecs mlir::tessera::spmd::inferExplicitFromShardingRule(
    const ExplicitRuleContext &context, OpShardingRuleAttr rule) {
  Operation *op = context.getOp();
  if (!rule)
    return context.emitNotImplemented();
  SmallVector<unsigned> operandIndices = getExplicitInputOperandIndices(op);
  ArrayRef<ExplicitSpec> inputs = context.getInputSpecs();
  if (operandIndices.size() != inputs.size() ||
      rule.getNumOperands() != op->getNumOperands() ||
      rule.getNumResults() != op->getNumResults())
    return context.emitNotImplemented();
  auto [mesh, meshRef] = context.getInputMesh();

  // The axes each tensor input gives each factor.
  int64_t numFactors = rule.getNumFactors();
  SmallVector<SmallVector<FactorEntry, 2>> entries(numFactors);
  unsigned numTensorInputs = 0;
  for (auto [i, operandIndex] : llvm::enumerate(operandIndices)) {
    auto type =
        dyn_cast<RankedTensorType>(op->getOperand(operandIndex).getType());
    if (!type || type.getRank() == 0)
      continue;
    ++numTensorInputs;
    TensorMappingAttr mapping = rule.getOperandMapping(operandIndex);
    for (auto [d, dim] : llvm::enumerate(mapping.getDimMappings())) {
      if (d >= inputs[i].dims.size())
        break;
      ArrayRef<int64_t> factors = dim.getFactorIndices();
      if (factors.empty())
        continue;
      SmallVector<ExplicitDimAxes> perFactor;
      if (failed(handOut(factors, inputs[i].dims[d], rule, mesh, perFactor)))
        return context.emitNotImplemented();
      for (auto [factor, axes] : llvm::zip_equal(factors, perFactor))
        entries[factor].push_back({static_cast<unsigned>(i), axes});
    }
  }

  bool hasReduction =
      llvm::any_of(llvm::seq<int64_t>(0, numFactors),
                   [&](int64_t f) { return rule.isReduction(f); });
  // A contraction in dot_general's sense: reduction factors, two or more
  // tensor inputs and one result. A reduction with several results (an
  // argmax as a value and an index, a mean and a variance) is JAX's
  // variadic `reduce`: each result is the inputs' type with the reduced
  // dimensions deleted, whichever inputs shard them.
  bool isContraction =
      hasReduction && numTensorInputs >= 2 && op->getNumResults() == 1;

  SmallVector<ExplicitDimAxes> factorAxes(numFactors);
  // dot_general's contracting specs: per contracting factor, the entries
  // of its first two inputs (of the first two that shard it, if any do).
  ExplicitSpec lhsContracting, rhsContracting;
  bool ambiguous = false;
  for (int64_t f = 0; f < numFactors; ++f) {
    ArrayRef<FactorEntry> factorEntries = entries[f];
    if (rule.isReduction(f)) {
      // Contracting: ambiguous when two inputs shard it; dropped otherwise.
      if (isContraction && factorEntries.size() >= 2) {
        SmallVector<const FactorEntry *, 2> shown;
        for (const FactorEntry &entry : factorEntries)
          if (!entry.axes.empty() && shown.size() < 2)
            shown.push_back(&entry);
        ambiguous |= shown.size() == 2;
        for (const FactorEntry &entry : factorEntries)
          if (shown.size() < 2 && !llvm::is_contained(shown, &entry))
            shown.push_back(&entry);
        if (shown[0]->input > shown[1]->input)
          std::swap(shown[0], shown[1]);
        lhsContracting.dims.push_back(shown[0]->axes);
        rhsContracting.dims.push_back(shown[1]->axes);
      }
      continue;
    }
    if (isContraction && factorEntries.size() >= 2) {
      // A batch dimension: sharded identically in every input.
      for (const FactorEntry &entry : factorEntries.drop_front()) {
        if (entry.axes == factorEntries[0].axes)
          continue;
        ExplicitSpec lb, rb;
        lb.mesh = rb.mesh = mesh;
        lb.dims.push_back(factorEntries[0].axes);
        rb.dims.push_back(entry.axes);
        return op->emitOpError()
               << "dot_general requires lhs batch dimensions and rhs batch "
                  "dimensions to have the same sharding, got "
               << ExplicitRuleContext::tupleString(lb) << " and "
               << ExplicitRuleContext::tupleString(rb) << ".";
      }
    }
    // Broadcasting: an unsharded entry yields to a sharded one.
    ExplicitDimAxes chosen;
    for (const FactorEntry &entry : factorEntries) {
      if (entry.axes.empty())
        continue;
      if (chosen.empty()) {
        chosen = entry.axes;
        continue;
      }
      if (chosen == entry.axes)
        continue;
      InFlightDiagnostic diag = op->emitOpError()
                                << op->getName().getStringRef()
                                << " got incompatible shardings for "
                                   "broadcasting: ";
      bool sep = false;
      for (auto [i, operandIndex] : llvm::enumerate(operandIndices)) {
        auto type =
            dyn_cast<RankedTensorType>(op->getOperand(operandIndex).getType());
        if (!type || type.getRank() == 0)
          continue;
        if (sep)
          diag << ", ";
        sep = true;
        diag << ExplicitRuleContext::tupleString(inputs[i]);
      }
      return diag << ".";
    }
    if (!chosen.empty() && (rule.isPermutation(f) || rule.isNeedReplication(f)))
      return context.emitNotImplemented(
          " for a sharded dimension it moves elements across");
    factorAxes[f] = std::move(chosen);
  }
  if (ambiguous) {
    lhsContracting.mesh = rhsContracting.mesh = mesh;
    return op->emitOpError(
               "Contracting dimensions are sharded and it is ambiguous how "
               "the output should be sharded. Please specify the output "
               "sharding via the `out_sharding` parameter. Got "
               "lhs_contracting_spec=")
           << ExplicitRuleContext::tupleString(lhsContracting)
           << " and rhs_contracting_spec="
           << ExplicitRuleContext::tupleString(rhsContracting);
  }

  SmallVector<ExplicitSpec> results;
  for (OpResult result : op->getResults()) {
    ExplicitSpec spec = context.replicatedOnInputMesh(0);
    TensorMappingAttr mapping = rule.getResultMapping(result.getResultNumber());
    for (DimMappingAttr dim : mapping.getDimMappings()) {
      ExplicitDimAxes axes;
      for (int64_t factor : dim.getFactorIndices())
        llvm::append_range(axes, factorAxes[factor]);
      spec.dims.push_back(std::move(axes));
    }
    results.push_back(std::move(spec));
  }
  return results;
}

UnreducedRule
mlir::tessera::spmd::getUnreducedRuleFromShardingRule(OpShardingRuleAttr rule,
                                                      unsigned numInputs) {
  if (!rule)
    return UnreducedRule::NotImplemented;
  bool hasReduction =
      llvm::any_of(llvm::seq<int64_t>(0, rule.getNumFactors()),
                   [&](int64_t f) { return rule.isReduction(f); });
  // JAX's variadic reduce and argmax/argmin (several results) have no
  // unreduced rule.
  if (!hasReduction || rule.getNumResults() > 1)
    return UnreducedRule::NotImplemented;
  return numInputs >= 2 ? UnreducedRule::DotGeneral : UnreducedRule::Reduce;
}
