//===- ApplyVectorLayout.h - kernel-apply-vector-layout internals -*- C++
//-*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The rewrite of one kernel body by kernel-apply-vector-layout. Every vector
// value that spans several tiles of its layout gets a *placement*: it is
// either in memory (a layout buffer of its shape, or a view of one), or
// *lazy* (its op is replayed on each tile where a tile is needed: loads,
// elementwise ops, broadcasts, splat constants, masks and iotas). Values of
// one tile stay as they are. Ops are visited in order; each rule emits loops
// over tiles or memory ops, and the original ops are erased at the end.
//
// ApplyVectorLayout.cpp holds the driver (which values are lazy, regions,
// buffers, clean-up); VectorTileRules.cpp the tiles and the rules per op
// family.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_DIALECT_KERNEL_TRANSFORMS_APPLYVECTORLAYOUT_H
#define TESSERA_LIB_DIALECT_KERNEL_TRANSFORMS_APPLYVECTORLAYOUT_H

#include "tessera/Dialect/Kernel/IR/KernelDialect.h"
#include "tessera/Dialect/Kernel/IR/KernelOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::tessera::kernel::layout {

/// Where the tiles of a value that spans several tiles come from.
struct Placement {
  /// In memory: a memref of the value's shape (a layout buffer or a view),
  /// in VMEM.
  Value buffer;
  /// Lazy: the original op, replayed per tile.
  Operation *lazy = nullptr;
};

/// The body function of a loop over tiles: the tile's offsets (one per
/// dimension) and the loop-carried values; returns the values to carry.
using TileBody = function_ref<SmallVector<Value>(
    OpBuilder &, Location, ArrayRef<OpFoldResult>, ValueRange)>;

/// Rewrites one kernel body onto the tiles of its values' layouts.
class LayoutApplier {
public:
  /// `rowsPerStep`: the loops over the tiles of values that span several
  /// tiles step by this many rows (the second-minor dimension) of a tile
  /// where it divides the tile's rows; 0 steps by whole tiles.
  LayoutApplier(func::FuncOp body, int64_t rowsPerStep = 0)
      : body(body), rowsPerStep(rowsPerStep) {}

  LogicalResult run();

  /// The body's scratch buffers (its trailing arguments; uninitialized
  /// VMEM that only the body writes), for the lane-replication analysis.
  void setScratch(ValueRange buffers) {
    scratch.assign(buffers.begin(), buffers.end());
  }

  //===--------------------------------------------------------------------===//
  // Layouts
  //===--------------------------------------------------------------------===//

  /// The layout of `value` (assigned, else native); null for non-vectors
  /// and rank 0.
  VectorLayoutAttr getLayout(Value value) const;
  /// True if `value` is a vector that spans several tiles of its layout.
  bool spans(Value value) const;
  /// The tile of `value`'s layout, one size per dimension.
  SmallVector<int64_t> getTileShape(Value value) const;
  /// The part of a tile of `value` that one iteration of a loop over its
  /// tiles computes: the tile, with at most rowsPerStep rows.
  SmallVector<int64_t> getStepShape(Value value) const;

  //===--------------------------------------------------------------------===//
  // Tiles (VectorTileRules.cpp)
  //===--------------------------------------------------------------------===//

  /// The part of `value` of `shape` at `offsets`, as a vector.
  Value getTile(OpBuilder &b, Location loc, Value value,
                ArrayRef<OpFoldResult> offsets, ArrayRef<int64_t> shape);
  /// Builds loops over the tiles `tile` of an index space `shape` (a loop
  /// per dimension of more than one tile) carrying `iterArgs`; returns the
  /// values carried out.
  SmallVector<Value> forEachTile(OpBuilder &b, Location loc,
                                 ArrayRef<int64_t> shape,
                                 ArrayRef<int64_t> tile, ValueRange iterArgs,
                                 TileBody fn);
  /// Stores `value` tile by tile into `buffer` (a memref of its shape).
  void storeTiles(OpBuilder &b, Location loc, Value value, Value buffer);
  /// A memref holding `value`: its buffer, or a new layout buffer it is
  /// stored into (a lazy value where the op being rewritten is, a register
  /// after its definition).
  Value getBuffer(Location loc, Value value);
  /// `getBuffer`, with an identity layout (copied if it is a strided view).
  Value getContiguousBuffer(Location loc, Value value);
  /// A new layout buffer (a VMEM memref allocated around the body).
  Value createBuffer(Location loc, ArrayRef<int64_t> shape, Type elementType);
  /// The whole of `buffer` as a vector of `type`.
  Value loadWhole(OpBuilder &b, Location loc, Value buffer, VectorType type);
  /// Before `value` is stored tile by tile into `target` (a buffer or a
  /// block, at `indices`): copies the parts of its lazy tree that read the
  /// memory `target` is a view of at other positions, so that no tile is
  /// read after it was written.
  void protectFrom(Location loc, Value value, Value target, ValueRange indices);

  //===--------------------------------------------------------------------===//
  // Rules (VectorTileRules.cpp)
  //===--------------------------------------------------------------------===//

  /// A kernel.store of a value that spans several tiles.
  void rewriteStore(StoreOp op);
  /// vector.multi_reduction and vector.reduction of such a value.
  void rewriteReduction(Operation *op);
  /// vector.contract: a linalg.generic on buffers.
  void rewriteContraction(Operation *op);
  /// vector.transpose: a linalg.transpose into a layout buffer.
  void rewriteTranspose(Operation *op);
  /// vector.shape_cast: a reshaped view of the operand's buffer.
  void rewriteShapeCast(Operation *op);
  /// vector.extract and vector.extract_strided_slice: views, or a scalar
  /// load.
  void rewriteExtract(Operation *op);
  /// vector.insert and vector.insert_strided_slice: a copy of the
  /// destination with the source stored into a view of it.
  void rewriteInsert(Operation *op);
  /// An arith.constant that is not a splat: a copy of a global.
  void rewriteConstant(Operation *op);

  /// Gives the rewritten result `result` of an op its new form: for a value
  /// that spans several tiles, the buffer `buffer` holds it; else the
  /// register `value` (or the whole of `buffer`) replaces it.
  void setResult(OpBuilder &b, Location loc, Value result, Value buffer,
                 Value value = nullptr);

  /// True if `value` (a vector of rank 2 or more) is lane-replicated: its
  /// elements are equal along the last dimension (see analyzeReplication).
  bool isLaneReplicated(Value value) const {
    return laneReplicated.contains(value);
  }

private:
  /// Decides which values are lazy (before anything is rewritten).
  void analyze();
  /// Finds the lane-replicated values: splat constants, broadcasts along
  /// the last dimension (from (..., 1) or a scalar), elementwise ops of such
  /// values, and loads of scratch buffers whose every write stores such a
  /// value over whole rows (a greatest fixpoint: a scratch buffer starts
  /// undefined, and each step only stores replicated rows into it).
  void analyzeReplication();
  /// The ops where the tiles of the lazy op `op` are computed.
  ArrayRef<Operation *> getEvaluationPoints(Operation *op);
  LogicalResult rewriteBlock(Block &block);
  LogicalResult rewriteOp(Operation *op);
  void rewriteFor(Operation *op);
  void rewriteIf(Operation *op);
  void rewriteYield(Operation *op);
  /// Drops the values that span tiles from the loops and conditionals that
  /// carried them, where nothing uses them inside any more; returns true if
  /// one was.
  bool shrinkRegionOps();
  /// Wraps the body in the kernel.run_scoped of the layout buffers.
  void allocateBuffers();

  func::FuncOp body;
  int64_t rowsPerStep;
  /// The placements of values that span several tiles.
  DenseMap<Value, Placement> placements;
  /// Layout buffers of registers that were sliced at dynamic offsets.
  DenseMap<Value, Value> registerBuffers;
  /// The ops whose values are lazy.
  DenseSet<Operation *> lazyOps;
  /// Memoized evaluation points of lazy ops.
  DenseMap<Operation *, SmallVector<Operation *>> evaluationPoints;
  /// The op being rewritten (lazy values are materialized before it).
  Operation *current = nullptr;
  /// Original ops to erase, in the order they were visited.
  SmallVector<Operation *> toErase;
  /// scf.for and scf.if ops whose values that span tiles are dropped.
  SmallVector<Operation *> regionOps;
  /// The placeholders of the layout buffers (memref.alloca at the entry).
  SmallVector<Operation *> bufferAllocas;
  /// The body's scratch buffers and the lane-replicated values.
  SmallVector<Value> scratch;
  DenseSet<Value> laneReplicated;
};

/// The buffer `value` is a view of (through subviews and reshapes).
Value getViewBase(Value value);

/// True if an op between the load `from` and `to` (an op after it in its
/// block) may write the memory `from` reads.
bool writesBetween(LoadOp from, Operation *to);

} // namespace mlir::tessera::kernel::layout

#endif // TESSERA_LIB_DIALECT_KERNEL_TRANSFORMS_APPLYVECTORLAYOUT_H
