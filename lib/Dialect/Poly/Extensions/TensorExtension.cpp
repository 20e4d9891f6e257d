//===- TensorExtension.cpp - symbolic shape rules of tensor ops -----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The tensor ops with JAX's rules: extract_slice is `lax.slice` (bounds
// proved symbolically), insert_slice is `dynamic_update_slice` with static
// bounds, pad is `lax.pad`, concat is `lax.concatenate`, reshape,
// expand_shape and collapse_shape are `reshape` (a `-1` in tensor.reshape's
// shape is inferred as `jnp.reshape` does and replaced in the IR). Sizes given
// by index operands take their symbolic values; a size that is not a function
// of the dimension variables is a data-dependent shape and is rejected.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Poly/Extensions/SymbolicShapeExternalModels.h"

#include "ModelUtils.h"

#include "tessera/SymbolicShape/Decision.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::poly;
using namespace mlir::tessera::poly::models;
using symbolic::DimResult;

/// Elements of rank-1 tensors tracked by value at most.
static constexpr int64_t kMaxTrackedElements = 64;

/// The constant value of the scalar `value`, an operand of `op`.
static std::optional<int64_t>
getConstantOperand(Operation *op, ArrayRef<SymbolicValue> operands, Value value,
                   SymbolicShapeContext &context) {
  return getOperandValue(op, operands, value, context).getConstantScalar();
}

//===----------------------------------------------------------------------===//
// Rules
//===----------------------------------------------------------------------===//

static LogicalResult infer(tensor::DimOp op, ArrayRef<SymbolicValue> operands,
                           SmallVectorImpl<SymbolicValue> &results,
                           SymbolicShapeContext &context) {
  std::optional<int64_t> index =
      getConstantOperand(op, operands, op.getIndex(), context);
  const SymbolicValue &source = operands[0];
  if (index && source.hasShape() && *index >= 0 &&
      *index < static_cast<int64_t>(source.getRank()))
    results.push_back(SymbolicValue::getScalar(source.getShape()[*index]));
  else
    results.push_back(SymbolicValue());
  return success();
}

static LogicalResult infer(tensor::EmptyOp op, ArrayRef<SymbolicValue> operands,
                           SmallVectorImpl<SymbolicValue> &results,
                           SymbolicShapeContext &context) {
  FailureOr<Shape> shape = getShapeWithDynamicSizes(
      op, operands, op.getType(), op.getDynamicSizes(), context);
  if (failed(shape))
    return failure();
  results.push_back(SymbolicValue::getShaped(*shape));
  return success();
}

/// Ops whose result has the operand's shape (casts of element or encoding).
static LogicalResult inferSameShape(Operation *op,
                                    ArrayRef<SymbolicValue> operands,
                                    SmallVectorImpl<SymbolicValue> &results,
                                    SymbolicShapeContext &context) {
  const SymbolicValue &source = operands[0];
  auto resultType = cast<ShapedType>(op->getResult(0).getType());
  if (!source.hasShape() || !resultType.hasRank() ||
      source.getRank() != resultType.getRank())
    return op->emitOpError("not supported by poly-infer: a cast between "
                           "ranked and unranked tensors");
  results.push_back(SymbolicValue::getShaped(source.getShape()));
  return success();
}

static LogicalResult infer(tensor::CastOp op, ArrayRef<SymbolicValue> operands,
                           SmallVectorImpl<SymbolicValue> &results,
                           SymbolicShapeContext &context) {
  return inferSameShape(op, operands, results, context);
}

static LogicalResult infer(tensor::BitcastOp op,
                           ArrayRef<SymbolicValue> operands,
                           SmallVectorImpl<SymbolicValue> &results,
                           SymbolicShapeContext &context) {
  return inferSameShape(op, operands, results, context);
}

/// JAX's exclusive limit of a slice: `offset + (size - 1) * stride + 1`
/// (`offset + size` for stride 1, `offset` for an empty slice).
static DimResult<DimExpr> getSliceLimit(const DimExpr &offset,
                                        const DimExpr &size,
                                        const DimExpr &stride) {
  if (stride.getConstant() == std::optional<int64_t>(1))
    return symbolic::add(offset, size);
  if (size.getConstant() == std::optional<int64_t>(0))
    return offset;
  return symbolic::add(
      symbolic::add(offset, symbolic::mul(symbolic::sub(size, 1), stride)), 1);
}

/// The offsets, sizes, strides and exclusive limits of a slice op, after
/// JAX's checks of strides and bounds against `operand`.
struct SliceParams {
  Shape offsets, sizes, strides, limits;
};

template <typename OpTy>
static FailureOr<SliceParams>
getCheckedSlice(OpTy op, ArrayRef<SymbolicValue> operands,
                ArrayRef<DimExpr> operand, SymbolicShapeContext &context) {
  SliceParams params;
  FailureOr<Shape> offsets =
      getSizes(op, operands, op.getMixedOffsets(), context, "offset");
  FailureOr<Shape> sizes =
      failed(offsets)
          ? FailureOr<Shape>(failure())
          : getSizes(op, operands, op.getMixedSizes(), context, "size");
  FailureOr<Shape> strides =
      failed(sizes)
          ? FailureOr<Shape>(failure())
          : getSizes(op, operands, op.getMixedStrides(), context, "stride");
  if (failed(strides))
    return failure();
  params.offsets = *offsets;
  params.sizes = *sizes;
  params.strides = *strides;
  if (symbolic::DimStatus status = checkSliceStrides(params.strides);
      status.failed())
    return fail(op, context, status.getError());
  for (auto [offset, size, stride] :
       llvm::zip_equal(params.offsets, params.sizes, params.strides)) {
    DimResult<DimExpr> limit = getSliceLimit(offset, size, stride);
    if (!limit)
      return fail(op, context, limit.getError());
    params.limits.push_back(*limit);
  }
  if (symbolic::DimStatus status =
          checkSliceBounds(operand, params.offsets, params.limits);
      status.failed())
    return fail(op, context, status.getError());
  return params;
}

static LogicalResult infer(tensor::ExtractSliceOp op,
                           ArrayRef<SymbolicValue> operands,
                           SmallVectorImpl<SymbolicValue> &results,
                           SymbolicShapeContext &context) {
  FailureOr<SliceParams> params =
      getCheckedSlice(op, operands, shapeOf(operands[0]), context);
  if (failed(params))
    return failure();
  llvm::SmallBitVector dropped = op.getDroppedDims();
  Shape shape;
  for (auto [i, size] : llvm::enumerate(params->sizes))
    if (!dropped.test(i))
      shape.push_back(size);
  results.push_back(SymbolicValue::getShaped(shape));
  return success();
}

static LogicalResult infer(tensor::InsertSliceOp op,
                           ArrayRef<SymbolicValue> operands,
                           SmallVectorImpl<SymbolicValue> &results,
                           SymbolicShapeContext &context) {
  ArrayRef<DimExpr> source = shapeOf(operands[0]);
  ArrayRef<DimExpr> dest = shapeOf(operands[1]);
  FailureOr<Shape> sizes =
      getSizes(op, operands, op.getMixedSizes(), context, "size");
  if (failed(sizes))
    return failure();
  // The source may drop unit dimensions of the slice.
  Shape kept;
  if (sizes->size() == source.size()) {
    kept = *sizes;
  } else {
    std::optional<llvm::SmallDenseSet<unsigned>> mask =
        computeRankReductionMask(op.getStaticSizes(),
                                 op.getSourceType().getShape(),
                                 /*matchDynamic=*/true);
    for (auto [i, size] : llvm::enumerate(*sizes))
      if (!mask || !mask->contains(i))
        kept.push_back(size);
  }
  if (!definitelyEqualShapes(kept, source))
    return op.emitOpError("expected the source shape ")
           << symbolic::formatShape(source) << " to match the slice sizes "
           << symbolic::formatShape(kept);
  if (symbolic::DimStatus status = checkUpdateFits(*sizes, dest);
      status.failed())
    return fail(op, context, status.getError());
  if (failed(getCheckedSlice(op, operands, dest, context)))
    return failure();
  results.push_back(SymbolicValue::getShaped(dest));
  return success();
}

static LogicalResult infer(tensor::PadOp op, ArrayRef<SymbolicValue> operands,
                           SmallVectorImpl<SymbolicValue> &results,
                           SymbolicShapeContext &context) {
  FailureOr<Shape> low =
      getSizes(op, operands, op.getMixedLowPad(), context, "low padding");
  if (failed(low))
    return failure();
  FailureOr<Shape> high =
      getSizes(op, operands, op.getMixedHighPad(), context, "high padding");
  if (failed(high))
    return failure();
  DimResult<Shape> shape = padShape(shapeOf(operands[0]), *low, *high);
  if (!shape)
    return fail(op, context, shape.getError());
  results.push_back(SymbolicValue::getShaped(*shape));
  return success();
}

static LogicalResult infer(tensor::ConcatOp op,
                           ArrayRef<SymbolicValue> operands,
                           SmallVectorImpl<SymbolicValue> &results,
                           SymbolicShapeContext &context) {
  SmallVector<ArrayRef<DimExpr>> shapes;
  for (const SymbolicValue &operand : operands)
    shapes.push_back(shapeOf(operand));
  DimResult<Shape> shape = concatenateShapes(shapes, op.getDim());
  if (!shape)
    return fail(op, context, shape.getError());
  results.push_back(SymbolicValue::getShaped(*shape));
  return success();
}

/// An index or integer attribute of `type` holding `value`.
static APInt getElementValue(Type type, int64_t value) {
  unsigned width = type.isIndex() ? IndexType::kInternalStorageBitWidth
                                  : type.getIntOrFloatBitWidth();
  return APInt(width, value, /*isSigned=*/true, /*implicitTrunc=*/true);
}

namespace {
/// Builds index arithmetic before an op and records the symbolic value of
/// everything it creates.
class DimValueBuilder {
public:
  DimValueBuilder(Operation *op, SymbolicShapeContext &context)
      : b(op), loc(op->getLoc()), context(context) {}

  /// `value` as a constant of `type` (index or integer).
  Value constant(int64_t value, Type type) {
    Value c = arith::ConstantOp::create(
        b, loc, type, b.getIntegerAttr(type, getElementValue(type, value)));
    record(c, DimExpr(value));
    return c;
  }

  /// The product of `factors` (values with their symbolic values), with the
  /// constant factors folded.
  Value product(ArrayRef<std::pair<Value, DimExpr>> factors,
                const DimExpr &symbolicProduct) {
    int64_t constantPart = 1;
    Value result;
    for (const auto &[value, expr] : factors) {
      if (std::optional<int64_t> c = expr.getConstant()) {
        constantPart *= *c;
        continue;
      }
      result = result ? arith::MulIOp::create(b, loc, result, value).getResult()
                      : value;
    }
    if (!result)
      return constant(constantPart, b.getIndexType());
    if (constantPart != 1)
      result = arith::MulIOp::create(b, loc, result,
                                     constant(constantPart, b.getIndexType()));
    record(result, symbolicProduct);
    return result;
  }

  /// Converts the index `value` to `type`.
  Value castTo(Value value, Type type, const DimExpr &expr) {
    if (type.isIndex())
      return value;
    Value cast = arith::IndexCastOp::create(b, loc, type, value);
    record(cast, expr);
    return cast;
  }

  void record(Value value, const DimExpr &expr) {
    context.recordValue(value, SymbolicValue::getScalar(expr));
  }

  OpBuilder b;
  Location loc;
  SymbolicShapeContext &context;
};
} // namespace

/// Replaces the shape operand of `op`, whose element `minusOne` is `-1`, by
/// a tensor holding `resolved` (the inferred size in place of the -1). A
/// symbolic inferred size is computed at run time as the number of elements
/// of the source divided by the product of the other sizes.
static void replaceMinusOne(tensor::ReshapeOp op, ArrayRef<DimExpr> sourceShape,
                            ArrayRef<DimExpr> elements,
                            ArrayRef<DimExpr> resolved, unsigned minusOne,
                            SymbolicShapeContext &context) {
  DimValueBuilder builder(op, context);
  OpBuilder &b = builder.b;
  Location loc = op.getLoc();
  auto shapeType = cast<RankedTensorType>(op.getShape().getType());
  Type elementType = shapeType.getElementType();
  Value newShape;
  if (llvm::all_of(resolved, [](const DimExpr &d) { return d.isConstant(); })) {
    SmallVector<APInt> values;
    for (const DimExpr &d : resolved)
      values.push_back(getElementValue(elementType, *d.getConstant()));
    newShape = arith::ConstantOp::create(
        b, loc, DenseIntElementsAttr::get(shapeType, values));
  } else {
    SmallVector<Value> newElements(elements.size());
    SmallVector<std::pair<Value, DimExpr>> others;
    for (auto [i, element] : llvm::enumerate(elements)) {
      if (i == minusOne)
        continue;
      if (std::optional<int64_t> c = element.getConstant()) {
        newElements[i] = builder.constant(*c, elementType);
        others.push_back({Value(), element});
        continue;
      }
      Value extracted = tensor::ExtractOp::create(
          b, loc, op.getShape(),
          ValueRange{builder.constant(i, b.getIndexType())});
      builder.record(extracted, element);
      newElements[i] = extracted;
      Value index = extracted;
      if (!elementType.isIndex()) {
        index = arith::IndexCastOp::create(b, loc, b.getIndexType(), extracted);
        builder.record(index, element);
      }
      others.push_back({index, element});
    }
    const DimExpr &size = resolved[minusOne];
    if (std::optional<int64_t> c = size.getConstant()) {
      newElements[minusOne] = builder.constant(*c, elementType);
    } else {
      SmallVector<std::pair<Value, DimExpr>> dims;
      for (auto [i, dim] : llvm::enumerate(sourceShape)) {
        Value value;
        if (!dim.isConstant()) {
          value = tensor::DimOp::create(b, loc, op.getSource(), i);
          builder.record(value, dim);
        }
        dims.push_back({value, dim});
      }
      DimResult<DimExpr> total = getNumElements(sourceShape);
      DimResult<DimExpr> divisor = DimExpr(1);
      for (const auto &other : others)
        divisor = symbolic::mul(divisor, other.second);
      Value inferred = arith::DivSIOp::create(
          b, loc, builder.product(dims, total ? *total : DimExpr(0)),
          builder.product(others, divisor ? *divisor : DimExpr(0)));
      builder.record(inferred, size);
      newElements[minusOne] = builder.castTo(inferred, elementType, size);
    }
    newShape = tensor::FromElementsOp::create(b, loc, shapeType, newElements);
  }
  context.recordValue(newShape, SymbolicValue::getTensorOfElements(resolved));
  op.getShapeMutable().assign(newShape);
}

static LogicalResult infer(tensor::ReshapeOp op,
                           ArrayRef<SymbolicValue> operands,
                           SmallVectorImpl<SymbolicValue> &results,
                           SymbolicShapeContext &context) {
  const SymbolicValue &shapeOperand = operands[1];
  if (!shapeOperand.hasElements())
    return op.emitOpError(
        "not supported by poly-infer: the values of the shape operand are "
        "not known symbolically (build it with 'arith.constant' or "
        "'tensor.from_elements' of dimension values)");
  ArrayRef<DimExpr> elements = shapeOperand.getElements();
  DimResult<Shape> shape = computeReshapeShape(shapeOf(operands[0]), elements);
  if (!shape)
    return fail(op, context, shape.getError());
  auto minusOne = llvm::find_if(elements, [](const DimExpr &d) {
    return d.getConstant() == std::optional<int64_t>(-1);
  });
  if (minusOne != elements.end() && context.allowsRewrites())
    replaceMinusOne(op, shapeOf(operands[0]), elements, *shape,
                    minusOne - elements.begin(), context);
  results.push_back(SymbolicValue::getShaped(*shape));
  return success();
}

static LogicalResult infer(tensor::CollapseShapeOp op,
                           ArrayRef<SymbolicValue> operands,
                           SmallVectorImpl<SymbolicValue> &results,
                           SymbolicShapeContext &context) {
  ArrayRef<DimExpr> source = shapeOf(operands[0]);
  Shape shape;
  for (const ReassociationIndices &group : op.getReassociationIndices()) {
    DimResult<DimExpr> size = DimExpr(1);
    for (int64_t i : group)
      size = symbolic::mul(size, source[i]);
    if (!size)
      return fail(op, context, size.getError());
    shape.push_back(*size);
  }
  results.push_back(SymbolicValue::getShaped(shape));
  return success();
}

static LogicalResult infer(tensor::ExpandShapeOp op,
                           ArrayRef<SymbolicValue> operands,
                           SmallVectorImpl<SymbolicValue> &results,
                           SymbolicShapeContext &context) {
  ArrayRef<DimExpr> source = shapeOf(operands[0]);
  SmallVector<OpFoldResult> outputShape = op.getMixedOutputShape();
  // Every output size, or -1 where an output_shape value is not known
  // symbolically (then inferred from its group, as a reshape's -1).
  Shape requested;
  for (OpFoldResult ofr : outputShape) {
    if (auto attr = dyn_cast<Attribute>(ofr)) {
      requested.push_back(
          DimExpr(cast<IntegerAttr>(attr).getValue().getSExtValue()));
      continue;
    }
    SymbolicValue sv = getOperandValue(op, operands, cast<Value>(ofr), context);
    requested.push_back(sv.hasScalar() ? sv.getScalar() : DimExpr(-1));
  }
  Shape shape;
  for (auto [g, group] : llvm::enumerate(op.getReassociationIndices())) {
    Shape sizes;
    for (int64_t i : group)
      sizes.push_back(requested[i]);
    DimResult<Shape> groupShape = computeReshapeShape(source[g], sizes);
    if (!groupShape)
      return fail(op, context, groupShape.getError());
    shape.append(groupShape->begin(), groupShape->end());
  }
  results.push_back(SymbolicValue::getShaped(shape));
  return success();
}

static LogicalResult infer(tensor::FromElementsOp op,
                           ArrayRef<SymbolicValue> operands,
                           SmallVectorImpl<SymbolicValue> &results,
                           SymbolicShapeContext &context) {
  RankedTensorType type = op.getType();
  bool trackElements =
      type.getRank() == 1 && type.getNumElements() <= kMaxTrackedElements &&
      isDimValueType(type.getElementType()) &&
      llvm::all_of(operands,
                   [](const SymbolicValue &v) { return v.hasScalar(); });
  if (!trackElements) {
    results.push_back(SymbolicValue::getShaped(getStaticShape(type)));
    return success();
  }
  Shape elements;
  for (const SymbolicValue &operand : operands)
    elements.push_back(operand.getScalar());
  results.push_back(SymbolicValue::getTensorOfElements(elements));
  return success();
}

/// The constant indices of an extract/insert, or std::nullopt.
static std::optional<SmallVector<int64_t>>
getConstantIndices(Operation *op, ArrayRef<SymbolicValue> operands,
                   ValueRange indices, SymbolicShapeContext &context) {
  SmallVector<int64_t> result;
  for (Value index : indices) {
    std::optional<int64_t> c = getConstantOperand(op, operands, index, context);
    if (!c)
      return std::nullopt;
    result.push_back(*c);
  }
  return result;
}

static LogicalResult infer(tensor::ExtractOp op,
                           ArrayRef<SymbolicValue> operands,
                           SmallVectorImpl<SymbolicValue> &results,
                           SymbolicShapeContext &context) {
  const SymbolicValue &source = operands[0];
  std::optional<SmallVector<int64_t>> indices =
      getConstantIndices(op, operands, op.getIndices(), context);
  if (source.hasElements() && indices && indices->size() == 1 &&
      (*indices)[0] >= 0 &&
      (*indices)[0] < static_cast<int64_t>(source.getElements().size()))
    results.push_back(
        SymbolicValue::getScalar(source.getElements()[(*indices)[0]]));
  else
    results.push_back(SymbolicValue());
  return success();
}

static LogicalResult infer(tensor::InsertOp op,
                           ArrayRef<SymbolicValue> operands,
                           SmallVectorImpl<SymbolicValue> &results,
                           SymbolicShapeContext &context) {
  const SymbolicValue &dest = operands[1];
  const SymbolicValue &scalar = operands[0];
  std::optional<SmallVector<int64_t>> indices =
      getConstantIndices(op, operands, op.getIndices(), context);
  if (dest.hasElements() && scalar.hasScalar() && indices &&
      indices->size() == 1 && (*indices)[0] >= 0 &&
      (*indices)[0] < static_cast<int64_t>(dest.getElements().size())) {
    Shape elements(dest.getElements().begin(), dest.getElements().end());
    elements[(*indices)[0]] = scalar.getScalar();
    results.push_back(SymbolicValue::getTensorOfElements(elements));
    return success();
  }
  results.push_back(SymbolicValue::getShaped(shapeOf(dest)));
  return success();
}

static LogicalResult infer(tensor::SplatOp op, ArrayRef<SymbolicValue> operands,
                           SmallVectorImpl<SymbolicValue> &results,
                           SymbolicShapeContext &context) {
  FailureOr<Shape> shape = getShapeWithDynamicSizes(
      op, operands, op.getType(), op.getDynamicSizes(), context);
  if (failed(shape))
    return failure();
  const SymbolicValue &value = operands[0];
  RankedTensorType type = op.getType();
  if (type.getRank() == 1 && type.hasStaticShape() &&
      type.getNumElements() <= kMaxTrackedElements && value.hasScalar()) {
    Shape elements(type.getNumElements(), value.getScalar());
    results.push_back(SymbolicValue::getTensorOfElements(elements));
    return success();
  }
  results.push_back(SymbolicValue::getShaped(*shape));
  return success();
}

static LogicalResult infer(tensor::GenerateOp op,
                           ArrayRef<SymbolicValue> operands,
                           SmallVectorImpl<SymbolicValue> &results,
                           SymbolicShapeContext &context) {
  FailureOr<Shape> shape = getShapeWithDynamicSizes(
      op, operands, op.getType(), op.getDynamicExtents(), context);
  if (failed(shape))
    return failure();
  results.push_back(SymbolicValue::getShaped(*shape));
  return success();
}

static LogicalResult infer(tensor::RankOp op, ArrayRef<SymbolicValue> operands,
                           SmallVectorImpl<SymbolicValue> &results,
                           SymbolicShapeContext &context) {
  if (operands[0].hasShape())
    results.push_back(SymbolicValue::getScalar(DimExpr(operands[0].getRank())));
  else
    results.push_back(SymbolicValue());
  return success();
}

static LogicalResult infer(tensor::YieldOp op, ArrayRef<SymbolicValue>,
                           SmallVectorImpl<SymbolicValue> &,
                           SymbolicShapeContext &) {
  return success();
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

/// The JAX primitive of a tensor op.
static StringRef getTensorJaxName(Operation *op) {
  return llvm::TypeSwitch<Operation *, StringRef>(op)
      .Case([](tensor::ExtractSliceOp) { return "slice"; })
      .Case([](tensor::InsertSliceOp) { return "dynamic_update_slice"; })
      .Case([](tensor::PadOp) { return "pad"; })
      .Case([](tensor::ConcatOp) { return "concatenate"; })
      .Case<tensor::ReshapeOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
          [](Operation *) { return "reshape"; })
      .Case([](tensor::BitcastOp) { return "bitcast_convert_type"; })
      .Case([](tensor::SplatOp) { return "broadcast_in_dim"; })
      .Default([](Operation *op) { return op->getName().getStringRef(); });
}

namespace {
/// The model of one tensor op, dispatching to its `infer` overload.
template <typename OpTy>
struct TensorModel
    : public SymbolicShapeOpInterface::ExternalModel<TensorModel<OpTy>, OpTy> {
  LogicalResult inferSymbolicShapes(Operation *op,
                                    ArrayRef<SymbolicValue> operands,
                                    SmallVectorImpl<SymbolicValue> &results,
                                    SymbolicShapeContext &context) const {
    return infer(cast<OpTy>(op), operands, results, context);
  }
  StringRef getJaxPrimitiveName(Operation *op) const {
    return getTensorJaxName(op);
  }
};
} // namespace

template <typename... OpTys>
static void attachTensorModels(MLIRContext *context) {
  (OpTys::template attachInterface<TensorModel<OpTys>>(*context), ...);
}

void poly::registerTensorSymbolicShapeModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, tensor::TensorDialect *) {
    attachTensorModels<
        tensor::BitcastOp, tensor::CastOp, tensor::CollapseShapeOp,
        tensor::ConcatOp, tensor::DimOp, tensor::EmptyOp, tensor::ExpandShapeOp,
        tensor::ExtractOp, tensor::ExtractSliceOp, tensor::FromElementsOp,
        tensor::GenerateOp, tensor::InsertOp, tensor::InsertSliceOp,
        tensor::PadOp, tensor::RankOp, tensor::ReshapeOp, tensor::SplatOp,
        tensor::YieldOp>(context);
  });
}
