//===- InferExplicit.cpp - JAX's sharding in types on explicit axes -------===//
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
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/DataFlow.h"
#include "tessera/Dialect/Spmd/IR/JaxType.h"
#include "tessera/Dialect/Spmd/IR/SpmdDialect.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"
#include "tessera/Dialect/Spmd/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

namespace mlir::tessera::spmd {
#define GEN_PASS_DEF_SPMDINFEREXPLICITPASS
#include "tessera/Dialect/Spmd/Transforms/Passes.h.inc"

namespace {

/// The Explicit axes of one dimension, major to minor (JAX's PartitionSpec
/// entry: empty is `None`).
using DimAxes = SmallVector<AxisRefAttr>;

/// The explicit-axes view of a value's sharding: its type in JAX's sense.
struct Spec {
  /// The mesh as seen where the value is used (axis types in context), or
  /// null for a value on no mesh (replicated everywhere).
  MeshAttr mesh;
  /// How shardings name that mesh (a symbol or an inlined mesh).
  Attribute meshRef;
  SmallVector<DimAxes> dims;
  /// Explicit axes over which the value holds partial sums (JAX's
  /// `unreduced`, printed `{U:x}`), in mesh order.
  SmallVector<AxisRefAttr> unreduced;

  bool isReplicated() const {
    return llvm::all_of(dims, [](const DimAxes &d) { return d.empty(); });
  }
  bool operator==(const Spec &other) const {
    return dims == other.dims && unreduced == other.unreduced;
  }
};

/// Product of the sizes of `axes` in `mesh`.
int64_t getAxesSize(ArrayRef<AxisRefAttr> axes, MeshAttr mesh) {
  int64_t size = 1;
  for (AxisRefAttr ref : axes)
    size *= ref.getSize(mesh);
  return size;
}

/// The result of a rule: one spec per result, or failure (error emitted).
using Specs = FailureOr<SmallVector<Spec>>;

class ExplicitInference {
public:
  ExplicitInference(MLIRContext *ctx) : ctx(ctx), printer(ctx) {}

  LogicalResult runOnFunction(FunctionOpInterface func);

private:
  //===--------------------------------------------------------------------===//
  // Specs of values
  //===--------------------------------------------------------------------===//

  /// The type of `value` as seen by `user`.
  Spec getSpec(Value value, Operation *user) {
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
    return spec;
  }

  static bool isExplicit(MeshAttr mesh, AxisRefAttr ref) {
    return mesh && mesh.hasAxis(ref.getName()) &&
           mesh.getAxisType(ref.getName()) == AxisType::Explicit;
  }

  static bool hasExplicitAxes(MeshAttr mesh) {
    return mesh && mesh.hasAxisOfType(AxisType::Explicit);
  }

  /// Builds the sharding of a value whose type has `spec`, keeping the
  /// non-explicit axes `previous` had per dimension.
  TensorShardingAttr toSharding(const Spec &spec, TensorShardingAttr previous) {
    bool hasAuto = spec.mesh && spec.mesh.hasAxisOfType(AxisType::Auto);
    SmallVector<DimensionShardingAttr> dims;
    for (auto [d, axes] : llvm::enumerate(spec.dims)) {
      SmallVector<AxisRefAttr> all(axes);
      if (previous && d < static_cast<size_t>(previous.getRank()))
        for (AxisRefAttr ref : previous.getDimSharding(d).getAxes())
          if (!isExplicit(spec.mesh, ref))
            all.push_back(ref);
      dims.push_back(
          DimensionShardingAttr::get(ctx, all, /*isClosed=*/!hasAuto));
    }
    return TensorShardingAttr::get(ctx, spec.meshRef, dims, {}, spec.unreduced,
                                   ReductionKind::Sum);
  }

  /// Python's repr of a frozenset of axis names: `frozenset({'x'})`.
  static std::string frozensetString(ArrayRef<AxisRefAttr> axes) {
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

  /// JAX's repr of an abstract value in messages: `ShapedArray(float32[8@x])`.
  std::string avalString(Value value, Operation *user) {
    return "ShapedArray(" +
           typeString(value.getType(), getSpec(value, user),
                      /*shortDtypes=*/false) +
           ")";
  }

  /// JAX's unreduced rules for the op's result (one set for all results):
  /// add keeps equal unreduced sets, mul and dot_general reject unreduced
  /// inputs, reshapes, transposes, broadcasts and casts pass them on, and
  /// every other op with an unreduced input is not implemented.
  FailureOr<SmallVector<AxisRefAttr>>
  inferUnreduced(Operation *op, ValueRange inputs, ArrayRef<Spec> specs);

  /// JAX's checks of an `out_sharding` with unreduced axes on a
  /// contraction.
  LogicalResult checkDotUnreducedOut(linalg::LinalgOp op, ArrayRef<Spec> inputs,
                                     const Spec &given);

  /// JAX's check of an `out_sharding` with unreduced axes on a reduction:
  /// they must come from the reduced dims' axes or the operand's own
  /// unreduced axes.
  LogicalResult checkReduceUnreducedOut(linalg::LinalgOp op, Value operand,
                                        const Spec &input, const Spec &given);

  /// The specs of the contracting dims of a two-input contraction.
  std::pair<SmallVector<DimAxes>, SmallVector<DimAxes>>
  getContractingSpecs(linalg::LinalgOp op, ArrayRef<Spec> inputs);

  /// Prints a value's type as JAX prints it in messages.
  std::string typeString(Type type, const Spec &spec, bool shortDtypes = true) {
    JaxTypeOptions options;
    options.shortDtypes = shortDtypes;
    TensorShardingAttr sharding =
        spec.meshRef ? toSharding(spec, {}) : TensorShardingAttr();
    return getJaxTypeString(type, sharding, spec.mesh, options);
  }

  /// JAX's repr of one PartitionSpec entry.
  std::string entryString(const DimAxes &axes, MeshAttr mesh) {
    std::string s;
    llvm::raw_string_ostream os(s);
    printPartitionEntry(os, axes, mesh);
    return s;
  }

  /// `('x', None)` for a spec.
  std::string tupleString(const Spec &spec) {
    std::string s = "(";
    for (auto [i, axes] : llvm::enumerate(spec.dims)) {
      if (i)
        s += ", ";
      s += entryString(axes, spec.mesh);
    }
    if (spec.dims.size() == 1)
      s += ",";
    return s + ")";
  }

  /// `P('x', None)` for a spec.
  std::string partitionSpecString(const Spec &spec) {
    std::string s = "P(";
    for (auto [i, axes] : llvm::enumerate(spec.dims)) {
      if (i)
        s += ", ";
      s += entryString(axes, spec.mesh);
    }
    if (spec.dims.size() == 1)
      s += ",";
    return s + ")";
  }

  //===--------------------------------------------------------------------===//
  // Ops
  //===--------------------------------------------------------------------===//

  LogicalResult processBlock(Block &block);
  LogicalResult processOp(Operation *op);
  LogicalResult processControlFlow(Operation *op);
  LogicalResult processReturn(Operation *op);

  /// The common mesh of the operands' types (`values`), or an error when
  /// two differ. `meshRef` receives how it is named.
  FailureOr<std::pair<MeshAttr, Attribute>>
  getCommonMesh(Operation *op, ArrayRef<Spec> operandSpecs);

  Specs inferRule(Operation *op, ArrayRef<Spec> inputs, ValueRange inputValues);
  Specs inferNary(Operation *op, ArrayRef<Spec> inputs, ValueRange inputValues,
                  ArrayRef<SmallVector<std::optional<int64_t>>> dimMaps,
                  int64_t resultRank);
  Specs inferSelect(Operation *op, ArrayRef<Spec> inputs);
  Specs inferLinalg(linalg::LinalgOp op, ArrayRef<Spec> inputs,
                    ValueRange inputValues);
  Specs inferDot(linalg::LinalgOp op, ArrayRef<Spec> inputs,
                 ValueRange inputValues);
  Specs inferReshape(Operation *op, const Spec &input, ArrayRef<int64_t> in,
                     ArrayRef<int64_t> out);
  Specs inferSlicing(Operation *op, const Spec &input,
                     ArrayRef<int64_t> inShape, ArrayRef<int64_t> outShape,
                     const llvm::SmallBitVector &dropped);
  Specs inferGather(tensor::GatherOp op, ArrayRef<Spec> inputs);
  Specs inferScatter(tensor::ScatterOp op, ArrayRef<Spec> inputs);

  /// Checks and returns a user-given `spmd.out_sharding` (JAX's
  /// out_sharding=), or std::nullopt if the op has none.
  FailureOr<std::optional<SmallVector<Spec>>> getOutSharding(Operation *op);

  /// The "illegally sharded result" check (JAX's unique-axis check).
  LogicalResult checkUniqueAxes(Operation *op, ValueRange inputs,
                                ArrayRef<Spec> inputSpecs, Value result,
                                const Spec &spec);

  MLIRContext *ctx;
  JaxTypePrinter printer;
  SymbolTableCollection symbolTables;
  /// Specs computed by this pass (results, and block arguments of regions
  /// whose sharding lives elsewhere).
  llvm::DenseMap<Value, Spec> specs;
};

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
    if (!spec.mesh)
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

/// The operands that carry data for the rule: for a linalg op its `ins`
/// (its `outs` are helpers that never change the result's sharding).
static SmallVector<Value> getRuleInputs(Operation *op) {
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    return llvm::to_vector(linalgOp.getDpsInputs());
  return llvm::to_vector(op->getOperands());
}

/// Ops that make a value from nothing (JAX's creation ops): replicated
/// unless they carry `spmd.out_sharding`.
static bool isCreationOp(Operation *op) {
  if (isa<arith::ConstantOp, tensor::EmptyOp, tensor::SplatOp,
          tensor::FromElementsOp, tensor::GenerateOp, linalg::FillOp>(op))
    return true;
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    return linalgOp.getNumDpsInputs() == 0 ||
           llvm::none_of(linalgOp.getDpsInputs(), [](Value v) {
             return isa<RankedTensorType>(v.getType());
           });
  return false;
}

LogicalResult ExplicitInference::processOp(Operation *op) {
  if (isa<scf::ForOp, scf::WhileOp, scf::IfOp, scf::IndexSwitchOp>(op))
    return processControlFlow(op);
  if (op->hasTrait<OpTrait::ReturnLike>() && isa<func::ReturnOp>(op))
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

  SmallVector<Value> inputs = getRuleInputs(op);
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
  SmallVector<Spec> results;
  bool isContraction = false;
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    isContraction =
        linalgOp.getNumDpsInputs() == 2 && linalgOp.getNumReductionLoops() > 0;
  if (*given) {
    results = std::move(**given);
    if (isContraction && !results.empty() && !results[0].unreduced.empty()) {
      // The unreduced rule of dot_general first rejects unreduced inputs.
      FailureOr<SmallVector<AxisRefAttr>> unused =
          inferUnreduced(op, inputs, inputSpecs);
      if (failed(unused) ||
          failed(checkDotUnreducedOut(cast<linalg::LinalgOp>(op), inputSpecs,
                                      results[0])))
        return failure();
    }
    auto reduction = dyn_cast<linalg::LinalgOp>(op);
    if (reduction && reduction.getNumDpsInputs() == 1 &&
        reduction.getNumReductionLoops() > 0 && !results.empty() &&
        !results[0].unreduced.empty() &&
        failed(checkReduceUnreducedOut(reduction, inputs[0], inputSpecs[0],
                                       results[0])))
      return failure();
  } else {
    // A fully Auto or Manual context consults no rule: everything is P().
    if (!hasExplicitAxes(common->first) && !isCreationOp(op))
      return success();
    Specs inferred = inferRule(op, inputSpecs, inputs);
    if (failed(inferred))
      return failure();
    results = std::move(*inferred);
    FailureOr<SmallVector<AxisRefAttr>> unreduced =
        inferUnreduced(op, inputs, inputSpecs);
    if (failed(unreduced))
      return failure();
    for (Spec &spec : results)
      spec.unreduced = *unreduced;
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
  for (auto [result, spec] : llvm::zip_equal(op->getResults(), results)) {
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

FailureOr<std::optional<SmallVector<Spec>>>
ExplicitInference::getOutSharding(Operation *op) {
  Attribute attr = op->getAttr(SpmdDialect::kOutShardingAttrName);
  if (!attr)
    return std::optional<SmallVector<Spec>>();
  SmallVector<TensorShardingAttr> given;
  if (auto single = dyn_cast<TensorShardingAttr>(attr))
    given.push_back(single);
  else
    llvm::append_range(given,
                       cast<TensorShardingPerValueAttr>(attr).getShardings());
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
    if (!spec.unreduced.empty() &&
        sharding.getUnreducedKind() != ReductionKind::Sum &&
        isa<linalg::LinalgOp>(op) &&
        cast<linalg::LinalgOp>(op).getNumReductionLoops() > 0)
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
        std::string shape = "(";
        for (auto [i, size] : llvm::enumerate(type.getShape())) {
          if (i)
            shape += ", ";
          shape += std::to_string(size);
        }
        if (type.getRank() == 1)
          shape += ",";
        shape += ")";
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
// Rules
//===----------------------------------------------------------------------===//

/// A spec of `rank` unsharded dimensions on no mesh.
static Spec replicatedSpec(int64_t rank) {
  Spec spec;
  spec.dims.resize(rank);
  return spec;
}

/// The rank of `type` (0 for non-tensors).
static int64_t rankOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getRank();
  return 0;
}

/// For each dimension of an operand of a linalg op, the loop that indexes
/// it, or std::nullopt for a constant (broadcast) or compound index.
static SmallVector<std::optional<int64_t>> getDimLoops(AffineMap map) {
  SmallVector<std::optional<int64_t>> loops;
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr))
      loops.push_back(dim.getPosition());
    else
      loops.push_back(std::nullopt);
  }
  return loops;
}

FailureOr<SmallVector<AxisRefAttr>>
ExplicitInference::inferUnreduced(Operation *op, ValueRange inputs,
                                  ArrayRef<Spec> specs) {
  SmallVector<AxisRefAttr> none;
  if (llvm::all_of(specs, [](const Spec &s) { return s.unreduced.empty(); }))
    return none;
  auto isLinalgContraction = [&]() {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    return linalgOp && linalgOp.getNumDpsInputs() == 2 &&
           linalgOp.getNumReductionLoops() > 0;
  };
  if (isLinalgContraction())
    return op->emitOpError("lhs or rhs passed to dot_general cannot be "
                           "unreduced. Got lhs=")
           << avalString(inputs[0], op)
           << " and rhs=" << avalString(inputs[1], op);
  if (isa<arith::AddFOp, arith::AddIOp>(op)) {
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
  if (isa<arith::MulFOp, arith::MulIOp>(op)) {
    ArrayRef<AxisRefAttr> x = specs[0].unreduced, y = specs[1].unreduced;
    if (!x.empty() && !y.empty())
      return op->emitOpError("lhs and rhs to `mul` cannot be unreduced since "
                             "mul is bilinear. Got lhs=")
             << frozensetString(x) << ", rhs=" << frozensetString(y);
    // Tessera has no `reduced` axes: the other side is never reduced.
    return op->emitOpError()
           << (x.empty() ? "LHS should be reduced along the same axes RHS is "
                           "unreduced on. Got lhs="
                         : "RHS should be reduced along the same axes LHS is "
                           "unreduced on. Got lhs=")
           << avalString(inputs[0], op)
           << " and rhs=" << avalString(inputs[1], op);
  }
  // A reduction of one input keeps its operand's partial sums.
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    if (linalgOp.getNumDpsInputs() == 1 && linalgOp.getNumReductionLoops() > 0)
      return SmallVector<AxisRefAttr>(specs[0].unreduced);
  // Ops that only move data pass the partial sums on unchanged.
  if (specs.size() == 1 &&
      isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::ReshapeOp,
          linalg::TransposeOp, linalg::BroadcastOp, tensor::CastOp>(op))
    return SmallVector<AxisRefAttr>(specs[0].unreduced);
  std::string name = op->getName().getStringRef().str();
  return op->emitOpError("unreduced rule for ")
         << name
         << " is not implemented. Please file an issue at "
            "https://github.com/jax-ml/jax/issues";
}

/// JAX's name of the reduction a linalg reduction performs (from the
/// combiner in its body).
static std::string reductionName(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  if (!body || body->getOperations().size() < 2)
    return "reduce";
  Operation *combiner = &*std::prev(body->end(), 2);
  if (isa<arith::AddFOp, arith::AddIOp>(combiner))
    return "reduce_sum";
  if (isa<arith::MulFOp, arith::MulIOp>(combiner))
    return "reduce_prod";
  if (isa<arith::MaximumFOp, arith::MaxNumFOp, arith::MaxSIOp, arith::MaxUIOp>(
          combiner))
    return "reduce_max";
  if (isa<arith::MinimumFOp, arith::MinNumFOp, arith::MinSIOp, arith::MinUIOp>(
          combiner))
    return "reduce_min";
  return "reduce";
}

LogicalResult ExplicitInference::checkReduceUnreducedOut(linalg::LinalgOp op,
                                                         Value operand,
                                                         const Spec &input,
                                                         const Spec &given) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<std::optional<int64_t>> loops =
      getDimLoops(op.getMatchingIndexingMap(op.getDpsInputOperand(0)));
  SmallVector<int64_t> reducedDims;
  SmallVector<AxisRefAttr> used(input.unreduced);
  for (auto [d, loop] : llvm::enumerate(loops)) {
    if (!loop || iterators[*loop] != utils::IteratorType::reduction)
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
         << reductionName(op)
         << " over. Got operand=" << avalString(operand, op)
         << ", axes=" << axes
         << ", unreduced_spec=" << frozensetString(given.unreduced);
}

std::pair<SmallVector<DimAxes>, SmallVector<DimAxes>>
ExplicitInference::getContractingSpecs(linalg::LinalgOp op,
                                       ArrayRef<Spec> inputs) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<std::optional<int64_t>> lhsLoops =
      getDimLoops(op.getMatchingIndexingMap(op.getDpsInputOperand(0)));
  SmallVector<std::optional<int64_t>> rhsLoops =
      getDimLoops(op.getMatchingIndexingMap(op.getDpsInputOperand(1)));
  std::pair<SmallVector<DimAxes>, SmallVector<DimAxes>> result;
  for (int64_t loop = 0, e = iterators.size(); loop < e; ++loop) {
    if (iterators[loop] != utils::IteratorType::reduction)
      continue;
    std::optional<DimAxes> l, r;
    for (auto [d, dl] : llvm::enumerate(lhsLoops))
      if (dl == loop)
        l = inputs[0].dims[d];
    for (auto [d, dl] : llvm::enumerate(rhsLoops))
      if (dl == loop)
        r = inputs[1].dims[d];
    if (l && r) {
      result.first.push_back(*l);
      result.second.push_back(*r);
    }
  }
  return result;
}

LogicalResult ExplicitInference::checkDotUnreducedOut(linalg::LinalgOp op,
                                                      ArrayRef<Spec> inputs,
                                                      const Spec &given) {
  auto [lhsContracting, rhsContracting] = getContractingSpecs(op, inputs);
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

Specs ExplicitInference::inferRule(Operation *op, ArrayRef<Spec> inputs,
                                   ValueRange inputValues) {
  if (isCreationOp(op)) {
    SmallVector<Spec> out;
    for (Type type : op->getResultTypes())
      out.push_back(replicatedSpec(rankOf(type)));
    return out;
  }
  if (isa<arith::SelectOp>(op))
    return inferSelect(op, inputs);
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    if (linalgOp.hasPureTensorSemantics())
      return inferLinalg(linalgOp, inputs, inputValues);

  // Unary and n-ary elementwise ops (arith, math, casts): operand dimension
  // d maps to result dimension d.
  if (op->hasTrait<OpTrait::Elementwise>() ||
      isa_and_nonnull<arith::ArithDialect, math::MathDialect>(
          op->getDialect()) ||
      isa<tensor::CastOp, PropagationBarrierOp>(op)) {
    int64_t rank = rankOf(op->getResult(0).getType());
    SmallVector<SmallVector<std::optional<int64_t>>> maps;
    for (Value value : inputValues) {
      SmallVector<std::optional<int64_t>> map;
      for (int64_t d = 0, e = rankOf(value.getType()); d < e; ++d)
        map.push_back(d);
      maps.push_back(map);
    }
    return inferNary(op, inputs, inputValues, maps, rank);
  }

  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::ReshapeOp>(
          op)) {
    auto in = cast<RankedTensorType>(inputValues[0].getType());
    auto out = cast<RankedTensorType>(op->getResult(0).getType());
    if (in.hasStaticShape() && out.hasStaticShape())
      return inferReshape(op, inputs[0], in.getShape(), out.getShape());
  }
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
    SmallVector<int64_t> sliced(slice.getStaticSizes());
    return inferSlicing(op, inputs[0], slice.getSourceType().getShape(), sliced,
                        slice.getDroppedDims());
  }
  if (auto pad = dyn_cast<tensor::PadOp>(op))
    return inferSlicing(op, inputs[0], pad.getSourceType().getShape(),
                        pad.getResultType().getShape(),
                        llvm::SmallBitVector(pad.getResultType().getRank()));
  if (isa<tensor::ConcatOp>(op)) {
    const Spec *first = nullptr;
    for (const Spec &spec : inputs) {
      if (!spec.mesh)
        continue;
      if (first && !(*first == spec)) {
        InFlightDiagnostic diag = op->emitOpError(
            "All operands should have the same sharding. Got shardings ");
        bool sep = false;
        for (const Spec &s : inputs) {
          if (sep)
            diag << ", ";
          sep = true;
          diag << "NamedSharding(mesh=" << s.mesh
               << ", spec=" << partitionSpecString(s) << ")";
        }
        return diag;
      }
      first = &spec;
    }
    SmallVector<Spec> out;
    out.push_back(first ? *first
                        : replicatedSpec(rankOf(op->getResult(0).getType())));
    return out;
  }
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
    // The update must have the destination's sharding (on the kept dims
    // for a rank-reducing insert).
    const Spec &update = inputs[0];
    const Spec &dest = inputs[1];
    llvm::SmallBitVector dropped = insert.getDroppedDims();
    Spec kept;
    kept.mesh = dest.mesh;
    kept.meshRef = dest.meshRef;
    for (auto [d, axes] : llvm::enumerate(dest.dims))
      if (!dropped.test(d))
        kept.dims.push_back(axes);
    if (!(kept == update))
      return op->emitOpError(op->getName().getStringRef())
             << " operand sharding must be equal to update sharding, got "
                "operand sharding "
             << typeString(insert.getDestType(), dest)
             << " and update sharding "
             << typeString(insert.getSourceType(), update) << ".";
    return SmallVector<Spec>{dest};
  }
  if (auto gather = dyn_cast<tensor::GatherOp>(op))
    return inferGather(gather, inputs);
  if (auto scatter = dyn_cast<tensor::ScatterOp>(op))
    return inferScatter(scatter, inputs);
  if (auto call = dyn_cast<CallOpInterface>(op)) {
    SmallVector<Spec> out;
    Operation *callee = call.resolveCallableInTable(&symbolTables);
    for (OpResult result : op->getResults()) {
      Spec spec = replicatedSpec(rankOf(result.getType()));
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

  return op->emitOpError("sharding rule for ")
         << op->getName().getStringRef()
         << " is not implemented. You can work around this error by dropping "
            "that operation into full auto sharding mode via: "
            "`spmd.auto_axes` (jax.sharding.auto_axes(fun, "
            "out_shardings=...))";
}

Specs ExplicitInference::inferNary(
    Operation *op, ArrayRef<Spec> inputs, ValueRange inputValues,
    ArrayRef<SmallVector<std::optional<int64_t>>> dimMaps, int64_t resultRank) {
  // Scalars (rank 0) are ignored; the other inputs must have equal ranks.
  SmallVector<unsigned> nonScalar;
  for (auto [i, value] : llvm::enumerate(inputValues))
    if (rankOf(value.getType()) > 0)
      nonScalar.push_back(i);
  Spec out = replicatedSpec(resultRank);
  for (unsigned i : nonScalar) {
    if (inputs[i].mesh) {
      out.mesh = inputs[i].mesh;
      out.meshRef = inputs[i].meshRef;
    }
  }
  for (int64_t d = 0; d < resultRank; ++d) {
    // The entries of the inputs' dimensions that map to result dim d;
    // size-1 unsharded dims (broadcast) are dropped.
    SmallVector<DimAxes> entries;
    for (unsigned i : nonScalar) {
      auto type = cast<RankedTensorType>(inputValues[i].getType());
      for (auto [inDim, mapped] : llvm::enumerate(dimMaps[i])) {
        if (mapped != d)
          continue;
        const DimAxes &axes = inputs[i].dims[inDim];
        if (axes.empty() && type.getDimSize(inDim) == 1)
          continue;
        entries.push_back(axes);
      }
    }
    DimAxes chosen;
    bool conflict = false;
    for (const DimAxes &axes : entries) {
      if (axes.empty())
        continue;
      if (chosen.empty())
        chosen = axes;
      else if (chosen != axes)
        conflict = true;
    }
    if (conflict) {
      InFlightDiagnostic diag = op->emitOpError()
                                << op->getName().getStringRef()
                                << " got incompatible shardings for "
                                   "broadcasting: ";
      bool sep = false;
      for (unsigned i : nonScalar) {
        if (sep)
          diag << ", ";
        sep = true;
        diag << tupleString(inputs[i]);
      }
      return diag << ".";
    }
    out.dims[d] = chosen;
  }
  return SmallVector<Spec>(op->getNumResults(), out);
}

Specs ExplicitInference::inferSelect(Operation *op, ArrayRef<Spec> inputs) {
  const Spec &which = inputs[0];
  const Spec &onTrue = inputs[1];
  const Spec &onFalse = inputs[2];
  if (!(onTrue == onFalse))
    return op->emitOpError("select cases must have the same shardings, got [")
           << partitionSpecString(onTrue) << ", "
           << partitionSpecString(onFalse) << "].";
  if (!which.dims.empty() && !(which == onTrue))
    return op->emitOpError("select `which` must be scalar or have the same "
                           "sharding as cases, got `which` sharding ")
           << partitionSpecString(which) << " but case sharding "
           << partitionSpecString(onTrue) << ".";
  Spec out = onTrue;
  if (!out.mesh) {
    out.mesh = onFalse.mesh ? onFalse.mesh : which.mesh;
    out.meshRef = onFalse.mesh ? onFalse.meshRef : which.meshRef;
  }
  return SmallVector<Spec>{out};
}

Specs ExplicitInference::inferLinalg(linalg::LinalgOp op, ArrayRef<Spec> inputs,
                                     ValueRange inputValues) {
  Operation *operation = op.getOperation();
  if (operation->getNumResults() != 1)
    return operation->emitOpError("sharding rule for ")
           << operation->getName().getStringRef()
           << " is not implemented (more than one result). You can work "
              "around this error by dropping that operation into full auto "
              "sharding mode via: `spmd.auto_axes`";
  int64_t resultRank = rankOf(operation->getResult(0).getType());

  // broadcast_in_dim and transpose.
  if (auto broadcast = dyn_cast<linalg::BroadcastOp>(operation)) {
    Spec out = replicatedSpec(resultRank);
    out.mesh = inputs[0].mesh;
    out.meshRef = inputs[0].meshRef;
    ArrayRef<int64_t> added = broadcast.getDimensions();
    int64_t inDim = 0;
    for (int64_t d = 0; d < resultRank; ++d)
      if (!llvm::is_contained(added, d))
        out.dims[d] = inputs[0].dims[inDim++];
    return SmallVector<Spec>{out};
  }
  if (auto transpose = dyn_cast<linalg::TransposeOp>(operation)) {
    Spec out = replicatedSpec(resultRank);
    out.mesh = inputs[0].mesh;
    out.meshRef = inputs[0].meshRef;
    for (auto [d, p] : llvm::enumerate(transpose.getPermutation()))
      out.dims[d] = inputs[0].dims[p];
    return SmallVector<Spec>{out};
  }

  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  int64_t numReductions =
      llvm::count(iterators, utils::IteratorType::reduction);
  OpOperand *init = op.getDpsInitOperand(0);
  SmallVector<std::optional<int64_t>> outLoops =
      getDimLoops(op.getMatchingIndexingMap(init));
  if (llvm::any_of(outLoops, [](auto l) { return !l.has_value(); }))
    return operation->emitOpError("sharding rule for ")
           << operation->getName().getStringRef()
           << " is not implemented. You can work around this error by "
              "dropping that operation into full auto sharding mode via: "
              "`spmd.auto_axes`";

  if (numReductions == 0 || inputValues.size() == 1) {
    // Elementwise (with broadcasts) or a reduction of one input: each input
    // dimension maps to the result dimension of its loop; reduced
    // dimensions map nowhere.
    SmallVector<SmallVector<std::optional<int64_t>>> maps;
    for (OpOperand *input : op.getDpsInputOperands()) {
      SmallVector<std::optional<int64_t>> map;
      for (std::optional<int64_t> loop :
           getDimLoops(op.getMatchingIndexingMap(input))) {
        std::optional<int64_t> resultDim;
        if (loop)
          for (auto [d, l] : llvm::enumerate(outLoops))
            if (l == loop)
              resultDim = d;
        map.push_back(resultDim);
      }
      maps.push_back(map);
    }
    return inferNary(operation, inputs, inputValues, maps, resultRank);
  }
  if (inputValues.size() == 2)
    return inferDot(op, inputs, inputValues);
  return operation->emitOpError("sharding rule for ")
         << operation->getName().getStringRef()
         << " is not implemented. You can work around this error by dropping "
            "that operation into full auto sharding mode via: "
            "`spmd.auto_axes`";
}

Specs ExplicitInference::inferDot(linalg::LinalgOp op, ArrayRef<Spec> inputs,
                                  ValueRange inputValues) {
  Operation *operation = op.getOperation();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  OpOperand *lhsOperand = op.getDpsInputOperand(0);
  OpOperand *rhsOperand = op.getDpsInputOperand(1);
  SmallVector<std::optional<int64_t>> lhsLoops =
      getDimLoops(op.getMatchingIndexingMap(lhsOperand));
  SmallVector<std::optional<int64_t>> rhsLoops =
      getDimLoops(op.getMatchingIndexingMap(rhsOperand));
  SmallVector<std::optional<int64_t>> outLoops =
      getDimLoops(op.getMatchingIndexingMap(op.getDpsInitOperand(0)));
  const Spec &lhs = inputs[0];
  const Spec &rhs = inputs[1];
  if (lhs.mesh && rhs.mesh && lhs.mesh != rhs.mesh)
    return operation->emitOpError("Mesh of both lhs and rhs should match. Got "
                                  "lhs: ")
           << lhs.mesh << " and rhs: " << rhs.mesh;

  auto entryOf = [](const Spec &spec, ArrayRef<std::optional<int64_t>> loops,
                    int64_t loop) -> std::optional<DimAxes> {
    for (auto [d, l] : llvm::enumerate(loops))
      if (l == loop)
        return spec.dims[d];
    return std::nullopt;
  };

  // Batch dims must agree; both-sides-sharded contracting dims are
  // ambiguous.
  SmallVector<DimAxes> lhsContracting, rhsContracting;
  bool ambiguous = false;
  for (int64_t loop = 0, e = iterators.size(); loop < e; ++loop) {
    std::optional<DimAxes> l = entryOf(lhs, lhsLoops, loop);
    std::optional<DimAxes> r = entryOf(rhs, rhsLoops, loop);
    if (iterators[loop] == utils::IteratorType::reduction) {
      if (l && r) {
        lhsContracting.push_back(*l);
        rhsContracting.push_back(*r);
        ambiguous |= !l->empty() && !r->empty();
      }
      continue;
    }
    if (l && r && *l != *r) {
      Spec lb, rb;
      lb.mesh = lhs.mesh;
      rb.mesh = rhs.mesh;
      lb.dims.push_back(*l);
      rb.dims.push_back(*r);
      return operation->emitOpError()
             << "dot_general requires lhs batch dimensions and rhs batch "
                "dimensions to have the same sharding, got "
             << tupleString(lb) << " and " << tupleString(rb) << ".";
    }
  }
  if (ambiguous) {
    Spec lc, rc;
    lc.mesh = lhs.mesh;
    rc.mesh = rhs.mesh;
    lc.dims = lhsContracting;
    rc.dims = rhsContracting;
    return operation->emitOpError(
               "Contracting dimensions are sharded and it is ambiguous how "
               "the output should be sharded. Please specify the output "
               "sharding via the `out_sharding` parameter. Got "
               "lhs_contracting_spec=")
           << tupleString(lc)
           << " and rhs_contracting_spec=" << tupleString(rc);
  }

  Spec out = replicatedSpec(outLoops.size());
  out.mesh = lhs.mesh ? lhs.mesh : rhs.mesh;
  out.meshRef = lhs.mesh ? lhs.meshRef : rhs.meshRef;
  for (auto [d, loop] : llvm::enumerate(outLoops)) {
    if (std::optional<DimAxes> l = entryOf(lhs, lhsLoops, *loop))
      out.dims[d] = *l;
    else if (std::optional<DimAxes> r = entryOf(rhs, rhsLoops, *loop))
      out.dims[d] = *r;
  }
  return SmallVector<Spec>{out};
}

Specs ExplicitInference::inferReshape(Operation *op, const Spec &input,
                                      ArrayRef<int64_t> in,
                                      ArrayRef<int64_t> out) {
  Spec result = replicatedSpec(out.size());
  result.mesh = input.mesh;
  result.meshRef = input.meshRef;
  if (input.isReplicated())
    return SmallVector<Spec>{result};

  auto unsupported = [&]() -> LogicalResult {
    std::string sizes = "(";
    for (auto [i, size] : llvm::enumerate(out)) {
      if (i)
        sizes += ", ";
      sizes += std::to_string(size);
    }
    if (out.size() == 1)
      sizes += ",";
    sizes += ")";
    return op->emitOpError(
               "This reshape is not supported. Please specify the sharding "
               "of the output via the `out_sharding` argument of "
               "jax.lax.reshape. Got operand type: ")
           << typeString(op->getOperand(0).getType(), input,
                         /*shortDtypes=*/false)
           << ", new sizes: " << sizes;
  };

  // The non-1 dimensions of both sides.
  SmallVector<int64_t> inIdx, outIdx;
  for (auto [i, s] : llvm::enumerate(in))
    if (s != 1)
      inIdx.push_back(i);
  for (auto [i, s] : llvm::enumerate(out))
    if (s != 1)
      outIdx.push_back(i);

  // Size-1 output dims keep the entry of a size-1 operand dim at the same
  // index.
  auto fillOnes = [&]() {
    for (auto [i, s] : llvm::enumerate(out))
      if (s == 1 && i < in.size() && in[i] == 1)
        result.dims[i] = input.dims[i];
  };

  // 1. Only size-1 dimensions change.
  if (inIdx.size() == outIdx.size() &&
      llvm::all_of(llvm::zip_equal(inIdx, outIdx), [&](auto p) {
        return in[std::get<0>(p)] == out[std::get<1>(p)];
      })) {
    for (auto [i, o] : llvm::zip_equal(inIdx, outIdx))
      result.dims[o] = input.dims[i];
    return SmallVector<Spec>{result};
  }

  // Group the non-1 dims: walk both, each group a run of operand dims and a
  // run of output dims with equal products.
  struct Group {
    SmallVector<int64_t> ins, outs;
  };
  SmallVector<Group> groups;
  size_t a = 0, b = 0;
  while (a < inIdx.size() && b < outIdx.size()) {
    Group g;
    int64_t pa = in[inIdx[a]], pb = out[outIdx[b]];
    g.ins.push_back(inIdx[a++]);
    g.outs.push_back(outIdx[b++]);
    while (pa != pb) {
      if (pa < pb) {
        if (a >= inIdx.size())
          return unsupported();
        pa *= in[inIdx[a]];
        g.ins.push_back(inIdx[a++]);
      } else {
        if (b >= outIdx.size())
          return unsupported();
        pb *= out[outIdx[b]];
        g.outs.push_back(outIdx[b++]);
      }
    }
    groups.push_back(g);
  }
  if (a != inIdx.size() || b != outIdx.size())
    return unsupported();
  int numSplits = 0, numMerges = 0;
  for (const Group &g : groups) {
    if (g.ins.size() == 1 && g.outs.size() > 1)
      ++numSplits;
    else if (g.ins.size() > 1 && g.outs.size() == 1)
      ++numMerges;
    else if (g.ins.size() > 1 && g.outs.size() > 1)
      return unsupported();
  }
  if (numSplits + numMerges != 1)
    return unsupported();

  // Hands `axes` out greedily to the output pieces `pieces`.
  auto handOut = [&](DimAxes axes, ArrayRef<int64_t> pieces) -> LogicalResult {
    size_t next = 0;
    for (int64_t piece : pieces) {
      int64_t remaining = out[piece];
      while (remaining > 1 && next < axes.size()) {
        int64_t size = axes[next].getSize(input.mesh);
        if (remaining % size != 0)
          return unsupported();
        remaining /= size;
        result.dims[piece].push_back(axes[next++]);
      }
    }
    if (next != axes.size())
      return unsupported();
    return success();
  };

  for (const Group &g : groups) {
    if (g.ins.size() == 1 && g.outs.size() == 1) {
      result.dims[g.outs[0]] = input.dims[g.ins[0]];
      continue;
    }
    if (g.ins.size() == 1) {
      // A split.
      if (failed(handOut(input.dims[g.ins[0]], g.outs)))
        return failure();
      continue;
    }
    // A merge: flatten the entries major to minor; an unsharded dimension
    // above a sharded one is an error.
    DimAxes flat;
    bool sawNoneAfterAxes = false, sawAxes = false;
    for (int64_t i : llvm::reverse(g.ins)) {
      if (input.dims[i].empty()) {
        if (sawAxes)
          sawNoneAfterAxes = true;
      } else {
        sawAxes = true;
      }
    }
    (void)sawNoneAfterAxes;
    bool stripping = true;
    SmallVector<DimAxes> entries;
    for (int64_t i : g.ins)
      entries.push_back(input.dims[i]);
    // Strip trailing Nones.
    while (!entries.empty() && entries.back().empty() && stripping)
      entries.pop_back();
    for (const DimAxes &e : entries) {
      if (e.empty())
        return unsupported();
      llvm::append_range(flat, e);
    }
    if (failed(handOut(flat, g.outs)))
      return failure();
  }
  fillOnes();
  return SmallVector<Spec>{result};
}

Specs ExplicitInference::inferSlicing(Operation *op, const Spec &input,
                                      ArrayRef<int64_t> inShape,
                                      ArrayRef<int64_t> outShape,
                                      const llvm::SmallBitVector &dropped) {
  Spec result = input;
  bool allOne = llvm::all_of(outShape, [](int64_t s) { return s == 1; });
  if (outShape.empty() || allOne) {
    result.dims.assign(
        outShape.size() - (outShape.empty() ? 0 : dropped.count()), DimAxes());
    if (outShape.empty())
      result.dims.clear();
    return SmallVector<Spec>{result};
  }
  for (auto [d, axes] : llvm::enumerate(input.dims)) {
    if (axes.empty() || d >= outShape.size() || outShape[d] == inShape[d] ||
        ShapedType::isDynamic(outShape[d]))
      continue;
    int64_t parts = getAxesSize(axes, input.mesh);
    if (outShape[d] % parts == 0)
      continue;
    std::string inType;
    {
      llvm::raw_string_ostream os(inType);
      os << typeString(op->getOperand(0).getType(), input);
    }
    std::string shape = "(";
    for (auto [i, s] : llvm::enumerate(outShape)) {
      if (i)
        shape += ", ";
      shape += std::to_string(s);
    }
    if (outShape.size() == 1)
      shape += ",";
    shape += ")";
    std::string raw = "(";
    if (axes.size() == 1) {
      raw += axes[0].getName().str();
    } else {
      raw += "(";
      for (auto [i, ref] : llvm::enumerate(axes)) {
        if (i)
          raw += ", ";
        raw += "'" + ref.getName().str() + "'";
      }
      raw += ")";
    }
    raw += ")";
    return op->emitOpError(op->getName().getStringRef())
           << " on sharded dims where out dim (" << outShape[d]
           << ") is not divisible by mesh axes (" << parts << ") with spec "
           << raw << " is not implemented. Got input type=" << inType
           << " and output shape=" << shape;
  }
  // A rank-reducing slice then squeezes the dropped dimensions.
  if (dropped.any()) {
    SmallVector<DimAxes> kept;
    for (auto [d, axes] : llvm::enumerate(result.dims))
      if (!dropped.test(d))
        kept.push_back(axes);
    result.dims = kept;
  }
  return SmallVector<Spec>{result};
}

Specs ExplicitInference::inferScatter(tensor::ScatterOp op,
                                      ArrayRef<Spec> inputs) {
  // JAX's scatter rule, read as a gather in reverse: the scattered dims of
  // the destination are replicated, the indices are replicated (their
  // leading dims are queries into one destination, the last holds the
  // coordinates), the updates' query dims are replicated, and each other
  // window dim of the updates agrees with the destination's dim (or one of
  // them is unsharded).
  const Spec &updates = inputs[0];
  const Spec &dest = inputs[1];
  const Spec &indices = inputs[2];
  ArrayRef<int64_t> scatterDims = op.getScatterDims();
  int64_t numQueries = op.getIndicesType().getRank() - 1;
  int64_t destRank = op.getDestType().getRank();
  bool keepsOnes = op.getSourceType().getRank() == numQueries + destRank;
  Spec result = dest;
  if (!result.mesh) {
    result.mesh = updates.mesh ? updates.mesh : indices.mesh;
    result.meshRef = updates.mesh ? updates.meshRef : indices.meshRef;
  }
  bool resolvable = llvm::all_of(
      indices.dims, [](const DimAxes &axes) { return axes.empty(); });
  for (int64_t q = 0; q < numQueries; ++q)
    resolvable &= updates.dims[q].empty();
  int64_t u = numQueries;
  for (int64_t d = 0; d < destRank && resolvable; ++d) {
    if (llvm::is_contained(scatterDims, d)) {
      resolvable &= dest.dims[d].empty();
      if (keepsOnes)
        resolvable &= updates.dims[u++].empty();
      continue;
    }
    const DimAxes &window = updates.dims[u++];
    if (!window.empty() && !dest.dims[d].empty() && window != dest.dims[d])
      resolvable = false;
    else if (!window.empty())
      result.dims[d] = window;
  }
  if (!resolvable)
    return op->emitOpError(
               "Use `.at[...].set/add/mul/...(out_sharding=)` to provide "
               "output PartitionSpec for the scatter update as out sharding "
               "could not be resolved unambiguously (or would require "
               "collectives on inputs). Got operand=")
           << typeString(op.getDestType(), dest)
           << ", indices=" << typeString(op.getIndicesType(), indices)
           << ", updates=" << typeString(op.getSourceType(), updates);
  return SmallVector<Spec>{result};
}

Specs ExplicitInference::inferGather(tensor::GatherOp op,
                                     ArrayRef<Spec> inputs) {
  const Spec &source = inputs[0];
  const Spec &indices = inputs[1];
  ArrayRef<int64_t> gatherDims = op.getGatherDims();
  bool resolvable = true;
  for (int64_t d : gatherDims)
    resolvable &= source.dims[d].empty();
  // Every indices dimension must be replicated here (the leading batch
  // dimensions have no operand counterpart to merge with).
  for (const DimAxes &axes : indices.dims)
    resolvable &= axes.empty();
  if (!resolvable)
    return op->emitOpError(
               "Use `.at[...].get(out_sharding=)` to provide output "
               "PartitionSpec for the gather indexing as out sharding could "
               "not be resolved unambiguously (or would require collectives "
               "on inputs). Got operand=")
           << typeString(op.getSourceType(), source)
           << ", indices=" << typeString(op.getIndicesType(), indices);
  int64_t rank = op.getResultType().getRank();
  Spec result = replicatedSpec(rank);
  result.mesh = source.mesh ? source.mesh : indices.mesh;
  result.meshRef = source.mesh ? source.meshRef : indices.meshRef;
  int64_t numBatch = op.getIndicesType().getRank() - 1;
  bool keepsOnes = rank == numBatch + op.getSourceType().getRank();
  int64_t d = numBatch;
  for (int64_t s = 0, e = op.getSourceType().getRank(); s < e; ++s) {
    if (llvm::is_contained(gatherDims, s)) {
      if (keepsOnes)
        ++d;
      continue;
    }
    result.dims[d++] = source.dims[s];
  }
  return SmallVector<Spec>{result};
}

//===----------------------------------------------------------------------===//
// Control flow and returns
//===----------------------------------------------------------------------===//

LogicalResult ExplicitInference::processControlFlow(Operation *op) {
  auto describe = [&](Value v, Operation *user) {
    return typeString(v.getType(), getSpec(v, user));
  };
  auto mismatch = [&](ValueRange ins, ValueRange outs,
                      Operation *user) -> std::optional<unsigned> {
    for (auto [i, pair] : llvm::enumerate(llvm::zip_equal(ins, outs))) {
      auto [in, out] = pair;
      if (!isa<RankedTensorType>(in.getType()))
        continue;
      if (!(getSpec(in, user) == getSpec(out, user)))
        return i;
    }
    return std::nullopt;
  };
  // JAX's error for a loop whose carried value changes type.
  auto checkCarry = [&](StringRef loop, ValueRange ins, ValueRange outs,
                        Operation *user) -> LogicalResult {
    std::optional<unsigned> i = mismatch(ins, outs, user);
    if (!i)
      return success();
    return op->emitOpError()
           << loop
           << " body function carry input and carry output must have equal "
              "types, but they differ:\n\nThe input carry component "
           << *i << " has type " << describe(ins[*i], user)
           << " but the corresponding output carry component has type "
           << describe(outs[*i], user)
           << ".\n\nRevise the function so that all output types match the "
              "corresponding input types.";
  };
  // The carried values start with the init values' types.
  auto seed = [&](ValueRange inits, ValueRange carried) {
    for (auto [init, value] : llvm::zip_equal(inits, carried))
      specs[value] = getSpec(init, op);
  };

  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    seed(forOp.getInitArgs(), forOp.getRegionIterArgs());
    if (failed(processBlock(*forOp.getBody())))
      return failure();
    auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
    if (failed(checkCarry("scf.for", forOp.getRegionIterArgs(),
                          yield.getOperands(), yield)))
      return failure();
    seed(forOp.getInitArgs(), forOp.getResults());
  } else if (auto whileOp = dyn_cast<scf::WhileOp>(op)) {
    seed(whileOp.getInits(), whileOp.getBeforeArguments());
    if (failed(processBlock(whileOp.getBefore().front())))
      return failure();
    scf::ConditionOp condition = whileOp.getConditionOp();
    if (whileOp.getInits().getTypes() == condition.getArgs().getTypes() &&
        failed(checkCarry("scf.while", whileOp.getBeforeArguments(),
                          condition.getArgs(), condition)))
      return failure();
    for (auto [arg, value] :
         llvm::zip_equal(condition.getArgs(), whileOp.getAfterArguments()))
      specs[value] = getSpec(arg, condition);
    if (failed(processBlock(whileOp.getAfter().front())))
      return failure();
    scf::YieldOp yield = whileOp.getYieldOp();
    if (failed(checkCarry("scf.while", whileOp.getBeforeArguments(),
                          yield.getOperands(), yield)))
      return failure();
    for (auto [arg, value] :
         llvm::zip_equal(condition.getArgs(), whileOp.getResults()))
      specs[value] = getSpec(arg, condition);
  } else if (auto switchOp = dyn_cast<scf::IndexSwitchOp>(op)) {
    // Every case must yield the default region's types.
    for (Region &region : switchOp->getRegions())
      if (failed(processBlock(region.front())))
        return failure();
    auto yieldOf = [](Region &region) {
      return cast<scf::YieldOp>(region.front().getTerminator());
    };
    scf::YieldOp defaultYield = yieldOf(switchOp.getDefaultRegion());
    for (auto [c, caseRegion] : llvm::enumerate(switchOp.getCaseRegions())) {
      scf::YieldOp caseYield = yieldOf(caseRegion);
      for (unsigned i = 0; i < switchOp.getNumResults(); ++i) {
        Value d = defaultYield.getOperand(i), v = caseYield.getOperand(i);
        if (!isa<RankedTensorType>(d.getType()))
          continue;
        if (!(getSpec(d, defaultYield) == getSpec(v, caseYield)))
          return op->emitOpError("scf.index_switch branches must have equal "
                                 "output types but they differ.\n\nThe "
                                 "output of the default region at index ")
                 << i << " has type " << describe(d, defaultYield)
                 << " but the corresponding output of case region " << c
                 << " has type " << describe(v, caseYield)
                 << ".\n\nRevise the regions so that all output types "
                    "match.";
      }
    }
    for (auto [result, value] :
         llvm::zip_equal(switchOp.getResults(), defaultYield.getOperands()))
      specs[result] = getSpec(value, defaultYield);
  } else {
    auto ifOp = cast<scf::IfOp>(op);
    if (failed(processBlock(ifOp.getThenRegion().front())))
      return failure();
    if (!ifOp.getElseRegion().empty() &&
        failed(processBlock(ifOp.getElseRegion().front())))
      return failure();
    if (ifOp.getNumResults() == 0)
      return success();
    scf::YieldOp thenYield = ifOp.thenYield();
    scf::YieldOp elseYield = ifOp.elseYield();
    for (unsigned i = 0; i < ifOp.getNumResults(); ++i) {
      Value t = thenYield.getOperand(i), e = elseYield.getOperand(i);
      if (!isa<RankedTensorType>(t.getType()))
        continue;
      if (!(getSpec(t, thenYield) == getSpec(e, elseYield)))
        return op->emitOpError("scf.if branches must have equal output types "
                               "but they differ.\n\nThe output of the then "
                               "region at index ")
               << i << " has type " << describe(t, thenYield)
               << " but the corresponding output of the else region has type "
               << describe(e, elseYield)
               << ".\n\nRevise the then and/or else regions so that all "
                  "output types match.";
    }
    for (auto [result, value] :
         llvm::zip_equal(ifOp.getResults(), thenYield.getOperands()))
      specs[result] = getSpec(value, thenYield);
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
      spec = replicatedSpec(rankOf(result.getType()));
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

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct SpmdInferExplicitPass
    : public impl::SpmdInferExplicitPassBase<SpmdInferExplicitPass> {
  using Base::Base;

  void runOnOperation() override {
    ExplicitInference inference(&getContext());
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
