//===- CommToRuntime.cpp - comm ops to runtime calls ----------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Lowers the collectives of a per-device program to calls of the runtime's
// C ABI (tessera/Runtime/Runtime.h), one conversion pattern per comm op.
// The rewrite happens on tensors: an operand becomes a read-only contiguous
// buffer, a result a fresh buffer the runtime writes, so one-shot
// bufferization sees ordinary buffer reads and writes around an opaque call.
//
//===----------------------------------------------------------------------===//

#include "tessera/Conversion/CommToRuntime/CommToRuntime.h"

#include "tessera/Conversion/Passes.h"
#include "tessera/Conversion/RuntimeTypes.h"
#include "tessera/Dialect/Comm/IR/CommOps.h"
#include "tessera/Dialect/Spmd/IR/CollectiveShardings.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Runtime/Runtime.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::tessera {
#define GEN_PASS_DEF_CONVERTCOMMTORUNTIMEPASS
#include "tessera/Conversion/Passes.h.inc"

std::optional<::tessera::rt::DType> getRuntimeDType(Type type) {
  using ::tessera::rt::DType;
  if (type.isF32())
    return DType::F32;
  if (type.isF64())
    return DType::F64;
  if (type.isF16())
    return DType::F16;
  if (type.isBF16())
    return DType::BF16;
  if (type.isIndex())
    return DType::I64;
  auto integer = dyn_cast<IntegerType>(type);
  if (!integer)
    return std::nullopt;
  bool isUnsigned = integer.isUnsigned();
  switch (integer.getWidth()) {
  case 1:
    return DType::I1;
  case 8:
    return isUnsigned ? DType::U8 : DType::I8;
  case 16:
    return isUnsigned ? DType::U16 : DType::I16;
  case 32:
    return isUnsigned ? DType::U32 : DType::I32;
  case 64:
    return isUnsigned ? DType::U64 : DType::I64;
  default:
    return std::nullopt;
  }
}

/// The runtime's dtype code of `type`, or nullopt if it has none.
static std::optional<int32_t> getDtypeCode(Type type) {
  if (std::optional<::tessera::rt::DType> dtype = getRuntimeDType(type))
    return static_cast<int32_t>(*dtype);
  return std::nullopt;
}

/// The bytes one element of `type` occupies in a buffer.
static int64_t getElementBytes(Type type) {
  if (type.isIndex())
    return 8;
  return std::max<int64_t>(1, (type.getIntOrFloatBitWidth() + 7) / 8);
}

static int32_t getKindCode(comm::ReductionKind kind) {
  switch (kind) {
  case comm::ReductionKind::Sum:
    return TESSERA_RT_SUM;
  case comm::ReductionKind::Prod:
    return TESSERA_RT_PROD;
  case comm::ReductionKind::Max:
    return TESSERA_RT_MAX;
  case comm::ReductionKind::Min:
    return TESSERA_RT_MIN;
  }
  llvm_unreachable("unknown reduction kind");
}

//===----------------------------------------------------------------------===//
// CommRuntimeLowering
//===----------------------------------------------------------------------===//

CommRuntimeLowering::CommRuntimeLowering(ModuleOp module)
    : module(module), ctx(module.getContext()),
      ptrType(LLVM::LLVMPointerType::get(ctx)) {
  // The runtime emulates the first mesh of the most devices; meshes with
  // other axes over as many devices name its axes. Meshes over the same
  // devices in different orders (a reshard between them is a permute): the
  // runtime numbers positions per call.
  for (auto mesh : module.getOps<spmd::MeshOp>()) {
    spmd::MeshAttr attr = mesh.getMesh();
    if (!attr.getAxes().empty() &&
        (!runtimeMesh || attr.getTotalSize() > runtimeMesh.getTotalSize()))
      runtimeMesh = attr;
  }
  for (auto mesh : module.getOps<spmd::MeshOp>()) {
    spmd::MeshAttr attr = mesh.getMesh();
    if (!attr.getAxes().empty() &&
        attr.getTotalSize() == runtimeMesh.getTotalSize() &&
        attr.getDeviceIdsOrIota() != runtimeMesh.getDeviceIdsOrIota())
      orderedMesh = runtimeMesh;
  }
}

func::FuncOp CommRuntimeLowering::getFunction(StringRef name, TypeRange inputs,
                                              TypeRange results) {
  if (auto func = module.lookupSymbol<func::FuncOp>(name))
    return func;
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  auto func = func::FuncOp::create(builder, module.getLoc(), name,
                                   FunctionType::get(ctx, inputs, results));
  func.setPrivate();
  return func;
}

Value CommRuntimeLowering::getI64Array(OpBuilder &builder, Location loc,
                                       ArrayRef<int64_t> values) {
  std::string key = llvm::join(
      llvm::map_range(values, [](int64_t v) { return std::to_string(v); }),
      ",");
  LLVM::GlobalOp &global = arrays[key];
  if (!global) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(module.getBody());
    // An empty array still needs storage for its address.
    SmallVector<int64_t> stored(values);
    if (stored.empty())
      stored.push_back(0);
    auto arrayType =
        LLVM::LLVMArrayType::get(builder.getI64Type(), stored.size());
    auto tensorType = RankedTensorType::get(
        {static_cast<int64_t>(stored.size())}, builder.getI64Type());
    global = LLVM::GlobalOp::create(
        builder, module.getLoc(), arrayType, /*isConstant=*/true,
        LLVM::Linkage::Internal,
        llvm::formatv("__tessera_rt_array_{0}", arrays.size() - 1).str(),
        DenseElementsAttr::get(tensorType, ArrayRef<int64_t>(stored)));
  }
  return LLVM::AddressOfOp::create(builder, loc, global);
}

Value CommRuntimeLowering::getString(OpBuilder &builder, Location loc,
                                     StringRef text) {
  auto it = strings.find(text);
  std::string name;
  if (it == strings.end()) {
    name = llvm::formatv("__tessera_rt_site_{0}", strings.size()).str();
    strings[text] = name;
    std::string value = text.str();
    value.push_back('\0');
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(module.getBody());
    auto arrayType =
        LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), value.size());
    LLVM::GlobalOp::create(builder, module.getLoc(), arrayType,
                           /*isConstant=*/true, LLVM::Linkage::Internal, name,
                           builder.getStringAttr(value));
  } else {
    name = it->second;
  }
  return LLVM::AddressOfOp::create(builder, loc, ptrType, name);
}

Value CommRuntimeLowering::getPointer(OpBuilder &builder, Location loc,
                                      Value buffer) {
  Value index =
      memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, buffer);
  Value integer =
      arith::IndexCastOp::create(builder, loc, builder.getI64Type(), index);
  return LLVM::IntToPtrOp::create(builder, loc, ptrType, integer);
}

Value CommRuntimeLowering::getInputPointer(OpBuilder &builder, Location loc,
                                           Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
  Value buffer = bufferization::ToBufferOp::create(builder, loc, memrefType,
                                                   tensor, /*readOnly=*/true);
  return getPointer(builder, loc, buffer);
}

SmallVector<Value> CommRuntimeLowering::getDims(OpBuilder &builder,
                                                Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<Value> dims;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (type.isDynamicDim(d))
      dims.push_back(tensor::DimOp::create(builder, loc, tensor, d));
    else
      dims.push_back(
          arith::ConstantIndexOp::create(builder, loc, type.getDimSize(d)));
  }
  return dims;
}

std::pair<Value, Value>
CommRuntimeLowering::allocateOutput(OpBuilder &builder, Location loc,
                                    RankedTensorType type,
                                    ArrayRef<Value> dims) {
  auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
  SmallVector<Value> dynamic;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dynamic.push_back(dims[d]);
  Value buffer = memref::AllocOp::create(builder, loc, memrefType, dynamic);
  return {buffer, getPointer(builder, loc, buffer)};
}

Value CommRuntimeLowering::getShape(OpBuilder &builder, Location loc,
                                    Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (type.hasStaticShape())
    return getI64Array(builder, loc, type.getShape());
  auto arrayType = MemRefType::get({std::max<int64_t>(1, type.getRank())},
                                   builder.getI64Type());
  Value array = memref::AllocaOp::create(builder, loc, arrayType);
  for (auto [d, dim] : llvm::enumerate(getDims(builder, loc, tensor))) {
    Value value =
        arith::IndexCastOp::create(builder, loc, builder.getI64Type(), dim);
    Value position = arith::ConstantIndexOp::create(builder, loc, d);
    memref::StoreOp::create(builder, loc, value, array, position);
  }
  return getPointer(builder, loc, array);
}

Value CommRuntimeLowering::getNumElements(OpBuilder &builder, Location loc,
                                          Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (type.hasStaticShape())
    return arith::ConstantIntOp::create(builder, loc, type.getNumElements(),
                                        64);
  Value count = arith::ConstantIndexOp::create(builder, loc, 1);
  for (Value dim : getDims(builder, loc, tensor))
    count = arith::MulIOp::create(builder, loc, count, dim);
  return arith::IndexCastOp::create(builder, loc, builder.getI64Type(), count);
}

LogicalResult
CommRuntimeLowering::checkLowerable(comm::MeshAxesOpInterface op) {
  spmd::MeshAttr mesh = op.resolveMesh(&symbols);
  if (!mesh)
    return op->emitOpError("unknown mesh: ") << op.getMeshAttr();
  for (spmd::AxisRefAttr axis : op.getAxisRefs())
    if (!mesh.getAxisIndex(axis.getName()))
      return op->emitOpError("unknown axis '") << axis.getName() << "'";
  if (runtimeMesh && !mesh.hasSameAxes(runtimeMesh) &&
      mesh.getTotalSize() == runtimeMesh.getTotalSize() &&
      failed(spmd::translateCommAxisRefsToMesh(op.getAxisRefs(), mesh,
                                               runtimeMesh)))
    return op->emitOpError("is over a mesh whose axes do not fall on whole "
                           "axes or sub-axes of the runtime's mesh ")
           << runtimeMesh;
  // Collectives move their operand's elements; axis queries have none.
  if (op->getNumOperands() == 0)
    return success();
  auto operandType = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (!operandType)
    return success();
  Type elementType = operandType.getElementType();
  if (!getDtypeCode(elementType))
    return op->emitOpError("element type ")
           << elementType << " is not supported by the runtime";
  return success();
}

FailureOr<SmallVector<int64_t>>
CommRuntimeLowering::getGroup(comm::MeshAxesOpInterface op) {
  spmd::MeshAttr mesh = op.resolveMesh(&symbols);
  if (!mesh)
    return failure();
  SmallVector<spmd::AxisRefAttr> refs(op.getAxisRefs());
  if (runtimeMesh && mesh != runtimeMesh && !mesh.hasSameAxes(runtimeMesh) &&
      mesh.getTotalSize() == runtimeMesh.getTotalSize()) {
    FailureOr<SmallVector<spmd::AxisRefAttr>> translated =
        spmd::translateCommAxisRefsToMesh(refs, mesh, runtimeMesh);
    if (failed(translated))
      return failure();
    refs = *translated;
    mesh = runtimeMesh;
  }
  SmallVector<int64_t> triples;
  for (spmd::AxisRefAttr axis : refs) {
    std::optional<unsigned> index = mesh.getAxisIndex(axis.getName());
    if (!index)
      return failure();
    triples.push_back(*index);
    triples.push_back(axis.getPreSize());
    triples.push_back(axis.getSize(mesh));
  }
  return triples;
}

void CommRuntimeLowering::setDeviceOrder(OpBuilder &builder, Location loc,
                                         comm::MeshAxesOpInterface op) {
  if (!orderedMesh)
    return;
  spmd::MeshAttr mesh = op.resolveMesh(&symbols);
  if (!mesh || mesh.getTotalSize() != orderedMesh.getTotalSize())
    return;
  SmallVector<int64_t> ids = mesh.getDeviceIdsOrIota();
  Value order = getI64Array(builder, loc, ids);
  Value count = arith::ConstantIntOp::create(builder, loc, ids.size(), 64);
  func::FuncOp callee = getFunction("tessera_rt_set_device_order",
                                    {ptrType, builder.getI64Type()}, {});
  func::CallOp::create(builder, loc, callee, ValueRange{order, count});
}

std::string CommRuntimeLowering::getSite(Operation *op) {
  std::string site = op->getName().getStringRef().str() + " at ";
  llvm::raw_string_ostream os(site);
  if (auto file = dyn_cast<FileLineColLoc>(op->getLoc()))
    os << '"' << file.getFilename().getValue() << "\":" << file.getLine() << ':'
       << file.getColumn();
  else
    op->getLoc().print(os);
  return site;
}

func::FuncOp CommRuntimeLowering::createStub(Operation *op, Type operand,
                                             Type result) {
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  std::string opName = op->getName().getStringRef().str();
  std::replace(opName.begin(), opName.end(), '.', '_');
  std::string name = llvm::formatv("__tessera_{0}_{1}", opName, stubs++);
  auto func = func::FuncOp::create(
      builder, op->getLoc(), name,
      FunctionType::get(ctx, TypeRange{operand}, TypeRange{result}));
  func.setPrivate();
  func.addEntryBlock();
  return func;
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {

/// The base of the comm patterns: the lowering state they share.
template <typename OpTy> class CommPattern : public OpConversionPattern<OpTy> {
public:
  CommPattern(MLIRContext *ctx, CommRuntimeLowering &rt)
      : OpConversionPattern<OpTy>(ctx), rt(rt) {}

protected:
  CommRuntimeLowering &rt;
};

/// `comm.axis_size`: the product of its group's sizes, a constant.
struct AxisSizePattern : CommPattern<comm::AxisSizeOp> {
  using CommPattern::CommPattern;
  LogicalResult
  matchAndRewrite(comm::AxisSizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<SmallVector<int64_t>> group = rt.getGroup(op);
    if (failed(group))
      return failure();
    int64_t total = 1;
    for (size_t i = 2; i < group->size(); i += 3)
      total *= (*group)[i];
    Location loc = op.getLoc();
    Value value =
        op.getType().isIndex()
            ? arith::ConstantIndexOp::create(rewriter, loc, total).getResult()
            : arith::ConstantIntOp::create(rewriter, loc, op.getType(), total)
                  .getResult();
    rewriter.replaceOp(op, value);
    return success();
  }
};

/// `comm.axis_index`: `tessera_rt_axis_index(group, parts)`.
struct AxisIndexPattern : CommPattern<comm::AxisIndexOp> {
  using CommPattern::CommPattern;
  LogicalResult
  matchAndRewrite(comm::AxisIndexOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<SmallVector<int64_t>> group = rt.getGroup(op);
    if (failed(group))
      return failure();
    Location loc = op.getLoc();
    rt.setDeviceOrder(rewriter, loc, op);
    Value groupPtr = rt.getI64Array(rewriter, loc, *group);
    Value numParts =
        arith::ConstantIntOp::create(rewriter, loc, group->size() / 3, 32);
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
    func::FuncOp callee =
        rt.getFunction("tessera_rt_axis_index", {rt.getPtrType(), i32}, {i64});
    Value value = func::CallOp::create(rewriter, loc, callee,
                                       ValueRange{groupPtr, numParts})
                      .getResult(0);
    if (op.getType().isIndex())
      value = arith::IndexCastOp::create(rewriter, loc, op.getType(), value);
    else if (op.getType() != i64)
      value = arith::TruncIOp::create(rewriter, loc, op.getType(), value);
    rewriter.replaceOp(op, value);
    return success();
  }
};

/// What a collective's call takes, built in its stub: the runtime
/// function, its argument types and arguments (the output pointer left
/// null, filled in once the output exists), and the result's dims.
struct CollectiveCall {
  StringRef name;
  SmallVector<Type> types;
  SmallVector<Value> args;
};

/// What every collective's stub starts from.
struct StubContext {
  OpBuilder &builder;
  Location loc;
  CommRuntimeLowering &rt;
  /// The stub's argument (the operand) and its type.
  Value operand;
  RankedTensorType operandType;
  int32_t dtype;
  Value group = {}, numParts = {}, site = {}, in = {};
  int64_t groupSize = 1;
  /// The result's dims: the operand's, changed by the collective.
  SmallVector<Value> dims = {};

  Value constI32(int64_t v) {
    return arith::ConstantIntOp::create(builder, loc, v, 32);
  }
  Value constI64(int64_t v) {
    return arith::ConstantIntOp::create(builder, loc, v, 64);
  }
  /// Multiplies or divides dim `d` of the result by the group's size.
  void scale(int64_t d, bool multiply) {
    Value f = arith::ConstantIndexOp::create(builder, loc, groupSize);
    dims[d] =
        multiply ? arith::MulIOp::create(builder, loc, dims[d], f).getResult()
                 : arith::DivUIOp::create(builder, loc, dims[d], f).getResult();
  }
};

/// A collective moves buffers: it becomes a call of a private function
/// that takes the operand tensor and returns the result tensor, so that
/// bufferization and deallocation see the buffers used by that call (the
/// runtime receives raw pointers, which they cannot track). `describe`
/// gives the runtime call.
template <typename OpTy> class CollectivePattern : public CommPattern<OpTy> {
public:
  using CommPattern<OpTy>::CommPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    CommRuntimeLowering &rt = this->rt;
    FailureOr<SmallVector<int64_t>> group = rt.getGroup(op);
    if (failed(group))
      return failure();
    auto operandType = cast<RankedTensorType>(op->getOperand(0).getType());
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    Type elementType = operandType.getElementType();
    std::optional<int32_t> dtype = getDtypeCode(elementType);
    if (!dtype)
      return rewriter.notifyMatchFailure(op, "element type not supported");
    Location loc = op.getLoc();
    func::FuncOp stub = rt.createStub(op, operandType, resultType);
    auto call =
        func::CallOp::create(rewriter, loc, stub, adaptor.getOperands()[0]);
    rewriter.replaceOp(op, call.getResults());

    OpBuilder builder = OpBuilder::atBlockBegin(&stub.getBody().front());
    Value operand = stub.getArgument(0);
    StubContext stubContext{builder, loc, rt, operand, operandType, *dtype};
    stubContext.group = rt.getI64Array(builder, loc, *group);
    stubContext.numParts = stubContext.constI32(group->size() / 3);
    stubContext.site = rt.getString(builder, loc, rt.getSite(op));
    stubContext.in = rt.getInputPointer(builder, loc, operand);
    stubContext.dims = rt.getDims(builder, loc, operand);
    stubContext.groupSize = 1;
    for (size_t i = 2; i < group->size(); i += 3)
      stubContext.groupSize *= (*group)[i];
    CollectiveCall desc = describe(op, stubContext);

    auto [outBuffer, out] =
        rt.allocateOutput(builder, loc, resultType, stubContext.dims);
    desc.args[1] = out;
    rt.setDeviceOrder(builder, loc, op);
    func::FuncOp callee = rt.getFunction(desc.name, desc.types, {});
    func::CallOp::create(builder, loc, callee, desc.args);
    Value result = bufferization::ToTensorOp::create(
        builder, loc, resultType, outBuffer, /*restrict=*/true,
        /*writable=*/true);
    func::ReturnOp::create(builder, loc, result);
    return success();
  }

protected:
  virtual CollectiveCall describe(OpTy op, StubContext &c) const = 0;
};

struct AllReducePattern : CollectivePattern<comm::AllReduceOp> {
  using CollectivePattern::CollectivePattern;
  CollectiveCall describe(comm::AllReduceOp op, StubContext &c) const override {
    Type ptr = rt.getPtrType(), i32 = c.builder.getI32Type(),
         i64 = c.builder.getI64Type();
    return {"tessera_rt_all_reduce",
            {ptr, ptr, i64, i32, i32, ptr, i32, ptr},
            {c.in, Value(), rt.getNumElements(c.builder, c.loc, c.operand),
             c.constI32(c.dtype), c.constI32(getKindCode(op.getKind())),
             c.group, c.numParts, c.site}};
  }
};

struct AllGatherPattern : CollectivePattern<comm::AllGatherOp> {
  using CollectivePattern::CollectivePattern;
  CollectiveCall describe(comm::AllGatherOp op, StubContext &c) const override {
    Type ptr = rt.getPtrType(), i32 = c.builder.getI32Type(),
         i64 = c.builder.getI64Type();
    int64_t dim = op.getGatherDim();
    // A gather of the valid part of padded blocks names its size (a
    // function of its own: code compiled before it calls the other).
    if (std::optional<int64_t> valid = op.getValidSize()) {
      c.dims[dim] = arith::ConstantIndexOp::create(c.builder, c.loc, *valid);
      return {"tessera_rt_all_gather_valid",
              {ptr, ptr, ptr, i32, i32, i64, i64, ptr, i32, ptr},
              {c.in, Value(), rt.getShape(c.builder, c.loc, c.operand),
               c.constI32(c.operandType.getRank()), c.constI32(c.dtype),
               c.constI64(dim), c.constI64(*valid), c.group, c.numParts,
               c.site}};
    }
    CollectiveCall call{
        "tessera_rt_all_gather",
        {ptr, ptr, ptr, i32, i32, i64, ptr, i32, ptr},
        {c.in, Value(), rt.getShape(c.builder, c.loc, c.operand),
         c.constI32(c.operandType.getRank()), c.constI32(c.dtype),
         c.constI64(dim), c.group, c.numParts, c.site}};
    c.scale(dim, /*multiply=*/true);
    return call;
  }
};

struct ReduceScatterPattern : CollectivePattern<comm::ReduceScatterOp> {
  using CollectivePattern::CollectivePattern;
  CollectiveCall describe(comm::ReduceScatterOp op,
                          StubContext &c) const override {
    Type ptr = rt.getPtrType(), i32 = c.builder.getI32Type(),
         i64 = c.builder.getI64Type();
    int64_t dim = op.getScatterDim();
    CollectiveCall call{
        "tessera_rt_reduce_scatter",
        {ptr, ptr, ptr, i32, i32, i32, i64, ptr, i32, ptr},
        {c.in, Value(), rt.getShape(c.builder, c.loc, c.operand),
         c.constI32(c.operandType.getRank()), c.constI32(c.dtype),
         c.constI32(getKindCode(op.getKind())), c.constI64(dim), c.group,
         c.numParts, c.site}};
    c.scale(dim, /*multiply=*/false);
    return call;
  }
};

struct AllToAllPattern : CollectivePattern<comm::AllToAllOp> {
  using CollectivePattern::CollectivePattern;
  CollectiveCall describe(comm::AllToAllOp op, StubContext &c) const override {
    Type ptr = rt.getPtrType(), i32 = c.builder.getI32Type(),
         i64 = c.builder.getI64Type();
    int64_t split = op.getSplitDim(), concat = op.getConcatDim();
    CollectiveCall call{
        "tessera_rt_all_to_all",
        {ptr, ptr, ptr, i32, i32, i64, i64, ptr, i32, ptr},
        {c.in, Value(), rt.getShape(c.builder, c.loc, c.operand),
         c.constI32(c.operandType.getRank()), c.constI32(c.dtype),
         c.constI64(split), c.constI64(concat), c.group, c.numParts, c.site}};
    c.scale(split, /*multiply=*/false);
    c.scale(concat, /*multiply=*/true);
    return call;
  }
};

struct PermutePattern : CollectivePattern<comm::PermuteOp> {
  using CollectivePattern::CollectivePattern;
  CollectiveCall describe(comm::PermuteOp op, StubContext &c) const override {
    Type ptr = rt.getPtrType(), i32 = c.builder.getI32Type(),
         i64 = c.builder.getI64Type();
    Value bytes = arith::MulIOp::create(
        c.builder, c.loc, rt.getNumElements(c.builder, c.loc, c.operand),
        c.constI64(getElementBytes(c.operandType.getElementType())));
    return {"tessera_rt_permute",
            {ptr, ptr, i64, ptr, ptr, i32, ptr, i32, ptr},
            {c.in, Value(), bytes,
             rt.getI64Array(c.builder, c.loc, op.getSources()),
             rt.getI64Array(c.builder, c.loc, op.getTargets()),
             c.constI32(op.getSources().size()), c.group, c.numParts, c.site}};
  }
};

} // namespace

void populateCommToRuntimeConversionPatterns(RewritePatternSet &patterns,
                                             CommRuntimeLowering &lowering) {
  patterns.add<AxisSizePattern, AxisIndexPattern, AllReducePattern,
               AllGatherPattern, ReduceScatterPattern, AllToAllPattern,
               PermutePattern>(patterns.getContext(), lowering);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {

struct ConvertCommToRuntimePass
    : public impl::ConvertCommToRuntimePassBase<ConvertCommToRuntimePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    CommRuntimeLowering lowering(module);
    RewritePatternSet patterns(&getContext());
    populateCommToRuntimeConversionPatterns(patterns, lowering);
    bool lowerable = true;
    module.walk([&](comm::MeshAxesOpInterface op) {
      lowerable &= succeeded(lowering.checkLowerable(op));
    });
    if (!lowerable)
      return signalPassFailure();
    ConversionTarget target(getContext());
    target.addIllegalDialect<comm::CommDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    // The meshes were only needed to number the axes.
    for (auto mesh :
         llvm::make_early_inc_range(module.getOps<spmd::MeshOp>())) {
      if (!SymbolTable::symbolKnownUseEmpty(mesh, module))
        continue;
      mesh.erase();
    }
  }
};

} // namespace
} // namespace mlir::tessera
