//===- InferExplicit.cpp - JAX's sharding in types, driver ------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// For mesh axes of type Explicit, every value's sharding is part of its type,
// computed from its operands by JAX's per-primitive rules (jax/_src/lax), and
// an ambiguous or illegal case is an error that asks for `spmd.out_sharding`.
// This pass computes that type for every op of every function, writes it as
// the op's `spmd.sharding` (closed dimensions, Explicit axes only; Auto axes
// already there are kept for propagation), and reports JAX's errors.
//
// The MLIR ops are read as the JAX primitives they implement (see the pass
// description in Passes.td): elementwise arith/math ops and elementwise
// linalg ops are the n-ary rule, linalg contractions dot_general, one-input
// linalg reductions reduce, tensor reshapes reshape, and so on.
//
// This file holds the driver and the pass; InferExplicitRules.cpp holds the
// per-primitive rules and InferExplicitUnreduced.cpp the unreduced ones.
//
//===----------------------------------------------------------------------===//

#include "ExplicitInference.h"

#include "tessera/Dialect/Spmd/IR/DataFlow.h"
#include "tessera/Dialect/Spmd/IR/SpmdDialect.h"
#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"
#include "tessera/Dialect/Spmd/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::tessera::spmd {
#define GEN_PASS_DEF_SPMDINFEREXPLICITPASS
#include "tessera/Dialect/Spmd/Transforms/Passes.h.inc"

namespace detail {

int64_t rankOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getRank();
  return 0;
}

//===----------------------------------------------------------------------===//
// Specs of values and how JAX prints them
//===----------------------------------------------------------------------===//

Spec ExplicitInference::getSpec(Value value, Operation *user) {
  auto it = specs.find(value);
  if (it != specs.end())
    return it->second;
  Spec spec;
  int64_t rank = 0;
  if (auto type = dyn_cast<RankedTensorType>(value.getType()))
    rank = type.getRank();
  spec.dims.resize(rank);
  TensorShardingAttr sharding = getSharding(value);
  if (!sharding)
    return spec;
  MeshAttr mesh = getMesh(sharding, value, &symbolTables);
  if (!mesh || mesh.empty())
    return spec;
  spec.mesh = getMeshWithAxisTypesAt(user, mesh);
  spec.meshRef = sharding.getMeshOrRef();
  for (auto [d, dim] : llvm::enumerate(sharding.getDimShardings())) {
    if (d >= spec.dims.size())
      break;
    for (AxisRefAttr ref : dim.getAxes())
      if (isExplicit(spec.mesh, ref))
        spec.dims[d].push_back(ref);
  }
  for (AxisRefAttr ref : sharding.getUnreducedAxes())
    if (isExplicit(spec.mesh, ref))
      spec.unreduced.push_back(ref);
  for (AxisRefAttr ref : sharding.getReducedAxes())
    if (isExplicit(spec.mesh, ref))
      spec.reduced.push_back(ref);
  return spec;
}

TensorShardingAttr ExplicitInference::toSharding(const Spec &spec,
                                                 TensorShardingAttr previous) {
  bool hasAuto = spec.mesh && spec.mesh.hasAxisOfType(AxisType::Auto);
  SmallVector<DimensionShardingAttr> dims;
  for (auto [d, axes] : llvm::enumerate(spec.dims)) {
    SmallVector<AxisRefAttr> all(axes);
    if (previous && d < static_cast<size_t>(previous.getRank()))
      for (AxisRefAttr ref : previous.getDimSharding(d).getAxes())
        if (!isExplicit(spec.mesh, ref))
          all.push_back(ref);
    dims.push_back(DimensionShardingAttr::get(ctx, all, /*isClosed=*/!hasAuto));
  }
  return TensorShardingAttr::get(ctx, spec.meshRef, dims, {}, spec.unreduced,
                                 ReductionKind::Sum, spec.reduced);
}

std::string ExplicitInference::avalString(Value value, Operation *user) {
  return "ShapedArray(" +
         typeString(value.getType(), getSpec(value, user),
                    /*shortDtypes=*/false) +
         ")";
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

LogicalResult ExplicitInference::runOnFunction(FunctionOpInterface func) {
  if (func.isExternal())
    return success();
  for (Block &block : func.getFunctionBody())
    if (failed(processBlock(block)))
      return failure();
  return success();
}

LogicalResult ExplicitInference::processBlock(Block &block) {
  for (Operation &op : block)
    if (failed(processOp(&op)))
      return failure();
  return success();
}

FailureOr<std::pair<MeshAttr, Attribute>>
ExplicitInference::getCommonMesh(Operation *op, ArrayRef<Spec> operandSpecs) {
  MeshAttr mesh;
  Attribute meshRef;
  for (const Spec &spec : operandSpecs) {
    // (Meshes without Explicit axes are propagation's: spmd-insert-reshards
    // moves values between them.)
    if (!spec.mesh || !spec.mesh.hasAxisOfType(AxisType::Explicit))
      continue;
    if (mesh && mesh != spec.mesh)
      return op->emitOpError("Mesh for all inputs should be equal. Got one "
                             "mesh: ")
             << mesh << " and another mesh: " << spec.mesh;
    mesh = spec.mesh;
    meshRef = spec.meshRef;
  }
  return std::make_pair(mesh, meshRef);
}

/// Ops that make a value from nothing (JAX's creation ops): ops other than
/// calls with no tensor data inputs (constants, tensor.empty, splats,
/// fills). They are replicated unless they carry `spmd.out_sharding`.
static bool isCreationOp(Operation *op, ValueRange inputs) {
  return op->getNumResults() > 0 && !isa<CallOpInterface>(op) &&
         llvm::none_of(inputs, [](Value v) {
           return isa<RankedTensorType>(v.getType());
         });
}

Specs ExplicitInference::inferRule(Operation *op, ArrayRef<Spec> inputs,
                                   ValueRange inputValues) {
  if (isCreationOp(op, inputValues)) {
    SmallVector<Spec> out;
    for (Type type : op->getResultTypes())
      out.push_back(Spec::replicated(rankOf(type)));
    return out;
  }
  ExplicitRuleContext context(op, inputValues, inputs, rules.get(op));
  if (auto iface = dyn_cast<ExplicitShardingOpInterface>(op))
    return iface.inferExplicitShardings(context);
  if (auto call = dyn_cast<CallOpInterface>(op)) {
    // A call's results have the types its callee declares.
    SmallVector<Spec> out;
    Operation *callee = call.resolveCallableInTable(&symbolTables);
    for (OpResult result : op->getResults()) {
      Spec spec = Spec::replicated(rankOf(result.getType()));
      if (TensorShardingAttr declared =
              getFuncResultSharding(callee, result.getResultNumber())) {
        MeshAttr mesh = declared.getMesh(callee, &symbolTables);
        if (mesh) {
          spec.mesh = getMeshWithAxisTypesAt(op, mesh);
          spec.meshRef = declared.getMeshOrRef();
          for (auto [d, dim] : llvm::enumerate(declared.getDimShardings()))
            if (d < spec.dims.size())
              for (AxisRefAttr ref : dim.getAxes())
                if (isExplicit(spec.mesh, ref))
                  spec.dims[d].push_back(ref);
        }
      }
      out.push_back(spec);
    }
    return out;
  }
  return inferExplicitFromShardingRule(context, context.getShardingRule());
}

UnreducedRule ExplicitInference::getUnreducedRule(Operation *op,
                                                  unsigned numInputs) {
  if (auto iface = dyn_cast<ExplicitShardingOpInterface>(op))
    return iface.getUnreducedRule();
  return getUnreducedRuleFromShardingRule(rules.get(op), numInputs);
}

LogicalResult ExplicitInference::processOp(Operation *op) {
  if (isa<RegionBranchOpInterface>(op))
    return processControlFlow(op);
  if (op->hasTrait<OpTrait::ReturnLike>() &&
      isa_and_nonnull<FunctionOpInterface>(op->getParentOp()))
    return processReturn(op);
  if (isa<ManualComputationOp, AutoAxesOp, ExplicitAxesOp>(op)) {
    // The body sees the values in its own view; the op's results carry
    // their shardings (out_shardings) themselves.
    for (Region &region : op->getRegions())
      for (Block &block : region)
        if (failed(processBlock(block)))
          return failure();
    return success();
  }

  // Only ops producing tensors have a type to compute.
  if (llvm::none_of(op->getResultTypes(),
                    [](Type t) { return isa<RankedTensorType>(t); }))
    return success();

  // Ops that carry their result's sharding themselves.
  if (auto constraint = dyn_cast<ShardingConstraintOp>(op)) {
    Spec have = getSpec(constraint.getInput(), op);
    Spec want = getSpec(constraint.getResult(), op);
    if (hasExplicitAxes(want.mesh) && !(have == want))
      return op->emitOpError("`spmd.sharding_constraint` acts as an assert "
                             "when all axes of mesh are of type `Explicit`. "
                             "The array sharding: ")
             << partitionSpecString(have)
             << " did not match the sharding provided: "
             << partitionSpecString(want)
             << ". Please use `spmd.reshard` to shard your input to the "
                "sharding you want.";
    return success();
  }
  if (isa<ResultShardingOpInterface>(op) && !isa<PropagationBarrierOp>(op))
    return success();

  SmallVector<Value> inputs = getExplicitInputs(op);
  SmallVector<Spec> inputSpecs;
  for (Value input : inputs)
    inputSpecs.push_back(getSpec(input, op));
  FailureOr<std::pair<MeshAttr, Attribute>> common =
      getCommonMesh(op, inputSpecs);
  if (failed(common))
    return failure();

  FailureOr<std::optional<SmallVector<Spec>>> given = getOutSharding(op);
  if (failed(given))
    return failure();
  // A user-given out_sharding is the result's type exactly: it is written
  // as given (its closed or open dims too, on meshes with Auto axes), not
  // rebuilt from its Explicit axes.
  SmallVector<TensorShardingAttr> givenShardings;
  if (*given)
    givenShardings = getOutShardingAttrs(op);
  SmallVector<Spec> results;
  bool anyUnreducedInput = llvm::any_of(
      inputSpecs, [](const Spec &spec) { return !spec.unreduced.empty(); });
  if (*given) {
    results = std::move(**given);
    bool givesUnreduced = !results.empty() && !results[0].unreduced.empty();
    UnreducedRule unreducedRule = givesUnreduced
                                      ? getUnreducedRule(op, inputs.size())
                                      : UnreducedRule::NotImplemented;
    if (givesUnreduced && unreducedRule == UnreducedRule::DotGeneral) {
      // The unreduced rule of dot_general first rejects unreduced inputs.
      FailureOr<SmallVector<AxisRefAttr>> unused =
          inferUnreduced(op, unreducedRule, inputs, inputSpecs);
      if (failed(unused) || failed(checkDotUnreducedOut(
                                op, rules.get(op), inputSpecs, results[0])))
        return failure();
    }
    if (givesUnreduced && unreducedRule == UnreducedRule::Reduce &&
        failed(checkReduceUnreducedOut(op, rules.get(op), inputs[0],
                                       inputSpecs[0], results[0])))
      return failure();
    if (!results.empty() && !results[0].reduced.empty() &&
        getUnreducedRule(op, inputs.size()) == UnreducedRule::Reduce)
      return op->emitOpError("out_sharding passed to ")
             << getJaxReductionName(getReductionCombiner(op, 0))
             << " cannot be reduced. Got out_sharding="
             << partitionSpecString(results[0]);
  } else {
    // A fully Auto or Manual context consults no rule: everything is P().
    if (!hasExplicitAxes(common->first) && !isCreationOp(op, inputs))
      return success();
    Specs inferred = inferRule(op, inputSpecs, inputs);
    if (failed(inferred))
      return failure();
    results = std::move(*inferred);
    bool anyReducedInput = llvm::any_of(
        inputSpecs, [](const Spec &spec) { return !spec.reduced.empty(); });
    UnreducedRule rule = (anyUnreducedInput || anyReducedInput)
                             ? getUnreducedRule(op, inputs.size())
                             : UnreducedRule::NotImplemented;
    // As JAX's rules do, the reduced rule runs first.
    SmallVector<AxisRefAttr> reduced;
    if (anyReducedInput) {
      FailureOr<SmallVector<AxisRefAttr>> inferredReduced =
          inferReduced(op, rule, inputs, inputSpecs);
      if (failed(inferredReduced))
        return failure();
      reduced = std::move(*inferredReduced);
    }
    SmallVector<AxisRefAttr> unreduced;
    if (anyUnreducedInput) {
      FailureOr<SmallVector<AxisRefAttr>> inferredUnreduced =
          inferUnreduced(op, rule, inputs, inputSpecs);
      if (failed(inferredUnreduced))
        return failure();
      unreduced = std::move(*inferredUnreduced);
    }
    // A product unreduced over the axes an input was reduced over is no
    // longer reduced over them.
    if (!unreduced.empty())
      reduced.clear();
    for (Spec &spec : results) {
      spec.unreduced = unreduced;
      spec.reduced = reduced;
    }
  }

  // Write the results' types.
  SmallVector<TensorShardingAttr> shardings;
  bool anyMesh = false;
  for (auto [result, spec] : llvm::zip_equal(op->getResults(), results)) {
    if (!spec.mesh) {
      spec.mesh = common->first;
      spec.meshRef = common->second;
    }
    if (!isa<RankedTensorType>(result.getType()))
      continue;
    if (failed(checkUniqueAxes(op, inputs, inputSpecs, result, spec)))
      return failure();
    anyMesh |= bool(spec.meshRef);
  }
  for (auto [result, spec] : llvm::zip_equal(op->getResults(), results))
    specs[result] = spec;
  if (!anyMesh)
    return success();
  for (auto [i, result, spec] : llvm::enumerate(op->getResults(), results)) {
    if (i < givenShardings.size() && givenShardings[i]) {
      shardings.push_back(givenShardings[i]);
      continue;
    }
    if (!spec.meshRef) {
      // A non-tensor result (or one left off the mesh) gets a replicated
      // sharding of the right rank on the common mesh.
      Spec replicated;
      replicated.mesh = common->first;
      replicated.meshRef = common->second;
      if (auto type = dyn_cast<RankedTensorType>(result.getType()))
        replicated.dims.resize(type.getRank());
      shardings.push_back(toSharding(replicated, getSharding(result)));
      continue;
    }
    shardings.push_back(toSharding(spec, getSharding(result)));
  }
  op->setAttr(SpmdDialect::kShardingAttrName,
              TensorShardingPerValueAttr::get(ctx, shardings));
  return success();
}

LogicalResult ExplicitInference::checkUniqueAxes(Operation *op,
                                                 ValueRange inputs,
                                                 ArrayRef<Spec> inputSpecs,
                                                 Value result,
                                                 const Spec &spec) {
  SmallVector<AxisRefAttr> seen;
  bool duplicate = false;
  for (const DimAxes &axes : spec.dims)
    for (AxisRefAttr ref : axes) {
      duplicate |= llvm::any_of(
          seen, [&](AxisRefAttr other) { return other.overlaps(ref); });
      seen.push_back(ref);
    }
  if (!duplicate)
    return success();
  InFlightDiagnostic diag = op->emitOpError() << op->getName().getStringRef()
                                              << " operation with inputs: ";
  bool first = true;
  for (auto [value, inputSpec] : llvm::zip_equal(inputs, inputSpecs)) {
    if (!first)
      diag << ", ";
    first = false;
    diag << typeString(value.getType(), inputSpec);
  }
  diag << " produces an illegally sharded result: "
       << typeString(result.getType(), spec);
  return diag;
}

//===----------------------------------------------------------------------===//
// out_sharding
//===----------------------------------------------------------------------===//

SmallVector<TensorShardingAttr>
ExplicitInference::getOutShardingAttrs(Operation *op) {
  Attribute attr = op->getAttr(SpmdDialect::kOutShardingAttrName);
  SmallVector<TensorShardingAttr> given;
  if (!attr)
    return given;
  if (auto single = dyn_cast<TensorShardingAttr>(attr))
    given.push_back(single);
  else
    llvm::append_range(given,
                       cast<TensorShardingPerValueAttr>(attr).getShardings());
  return given;
}

FailureOr<std::optional<SmallVector<Spec>>>
ExplicitInference::getOutSharding(Operation *op) {
  if (!op->getAttr(SpmdDialect::kOutShardingAttrName))
    return std::optional<SmallVector<Spec>>();
  SmallVector<TensorShardingAttr> given = getOutShardingAttrs(op);
  SmallVector<Spec> result;
  for (auto [sharding, value] : llvm::zip_equal(given, op->getResults())) {
    MeshAttr declared = sharding.getMesh(op, &symbolTables);
    Spec spec;
    spec.mesh = declared ? getMeshWithAxisTypesAt(op, declared) : MeshAttr();
    spec.meshRef = sharding.getMeshOrRef();
    auto type = dyn_cast<RankedTensorType>(value.getType());
    for (auto [d, dim] : llvm::enumerate(sharding.getDimShardings())) {
      DimAxes axes;
      for (AxisRefAttr ref : dim.getAxes()) {
        AxisType axisType = spec.mesh && spec.mesh.hasAxis(ref.getName())
                                ? spec.mesh.getAxisType(ref.getName())
                                : AxisType::Auto;
        if (axisType != AxisType::Explicit) {
          Spec shown;
          shown.mesh = spec.mesh;
          for (DimensionShardingAttr other : sharding.getDimShardings())
            shown.dims.push_back(llvm::to_vector(other.getAxes()));
          JaxTypeOptions all;
          all.allAxes = true;
          std::string specText = "P(";
          for (auto [i, axesOfDim] : llvm::enumerate(shown.dims)) {
            if (i)
              specText += ", ";
            std::string entry;
            llvm::raw_string_ostream os(entry);
            printPartitionEntry(os, axesOfDim, spec.mesh, all);
            specText += entry;
          }
          if (shown.dims.size() == 1)
            specText += ",";
          specText += ")";
          return op->emitOpError("PartitionSpec passed to ")
                 << op->getName().getStringRef()
                 << " cannot contain axis names that are of type Auto or "
                    "Manual. Got PartitionSpec: "
                 << specText << " with axis name: " << ref.getName()
                 << " of type: "
                 << (axisType == AxisType::Manual ? "Manual" : "Auto");
        }
        axes.push_back(ref);
      }
      spec.dims.push_back(axes);
    }
    for (AxisRefAttr ref : sharding.getUnreducedAxes())
      if (isExplicit(spec.mesh, ref))
        spec.unreduced.push_back(ref);
    for (AxisRefAttr ref : sharding.getReducedAxes())
      if (isExplicit(spec.mesh, ref))
        spec.reduced.push_back(ref);
    if (!spec.unreduced.empty() &&
        sharding.getUnreducedKind() != ReductionKind::Sum &&
        getUnreducedRule(op, getExplicitInputs(op).size()) ==
            UnreducedRule::DotGeneral)
      return op->emitOpError("`out_sharding` passed to `dot_general` can "
                             "only contain unreduced of kind `sum`");
    if (type)
      for (auto [d, axes] : llvm::enumerate(spec.dims)) {
        if (axes.empty() || d >= static_cast<size_t>(type.getRank()) ||
            type.isDynamicDim(d))
          continue;
        int64_t parts = getAxesSize(axes, spec.mesh);
        if (type.getDimSize(d) % parts == 0)
          continue;
        std::string shape = ExplicitRuleContext::shapeString(type.getShape());
        std::string entryTuple = "(";
        for (AxisRefAttr ref : axes)
          entryTuple += "'" + ref.getName().str() + "', ";
        entryTuple.resize(entryTuple.size() - 1);
        if (axes.size() > 1)
          entryTuple.pop_back();
        entryTuple += ")";
        return op->emitOpError("Sharding spec ")
               << entryTuple << " implies that array axis " << d
               << " is partitioned " << parts
               << " times, but does not evenly divide the dimension size "
               << type.getDimSize(d) << ". Got shape: " << shape
               << " and sharding " << partitionSpecString(spec);
      }
    result.push_back(spec);
  }
  return std::optional<SmallVector<Spec>>(std::move(result));
}

//===----------------------------------------------------------------------===//
// Control flow and returns
//===----------------------------------------------------------------------===//

LogicalResult ExplicitInference::processControlFlow(Operation *op) {
  // The values that share a type are the op's data-flow edges (see
  // DataFlow.h): each region's entry arguments start with the type of what
  // flows into them first (the init operands, or what an earlier region
  // forwards), then the regions are inferred in order, and every value
  // that flows into one edge must have the same type, as JAX requires of
  // a loop's carry and of a conditional's branches.
  auto branch = cast<RegionBranchOpInterface>(op);
  SmallVector<DataFlowEdge> edges = getDataFlowEdges(op);
  auto describe = [&](Value v, Operation *user) {
    return typeString(v.getType(), getSpec(v, user));
  };
  RegionBranchSuccessorMapping mapping;
  branch.getSuccessorOperandInputMapping(mapping);
  // For each successor input, the operands that flow into it.
  DenseMap<Value, SmallVector<OpOperand *, 2>> flowsInto;
  for (auto &[operand, inputs] : mapping)
    for (Value input : inputs)
      flowsInto[input].push_back(operand);
  auto isDone = [&](OpOperand *operand, unsigned numDone) {
    Operation *owner = operand->getOwner();
    return owner == op || owner->getParentRegion()->getRegionNumber() < numDone;
  };
  for (Region &region : op->getRegions()) {
    if (region.empty())
      continue;
    for (BlockArgument arg : region.front().getArguments()) {
      auto it = flowsInto.find(arg);
      if (it == flowsInto.end())
        continue;
      for (OpOperand *operand : it->second)
        if (isDone(operand, region.getRegionNumber())) {
          specs[arg] = getSpec(operand->get(), operand->getOwner());
          break;
        }
    }
    for (Block &block : region)
      if (failed(processBlock(block)))
        return failure();
  }

  for (const DataFlowEdge &edge : edges) {
    auto owner = cast<OpResult>(edge.owner);
    unsigned index = owner.getResultNumber();
    OpOperand *first = edge.sourceOperands.front();
    Spec want = getSpec(first->get(), first->getOwner());
    bool carried = llvm::any_of(edge.targets,
                                [](Value v) { return isa<BlockArgument>(v); });
    for (OpOperand *source : edge.sourceOperands) {
      Operation *user = source->getOwner();
      if (getSpec(source->get(), user) == want)
        continue;
      if (carried)
        return op->emitOpError()
               << op->getName().getStringRef()
               << " body function carry input and carry output must have "
                  "equal types, but they differ:\n\nThe input carry "
                  "component "
               << index << " has type " << describe(first->get(), op)
               << " but the corresponding output carry component has type "
               << describe(source->get(), user)
               << ".\n\nRevise the function so that all output types match "
                  "the corresponding input types.";
      return op->emitOpError()
             << op->getName().getStringRef()
             << " branches must have equal output types but they "
                "differ.\n\nThe output of region "
             << first->getOwner()->getParentRegion()->getRegionNumber()
             << " at index " << index << " has type "
             << describe(first->get(), first->getOwner())
             << " but the corresponding output of region "
             << user->getParentRegion()->getRegionNumber() << " has type "
             << describe(source->get(), user)
             << ".\n\nRevise the regions so that all output types match.";
    }
    for (Value target : edge.targets)
      specs[target] = want;
  }

  // Write the results' types.
  SmallVector<TensorShardingAttr> shardings;
  MeshAttr mesh;
  Attribute meshRef;
  for (Value result : op->getResults()) {
    auto it = specs.find(result);
    if (it != specs.end() && it->second.meshRef) {
      mesh = it->second.mesh;
      meshRef = it->second.meshRef;
    }
  }
  if (!meshRef || !hasExplicitAxes(mesh))
    return success();
  for (Value result : op->getResults()) {
    Spec spec = specs.lookup(result);
    if (!spec.meshRef) {
      spec = Spec::replicated(rankOf(result.getType()));
      spec.mesh = mesh;
      spec.meshRef = meshRef;
    }
    shardings.push_back(toSharding(spec, getSharding(result)));
  }
  op->setAttr(SpmdDialect::kShardingAttrName,
              TensorShardingPerValueAttr::get(ctx, shardings));
  return success();
}

LogicalResult ExplicitInference::processReturn(Operation *op) {
  auto func = op->getParentOfType<FunctionOpInterface>();
  if (!func)
    return success();
  for (auto [i, value] : llvm::enumerate(op->getOperands())) {
    TensorShardingAttr declared = getFuncResultSharding(func, i);
    if (!declared || !isa<RankedTensorType>(value.getType()))
      continue;
    MeshAttr mesh = declared.getMesh(func, &symbolTables);
    if (!mesh || !hasExplicitAxes(mesh))
      continue;
    Spec want;
    want.mesh = mesh;
    want.meshRef = declared.getMeshOrRef();
    for (DimensionShardingAttr dim : declared.getDimShardings()) {
      DimAxes axes;
      for (AxisRefAttr ref : dim.getAxes())
        if (isExplicit(mesh, ref))
          axes.push_back(ref);
      want.dims.push_back(axes);
    }
    Spec have = getSpec(value, op);
    if (!(have == want))
      return op->emitOpError("result ")
             << i << " has type " << typeString(value.getType(), have)
             << " but the function declares its result " << i << " as "
             << typeString(value.getType(), want)
             << "; use `spmd.reshard` to change its sharding";
  }
  return success();
}

} // namespace detail

namespace {

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct SpmdInferExplicitPass
    : public impl::SpmdInferExplicitPassBase<SpmdInferExplicitPass> {
  using Base::Base;

  void runOnOperation() override {
    detail::ExplicitInference inference(&getContext());
    WalkResult result = getOperation()->walk([&](FunctionOpInterface func) {
      if (failed(inference.runOnFunction(func)))
        return WalkResult::interrupt();
      return WalkResult::skip();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tessera::spmd
