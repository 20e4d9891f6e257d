//===- InferExplicitRules.cpp - JAX's sharding rules ------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The rules of spmd-infer-explicit: the MLIR ops read as the JAX primitives
// they implement (elementwise ops as the n-ary rule, linalg contractions as
// dot_general, one-input reductions as reduce, tensor reshapes as reshape,
// slices and pads, concatenation, gather and scatter, calls), each giving
// the result's type from the operands' types, or JAX's error.
//
//===----------------------------------------------------------------------===//

#include "ExplicitInference.h"

#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::tessera::spmd::detail {

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
    std::string sizes = shapeString(out);
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
    std::string shape = shapeString(outShape);
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

} // namespace mlir::tessera::spmd::detail
