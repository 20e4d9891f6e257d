//===- CommToRuntime.cpp - comm ops to runtime calls ----------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Lowers the collectives of a per-device program to calls of the runtime's
// C ABI (tessera/Runtime/Runtime.h). The rewrite happens on tensors: an
// operand becomes a read-only contiguous buffer, a result a fresh buffer the
// runtime writes, so one-shot bufferization sees ordinary buffer reads and
// writes around an opaque call.
//
//===----------------------------------------------------------------------===//

#include "tessera/Conversion/Passes.h"
#include "tessera/Conversion/RuntimeTypes.h"
#include "tessera/Dialect/Comm/IR/CommOps.h"
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

namespace {

/// The runtime's dtype code of `type`, or nullopt if it has none.
std::optional<int32_t> getDtypeCode(Type type) {
  if (std::optional<::tessera::rt::DType> dtype = getRuntimeDType(type))
    return static_cast<int32_t>(*dtype);
  return std::nullopt;
}

/// The bytes one element of `type` occupies in a buffer.
int64_t getElementBytes(Type type) {
  if (type.isIndex())
    return 8;
  return std::max<int64_t>(1, (type.getIntOrFloatBitWidth() + 7) / 8);
}

int32_t getKindCode(comm::ReductionKind kind) {
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

/// Builds the calls of one module; owns the constant globals it creates
/// (one per distinct group, shape or site).
class RuntimeCallBuilder {
public:
  explicit RuntimeCallBuilder(ModuleOp module)
      : module(module), ctx(module.getContext()),
        ptrType(LLVM::LLVMPointerType::get(ctx)) {}

  /// Declares the runtime function `name` if needed; returns its symbol.
  func::FuncOp getFunction(StringRef name, TypeRange inputs,
                           TypeRange results) {
    if (auto func = module.lookupSymbol<func::FuncOp>(name))
      return func;
    OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
    auto func = func::FuncOp::create(builder, module.getLoc(), name,
                                     FunctionType::get(ctx, inputs, results));
    func.setPrivate();
    return func;
  }

  /// A pointer to a constant i64 array holding `values`.
  Value getI64Array(OpBuilder &builder, Location loc,
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

  /// A pointer to the constant string `text` (null-terminated).
  Value getString(OpBuilder &builder, Location loc, StringRef text) {
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

  /// The address of the first element of a contiguous buffer.
  Value getPointer(OpBuilder &builder, Location loc, Value buffer) {
    Value index =
        memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, buffer);
    Value integer =
        arith::IndexCastOp::create(builder, loc, builder.getI64Type(), index);
    return LLVM::IntToPtrOp::create(builder, loc, ptrType, integer);
  }

  /// A pointer to the contiguous data of `tensor` (read only).
  Value getInputPointer(OpBuilder &builder, Location loc, Value tensor) {
    auto type = cast<RankedTensorType>(tensor.getType());
    auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
    Value buffer = bufferization::ToBufferOp::create(builder, loc, memrefType,
                                                     tensor, /*readOnly=*/true);
    return getPointer(builder, loc, buffer);
  }

  /// The sizes of the dims of `tensor` as index values.
  SmallVector<Value> getDims(OpBuilder &builder, Location loc, Value tensor) {
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

  /// A fresh contiguous buffer of `type` whose dynamic dims are those of
  /// `dims`; returns it with its pointer.
  std::pair<Value, Value> allocateOutput(OpBuilder &builder, Location loc,
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

  /// A pointer to the shape of `tensor` as an i64 array: a constant for a
  /// static shape, a stack array otherwise.
  Value getShape(OpBuilder &builder, Location loc, Value tensor) {
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

  /// The number of elements of `tensor` as an i64 value.
  Value getNumElements(OpBuilder &builder, Location loc, Value tensor) {
    auto type = cast<RankedTensorType>(tensor.getType());
    if (type.hasStaticShape())
      return arith::ConstantIntOp::create(builder, loc, type.getNumElements(),
                                          64);
    Value count = arith::ConstantIndexOp::create(builder, loc, 1);
    for (Value dim : getDims(builder, loc, tensor))
      count = arith::MulIOp::create(builder, loc, count, dim);
    return arith::IndexCastOp::create(builder, loc, builder.getI64Type(),
                                      count);
  }

  /// The group of `op` as (axis, pre-size, size) triples.
  FailureOr<SmallVector<int64_t>> getGroup(comm::MeshAxesOpInterface op) {
    spmd::MeshAttr mesh = op.resolveMesh(&symbols);
    if (!mesh)
      return op->emitOpError("unknown mesh: ") << op.getMeshAttr();
    SmallVector<int64_t> triples;
    for (spmd::AxisRefAttr axis : op.getAxisRefs()) {
      std::optional<unsigned> index = mesh.getAxisIndex(axis.getName());
      if (!index)
        return op->emitOpError("unknown axis '") << axis.getName() << "'";
      triples.push_back(*index);
      triples.push_back(axis.getPreSize());
      triples.push_back(axis.getSize(mesh));
    }
    return triples;
  }

  /// In a module whose meshes order the devices differently, a call that
  /// makes the runtime number the positions of `op`'s mesh with its order.
  void setDeviceOrder(OpBuilder &builder, Location loc,
                      comm::MeshAxesOpInterface op) {
    if (!orderedMesh)
      return;
    spmd::MeshAttr mesh = op.resolveMesh(&symbols);
    if (!mesh || !mesh.hasSameAxes(orderedMesh))
      return;
    SmallVector<int64_t> ids = mesh.getDeviceIdsOrIota();
    Value order = getI64Array(builder, loc, ids);
    Value count = arith::ConstantIntOp::create(builder, loc, ids.size(), 64);
    func::FuncOp callee = getFunction("tessera_rt_set_device_order",
                                      {ptrType, builder.getI64Type()}, {});
    func::CallOp::create(builder, loc, callee, ValueRange{order, count});
  }

  /// Set if the module's meshes with this mesh's axes order the devices
  /// differently: then every call over one of them names its mesh's order.
  spmd::MeshAttr orderedMesh;

  /// `comm.<op> at "file":line:col`, for the runtime's diagnostics.
  std::string getSite(Operation *op) {
    std::string site = op->getName().getStringRef().str() + " at ";
    llvm::raw_string_ostream os(site);
    if (auto file = dyn_cast<FileLineColLoc>(op->getLoc()))
      os << '"' << file.getFilename().getValue() << "\":" << file.getLine()
         << ':' << file.getColumn();
    else
      op->getLoc().print(os);
    return site;
  }

  /// A private function `(operand) -> (result)` with an empty entry block,
  /// named after the op (`__tessera_comm_all_reduce_0`), for the call that
  /// replaces `op`.
  func::FuncOp createStub(Operation *op, Type operand, Type result) {
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

  Type getPtrType() const { return ptrType; }

private:
  ModuleOp module;
  MLIRContext *ctx;
  Type ptrType;
  SymbolTableCollection symbols;
  llvm::StringMap<LLVM::GlobalOp> arrays;
  llvm::StringMap<std::string> strings;
  unsigned stubs = 0;
};

LogicalResult lowerCollective(RuntimeCallBuilder &rt, Operation *op) {
  auto meshOp = cast<comm::MeshAxesOpInterface>(op);
  OpBuilder builder(op);
  Location loc = op->getLoc();
  Type i32 = builder.getI32Type(), i64 = builder.getI64Type();
  Type ptr = rt.getPtrType();
  auto constI32 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(builder, loc, v, 32);
  };
  auto constI64 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(builder, loc, v, 64);
  };

  FailureOr<SmallVector<int64_t>> group = rt.getGroup(meshOp);
  if (failed(group))
    return failure();
  if (auto size = dyn_cast<comm::AxisSizeOp>(op)) {
    int64_t total = 1;
    for (size_t i = 2; i < group->size(); i += 3)
      total *= (*group)[i];
    Value value;
    if (size.getType().isIndex())
      value = arith::ConstantIndexOp::create(builder, loc, total);
    else
      value = arith::ConstantIntOp::create(builder, loc, size.getType(), total);
    op->getResult(0).replaceAllUsesWith(value);
    op->erase();
    return success();
  }
  if (auto index = dyn_cast<comm::AxisIndexOp>(op)) {
    rt.setDeviceOrder(builder, loc, meshOp);
    Value groupPtr = rt.getI64Array(builder, loc, *group);
    Value numParts = constI32(group->size() / 3);
    func::FuncOp callee =
        rt.getFunction("tessera_rt_axis_index", {ptr, i32}, {i64});
    Value value = func::CallOp::create(builder, loc, callee,
                                       ValueRange{groupPtr, numParts})
                      .getResult(0);
    if (index.getType().isIndex())
      value = arith::IndexCastOp::create(builder, loc, index.getType(), value);
    else if (index.getType() != i64)
      value = arith::TruncIOp::create(builder, loc, index.getType(), value);
    op->getResult(0).replaceAllUsesWith(value);
    op->erase();
    return success();
  }

  // A collective moves buffers: it becomes a call of a private function
  // that takes the operand tensor and returns the result tensor, so that
  // bufferization and deallocation see the buffers used by that call (the
  // runtime receives raw pointers, which they cannot track).
  auto operandType = cast<RankedTensorType>(op->getOperand(0).getType());
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  Type elementType = operandType.getElementType();
  std::optional<int32_t> dtype = getDtypeCode(elementType);
  if (!dtype)
    return op->emitOpError("element type ")
           << elementType << " is not supported by the runtime";
  func::FuncOp stub = rt.createStub(op, operandType, resultType);
  auto call = func::CallOp::create(builder, loc, stub, op->getOperand(0));
  op->getResult(0).replaceAllUsesWith(call.getResult(0));
  builder.setInsertionPointToStart(&stub.getBody().front());
  Value operand = stub.getArgument(0);
  Value groupPtr = rt.getI64Array(builder, loc, *group);
  Value numParts = constI32(group->size() / 3);
  Value site = rt.getString(builder, loc, rt.getSite(op));
  Value in = rt.getInputPointer(builder, loc, operand);

  // The result's dims: the operand's, with the collective's changes.
  SmallVector<Value> dims = rt.getDims(builder, loc, operand);
  auto scale = [&](int64_t d, int64_t factor, bool multiply) {
    Value f = arith::ConstantIndexOp::create(builder, loc, factor);
    dims[d] =
        multiply ? arith::MulIOp::create(builder, loc, dims[d], f).getResult()
                 : arith::DivUIOp::create(builder, loc, dims[d], f).getResult();
  };
  int64_t groupSize = 1;
  for (size_t i = 2; i < group->size(); i += 3)
    groupSize *= (*group)[i];

  SmallVector<Value> args;
  StringRef name;
  SmallVector<Type> types;
  if (auto allReduce = dyn_cast<comm::AllReduceOp>(op)) {
    name = "tessera_rt_all_reduce";
    types = {ptr, ptr, i64, i32, i32, ptr, i32, ptr};
    args = {in,
            Value(),
            rt.getNumElements(builder, loc, operand),
            constI32(*dtype),
            constI32(getKindCode(allReduce.getKind())),
            groupPtr,
            numParts,
            site};
  } else if (auto gather = dyn_cast<comm::AllGatherOp>(op)) {
    name = "tessera_rt_all_gather";
    types = {ptr, ptr, ptr, i32, i32, i64, ptr, i32, ptr};
    int64_t dim = gather.getGatherDim();
    args = {in,
            Value(),
            rt.getShape(builder, loc, operand),
            constI32(operandType.getRank()),
            constI32(*dtype),
            constI64(dim),
            groupPtr,
            numParts,
            site};
    scale(dim, groupSize, /*multiply=*/true);
  } else if (auto scatter = dyn_cast<comm::ReduceScatterOp>(op)) {
    name = "tessera_rt_reduce_scatter";
    types = {ptr, ptr, ptr, i32, i32, i32, i64, ptr, i32, ptr};
    int64_t dim = scatter.getScatterDim();
    args = {in,
            Value(),
            rt.getShape(builder, loc, operand),
            constI32(operandType.getRank()),
            constI32(*dtype),
            constI32(getKindCode(scatter.getKind())),
            constI64(dim),
            groupPtr,
            numParts,
            site};
    scale(dim, groupSize, /*multiply=*/false);
  } else if (auto allToAll = dyn_cast<comm::AllToAllOp>(op)) {
    name = "tessera_rt_all_to_all";
    types = {ptr, ptr, ptr, i32, i32, i64, i64, ptr, i32, ptr};
    int64_t split = allToAll.getSplitDim(), concat = allToAll.getConcatDim();
    args = {in,
            Value(),
            rt.getShape(builder, loc, operand),
            constI32(operandType.getRank()),
            constI32(*dtype),
            constI64(split),
            constI64(concat),
            groupPtr,
            numParts,
            site};
    scale(split, groupSize, /*multiply=*/false);
    scale(concat, groupSize, /*multiply=*/true);
  } else if (auto permute = dyn_cast<comm::PermuteOp>(op)) {
    name = "tessera_rt_permute";
    types = {ptr, ptr, i64, ptr, ptr, i32, ptr, i32, ptr};
    Value bytes = arith::MulIOp::create(
        builder, loc, rt.getNumElements(builder, loc, operand),
        constI64(getElementBytes(elementType)));
    args = {in,
            Value(),
            bytes,
            rt.getI64Array(builder, loc, permute.getSources()),
            rt.getI64Array(builder, loc, permute.getTargets()),
            constI32(permute.getSources().size()),
            groupPtr,
            numParts,
            site};
  } else {
    return op->emitOpError("has no runtime lowering");
  }

  auto [outBuffer, out] = rt.allocateOutput(builder, loc, resultType, dims);
  args[1] = out;
  rt.setDeviceOrder(builder, loc, meshOp);
  func::FuncOp callee = rt.getFunction(name, types, {});
  func::CallOp::create(builder, loc, callee, args);
  Value result = bufferization::ToTensorOp::create(builder, loc, resultType,
                                                   outBuffer, /*restrict=*/true,
                                                   /*writable=*/true);
  func::ReturnOp::create(builder, loc, result);
  op->erase();
  return success();
}

struct ConvertCommToRuntimePass
    : public impl::ConvertCommToRuntimePassBase<ConvertCommToRuntimePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    RuntimeCallBuilder rt(module);
    // Meshes over the same devices in different orders (a reshard between
    // them is a permute): the runtime numbers positions per call.
    spmd::MeshAttr first;
    for (auto mesh : module.getOps<spmd::MeshOp>()) {
      spmd::MeshAttr attr = mesh.getMesh();
      if (attr.getAxes().empty())
        continue;
      if (!first)
        first = attr;
      else if (first.hasSameAxes(attr) &&
               first.getDeviceIdsOrIota() != attr.getDeviceIdsOrIota())
        rt.orderedMesh = first;
    }
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<comm::CommDialect>(op->getDialect()))
        ops.push_back(op);
    });
    for (Operation *op : ops)
      if (failed(lowerCollective(rt, op)))
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
