//===- ExplicitShardingExtensions.cpp - JAX's rules for upstream ops ------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// ExplicitShardingOpInterface models: JAX's sharding-in-types rules for the
// upstream ops whose JAX primitive has a rule that their factor-based
// sharding rule cannot express, with JAX's messages:
//
// - `arith.select` is `select_n`: the cases must agree exactly;
// - tensor reshapes are `reshape` (splits and merges hand axes out
//   greedily, anything else asks for out_sharding);
// - `tensor.extract_slice` and `tensor.pad` are `slice` / `pad`: a sharded
//   dimension whose new size the axes do not divide is not implemented;
// - `tensor.concat` is `concatenate`: all operands sharded alike;
// - `tensor.insert_slice` is `dynamic_update_slice`: the update sharded as
//   the operand;
// - `tensor.gather` / `tensor.scatter` are JAX's gather / scatter;
// - linalg convolutions are `conv_general_dilated` and linalg poolings
//   `reduce_window`: the output keeps the input's batch and spatial
//   sharding (a convolution's filter and input features unsharded);
// - a `linalg.generic` scan (a reduction masked by comparing its loop's
//   index with an output loop's) is `cumsum`/`cumprod`/`cummax`/`cummin`:
//   the scanned dimension must be unsharded;
//
// and the unreduced rules of the ops that have one (`add`, `mul`, the ops
// that only move data). Every other op's explicit rule comes from its
// sharding rule (ExplicitSharding.h).
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/Extensions/ShardingRuleExternalModels.h"

#include "tessera/Dialect/Spmd/IR/ExplicitSharding.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

using Ctx = ExplicitRuleContext;

//===----------------------------------------------------------------------===//
// select_n
//===----------------------------------------------------------------------===//

static ExplicitSpecs inferSelect(const Ctx &ctx) {
  Operation *op = ctx.getOp();
  const ExplicitSpec &which = ctx.getInputSpec(0);
  const ExplicitSpec &onTrue = ctx.getInputSpec(1);
  const ExplicitSpec &onFalse = ctx.getInputSpec(2);
  if (!(onTrue == onFalse))
    return op->emitOpError("select cases must have the same shardings, got [")
           << Ctx::partitionSpecString(onTrue) << ", "
           << Ctx::partitionSpecString(onFalse) << "].";
  if (!which.dims.empty() && !(which == onTrue))
    return op->emitOpError("select `which` must be scalar or have the same "
                           "sharding as cases, got `which` sharding ")
           << Ctx::partitionSpecString(which) << " but case sharding "
           << Ctx::partitionSpecString(onTrue) << ".";
  ExplicitSpec out = onTrue;
  if (!out.mesh) {
    out.mesh = onFalse.mesh ? onFalse.mesh : which.mesh;
    out.meshRef = onFalse.mesh ? onFalse.meshRef : which.meshRef;
  }
  return SmallVector<ExplicitSpec>{out};
}

//===----------------------------------------------------------------------===//
// reshape
//===----------------------------------------------------------------------===//

static ExplicitSpecs inferReshape(const Ctx &ctx) {
  Operation *op = ctx.getOp();
  auto inType = cast<RankedTensorType>(op->getOperand(0).getType());
  auto outType = cast<RankedTensorType>(op->getResult(0).getType());
  if (!inType.hasStaticShape() || !outType.hasStaticShape())
    return ctx.emitNotImplemented();
  ArrayRef<int64_t> in = inType.getShape(), out = outType.getShape();
  const ExplicitSpec &input = ctx.getInputSpec(0);
  ExplicitSpec result = ExplicitSpec::replicated(out.size());
  result.mesh = input.mesh;
  result.meshRef = input.meshRef;
  if (input.isReplicated())
    return SmallVector<ExplicitSpec>{result};

  auto unsupported = [&]() -> LogicalResult {
    return op->emitOpError(
               "This reshape is not supported. Please specify the sharding "
               "of the output via the `out_sharding` argument of "
               "jax.lax.reshape. Got operand type: ")
           << Ctx::typeString(inType, input, /*shortDtypes=*/false)
           << ", new sizes: " << Ctx::shapeString(out);
  };

  // The non-1 dimensions of both sides.
  SmallVector<int64_t> inIdx, outIdx;
  for (auto [i, s] : llvm::enumerate(in))
    if (s != 1)
      inIdx.push_back(i);
  for (auto [i, s] : llvm::enumerate(out))
    if (s != 1)
      outIdx.push_back(i);

  // 1. Only size-1 dimensions change.
  if (inIdx.size() == outIdx.size() &&
      llvm::all_of(llvm::zip_equal(inIdx, outIdx), [&](auto p) {
        return in[std::get<0>(p)] == out[std::get<1>(p)];
      })) {
    for (auto [i, o] : llvm::zip_equal(inIdx, outIdx))
      result.dims[o] = input.dims[i];
    return SmallVector<ExplicitSpec>{result};
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
  auto handOut = [&](ExplicitDimAxes axes,
                     ArrayRef<int64_t> pieces) -> LogicalResult {
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
    // A merge: flatten the entries major to minor after stripping trailing
    // unsharded ones; an unsharded dimension above a sharded one is an
    // error.
    SmallVector<ExplicitDimAxes> entries;
    for (int64_t i : g.ins)
      entries.push_back(input.dims[i]);
    while (!entries.empty() && entries.back().empty())
      entries.pop_back();
    ExplicitDimAxes flat;
    for (const ExplicitDimAxes &e : entries) {
      if (e.empty())
        return unsupported();
      llvm::append_range(flat, e);
    }
    if (failed(handOut(flat, g.outs)))
      return failure();
  }
  // Size-1 output dims keep the entry of a size-1 operand dim at the same
  // index.
  for (auto [i, s] : llvm::enumerate(out))
    if (s == 1 && i < in.size() && in[i] == 1)
      result.dims[i] = input.dims[i];
  return SmallVector<ExplicitSpec>{result};
}

//===----------------------------------------------------------------------===//
// slice and pad
//===----------------------------------------------------------------------===//

/// JAX's error of the ops whose output shape differs from their operand's
/// (`_get_sharding_for_varying_out_shape`: slicing, padding, convolutions,
/// reduce_window) for a sharded dimension whose new size `outSize` its
/// `parts` axes do not divide; the spec prints raw, `(y)` or `(('x', 'y'))`.
static LogicalResult emitVaryingShapeError(Operation *op, StringRef name,
                                           int64_t outSize, int64_t parts,
                                           ArrayRef<AxisRefAttr> axes,
                                           const ExplicitSpec &input,
                                           ArrayRef<int64_t> outShape) {
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
  return op->emitOpError(name)
         << " on sharded dims where out dim (" << outSize
         << ") is not divisible by mesh axes (" << parts << ") with spec "
         << raw << " is not implemented. Got input type="
         << Ctx::typeString(op->getOperand(0).getType(), input)
         << " and output shape=" << Ctx::shapeString(outShape);
}

/// JAX's slicing rule (slice, pad): the operand's sharding, except that a
/// sharded dimension whose new size its axes do not divide is not
/// implemented; dropped dimensions (a rank-reducing slice) are squeezed.
static ExplicitSpecs inferSlicing(const Ctx &ctx, ArrayRef<int64_t> inShape,
                                  ArrayRef<int64_t> outShape,
                                  const llvm::SmallBitVector &dropped) {
  Operation *op = ctx.getOp();
  const ExplicitSpec &input = ctx.getInputSpec(0);
  ExplicitSpec result = input;
  bool allOne = llvm::all_of(outShape, [](int64_t s) { return s == 1; });
  if (outShape.empty() || allOne) {
    result.dims.assign(outShape.size() -
                           (outShape.empty() ? 0 : dropped.count()),
                       ExplicitDimAxes());
    if (outShape.empty())
      result.dims.clear();
    return SmallVector<ExplicitSpec>{result};
  }
  for (auto [d, axes] : llvm::enumerate(input.dims)) {
    if (axes.empty() || d >= outShape.size() || outShape[d] == inShape[d] ||
        ShapedType::isDynamic(outShape[d]))
      continue;
    int64_t parts = getAxesSize(axes, input.mesh);
    if (outShape[d] % parts == 0)
      continue;
    return emitVaryingShapeError(op, op->getName().getStringRef(), outShape[d],
                                 parts, axes, input, outShape);
  }
  if (dropped.any()) {
    SmallVector<ExplicitDimAxes> kept;
    for (auto [d, axes] : llvm::enumerate(result.dims))
      if (!dropped.test(d))
        kept.push_back(axes);
    result.dims = kept;
  }
  return SmallVector<ExplicitSpec>{result};
}

static ExplicitSpecs inferExtractSlice(const Ctx &ctx) {
  auto slice = cast<tensor::ExtractSliceOp>(ctx.getOp());
  SmallVector<int64_t> sizes(slice.getStaticSizes());
  return inferSlicing(ctx, slice.getSourceType().getShape(), sizes,
                      slice.getDroppedDims());
}

static ExplicitSpecs inferPad(const Ctx &ctx) {
  auto pad = cast<tensor::PadOp>(ctx.getOp());
  return inferSlicing(ctx, pad.getSourceType().getShape(),
                      pad.getResultType().getShape(),
                      llvm::SmallBitVector(pad.getResultType().getRank()));
}

//===----------------------------------------------------------------------===//
// concatenate and dynamic_update_slice
//===----------------------------------------------------------------------===//

static ExplicitSpecs inferConcat(const Ctx &ctx) {
  Operation *op = ctx.getOp();
  ArrayRef<ExplicitSpec> inputs = ctx.getInputSpecs();
  const ExplicitSpec *first = nullptr;
  for (const ExplicitSpec &spec : inputs) {
    if (!spec.mesh)
      continue;
    if (first && !(*first == spec)) {
      InFlightDiagnostic diag = op->emitOpError(
          "All operands should have the same sharding. Got shardings ");
      bool sep = false;
      for (const ExplicitSpec &s : inputs) {
        if (sep)
          diag << ", ";
        sep = true;
        diag << "NamedSharding(mesh=" << s.mesh
             << ", spec=" << Ctx::partitionSpecString(s) << ")";
      }
      return diag;
    }
    first = &spec;
  }
  auto rank = cast<RankedTensorType>(op->getResult(0).getType()).getRank();
  return SmallVector<ExplicitSpec>{first ? *first
                                         : ExplicitSpec::replicated(rank)};
}

static ExplicitSpecs inferInsertSlice(const Ctx &ctx) {
  // The update must have the destination's sharding (on the kept dims for
  // a rank-reducing insert).
  auto insert = cast<tensor::InsertSliceOp>(ctx.getOp());
  const ExplicitSpec &update = ctx.getInputSpec(0);
  const ExplicitSpec &dest = ctx.getInputSpec(1);
  llvm::SmallBitVector dropped = insert.getDroppedDims();
  ExplicitSpec kept;
  kept.mesh = dest.mesh;
  kept.meshRef = dest.meshRef;
  for (auto [d, axes] : llvm::enumerate(dest.dims))
    if (!dropped.test(d))
      kept.dims.push_back(axes);
  if (!(kept == update))
    return insert->emitOpError(insert->getName().getStringRef())
           << " operand sharding must be equal to update sharding, got "
              "operand sharding "
           << Ctx::typeString(insert.getDestType(), dest)
           << " and update sharding "
           << Ctx::typeString(insert.getSourceType(), update) << ".";
  return SmallVector<ExplicitSpec>{dest};
}

//===----------------------------------------------------------------------===//
// gather and scatter
//===----------------------------------------------------------------------===//

static ExplicitSpecs inferGather(const Ctx &ctx) {
  auto op = cast<tensor::GatherOp>(ctx.getOp());
  const ExplicitSpec &source = ctx.getInputSpec(0);
  const ExplicitSpec &indices = ctx.getInputSpec(1);
  ArrayRef<int64_t> gatherDims = op.getGatherDims();
  bool resolvable = true;
  for (int64_t d : gatherDims)
    resolvable &= source.dims[d].empty();
  // Every indices dimension must be replicated here (the leading batch
  // dimensions have no operand counterpart to merge with).
  for (const ExplicitDimAxes &axes : indices.dims)
    resolvable &= axes.empty();
  if (!resolvable)
    return op->emitOpError(
               "Use `.at[...].get(out_sharding=)` to provide output "
               "PartitionSpec for the gather indexing as out sharding could "
               "not be resolved unambiguously (or would require collectives "
               "on inputs). Got operand=")
           << Ctx::typeString(op.getSourceType(), source)
           << ", indices=" << Ctx::typeString(op.getIndicesType(), indices);
  int64_t rank = op.getResultType().getRank();
  ExplicitSpec result = ExplicitSpec::replicated(rank);
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
  return SmallVector<ExplicitSpec>{result};
}

static ExplicitSpecs inferScatter(const Ctx &ctx) {
  // JAX's scatter rule, read as a gather in reverse: the scattered dims of
  // the destination are replicated, the indices are replicated (their
  // leading dims are queries into one destination, the last holds the
  // coordinates), the updates' query dims are replicated, and each other
  // window dim of the updates agrees with the destination's dim (or one of
  // them is unsharded).
  auto op = cast<tensor::ScatterOp>(ctx.getOp());
  const ExplicitSpec &updates = ctx.getInputSpec(0);
  const ExplicitSpec &dest = ctx.getInputSpec(1);
  const ExplicitSpec &indices = ctx.getInputSpec(2);
  ArrayRef<int64_t> scatterDims = op.getScatterDims();
  int64_t numQueries = op.getIndicesType().getRank() - 1;
  int64_t destRank = op.getDestType().getRank();
  bool keepsOnes = op.getSourceType().getRank() == numQueries + destRank;
  ExplicitSpec result = dest;
  if (!result.mesh) {
    result.mesh = updates.mesh ? updates.mesh : indices.mesh;
    result.meshRef = updates.mesh ? updates.meshRef : indices.meshRef;
  }
  bool resolvable = llvm::all_of(
      indices.dims, [](const ExplicitDimAxes &axes) { return axes.empty(); });
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
    const ExplicitDimAxes &window = updates.dims[u++];
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
           << Ctx::typeString(op.getDestType(), dest)
           << ", indices=" << Ctx::typeString(op.getIndicesType(), indices)
           << ", updates=" << Ctx::typeString(op.getSourceType(), updates);
  return SmallVector<ExplicitSpec>{result};
}

//===----------------------------------------------------------------------===//
// conv_general_dilated and reduce_window
//===----------------------------------------------------------------------===//

/// Whether a structured op is a windowed op (a convolution or a pooling:
/// an input dimension indexed by an output loop plus a window loop).
static bool isWindowed(linalg::LinalgOp op) {
  return op.getNumDpsInputs() == 2 && op->getNumResults() == 1 &&
         linalg::isaConvolutionOpInterface(op);
}

/// A pooling (JAX's reduce_window): a windowed op whose body never reads
/// its second input, which only gives the window's shape.
static bool isPooling(linalg::LinalgOp op) {
  return op.getBlock()->getArgument(1).use_empty();
}

/// The dimension of `map`'s results that reads loop `loop` (alone or with
/// a window loop), if any.
static std::optional<unsigned> getDimReading(AffineMap map, unsigned loop) {
  for (auto [d, expr] : llvm::enumerate(map.getResults()))
    if (expr.isFunctionOfDim(loop))
      return d;
  return std::nullopt;
}

/// JAX's rules of the windowed ops. `conv_general_dilated`: with the filter
/// replicated and the input's feature dimensions unsharded, the output
/// keeps the input's sharding (batch and spatial dimensions; the output
/// features are unsharded), else out_sharding is needed.
/// `reduce_window`: the output keeps the input's sharding. A sharded
/// dimension whose size changes must stay divisible by its axes.
static ExplicitSpecs inferWindowed(const Ctx &ctx) {
  auto op = cast<linalg::LinalgOp>(ctx.getOp());
  const ExplicitSpec &input = ctx.getInputSpec(0);
  AffineMap inMap = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  bool pooling = isPooling(op);
  StringRef name = pooling ? "reduce_window" : "conv_general_dilated";
  if (!pooling) {
    FailureOr<linalg::ConvolutionDimensions> dims =
        linalg::inferConvolutionDims(op);
    const ExplicitSpec &filter = ctx.getInputSpec(1);
    bool resolvable =
        succeeded(dims) && filter.isReplicated() && filter.unreduced.empty();
    if (resolvable)
      for (unsigned loop :
           llvm::concat<const unsigned>(dims->inputChannel, dims->depth))
        if (std::optional<unsigned> d = getDimReading(inMap, loop))
          resolvable &= input.dims[*d].empty();
    if (!resolvable)
      return op->emitOpError("Please specify the output sharding via "
                             "`out_sharding` parameter of "
                             "`conv_general_dilated`");
  }
  auto inType =
      cast<RankedTensorType>(op.getDpsInputOperand(0)->get().getType());
  auto outType = cast<RankedTensorType>(op->getResult(0).getType());
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  ExplicitSpec result = ctx.replicatedOnInputMesh(outType.getRank());
  ArrayRef<int64_t> outShape = outType.getShape();
  for (auto [o, expr] : llvm::enumerate(outMap.getResults())) {
    auto loop = dyn_cast<AffineDimExpr>(expr);
    if (!loop)
      continue;
    std::optional<unsigned> d = getDimReading(inMap, loop.getPosition());
    if (!d || input.dims[*d].empty())
      continue;
    const ExplicitDimAxes &axes = input.dims[*d];
    int64_t parts = getAxesSize(axes, input.mesh);
    if (outShape[o] != inType.getDimSize(*d) &&
        !ShapedType::isDynamic(outShape[o]) && outShape[o] % parts != 0)
      return emitVaryingShapeError(op, name, outShape[o], parts, axes, input,
                                   outShape);
    result.dims[o] = axes;
  }
  return SmallVector<ExplicitSpec>{result};
}

//===----------------------------------------------------------------------===//
// cumsum, cumprod, cummax, cummin
//===----------------------------------------------------------------------===//

/// The loop a `linalg.index` in `body` reads, for each index op feeding an
/// `arith.cmpi` (the mask of a scan: `j <= i`).
static SmallVector<int64_t> getComparedLoops(Block *body) {
  SmallVector<int64_t> loops;
  body->walk([&](arith::CmpIOp cmp) {
    for (Value operand : cmp->getOperands()) {
      // (Index casts between the index and the comparison are looked
      // through.)
      while (Operation *def = operand.getDefiningOp()) {
        if (auto index = dyn_cast<linalg::IndexOp>(def)) {
          loops.push_back(index.getDim());
          break;
        }
        if (!isa<arith::IndexCastOp, arith::IndexCastUIOp>(def))
          break;
        operand = def->getOperand(0);
      }
    }
  });
  return loops;
}

/// A scan written as a `linalg.generic` (JAX's cumsum, cumprod, cummax,
/// cummin): one input and one result, one reduction loop `r` that reads an
/// input dimension, and a body that compares `r`'s index with the index of
/// a parallel loop `p` that only the result reads (`out[.., p, ..] =
/// combine over r of (r <= p ? in[.., r, ..] : identity)`). Returns the
/// input dimension `r` reads.
static std::optional<unsigned> getScanDim(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 1 || op->getNumResults() != 1 ||
      op.getNumReductionLoops() != 1 || op->getNumRegions() != 1)
    return std::nullopt;
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  unsigned r = reductions.front();
  AffineMap inMap = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  std::optional<unsigned> inDim;
  for (auto [d, expr] : llvm::enumerate(inMap.getResults()))
    if (auto dim = dyn_cast<AffineDimExpr>(expr); dim && dim.getPosition() == r)
      inDim = d;
  if (!inDim)
    return std::nullopt;
  SmallVector<int64_t> compared = getComparedLoops(op.getBlock());
  if (!llvm::is_contained(compared, static_cast<int64_t>(r)))
    return std::nullopt;
  for (int64_t p : compared)
    if (p != static_cast<int64_t>(r) &&
        !inMap.isFunctionOfDim(static_cast<unsigned>(p)) &&
        outMap.isFunctionOfDim(static_cast<unsigned>(p)))
      return inDim;
  return std::nullopt;
}

/// JAX's rule of the cumulative reductions: the input must be unsharded
/// over the scanned axis, and the output keeps its sharding.
static ExplicitSpecs inferScan(const Ctx &ctx, unsigned axis) {
  Operation *op = ctx.getOp();
  const ExplicitSpec &input = ctx.getInputSpec(0);
  if (!input.dims[axis].empty())
    return op->emitOpError("Input should be unsharded over the axis being "
                           "reduced. Got input type=")
           << Ctx::typeString(ctx.getInputs()[0].getType(), input,
                              /*shortDtypes=*/false)
           << " and axis=" << axis;
  return inferExplicitFromShardingRule(ctx, ctx.getShardingRule());
}

//===----------------------------------------------------------------------===//
// Models
//===----------------------------------------------------------------------===//

namespace {

/// A function computing an op's result types.
using InferFn = ExplicitSpecs (*)(const Ctx &);

/// The model of an op with its own JAX rule `Infer` and unreduced rule
/// `Unreduced`.
template <typename OpTy, InferFn Infer, UnreducedRule Unreduced>
struct RuleOfPrimitive : public ExplicitShardingOpInterface::ExternalModel<
                             RuleOfPrimitive<OpTy, Infer, Unreduced>, OpTy> {
  ExplicitSpecs inferExplicitShardings(Operation *op,
                                       const Ctx &context) const {
    return Infer(context);
  }
  UnreducedRule getUnreducedRule(Operation *op) const { return Unreduced; }
};

/// The model of an op whose explicit rule comes from its sharding rule and
/// whose unreduced rule is `Unreduced`.
template <typename OpTy, UnreducedRule Unreduced>
struct UnreducedRuleOnly : public ExplicitShardingOpInterface::ExternalModel<
                               UnreducedRuleOnly<OpTy, Unreduced>, OpTy> {
  UnreducedRule getUnreducedRule(Operation *op) const { return Unreduced; }
};

/// The model of linalg's structured ops: convolutions and poolings are
/// JAX's conv_general_dilated and reduce_window, every other op's rule
/// comes from its sharding rule; an op whose body only yields one of its
/// input's elements (a transpose, a broadcast, a copy) passes partial sums
/// through.
template <typename OpTy>
struct StructuredOpModel
    : public ExplicitShardingOpInterface::ExternalModel<StructuredOpModel<OpTy>,
                                                        OpTy> {
  ExplicitSpecs inferExplicitShardings(Operation *op,
                                       const Ctx &context) const {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    if (linalgOp.hasPureTensorSemantics() && isWindowed(linalgOp))
      return inferWindowed(context);
    if (linalgOp.hasPureTensorSemantics())
      if (std::optional<unsigned> axis = getScanDim(linalgOp))
        return inferScan(context, *axis);
    return inferExplicitFromShardingRule(context, context.getShardingRule());
  }
  UnreducedRule getUnreducedRule(Operation *op) const {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    // conv_general_dilated and reduce_window have no unreduced rule.
    if (isWindowed(linalgOp))
      return UnreducedRule::NotImplemented;
    if (linalgOp.getNumDpsInputs() == 1 && op->getNumRegions() == 1 &&
        !op->getRegion(0).empty()) {
      Block *body = linalgOp.getBlock();
      Operation *yield = body->getTerminator();
      if (yield->getNumOperands() == 1 &&
          yield->getOperand(0) == body->getArgument(0))
        return UnreducedRule::PassThrough;
    }
    return getUnreducedRuleFromShardingRule(getShardingRule(op),
                                            getExplicitInputs(op).size());
  }
};

} // namespace

template <typename... OpTys>
static void attachStructuredOpModels(MLIRContext *context) {
  (OpTys::template attachInterface<StructuredOpModel<OpTys>>(*context), ...);
}

void mlir::tessera::spmd::registerExplicitShardingExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, arith::ArithDialect *) {
    arith::SelectOp::attachInterface<RuleOfPrimitive<
        arith::SelectOp, inferSelect, UnreducedRule::NotImplemented>>(*context);
    arith::AddFOp::attachInterface<
        UnreducedRuleOnly<arith::AddFOp, UnreducedRule::Add>>(*context);
    arith::AddIOp::attachInterface<
        UnreducedRuleOnly<arith::AddIOp, UnreducedRule::Add>>(*context);
    arith::MulFOp::attachInterface<
        UnreducedRuleOnly<arith::MulFOp, UnreducedRule::Mul>>(*context);
    arith::MulIOp::attachInterface<
        UnreducedRuleOnly<arith::MulIOp, UnreducedRule::Mul>>(*context);
  });
  registry.addExtension(+[](MLIRContext *context, tensor::TensorDialect *) {
    using tensor::CollapseShapeOp, tensor::ExpandShapeOp, tensor::ReshapeOp;
    constexpr UnreducedRule kPass = UnreducedRule::PassThrough;
    constexpr UnreducedRule kNone = UnreducedRule::NotImplemented;
    CollapseShapeOp::attachInterface<
        RuleOfPrimitive<CollapseShapeOp, inferReshape, kPass>>(*context);
    ExpandShapeOp::attachInterface<
        RuleOfPrimitive<ExpandShapeOp, inferReshape, kPass>>(*context);
    ReshapeOp::attachInterface<RuleOfPrimitive<ReshapeOp, inferReshape, kPass>>(
        *context);
    tensor::CastOp::attachInterface<UnreducedRuleOnly<tensor::CastOp, kPass>>(
        *context);
    tensor::ExtractSliceOp::attachInterface<
        RuleOfPrimitive<tensor::ExtractSliceOp, inferExtractSlice, kNone>>(
        *context);
    tensor::PadOp::attachInterface<
        RuleOfPrimitive<tensor::PadOp, inferPad, kNone>>(*context);
    tensor::ConcatOp::attachInterface<
        RuleOfPrimitive<tensor::ConcatOp, inferConcat, kNone>>(*context);
    tensor::InsertSliceOp::attachInterface<
        RuleOfPrimitive<tensor::InsertSliceOp, inferInsertSlice, kNone>>(
        *context);
    tensor::GatherOp::attachInterface<
        RuleOfPrimitive<tensor::GatherOp, inferGather, kNone>>(*context);
    tensor::ScatterOp::attachInterface<
        RuleOfPrimitive<tensor::ScatterOp, inferScatter, kNone>>(*context);
  });
  registry.addExtension(+[](MLIRContext *context, linalg::LinalgDialect *) {
    attachStructuredOpModels<
#define GET_OP_LIST
#include "mlir/Dialect/Linalg/IR/LinalgStructuredOps.cpp.inc"
        >(context);
  });
}
