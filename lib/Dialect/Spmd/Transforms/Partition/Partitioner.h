//===- Partitioner.h - spmd-partition internals -----------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Dialect/Spmd/Transforms/Partition: what the files of
// spmd-partition share. Partition.cpp holds the driver (manual computations
// inlined, constants sliced, values retyped, each function's global
// interface) and the pass, PartitionCollectives.cpp the lowering of the
// global-view collectives to `comm` ones, and PartitionLocalOps.cpp the ops
// whose attributes spell shapes or global positions.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_PARTITION_PARTITIONER_H
#define TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_PARTITION_PARTITIONER_H

#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tessera::spmd::detail {

/// The product of the sizes of `axes` in `mesh`.
int64_t productOf(ArrayRef<AxisRefAttr> axes, MeshAttr mesh);

/// spmd-partition on a module: every value of its func.func bodies gets its
/// local type in place.
class Partitioner {
public:
  explicit Partitioner(ModuleOp module)
      : module(module), ctx(module.getContext()), rewriter(ctx) {
    for (StringRef name : {StringRef(SpmdDialect::kShardingAttrName),
                           StringRef(SpmdDialect::kOutShardingAttrName),
                           StringRef(SpmdDialect::kShardingRuleAttrName),
                           StringRef("spmd.sharding_origins")})
      globalViewAttrs.push_back(StringAttr::get(ctx, name));
  }

  LogicalResult run();

private:
  /// The mesh of `sharding` and its symbol, or failure (reported at `op`).
  FailureOr<std::pair<FlatSymbolRefAttr, MeshAttr>>
  resolve(TensorShardingAttr sharding, Operation *op);

  /// The local type of a value of type `type` sharded by `sharding` (a
  /// dimension the axes do not divide is padded to ceil(n / parts)), or
  /// failure with a diagnostic at `op`. `padded`, when given, tells
  /// whether a dimension was padded.
  FailureOr<Type> getLocalType(Type type, TensorShardingAttr sharding,
                               Operation *op, StringRef what,
                               bool *padded = nullptr);

  /// `comm.axis_index` over `axes` times `blockSize`, as an index.
  Value offsetOf(Location loc, FlatSymbolRefAttr meshRef, MeshAttr mesh,
                 ArrayRef<AxisRefAttr> axes, int64_t blockSize);

  /// The local block of `value` after slicing dimension d by `axes[d]`.
  Value sliceLocal(Location loc, Value value, FlatSymbolRefAttr meshRef,
                   MeshAttr mesh, ArrayRef<SmallVector<AxisRefAttr>> axes);

  /// Dimensions that one of two shardings does not divide change layout
  /// through the whole dimension: gatherWhole makes dimension `d` (of
  /// global size `size`), sharded by `from`, whole on every device (an
  /// all-gather with its padding cut off); sliceWhole pads it with zeros to a
  /// multiple of the parts of `to` and takes each device's block. Every
  /// gather of a collective comes before its slices.
  Value gatherWhole(Location loc, Value value, int64_t d, int64_t size,
                    ArrayRef<AxisRefAttr> from, FlatSymbolRefAttr ref,
                    MeshAttr mesh);
  Value sliceWhole(Location loc, Value value, int64_t d, int64_t size,
                   ArrayRef<AxisRefAttr> to, FlatSymbolRefAttr ref,
                   MeshAttr mesh);

  /// `value` with dimension `d` cut to `size` elements from `offset`.
  Value sliceDim(Location loc, Value value, int64_t d, OpFoldResult offset,
                 int64_t size);

  /// Inlines `manuals` (in pre-order); `collectives` are all the
  /// collectives of their function.
  LogicalResult inlineManualComputations(ArrayRef<ManualComputationOp> manuals,
                                         ArrayRef<Operation *> collectives);
  /// Slices the sharded non-splat constants among `constants`; sets
  /// `changed` when it adds ops.
  LogicalResult materializeConstants(ArrayRef<arith::ConstantOp> constants,
                                     bool &changed);
  /// Gives the arguments of `func` and the results and region arguments
  /// of `ops` (the ops of `func` outside linalg bodies) their local types.
  LogicalResult retype(func::FuncOp func, ArrayRef<Operation *> ops);
  LogicalResult lowerCollective(Operation *op);
  LogicalResult fixShapeOps(Operation *op);
  LogicalResult fixLinalgIndices(linalg::LinalgOp op);
  /// Removes the `spmd.sharding` of every argument and result.
  void stripShardings(func::FuncOp func);
  void recordInterface(func::FuncOp func,
                       ArrayRef<TensorShardingAttr> argShardings,
                       ArrayRef<TensorShardingAttr> resultShardings,
                       ArrayRef<Type> argTypes, ArrayRef<Type> resultTypes);

  ModuleOp module;
  MLIRContext *ctx;
  IRRewriter rewriter;
  MeshResolver meshes;
  /// The global view of a sharded value: its type before `retype` and its
  /// sharding. Collectives and padded reductions read dimension sizes and
  /// axes from it; a lowered collective's local value inherits the entry.
  /// Kept for the results of collectives and for padded values only (the
  /// others have no use for it, and a large module has many).
  struct GlobalView {
    Type type;
    TensorShardingAttr sharding;
    /// Whether a dimension the sharding does not divide is padded.
    bool padded = false;
  };
  DenseMap<Value, GlobalView> globals;
  /// Whether some entry of `globals` is padded (most modules have none).
  bool anyPadded = false;
  /// Per named linalg op (one its region builder makes the body of, unlike
  /// linalg.generic, map and reduce): whether that body reads linalg.index.
  /// Every op of the name has the same body, so the first one tells.
  DenseMap<OperationName, bool> namedBodyReadsIndex;

  /// The sharding of `value`, also for the local value of a lowered
  /// collective.
  TensorShardingAttr shardingOf(Value value) {
    if (TensorShardingAttr sharding = getSharding(value))
      return sharding;
    return globals.lookup(value).sharding;
  }

  /// Removes the attributes that describe the global view from `op`.
  void stripGlobalView(Operation *op) {
    // The raw dictionary holds the discardable attributes (and for ops
    // without properties the inherent ones, which stay); many ops share
    // one, so each is rewritten once.
    DictionaryAttr before = op->getRawDictionaryAttrs();
    if (before.empty())
      return;
    auto [it, inserted] = strippedAttrs.try_emplace(before);
    if (inserted) {
      NamedAttrList attrs(before);
      for (StringAttr name : globalViewAttrs)
        attrs.erase(name);
      it->second = attrs.getDictionary(ctx);
    }
    if (it->second != before)
      op->setDiscardableAttrs(it->second);
  }
  /// The names of those attributes.
  SmallVector<StringAttr, 4> globalViewAttrs;
  /// Raw attribute dictionaries and what stripGlobalView makes of them.
  DenseMap<DictionaryAttr, DictionaryAttr> strippedAttrs;

  /// Replaces a lowered collective by its local value.
  void replaceCollective(Operation *op, Value value);

  /// Cuts the inputs of `op` to the valid part of every reduction dimension
  /// whose block is padded, so that padding is never reduced over.
  LogicalResult cutPaddedReductions(linalg::LinalgOp op);
};

} // namespace mlir::tessera::spmd::detail

#endif // TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_PARTITION_PARTITIONER_H
