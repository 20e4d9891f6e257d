//===- InferExplicitUnreduced.cpp - JAX's unreduced rules -------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// JAX's unreduced axes (partial sums, `{U:x}`) in spmd-infer-explicit: which
// ops pass them on, which reject them, and the checks of an `out_sharding`
// that asks for unreduced axes on a contraction or a reduction.
//
//===----------------------------------------------------------------------===//

#include "ExplicitInference.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "llvm/ADT/STLExtras.h"

namespace mlir::tessera::spmd::detail {

bool ExplicitInference::isElementwise(Operation *op) {
  if (op->hasTrait<OpTrait::Elementwise>())
    return true;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalg::isElementwise(linalgOp);
}

std::string ExplicitInference::strString(Value value, Operation *user) {
  return typeString(value.getType(), getSpec(value, user),
                    /*shortDtypes=*/false);
}

FailureOr<SmallVector<AxisRefAttr>>
ExplicitInference::inferUnreduced(Operation *op, UnreducedRule rule,
                                  ValueRange inputs, ArrayRef<Spec> specs) {
  SmallVector<AxisRefAttr> none;
  if (llvm::all_of(specs, [](const Spec &s) { return s.unreduced.empty(); }))
    return none;
  switch (rule) {
  case UnreducedRule::DotGeneral:
    return op->emitOpError("lhs or rhs passed to dot_general cannot be "
                           "unreduced. Got lhs=")
           << avalString(inputs[0], op)
           << " and rhs=" << avalString(inputs[1], op);
  case UnreducedRule::Add: {
    ArrayRef<AxisRefAttr> x = specs[0].unreduced, y = specs[1].unreduced;
    if (!x.empty() && !y.empty()) {
      if (x != y)
        return op->emitOpError("lhs and rhs to `add` must be unreduced along "
                               "the same mesh axes. Got lhs=")
               << frozensetString(x) << ", rhs=" << frozensetString(y);
      return SmallVector<AxisRefAttr>(x);
    }
    StringRef lhs = x.empty() ? "rhs" : "lhs", rhs = x.empty() ? "lhs" : "rhs";
    return op->emitOpError()
           << lhs << " is unreduced while " << rhs
           << " is not. `add` operation does not allow this because there "
              "will be implicit communication. Please reduce "
           << lhs << " via `reshard` before calling `add`.";
  }
  case UnreducedRule::Mul: {
    ArrayRef<AxisRefAttr> x = specs[0].unreduced, y = specs[1].unreduced;
    if (!x.empty() && !y.empty())
      return op->emitOpError("lhs and rhs to `mul` cannot be unreduced since "
                             "mul is bilinear. Got lhs=")
             << frozensetString(x) << ", rhs=" << frozensetString(y);
    // The product of a value unreduced over some axes and one reduced over
    // the same axes is unreduced over them.
    ArrayRef<AxisRefAttr> other =
        x.empty() ? specs[0].reduced : specs[1].reduced;
    ArrayRef<AxisRefAttr> unreduced = x.empty() ? y : x;
    if (other == unreduced)
      return SmallVector<AxisRefAttr>(unreduced);
    return op->emitOpError()
           << (x.empty() ? "LHS should be reduced along the same axes RHS is "
                           "unreduced on. Got lhs="
                         : "RHS should be reduced along the same axes LHS is "
                           "unreduced on. Got lhs=")
           << strString(inputs[0], op)
           << " and rhs=" << strString(inputs[1], op);
  }
  case UnreducedRule::Reduce:
    // A reduction of one input keeps its operand's partial sums.
    return SmallVector<AxisRefAttr>(specs[0].unreduced);
  case UnreducedRule::PassThrough:
    // Ops that only move data pass the partial sums on unchanged.
    if (specs.size() == 1)
      return SmallVector<AxisRefAttr>(specs[0].unreduced);
    break;
  case UnreducedRule::NotImplemented:
    break;
  }
  return op->emitOpError("unreduced rule for ")
         << op->getName().getStringRef()
         << " is not implemented. Please file an issue at "
            "https://github.com/jax-ml/jax/issues";
}

FailureOr<SmallVector<AxisRefAttr>>
ExplicitInference::inferReduced(Operation *op, UnreducedRule rule,
                                ValueRange inputs, ArrayRef<Spec> specs) {
  // The distinct reduced sets of the inputs, in input order.
  SmallVector<ArrayRef<AxisRefAttr>> sets;
  for (const Spec &spec : specs)
    if (!spec.reduced.empty() &&
        llvm::none_of(sets, [&](ArrayRef<AxisRefAttr> set) {
          return set == ArrayRef<AxisRefAttr>(spec.reduced);
        }))
      sets.push_back(spec.reduced);
  if (sets.empty())
    return SmallVector<AxisRefAttr>();
  switch (rule) {
  case UnreducedRule::DotGeneral:
    // dot_general's result is not reduced, whatever its inputs are.
    return SmallVector<AxisRefAttr>();
  case UnreducedRule::Reduce:
  case UnreducedRule::PassThrough:
    // Reductions and ops that only move data keep their operand's.
    if (specs.size() == 1)
      return SmallVector<AxisRefAttr>(specs[0].reduced);
    break;
  case UnreducedRule::Add:
  case UnreducedRule::Mul:
    break;
  case UnreducedRule::NotImplemented:
    if (!isElementwise(op))
      return op->emitOpError("unreduced/reduced rule for ")
             << op->getName().getStringRef()
             << " is not implemented. Please file an issue at "
                "https://github.com/jax-ml/jax/issues";
    break;
  }
  // JAX's n-ary rule: every reduced input names the same axes, and no
  // other input is replicated or sharded over them.
  if (sets.size() > 1) {
    InFlightDiagnostic diag = op->emitOpError(
        "All inputs should be reduced across the same mesh axes. Got specs: {");
    for (auto [i, set] : llvm::enumerate(sets))
      diag << (i ? ", " : "") << frozensetString(set);
    return diag << "}";
  }
  ArrayRef<AxisRefAttr> reduced = sets.front();
  for (auto [value, spec] : llvm::zip_equal(inputs, specs)) {
    if (!isa<RankedTensorType>(value.getType()))
      continue;
    bool sharded = false, replicated = false;
    for (AxisRefAttr ref : reduced) {
      bool inDims = llvm::any_of(spec.dims, [&](const DimAxes &axes) {
        return llvm::is_contained(axes, ref);
      });
      sharded |= inDims;
      replicated |= !inDims && !llvm::is_contained(spec.unreduced, ref) &&
                    !llvm::is_contained(spec.reduced, ref);
    }
    if (replicated)
      return op->emitOpError("Inputs cannot be replicated on the same axes "
                             "that another input is reduced on. Got input "
                             "type: ")
             << strString(value, op)
             << " and reduced spec: " << frozensetString(reduced);
    if (sharded)
      return op->emitOpError("Inputs cannot be sharded/varying on the same "
                             "axes that another input is reduced on. Reshard "
                             "the input which is reduced to be sharded on the "
                             "mesh axes it is reduced on via "
                             "`jax.sharding.reshard(inp, jax.P(...))`. Got "
                             "input type: ")
             << strString(value, op)
             << " and reduced spec: " << frozensetString(reduced);
  }
  return SmallVector<AxisRefAttr>(reduced);
}

LogicalResult ExplicitInference::checkReduceUnreducedOut(
    Operation *op, OpShardingRuleAttr rule, Value operand, const Spec &input,
    const Spec &given) {
  // The operand dimensions mapped to reduction factors are the reduced
  // ones.
  unsigned operandIndex = getExplicitInputOperandIndices(op).front();
  TensorMappingAttr mapping = rule.getOperandMapping(operandIndex);
  SmallVector<int64_t> reducedDims;
  SmallVector<AxisRefAttr> used(input.unreduced);
  for (auto [d, dim] : llvm::enumerate(mapping.getDimMappings())) {
    if (!llvm::any_of(dim.getFactorIndices(),
                      [&](int64_t f) { return rule.isReduction(f); }))
      continue;
    reducedDims.push_back(d);
    llvm::append_range(used, input.dims[d]);
  }
  if (llvm::all_of(given.unreduced, [&](AxisRefAttr ref) {
        return llvm::is_contained(used, ref);
      }))
    return success();
  std::string axes = "frozenset({";
  for (auto [i, d] : llvm::enumerate(reducedDims))
    axes += (i ? ", " : "") + std::to_string(d);
  axes += "})";
  return op->emitOpError("out_sharding's unreduced axes should be in "
                         "operand's specs that were ")
         << getJaxReductionName(getReductionCombiner(op, 0))
         << " over. Got operand=" << avalString(operand, op)
         << ", axes=" << axes
         << ", unreduced_spec=" << frozensetString(given.unreduced);
}

std::pair<SmallVector<DimAxes>, SmallVector<DimAxes>>
ExplicitInference::getContractingSpecs(Operation *op, OpShardingRuleAttr rule,
                                       ArrayRef<Spec> inputs) {
  SmallVector<unsigned> operands = getExplicitInputOperandIndices(op);
  TensorMappingAttr lhs = rule.getOperandMapping(operands[0]);
  TensorMappingAttr rhs = rule.getOperandMapping(operands[1]);
  std::pair<SmallVector<DimAxes>, SmallVector<DimAxes>> result;
  for (int64_t f = 0, e = rule.getNumFactors(); f < e; ++f) {
    if (!rule.isReduction(f))
      continue;
    std::optional<int64_t> l = lhs.getDimOfFactor(f);
    std::optional<int64_t> r = rhs.getDimOfFactor(f);
    if (l && r) {
      result.first.push_back(inputs[0].dims[*l]);
      result.second.push_back(inputs[1].dims[*r]);
    }
  }
  return result;
}

LogicalResult ExplicitInference::checkDotUnreducedOut(Operation *op,
                                                      OpShardingRuleAttr rule,
                                                      ArrayRef<Spec> inputs,
                                                      const Spec &given) {
  auto [lhsContracting, rhsContracting] = getContractingSpecs(op, rule, inputs);
  Spec lc, rc;
  lc.mesh = inputs[0].mesh;
  rc.mesh = inputs[1].mesh;
  lc.dims = lhsContracting;
  rc.dims = rhsContracting;
  if (lhsContracting != rhsContracting)
    return op->emitOpError("lhs and rhs contracting dims should be sharded "
                           "identically when out_sharding provided to "
                           "dot_general mentions unreduced_axes. Got "
                           "lhs_contracting_spec=")
           << tupleString(lc) << ", rhs_contracting_spec=" << tupleString(rc);
  SmallVector<AxisRefAttr> flat;
  for (const DimAxes &axes : lhsContracting)
    llvm::append_range(flat, axes);
  MeshAttr mesh = given.mesh ? given.mesh : inputs[0].mesh;
  auto inMeshOrder = [&](SmallVector<AxisRefAttr> axes) {
    if (mesh)
      llvm::sort(axes, [&](AxisRefAttr a, AxisRefAttr b) {
        return AxisRefAttr::lessInMesh(mesh, a, b);
      });
    return axes;
  };
  if (inMeshOrder(flat) != inMeshOrder(given.unreduced))
    return op->emitOpError("out_sharding's unreduced axes should be equal to "
                           "the contracting specs. Got unreduced axes=")
           << frozensetString(given.unreduced)
           << " and contracting spec=" << tupleString(lc);
  return success();
}

} // namespace mlir::tessera::spmd::detail
