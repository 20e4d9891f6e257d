//===- GlobalToLocal.h - spmd-partition internals ---------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Dialect/Spmd/Transforms/Partition: spmd-partition turns
// the global view into the local one (as Shardy's convert-global-to-local
// does) with a type converter and one rewrite pattern per op family and per
// collective, applied to each op of a function in order:
//
// - PartitionState: what the patterns share (mesh resolution, the global
//   view of block arguments and of values whose blocks are padded) and the
//   index arithmetic of a device's block; it is the PartitionContext that op
//   hooks (PartitionOpInterface) see;
// - GlobalToLocalTypeConverter: a value's local type is its global type
//   divided by the axes of its sharding (a dimension they do not divide is
//   padded to ceil(n / parts));
// - one rewrite pattern per global-view collective (PartitionCollectives.cpp);
// - an op whose attributes or operands spell shapes builds its local form
//   through PartitionOpInterface; every other op takes its local types in
//   place (PartitionLocalOps.cpp).
// Partition.cpp holds the driver, which visits each function's ops in order
// (so an op's operands are local when it is visited, its results still
// global), and the pass. It does not use MLIR's dialect-conversion driver:
// on the 10,000 transformer blocks of bench/gen-propagation-module.py that
// driver made spmd-partition 13x slower, slower than upstream's
// shard-partition instead of the 5x faster the benchmark asks for; its cost
// is its bookkeeping per op, not the patterns (a pattern applicator on
// every op still doubled the pass).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_PARTITION_GLOBALTOLOCAL_H
#define TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_PARTITION_GLOBALTOLOCAL_H

#include "tessera/Dialect/Spmd/IR/Partitioning.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tessera::spmd::detail {

/// The product of the sizes of `axes` in `mesh`.
int64_t productOf(ArrayRef<AxisRefAttr> axes, MeshAttr mesh);

/// The global-view collectives spmd-partition lowers to comm ops (each has
/// its own pattern).
inline bool isGlobalCollective(Operation *op) {
  return isa<AllGatherOp, AllSliceOp, AllToAllOp, CollectivePermuteOp,
             AllReduceOp, ReduceScatterOp, ShardedToUnreducedOp,
             ReplicatedToUnreducedOp>(op);
}

/// What the partitioning patterns share.
class PartitionState : public PartitionContext {
public:
  explicit PartitionState(MLIRContext *ctx) : ctx(ctx) {}
  MLIRContext *getContext() const { return ctx; }

  //===--------------------------------------------------------------------===//
  // PartitionContext
  //===--------------------------------------------------------------------===//

  TensorShardingAttr getSharding(Value value) override;
  Type getGlobalType(Value value) override;
  FailureOr<std::pair<FlatSymbolRefAttr, MeshAttr>>
  resolveMesh(TensorShardingAttr sharding, Operation *op) override;
  Value buildBlockOffset(OpBuilder &builder, Location loc,
                         FlatSymbolRefAttr meshRef, MeshAttr mesh,
                         ArrayRef<AxisRefAttr> axes,
                         int64_t blockSize) override;
  FailureOr<Value> buildLocalBlock(OpBuilder &builder, Location loc,
                                   Value whole, TensorShardingAttr sharding,
                                   Operation *op) override;
  bool isPadded(Value value) override;

  //===--------------------------------------------------------------------===//
  // Local types
  //===--------------------------------------------------------------------===//

  /// The local type of a value of type `type` sharded by `sharding` and
  /// whether a dimension is padded, or failure with a diagnostic at `op`
  /// naming the value as `what`.
  FailureOr<std::pair<Type, bool>> getLocalType(Type type,
                                                TensorShardingAttr sharding,
                                                Operation *op, StringRef what);

  /// The local type of the global-view `value`, or null after a
  /// diagnostic. A value whose local blocks are padded has its global type
  /// recorded (getGlobalType).
  Type getLocalType(Value value);

  /// Records that `local` replaces the global-view `global` (a lowered
  /// collective's value, a halo-exchanged pad): it inherits its global
  /// sharding (getSharding), which its new op does not carry, and its
  /// global type if padded.
  void replaced(Value global, Value local);

  /// Forgets what is recorded of `value`, whose op is erased (a later value
  /// may take its place in memory).
  void forget(Value value) {
    paddedGlobalTypes.erase(value);
    replacedShardings.erase(value);
  }

  //===--------------------------------------------------------------------===//
  // Moving blocks (for the collectives)
  //===--------------------------------------------------------------------===//

  /// The local block of `value` after slicing dimension d by `axes[d]`.
  Value sliceLocal(OpBuilder &b, Location loc, Value value,
                   FlatSymbolRefAttr meshRef, MeshAttr mesh,
                   ArrayRef<SmallVector<AxisRefAttr>> axes);

  /// `value` with dimension `d` cut to `size` elements from `offset`.
  Value sliceDim(OpBuilder &b, Location loc, Value value, int64_t d,
                 OpFoldResult offset, int64_t size);

  /// Dimensions that one of two shardings does not divide change layout
  /// through the whole dimension: gatherWhole makes dimension `d` (of
  /// global size `size`), sharded by `from`, whole on every device (an
  /// all-gather with its padding cut off); sliceWhole pads it with zeros to
  /// a multiple of the parts of `to` and takes each device's block. Every
  /// gather of a collective comes before its slices.
  Value gatherWhole(OpBuilder &b, Location loc, Value value, int64_t d,
                    int64_t size, ArrayRef<AxisRefAttr> from,
                    FlatSymbolRefAttr ref, MeshAttr mesh);
  Value sliceWhole(OpBuilder &b, Location loc, Value value, int64_t d,
                   int64_t size, ArrayRef<AxisRefAttr> to,
                   FlatSymbolRefAttr ref, MeshAttr mesh);

  /// Records the global sharding of a block argument (of a function or of
  /// control flow) and the op that owns its block, before its block changes.
  void recordBlockArgument(BlockArgument arg);

  MeshResolver meshes;

private:
  MLIRContext *ctx;
  /// The local type of each (global type, sharding) pair, and whether it
  /// is padded: a large function has few distinct pairs.
  struct Local {
    Type type;
    bool padded;
  };
  llvm::DenseMap<std::pair<Type, Attribute>, Local> locals;
  /// Block arguments: their global sharding and the op owning their block.
  llvm::DenseMap<Value, std::pair<TensorShardingAttr, Operation *>>
      blockArguments;
  /// The global types of values whose local blocks are padded (most
  /// modules have none).
  llvm::DenseMap<Value, Type> paddedGlobalTypes;
  /// The global shardings of values that replaced global-view values.
  llvm::DenseMap<Value, TensorShardingAttr> replacedShardings;
};

/// The local type of a value is its global type divided by the axes of its
/// sharding (PartitionState::getLocalType); other types stay.
class GlobalToLocalTypeConverter : public TypeConverter {
public:
  explicit GlobalToLocalTypeConverter(PartitionState &state);

  /// What convertType(value) returns, without the callback chain (the
  /// partitioner asks once per value of the module): the local type, or a
  /// null type after a diagnostic.
  Type getLocalType(Value value) const;

private:
  PartitionState &state;
};

/// The patterns of the global-view collectives (all_gather, all_slice,
/// all_to_all, collective_permute, all_reduce, reduce_scatter,
/// sharded_to_unreduced, replicated_to_unreduced): `comm` collectives and
/// slices of each device's block.
void populateCollectivePartitionPatterns(RewritePatternSet &patterns,
                                         GlobalToLocalTypeConverter &converter,
                                         PartitionState &state);

/// The halo exchange of a windowed op (a convolution or pooling, see
/// WindowedDim) whose output loop is sharded (its operands already local,
/// its results global): each windowed input is replaced by the part of the
/// input this device's output block reads, its own block extended by the
/// overlap its neighbours along the output's axes hold (`comm.permute`s of
/// slices of their blocks, several hops when the overlap is larger than a
/// block) and cut to the window (at an offset that depends on the device
/// when the blocks of input and output do not line up). Fails after a
/// diagnostic on a layout insert-reshards does not produce.
LogicalResult exchangeHalos(linalg::LinalgOp op, PartitionState &state,
                            RewriterBase &rewriter);

/// The halo exchange of a `tensor.pad` whose padded dimensions are sharded
/// (its operands already local, its result global): each such dimension is
/// its neighbours' rows around this device's block, cut to the rows of its
/// result block, with the padding value past the ends; a pad of the other
/// padded dimensions follows. True when it replaced `pad`, false when no
/// padded dimension is sharded; fails after a diagnostic.
FailureOr<bool> exchangePadHalos(tensor::PadOp pad, PartitionState &state,
                                 const GlobalToLocalTypeConverter &converter,
                                 RewriterBase &rewriter);

/// Gives `op` the local form its PartitionOpInterface builds (its operands
/// already local), or fails after a diagnostic.
LogicalResult partitionLocalForm(PartitionOpInterface op,
                                 const GlobalToLocalTypeConverter &converter,
                                 PartitionState &state,
                                 PatternRewriter &rewriter);

/// Gives an op that changes only its types (neither a collective nor an op
/// with PartitionOpInterface) its local types in place: its results and its
/// regions' tensor arguments (control flow); fails after a diagnostic.
LogicalResult setLocalTypes(Operation *op,
                            const GlobalToLocalTypeConverter &converter);

} // namespace mlir::tessera::spmd::detail

#endif // TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_PARTITION_GLOBALTOLOCAL_H
