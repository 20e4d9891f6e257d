//===- KernelVerify.cpp - check kernels against a TPU generation ----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The `kernel-verify` pass: the rules Pallas's TPU lowering, Mosaic and XLA
// enforce when a kernel is compiled for a TPU generation, checked statically
// on `kernel.call`s and their bodies. Messages reuse JAX's and Mosaic's
// wording where they have one, so users recognize them; the Pallas "origin"
// of a block is `args[i]` (i counts every operand of the call) or
// `outputs[i]`.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Kernel/Transforms/Passes.h"

#include "tessera/Dialect/Kernel/IR/KernelDialect.h"
#include "tessera/Dialect/Kernel/IR/KernelOps.h"
#include "tessera/Dialect/Kernel/Transforms/VectorLayout.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"

#include <limits>
#include <map>
#include <vector>

namespace mlir::tessera::kernel {
#define GEN_PASS_DEF_KERNELVERIFYPASS
#include "tessera/Dialect/Kernel/Transforms/Passes.h.inc"
} // namespace mlir::tessera::kernel

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::kernel;

/// Grids with more points than this are not enumerated by the revisit
/// checks.
static constexpr int64_t kMaxEnumeratedGridPoints = int64_t(1) << 20;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// A size as XLA prints it in its memory errors: `37.22M`, `512.00K`, `96B`.
static std::string formatBytes(int64_t bytes) {
  std::string result;
  llvm::raw_string_ostream os(result);
  if (bytes >= 1024 * 1024)
    os << llvm::format("%.2fM", bytes / (1024.0 * 1024.0));
  else if (bytes >= 1024)
    os << llvm::format("%.2fK", bytes / 1024.0);
  else
    os << bytes << "B";
  return result;
}

/// `a * b`, saturated at the largest int64_t (sizes never overflow into a
/// budget that passes).
static int64_t saturatingMul(int64_t a, int64_t b) {
  int64_t result;
  if (llvm::MulOverflow(a, b, result))
    return std::numeric_limits<int64_t>::max();
  return result;
}

static int64_t product(ArrayRef<int64_t> values) {
  int64_t result = 1;
  for (int64_t value : values)
    result = saturatingMul(result, value);
  return result;
}

/// Bytes of a VMEM buffer of `shape` x `elementType` once padded to the TPU
/// memory tiling: the last dimension to 128 lanes, the second-minor to the
/// sublane tiling of the element width; a rank-1 buffer to chunks of
/// 128 * packing elements.
static int64_t getVmemBytes(ArrayRef<int64_t> shape, Type elementType,
                            const TpuInfo &info) {
  unsigned bits = getStorageBitWidth(elementType);
  if (bits == 0)
    bits = 32;
  int64_t packing = bits >= 32 ? 1 : 32 / bits;
  int64_t elements;
  if (shape.empty()) {
    elements = packing;
  } else if (shape.size() == 1) {
    elements = llvm::alignTo(shape[0], TpuInfo::kLanes * packing);
  } else {
    int64_t lanes = llvm::alignTo(shape.back(), TpuInfo::kLanes);
    int64_t sublanes =
        llvm::alignTo(shape[shape.size() - 2], info.getSublaneTiling(bits));
    elements = saturatingMul(
        saturatingMul(product(shape.drop_back(2)), sublanes), lanes);
  }
  return llvm::divideCeil(saturatingMul(elements, bits), 8);
}

/// Bytes of an SMEM buffer: one 32-bit word per element at least.
static int64_t getSmemBytes(ArrayRef<int64_t> shape, Type elementType) {
  unsigned bits = std::max(getStorageBitWidth(elementType), 32u);
  return saturatingMul(product(shape), bits / 8);
}

/// Evaluates an affine expression without symbols at `dims`.
static int64_t evaluate(AffineExpr expr, ArrayRef<int64_t> dims) {
  if (auto constant = dyn_cast<AffineConstantExpr>(expr))
    return constant.getValue();
  if (auto dim = dyn_cast<AffineDimExpr>(expr))
    return dims[dim.getPosition()];
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!binary)
    return 0;
  int64_t lhs = evaluate(binary.getLHS(), dims);
  int64_t rhs = evaluate(binary.getRHS(), dims);
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return lhs + rhs;
  case AffineExprKind::Mul:
    return lhs * rhs;
  case AffineExprKind::Mod:
    return rhs > 0 ? llvm::mod(lhs, rhs) : (rhs == 0 ? 0 : lhs % rhs);
  case AffineExprKind::FloorDiv:
    return rhs == 0 ? 0 : llvm::divideFloorSigned(lhs, rhs);
  case AffineExprKind::CeilDiv:
    return rhs == 0 ? 0 : llvm::divideCeilSigned(lhs, rhs);
  default:
    return 0;
  }
}

/// Advances `point` to the next grid point in lexicographic order (last
/// axis fastest); false after the last one.
static bool nextPoint(SmallVectorImpl<int64_t> &point, ArrayRef<int64_t> grid) {
  for (int64_t axis = static_cast<int64_t>(grid.size()) - 1; axis >= 0;
       --axis) {
    if (++point[axis] < grid[axis])
      return true;
    point[axis] = 0;
  }
  return false;
}

/// The element ranges of the block with indices `indices`: `[0:8, 0:128]`
/// (a squeezed dimension is its index alone).
static std::string formatBlockRange(BlockAttr block,
                                    ArrayRef<int64_t> arrayShape,
                                    ArrayRef<int64_t> indices) {
  std::string result = "[";
  llvm::raw_string_ostream os(result);
  SmallVector<int64_t> shape = block.getBlockShape(arrayShape);
  for (auto [i, index] : llvm::enumerate(indices)) {
    if (i != 0)
      os << ", ";
    BlockDim dim =
        block.getFull() ? BlockDim::blocked(shape[i]) : block.getDims()[i];
    if (dim.isSqueezed()) {
      os << index;
      continue;
    }
    int64_t start = dim.isElement() ? index : index * dim.size;
    os << start << ":" << start + dim.size;
  }
  os << "]";
  return result;
}

/// The element types Mosaic supports on `info`'s generation.
static bool isSupportedElementType(Type type, const TpuInfo &info) {
  if (auto intType = dyn_cast<IntegerType>(type)) {
    unsigned width = intType.getWidth();
    return width == 1 || width == 8 || width == 16 || width == 32 ||
           (width == 4 && info.supportsFp8AndInt4);
  }
  if (type.isF32() || type.isBF16())
    return true;
  if (auto floatType = dyn_cast<FloatType>(type))
    return floatType.getWidth() == 8 && info.supportsFp8AndInt4;
  return false;
}

//===----------------------------------------------------------------------===//
// Checks of one kernel.call
//===----------------------------------------------------------------------===//

namespace {

/// One buffer counted against a memory budget.
struct Allocation {
  std::string what;
  int64_t bytes;
  int64_t count;
};

/// Checks one `kernel.call` and the parts of its body that depend on it.
class CallChecker {
public:
  CallChecker(CallOp call, func::FuncOp body, TargetAttr target,
              bool emitFootprints)
      : call(call), body(body), target(target), emitFootprints(emitFootprints) {
  }

  /// Runs every check; false if any failed (each reported its error).
  bool run() {
    bool ok = true;
    ok &= succeeded(checkGridSemantics());
    ok &= succeeded(checkBlocks());
    if (target) {
      ok &= succeeded(checkElementTypes());
      ok &= succeeded(checkBudgets());
    }
    ok &= succeeded(checkBlockIndices());
    ok &= succeeded(checkRevisits());
    ok &= succeeded(checkGridQueries());
    return ok;
  }

private:
  LogicalResult checkGridSemantics();
  LogicalResult checkBlocks();
  LogicalResult checkBlock(unsigned i);
  LogicalResult checkElementTypes();
  LogicalResult checkBudgets();
  LogicalResult checkBudget(StringRef spaceName, int64_t limit,
                            ArrayRef<Allocation> allocations,
                            StringRef limitNote);
  /// `allocations` as `what: 2 x 4.00K; ...`, and their total in `total`.
  static std::string describeAllocations(ArrayRef<Allocation> allocations,
                                         int64_t &total);
  LogicalResult checkRevisits();
  LogicalResult checkRevisits(unsigned output);
  LogicalResult checkGridQueries();
  LogicalResult checkBlockIndices();
  LogicalResult checkBlockIndices(unsigned i);

  /// JAX's description of a block spec, appended to its block errors.
  std::string describeBlock(unsigned i);

  CallOp call;
  func::FuncOp body;
  TargetAttr target;
  /// Emit a remark with the footprints (the pass's `footprints` option).
  bool emitFootprints;
};

} // namespace

LogicalResult CallChecker::checkGridSemantics() {
  SmallVector<DimensionSemantics> semantics = call.getGridSemantics();
  bool seenArbitrary = false;
  for (DimensionSemantics value : semantics) {
    if (value == DimensionSemantics::Arbitrary) {
      seenArbitrary = true;
      continue;
    }
    if (seenArbitrary) {
      InFlightDiagnostic diag =
          call.emitOpError() << "Dimensions with parallel semantics must form "
                                "a prefix of the grid: dimension_semantics = [";
      llvm::interleaveComma(semantics, diag, [&](DimensionSemantics s) {
        diag << stringifyDimensionSemantics(s);
      });
      diag << "]";
      return diag;
    }
  }
  return success();
}

std::string CallChecker::describeBlock(unsigned i) {
  auto [block, type] = call.getBlocked(i);
  std::string result;
  llvm::raw_string_ostream os(result);
  os << "Block spec for " << call.getBlockedName(i) << " in kernel.call @"
     << call.getCallee() << " has block shape "
     << formatBlockShape(block, type.getShape()) << ", array shape "
     << formatShape(type.getShape()) << ", and index_map "
     << formatIndexMap(block) << ", in memory space "
     << stringifyMemorySpace(block.getMemorySpace());
  return result;
}

LogicalResult CallChecker::checkBlocks() {
  bool ok = true;
  for (unsigned i = 0, e = call.getNumBlocked(); i < e; ++i)
    ok &= succeeded(checkBlock(i));
  return success(ok);
}

LogicalResult CallChecker::checkBlock(unsigned i) {
  auto [block, type] = call.getBlocked(i);
  ArrayRef<int64_t> arrayShape = type.getShape();
  bool trivial = block.isTrivialWindow(arrayShape);
  if (block.getMemorySpace() == MemorySpace::Smem && trivial)
    return success();

  SmallVector<int64_t> blockShape = block.getBlockShape(arrayShape);
  int64_t rank = blockShape.size();
  if (rank < 1)
    return call.emitOpError() << "The Pallas TPU lowering currently supports "
                                 "only blocks of rank >= 1. "
                              << describeBlock(i);

  if (block.isRawMemory() && !trivial)
    return call.emitOpError()
           << "The Pallas TPU lowering currently supports in memory space ANY "
              "only blocks having the same block shape as the array shape and "
              "a trivial index_map (returning all 0s). "
           << describeBlock(i);

  if (block.hasElementDims() &&
      llvm::any_of(block.getDims(), [](const BlockDim &dim) {
        return !dim.isElement() && !dim.isSqueezed();
      }))
    return call.emitOpError() << "All block dimensions must be Elements or "
                                 "none of them can be Elements. "
                              << describeBlock(i);

  int64_t bs0 = blockShape[rank - 1], as0 = arrayShape[rank - 1];
  if (rank >= 2) {
    int64_t bs1 = blockShape[rank - 2], as1 = arrayShape[rank - 2];
    bool divisible =
        (bs0 == as0 || bs0 % 128 == 0) && (bs1 == as1 || bs1 % 8 == 0);
    if (!divisible)
      return call.emitOpError()
             << "The Pallas TPU lowering currently requires that the last two "
                "dimensions of your block shape are divisible by 8 and 128 "
                "respectively, or be equal to the respective dimensions of "
                "the overall array. "
             << describeBlock(i);
  } else {
    unsigned bits = getStorageBitWidth(type.getElementType());
    int64_t packing = bits == 0 || bits >= 32 ? 1 : 32 / bits;
    int64_t chunk = TpuInfo::kSublanes * TpuInfo::kLanes;
    int64_t minTiling = TpuInfo::kLanes * packing;
    bool feasible = bs0 == as0 || bs0 % chunk == 0 ||
                    (bs0 >= minTiling && llvm::isPowerOf2_64(bs0));
    if (!feasible)
      return call.emitOpError()
             << "The Pallas TPU lowering currently requires that rank 1 block "
                "shapes, either 1) the first (and only) dimension of the block "
                "shape is equal to the first (and only) dimension of the array "
                "shape, or 2) the first (and only) dimension of the block "
                "shape is a multiple of "
             << chunk
             << ", or 3) the first (and only) dimension of the block shape is "
                "a power of 2 and at least the tiling size ("
             << minTiling << " = 128 * (32 // " << (bits == 0 ? 32 : bits)
             << ")) of the array shape. " << describeBlock(i);
  }

  if (call.getGrid().empty() && !trivial)
    return call.emitOpError()
           << "Non-trivial windowing is not supported for grid-free "
              "pallas_call. "
           << describeBlock(i);
  return success();
}

LogicalResult CallChecker::checkElementTypes() {
  const TpuInfo &info = target.getInfo();
  auto check = [&](Type elementType, const std::string &what) -> LogicalResult {
    if (isSemaphoreType(elementType) ||
        isSupportedElementType(elementType, info))
      return success();
    if (getStorageBitWidth(elementType) == 64)
      return call.emitOpError() << "64-bit types are not supported: " << what
                                << " has element type " << elementType;
    return call.emitOpError()
           << "element type " << elementType << " of " << what
           << " is not supported on TPU " << info.generation
           << " (supported: f32, bf16, i32, i16, i8 and i1 of any signedness"
           << (info.supportsFp8AndInt4 ? StringRef(", fp8 and i4")
                                       : StringRef("; fp8 and i4 from v5e on"))
           << ")";
  };
  for (auto [i, operand] : llvm::enumerate(call.getOperands()))
    if (failed(check(cast<RankedTensorType>(operand.getType()).getElementType(),
                     "args[" + std::to_string(i) + "]")))
      return failure();
  for (auto [i, result] : llvm::enumerate(call.getResults()))
    if (failed(check(cast<RankedTensorType>(result.getType()).getElementType(),
                     "outputs[" + std::to_string(i) + "]")))
      return failure();
  for (auto [i, type] : llvm::enumerate(call.getScratchTypes()))
    if (failed(check(type.getElementType(),
                     "scratch buffer " + std::to_string(i))))
      return failure();
  WalkResult walk = body.walk([&](RunScopedOp scoped) {
    for (BlockArgument arg : scoped.getBody().getArguments())
      if (auto type = dyn_cast<MemRefType>(arg.getType()))
        if (failed(check(type.getElementType(),
                         "a kernel.run_scoped buffer of the body")))
          return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// The peak bytes of `space` allocated by the `kernel.run_scoped`s in
/// `region`: nested scopes add up, sibling scopes reuse the memory.
static int64_t getScopedPeak(Region &region, MemorySpace space,
                             const TpuInfo &info) {
  int64_t peak = 0;
  for (Block &block : region)
    for (Operation &op : block) {
      int64_t own = 0;
      if (auto scoped = dyn_cast<RunScopedOp>(op)) {
        for (BlockArgument arg : scoped.getBody().getArguments()) {
          auto type = dyn_cast<MemRefType>(arg.getType());
          if (!type || getMemorySpace(type) != space)
            continue;
          own +=
              space == MemorySpace::Vmem
                  ? getVmemBytes(type.getShape(), type.getElementType(), info)
                  : getSmemBytes(type.getShape(), type.getElementType());
        }
      }
      int64_t nested = 0;
      for (Region &inner : op.getRegions())
        nested = std::max(nested, getScopedPeak(inner, space, info));
      peak = std::max(peak, own + nested);
    }
  return peak;
}

LogicalResult CallChecker::checkBudgets() {
  const TpuInfo &info = target.getInfo();
  SmallVector<Allocation> vmem, smem;
  unsigned numInputs = call.getBlockedOperands().size();
  for (auto [i, operand] : llvm::enumerate(call.getPrefetchOperands())) {
    auto type = cast<RankedTensorType>(operand.getType());
    smem.push_back({"scalar prefetch operand " + std::to_string(i),
                    getSmemBytes(type.getShape(), type.getElementType()), 1});
  }
  for (unsigned i = 0, e = call.getNumBlocked(); i < e; ++i) {
    auto [block, type] = call.getBlocked(i);
    if (block.isRawMemory())
      continue;
    SmallVector<int64_t> window = block.getWindowShape(type.getShape());
    int64_t buffers =
        block.isTrivialWindow(type.getShape()) ? 1 : block.getBuffers();
    std::string what = i < numInputs
                           ? "input window allocation for operator input " +
                                 std::to_string(call.getScalarPrefetch() + i)
                           : "output window allocation for operator output " +
                                 std::to_string(i - numInputs);
    if (block.getMemorySpace() == MemorySpace::Vmem)
      vmem.push_back(
          {what, getVmemBytes(window, type.getElementType(), info), buffers});
    else
      smem.push_back(
          {what, getSmemBytes(window, type.getElementType()), buffers});
  }
  for (auto [i, type] : llvm::enumerate(call.getScratchTypes())) {
    std::string what =
        "scratch allocation for scratch operand " + std::to_string(i);
    std::optional<MemorySpace> space = getMemorySpace(type);
    if (space == MemorySpace::Vmem)
      vmem.push_back(
          {what, getVmemBytes(type.getShape(), type.getElementType(), info),
           1});
    else if (space == MemorySpace::Smem)
      smem.push_back(
          {what, getSmemBytes(type.getShape(), type.getElementType()), 1});
  }
  if (int64_t peak = getScopedPeak(body.getBody(), MemorySpace::Vmem, info))
    vmem.push_back({"kernel.run_scoped allocations (peak)", peak, 1});
  if (int64_t peak = getScopedPeak(body.getBody(), MemorySpace::Smem, info))
    smem.push_back({"kernel.run_scoped allocations (peak)", peak, 1});

  std::string vmemNote;
  int64_t vmemLimit = info.defaultScopedVmemBytes;
  if (std::optional<int64_t> limit = call.getVmemLimitBytes()) {
    if (*limit > info.vmemBytes)
      return call.emitOpError()
             << "vmem_limit_bytes = " << *limit << " (" << formatBytes(*limit)
             << ") exceeds the " << formatBytes(info.vmemBytes)
             << " of VMEM of one TensorCore of TPU " << info.generation;
    vmemLimit = *limit;
    vmemNote = "the limit is vmem_limit_bytes";
  } else {
    vmemNote = "the limit is the default scoped VMEM limit of TPU " +
               info.generation.str() +
               "; vmem_limit_bytes raises it up to the " +
               formatBytes(info.vmemBytes) + " of VMEM of one TensorCore";
  }
  if (failed(checkBudget("vmem", vmemLimit, vmem, vmemNote)) ||
      failed(checkBudget("smem", info.smemBytes, smem,
                         "the limit is the SMEM of one TensorCore of TPU " +
                             info.generation.str())))
    return failure();
  if (emitFootprints) {
    int64_t vmemTotal = 0, smemTotal = 0;
    std::string vmemDescription = describeAllocations(vmem, vmemTotal);
    std::string smemDescription = describeAllocations(smem, smemTotal);
    call.emitRemark() << "TPU " << info.generation << ": VMEM "
                      << formatBytes(vmemTotal) << " of "
                      << formatBytes(vmemLimit) << " (" << vmemDescription
                      << "), SMEM " << formatBytes(smemTotal) << " of "
                      << formatBytes(info.smemBytes) << " (" << smemDescription
                      << ")";
  }
  return success();
}

std::string CallChecker::describeAllocations(ArrayRef<Allocation> allocations,
                                             int64_t &total) {
  total = 0;
  std::string result;
  llvm::raw_string_ostream os(result);
  llvm::interleave(
      allocations, os,
      [&](const Allocation &allocation) {
        int64_t bytes = saturatingMul(allocation.bytes, allocation.count);
        if (llvm::AddOverflow(total, bytes, total))
          total = std::numeric_limits<int64_t>::max();
        os << allocation.what << ": ";
        if (allocation.count != 1)
          os << allocation.count << " x ";
        os << formatBytes(allocation.bytes);
      },
      "; ");
  return result;
}

LogicalResult CallChecker::checkBudget(StringRef spaceName, int64_t limit,
                                       ArrayRef<Allocation> allocations,
                                       StringRef limitNote) {
  int64_t total = 0;
  std::string description = describeAllocations(allocations, total);
  if (total <= limit)
    return success();
  return call.emitOpError()
         << "Scoped allocation with size " << formatBytes(total)
         << " and limit " << formatBytes(limit) << " exceeded scoped "
         << spaceName << " limit by " << formatBytes(total - limit) << " ("
         << description << "); " << limitNote;
}

LogicalResult CallChecker::checkBlockIndices() {
  bool ok = true;
  for (unsigned i = 0, e = call.getNumBlocked(); i < e; ++i)
    ok &= succeeded(checkBlockIndices(i));
  return success(ok);
}

LogicalResult CallChecker::checkBlockIndices(unsigned i) {
  auto [block, type] = call.getBlocked(i);
  AffineMap map = block.getIndexMap();
  if (!map || block.isRawMemory() || block.hasElementDims())
    return success();
  ArrayRef<int64_t> grid = call.getGrid();
  if (product(grid) > kMaxEnumeratedGridPoints)
    return success();
  ArrayRef<int64_t> arrayShape = type.getShape();
  SmallVector<int64_t> blockShape = block.getBlockShape(arrayShape);
  SmallVector<int64_t> point(grid.size(), 0);
  do {
    SmallVector<int64_t> indices =
        llvm::map_to_vector(map.getResults(), [&](AffineExpr expr) {
          return evaluate(expr, point);
        });
    for (auto [dim, index] : llvm::enumerate(indices)) {
      int64_t start = saturatingMul(index, blockShape[dim]);
      if (index >= 0 && start < arrayShape[dim])
        continue;
      bool isInput = i < call.getBlockedOperands().size();
      return call.emitOpError()
             << "Out-of-bounds block index " << formatShape(indices) << " for "
             << (isInput ? "input" : "output") << " \""
             << call.getBlockedName(i) << "\" in iteration "
             << formatShape(point) << ": " << (isInput ? "reading" : "writing")
             << " " << formatBlockRange(block, arrayShape, indices) << " but "
             << (isInput ? "input" : "output") << " has shape "
             << formatShape(arrayShape);
    }
  } while (nextPoint(point, grid));
  return success();
}

LogicalResult CallChecker::checkRevisits() {
  llvm::DenseSet<int64_t> aliased;
  for (auto [input, output] : call.getAliasPairs())
    aliased.insert(output);
  bool ok = true;
  for (unsigned j = 0, e = call.getNumResults(); j < e; ++j)
    if (!aliased.contains(j))
      ok &= succeeded(checkRevisits(j));
  return success(ok);
}

LogicalResult CallChecker::checkRevisits(unsigned output) {
  BlockAttr block = call.getOutSpec(output);
  if (block.getIndexFn() || block.isRawMemory())
    return success();
  ArrayRef<int64_t> grid = call.getGrid();
  if (grid.empty() || product(grid) > kMaxEnumeratedGridPoints)
    return success();
  auto type = cast<RankedTensorType>(call.getResult(output).getType());
  AffineMap map = block.getIndexMap();
  auto blockAt = [&](ArrayRef<int64_t> point) {
    SmallVector<int64_t> indices(type.getRank(), 0);
    if (map)
      for (auto [k, expr] : llvm::enumerate(map.getResults()))
        indices[k] = evaluate(expr, point);
    return indices;
  };
  SmallVector<DimensionSemantics> semantics = call.getGridSemantics();

  // A block revisited along a parallel axis would be written by several
  // cores.
  SmallVector<int64_t> point(grid.size(), 0);
  do {
    SmallVector<int64_t> here = blockAt(point);
    for (auto [axis, value] : llvm::enumerate(semantics)) {
      if (value != DimensionSemantics::Parallel ||
          point[axis] + 1 >= grid[axis])
        continue;
      SmallVector<int64_t> next = point;
      ++next[axis];
      if (blockAt(next) == here)
        return call.emitOpError()
               << "Revisited block "
               << formatBlockRange(block, type.getShape(), here)
               << " of output " << output << " in iteration "
               << formatShape(next) << " along grid axis " << axis
               << ", which has parallel semantics (the block was visited in "
                  "iteration "
               << formatShape(point)
               << "); an output may only be revisited along 'arbitrary' axes";
    }
  } while (nextPoint(point, grid));

  // Revisits must be consecutive: a block, once left, is never come back to.
  std::map<std::vector<int64_t>,
           std::pair<SmallVector<int64_t>, SmallVector<int64_t>>>
      visits;
  std::vector<int64_t> previous;
  point.assign(grid.size(), 0);
  do {
    SmallVector<int64_t> indices = blockAt(point);
    std::vector<int64_t> key(indices.begin(), indices.end());
    auto it = visits.find(key);
    if (it == visits.end()) {
      visits.emplace(key, std::make_pair(point, point));
    } else if (key == previous) {
      it->second.second = point;
    } else {
      return call.emitOpError()
             << "Revisited block "
             << formatBlockRange(block, type.getShape(), indices)
             << " of output " << output << " in iteration "
             << formatShape(point)
             << ". The block was previously visited in iterations "
             << formatShape(it->second.first) << " through "
             << formatShape(it->second.second);
    }
    previous = std::move(key);
  } while (nextPoint(point, grid));
  return success();
}

LogicalResult CallChecker::checkGridQueries() {
  int64_t rank = call.getGrid().size();
  WalkResult walk = body.walk([&](Operation *op) {
    int64_t axis;
    if (auto programId = dyn_cast<ProgramIdOp>(op))
      axis = programId.getAxis();
    else if (auto numPrograms = dyn_cast<NumProgramsOp>(op))
      axis = numPrograms.getAxis();
    else
      return WalkResult::advance();
    if (axis < rank)
      return WalkResult::advance();
    InFlightDiagnostic diag =
        op->emitOpError() << "axis " << axis << " is out of range for the grid "
                          << formatShape(call.getGrid()) << " of rank " << rank;
    diag.attachNote(call.getLoc()) << "kernel called here";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// Checks of kernel bodies
//===----------------------------------------------------------------------===//

/// SMEM is scalar-only 32-bit; VMEM takes no scalar stores and no 0-d refs;
/// masked VMEM stores need 32-bit data; DMAs do not move booleans.
static LogicalResult checkAccess(Operation *op) {
  auto checkRef = [&](MemRefType refType, Type valueType, bool hasMask,
                      bool isStore) -> LogicalResult {
    std::optional<MemorySpace> space = getMemorySpace(refType);
    bool isVector = isa<VectorType>(valueType);
    if (space == MemorySpace::Smem) {
      if (isStore && hasMask)
        return op->emitOpError() << "SMEM store does not support masks";
      if (isVector)
        return op->emitOpError()
               << (isStore ? "Can only store scalars to SMEM"
                           : "Can only load scalars from SMEM");
      if (getStorageBitWidth(refType.getElementType()) != 32)
        return op->emitOpError()
               << "SMEM is accessed in 32-bit words; elements of type "
               << refType.getElementType() << " are not supported";
      return success();
    }
    if (space != MemorySpace::Vmem)
      return success();
    if (refType.getRank() == 0)
      return op->emitOpError()
             << "Indexing into a ()-shaped Ref not yet supported on TPU";
    if (isStore && !isVector)
      return op->emitOpError() << "Cannot store scalars to VMEM";
    if (isStore && hasMask &&
        getStorageBitWidth(refType.getElementType()) != 32)
      return op->emitOpError()
             << "masked stores of non-32-bit data are not implemented, got "
             << refType.getElementType();
    return success();
  };
  if (auto load = dyn_cast<LoadOp>(op))
    return checkRef(load.getRef().getType(), load.getResult().getType(),
                    static_cast<bool>(load.getMask()), /*isStore=*/false);
  if (auto store = dyn_cast<StoreOp>(op))
    return checkRef(store.getRef().getType(), store.getValue().getType(),
                    static_cast<bool>(store.getMask()), /*isStore=*/true);
  if (auto copy = dyn_cast<AsyncCopyOp>(op))
    if (copy.getSrc().getType().getElementType().isInteger(1))
      return op->emitOpError() << "DMAs of booleans (i1) are not supported";
  return success();
}

namespace {
/// A semaphore buffer whose count at the end of its scope is checked.
struct SemaphoreBuffer {
  Value buffer;
  /// The op that owns the scope (the kernel body or a kernel.run_scoped).
  Operation *owner;
  /// The buffer in messages.
  std::string name;
  /// The grid steps the scope runs for (1 for run_scoped).
  int64_t steps;
};
} // namespace

/// The row-major position of `indices` in `shape`, if they are constants.
static std::optional<int64_t> getConstantFlatIndex(ValueRange indices,
                                                   ArrayRef<int64_t> shape) {
  int64_t flat = 0;
  for (auto [index, size] : llvm::zip(indices, shape)) {
    std::optional<int64_t> value = getConstantIntValue(index);
    if (!value || *value < 0 || *value >= size)
      return std::nullopt;
    flat = flat * size + *value;
  }
  return flat;
}

/// How many times `op` runs each time its scope block `scope` runs: the
/// product of the static trip counts of the loops between them
/// (`kernel.run_scoped` regions run once). None if another region-holding op
/// (a conditional, a loop without a static trip count) is in between.
static std::optional<int64_t> getStaticRunCount(Operation *op, Block *scope) {
  int64_t count = 1;
  for (Operation *parent = op->getParentOp(); op->getBlock() != scope;
       op = parent, parent = parent->getParentOp()) {
    if (!parent)
      return std::nullopt;
    if (isa<RunScopedOp>(parent))
      continue;
    auto loop = dyn_cast<LoopLikeOpInterface>(parent);
    if (!loop)
      return std::nullopt;
    std::optional<APInt> trips = loop.getStaticTripCount();
    if (!trips || trips->getActiveBits() > 62)
      return std::nullopt;
    count = saturatingMul(count, trips->getSExtValue());
  }
  return count;
}

/// True if `a` comes before `b` in program order; both are nested in
/// `scope`.
static bool isBefore(Operation *a, Operation *b, Block *scope) {
  Operation *ancestorA = scope->findAncestorOpInBlock(*a);
  Operation *ancestorB = scope->findAncestorOpInBlock(*b);
  if (ancestorA != ancestorB)
    return ancestorA->isBeforeInBlock(ancestorB);
  if (a->getBlock() == b->getBlock())
    return a->isBeforeInBlock(b);
  // Both inside the same op: the first found by a pre-order walk.
  Operation *first = nullptr;
  ancestorA->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == a || op == b) {
      first = op;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return first == a;
}

/// Checks that a semaphore buffer is zero when its scope ends, when its
/// counts are static: every use is a signal, wait, read or copy with a
/// constant amount that runs a static number of times per run of the scope
/// (straight-line code and loops with static trip counts). Semaphores
/// addressed with constant indices are checked one by one; otherwise the
/// buffer's total must be zero. Nothing is concluded when a count is not
/// static.
static LogicalResult checkSemaphoresAtExit(const SemaphoreBuffer &sem) {
  auto type = cast<MemRefType>(sem.buffer.getType());
  Block *scope = cast<BlockArgument>(sem.buffer).getOwner();
  // Per semaphore (flat index; -1 for the whole buffer): added, removed.
  std::map<int64_t, std::pair<int64_t, int64_t>> counts;
  std::map<int64_t, Operation *> firstUse;
  bool allConstantIndices = true;
  for (OpOperand &use : sem.buffer.getUses()) {
    Operation *user = use.getOwner();
    if (isa<SemaphoreReadOp>(user))
      continue;
    ValueRange indices;
    std::optional<int64_t> amount;
    bool adds = true;
    if (auto signal = dyn_cast<SemaphoreSignalOp>(user)) {
      indices = signal.getIndices();
      amount = getConstantIntValue(signal.getAmount());
    } else if (auto wait = dyn_cast<SemaphoreWaitOp>(user)) {
      indices = wait.getIndices();
      amount = getConstantIntValue(wait.getAmount());
      adds = false;
    } else if (auto copy = dyn_cast<AsyncCopyOp>(user);
               copy && use.get() == copy.getSem()) {
      indices = copy.getSemIndices();
      MemRefType dst = copy.getDst().getType();
      amount = llvm::divideCeil(
          saturatingMul(dst.getNumElements(),
                        getStorageBitWidth(dst.getElementType())),
          8);
      adds = copy.getPhase() == CopyPhase::Start;
    } else {
      return success();
    }
    std::optional<int64_t> runs = getStaticRunCount(user, scope);
    if (!amount || !runs)
      return success();
    std::optional<int64_t> flat =
        getConstantFlatIndex(indices, type.getShape());
    allConstantIndices &= flat.has_value();
    int64_t key = flat.value_or(-1);
    auto &[added, removed] = counts[key];
    (adds ? added : removed) += saturatingMul(*amount, *runs);
    auto [it, inserted] = firstUse.try_emplace(key, user);
    if (!inserted && isBefore(user, it->second, scope))
      it->second = user;
  }
  if (!allConstantIndices) {
    // Only the buffer's total is known.
    std::pair<int64_t, int64_t> total{0, 0};
    Operation *first = nullptr;
    for (auto &[key, count] : counts) {
      total.first += count.first;
      total.second += count.second;
      if (!first || key == -1)
        first = firstUse[key];
    }
    counts.clear();
    counts[-1] = total;
    firstUse[-1] = first;
  }
  for (auto &[flat, count] : counts) {
    auto [added, removed] = count;
    if (added == removed)
      continue;
    std::string name = sem.name;
    if (flat >= 0 && type.getRank() > 0) {
      SmallVector<int64_t> position;
      int64_t rest = flat;
      for (int64_t size : llvm::reverse(type.getShape())) {
        position.push_back(rest % size);
        rest /= size;
      }
      std::reverse(position.begin(), position.end());
      llvm::raw_string_ostream os(name);
      os << "[";
      llvm::interleaveComma(position, os);
      os << "]";
    } else if (flat < 0) {
      name = "in " + name;
    }
    bool dma = isa<DmaSemaphoreType>(type.getElementType());
    StringRef addVerb = dma ? "started copies of" : "signalled";
    StringRef removeVerb = dma ? "waited copies of" : "waited for";
    StringRef unit = dma ? " bytes" : "";
    StringRef subject = flat < 0 ? "Semaphores " : "Semaphore ";
    StringRef steps = sem.steps > 1 ? " in each grid step" : "";
    InFlightDiagnostic diag = sem.owner->emitOpError();
    if (added > removed)
      diag << subject << name << (flat < 0 ? " have" : " has")
           << " non-zero count at "
           << (isa<RunScopedOp>(sem.owner) ? "the end of the kernel.run_scoped"
                                           : "kernel exit")
           << ": " << saturatingMul(added - removed, sem.steps) << " ("
           << addVerb << " " << added << unit << " but " << removeVerb << " "
           << removed << unit << steps << ")";
    else
      diag << subject << name << (flat < 0 ? " are " : " is ") << removeVerb
           << " " << removed << unit << " but only " << addVerb << " " << added
           << unit << steps << "; the kernel would hang";
    diag.attachNote(firstUse[flat]->getLoc()) << "first use of the semaphore";
    return diag;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
struct KernelVerifyPass
    : public kernel::impl::KernelVerifyPassBase<KernelVerifyPass> {
  using KernelVerifyPassBase::KernelVerifyPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbolTables;
    bool ok = true;
    llvm::DenseSet<Operation *> checkedBodies;

    module.walk(
        [&](CallOp call) {
          auto body = symbolTables.lookupNearestSymbolFrom<func::FuncOp>(
              call, call.getCalleeAttr());
          if (!body)
            return;
          TargetAttr target = lookupTarget(call);
          if (!target) {
            call.emitOpError()
                << "kernel-verify needs the TPU generation to check for: set "
                   "'kernel.target = #kernel.target<\"v5e\">' (or \"v4\", "
                   "\"v5p\", \"v6e\", \"v7x\") on the enclosing module";
            ok = false;
          }
          ok &= CallChecker(call, body, target, emitFootprints).run();

          if (!checkedBodies.insert(body).second)
            return;
          // The vector math the layout passes rewrite onto tiles.
          ok &= succeeded(verifyVectorLayoutSupport(body));
          // Pallas has no lowering of a pallas_call inside a kernel.
          body.walk([&](CallOp nested) {
            nested.emitOpError()
                << "Unimplemented primitive in Pallas TPU lowering for tc: "
                   "pallas_call (a kernel.call in @"
                << body.getName() << ", the body of another kernel.call)";
            ok = false;
          });
          int64_t numScratch = call.getScratchTypes().size();
          unsigned firstScratch = body.getNumArguments() - numScratch;
          for (int64_t i = 0; i < numScratch; ++i) {
            BlockArgument arg = body.getArgument(firstScratch + i);
            if (getMemorySpace(arg.getType()) != MemorySpace::Semaphore)
              continue;
            SemaphoreBuffer sem{arg, body,
                                "scratch buffer " + std::to_string(i),
                                product(call.getGrid())};
            ok &= succeeded(checkSemaphoresAtExit(sem));
          }
        });

    module.walk([&](Operation *op) {
      ok &= succeeded(checkAccess(op));
      if (auto scoped = dyn_cast<RunScopedOp>(op)) {
        for (BlockArgument arg : scoped.getBody().getArguments()) {
          if (getMemorySpace(arg.getType()) != MemorySpace::Semaphore)
            continue;
          SemaphoreBuffer sem{
              arg, scoped,
              "scoped buffer " + std::to_string(arg.getArgNumber()), 1};
          ok &= succeeded(checkSemaphoresAtExit(sem));
        }
      }
    });
    if (!ok)
      signalPassFailure();
  }
};
} // namespace
