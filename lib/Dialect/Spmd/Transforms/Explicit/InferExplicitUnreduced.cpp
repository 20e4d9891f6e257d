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

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/STLExtras.h"

namespace mlir::tessera::spmd::detail {

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

} // namespace mlir::tessera::spmd::detail
