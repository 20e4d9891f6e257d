//===- VectorLayout.cpp - vector layouts of kernel bodies -----------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Native tilings, and the ops the layout passes rewrite onto tiles (shared by
// kernel-verify, kernel-infer-vector-layout and kernel-apply-vector-layout).
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Kernel/Transforms/VectorLayout.h"

#include "tessera/Dialect/Kernel/IR/KernelOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::kernel;

/// The tile of a dimension of `size` for a native size `native`: `native`
/// if it divides `size`, `size` if smaller, else the largest divisor of
/// `size` below `native`.
static int64_t fitTile(int64_t size, int64_t native) {
  if (size % native == 0)
    return native;
  if (size < native)
    return size;
  for (int64_t d = native - 1; d > 1; --d)
    if (size % d == 0)
      return d;
  return 1;
}

VectorLayoutAttr mlir::tessera::kernel::getNativeLayout(VectorType type,
                                                        unsigned bitwidth) {
  if (type.getRank() == 0)
    return nullptr;
  if (bitwidth == 0) {
    Type element = type.getElementType();
    bitwidth = element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 32;
  }
  // Masks and elements of at least 32 bits fill a register with 8 x 128;
  // narrower types pack 32 / bitwidth elements into each 32-bit slot.
  int64_t packing = bitwidth >= 32 || bitwidth == 1 ? 1 : 32 / bitwidth;
  ArrayRef<int64_t> shape = type.getShape();
  MLIRContext *context = type.getContext();
  if (type.getRank() == 1)
    return VectorLayoutAttr::get(context,
                                 {fitTile(shape[0], kNativeLanes * packing)});
  int64_t rank = type.getRank();
  return VectorLayoutAttr::get(
      context, {fitTile(shape[rank - 2], kNativeSublanes * packing),
                fitTile(shape[rank - 1], kNativeLanes)});
}

VectorLayoutAttr mlir::tessera::kernel::getAssignedLayout(Value value) {
  Operation *owner = value.getDefiningOp();
  unsigned index = 0;
  if (auto result = dyn_cast<OpResult>(value)) {
    index = result.getResultNumber();
  } else {
    // The iteration arguments of an scf.for take the layouts of its results.
    auto arg = cast<BlockArgument>(value);
    auto loop = dyn_cast_or_null<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!loop || arg.getArgNumber() == 0)
      return nullptr;
    owner = loop;
    index = arg.getArgNumber() - 1;
  }
  auto layouts =
      owner->getAttrOfType<ArrayAttr>(KernelDialect::getOutLayoutsAttrName());
  if (!layouts || index >= layouts.size())
    return nullptr;
  return dyn_cast<VectorLayoutAttr>(layouts[index]);
}

bool mlir::tessera::kernel::spansTiles(VectorType type,
                                       VectorLayoutAttr layout) {
  return layout && layout.getNumTiles(type.getShape()) > 1;
}

bool mlir::tessera::kernel::spansNativeTiles(Type type) {
  auto vector = dyn_cast<VectorType>(type);
  return vector && spansTiles(vector, getNativeLayout(vector));
}

//===----------------------------------------------------------------------===//
// Support
//===----------------------------------------------------------------------===//

/// True if the layout passes rewrite `op` onto tiles when it takes or makes
/// a vector of several tiles.
static bool isRewrittenOnTiles(Operation *op) {
  if (OpTrait::hasElementwiseMappableTraits(op) && op->getNumRegions() == 0 &&
      op->getNumResults() == 1)
    return true;
  return isa<arith::ConstantOp, LoadOp, StoreOp, vector::BroadcastOp,
             vector::ShapeCastOp, vector::TransposeOp,
             vector::MultiDimReductionOp, vector::ReductionOp,
             vector::ContractionOp, vector::ExtractOp,
             vector::ExtractStridedSliceOp, vector::InsertOp,
             vector::InsertStridedSliceOp, vector::StepOp, vector::CreateMaskOp,
             vector::ConstantMaskOp, scf::ForOp, scf::IfOp, scf::YieldOp>(op);
}

/// Checks the element types of a contraction, which lowers to a matmul on
/// the MXU: floats into an f32 accumulator, or integers into an i32 one
/// (signed, as JAX's dot_general reads integers).
static LogicalResult checkContraction(vector::ContractionOp contract) {
  Type lhs = getElementTypeOrSelf(contract.getLhsType());
  Type rhs = getElementTypeOrSelf(contract.getRhsType());
  Type acc = getElementTypeOrSelf(contract.getAccType());
  if (!acc.isIntOrFloat() || acc.getIntOrFloatBitWidth() != 32)
    return contract.emitOpError()
           << "Expected matmul acc to be 32-bit, got " << acc;
  bool floats =
      isa<FloatType>(lhs) && isa<FloatType>(rhs) && isa<FloatType>(acc);
  bool ints =
      isa<IntegerType>(lhs) && isa<IntegerType>(rhs) && isa<IntegerType>(acc);
  if (!floats && !ints)
    return contract.emitOpError()
           << "Not implemented: matmul of " << lhs << " and " << rhs << " into "
           << acc
           << " (the operands and the accumulator must all be floats or all "
              "integers)";
  return success();
}

LogicalResult
mlir::tessera::kernel::verifyVectorLayoutSupport(func::FuncOp body) {
  WalkResult result = body.walk<WalkOrder::PreOrder>([&](Operation *op) {
    auto isScalable = [](Type type) {
      auto vector = dyn_cast<VectorType>(type);
      return vector && vector.isScalable();
    };
    if (llvm::any_of(op->getOperandTypes(), isScalable) ||
        llvm::any_of(op->getResultTypes(), isScalable)) {
      op->emitOpError() << "Not implemented: scalable vectors in a kernel body";
      return WalkResult::interrupt();
    }
    if (auto contract = dyn_cast<vector::ContractionOp>(op))
      if (failed(checkContraction(contract)))
        return WalkResult::interrupt();
    Type spanning;
    for (Type type :
         llvm::concat<Type>(SmallVector<Type>(op->getOperandTypes()),
                            SmallVector<Type>(op->getResultTypes())))
      if (spansNativeTiles(type)) {
        spanning = type;
        break;
      }
    if (!spanning || isRewrittenOnTiles(op))
      return WalkResult::advance();
    auto vector = cast<VectorType>(spanning);
    VectorLayoutAttr layout = getNativeLayout(vector);
    InFlightDiagnostic diag = op->emitOpError();
    diag << "Unimplemented primitive in Pallas TPU lowering for tc: "
         << op->getName() << " on " << vector << " ("
         << layout.getNumTiles(vector.getShape()) << " native tiles of (";
    llvm::interleaveComma(layout.getTiling(), diag);
    diag << "))";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

void mlir::tessera::kernel::forEachVectorRow(
    ArrayRef<int64_t> shape, function_ref<void(ArrayRef<int64_t>)> fn) {
  ArrayRef<int64_t> leading = shape.drop_back();
  if (llvm::any_of(leading, [](int64_t d) { return d == 0; }))
    return;
  SmallVector<int64_t> position(leading.size(), 0);
  while (true) {
    fn(position);
    int64_t d = static_cast<int64_t>(leading.size()) - 1;
    for (; d >= 0; --d) {
      if (++position[d] < leading[d])
        break;
      position[d] = 0;
    }
    if (d < 0)
      return;
  }
}

SmallVector<Value>
mlir::tessera::kernel::getVectorRowIndices(OpBuilder &b, Location loc,
                                           ValueRange indices,
                                           ArrayRef<int64_t> position) {
  SmallVector<Value> result(indices.begin(), indices.end());
  size_t first = indices.size() - position.size() - 1;
  for (auto [k, p] : llvm::enumerate(position))
    if (p != 0)
      result[first + k] = arith::AddIOp::create(
          b, loc, result[first + k], arith::ConstantIndexOp::create(b, loc, p));
  return result;
}

SmallVector<func::FuncOp>
mlir::tessera::kernel::getKernelBodies(ModuleOp module) {
  SymbolTable symbols(module);
  llvm::SetVector<Operation *> bodies;
  module.walk([&](CallOp call) {
    auto body = symbols.lookup<func::FuncOp>(call.getCallee());
    if (body && !body.isExternal())
      bodies.insert(body);
  });
  SmallVector<func::FuncOp> result;
  for (Operation &op : module.getBody()->getOperations())
    if (bodies.contains(&op))
      result.push_back(cast<func::FuncOp>(op));
  return result;
}
