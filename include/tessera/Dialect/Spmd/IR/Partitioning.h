//===- Partitioning.h - what spmd-partition offers op hooks -----*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// `spmd-partition` turns every op of the global view into the op each
// device runs on its local blocks. Most ops only change their types (the
// pass gives their results their local types in place); an op whose
// attributes or operands spell shapes or global positions (a splat or
// sliced constant, expand_shape's output shape, slice sizes, linalg.index)
// implements `PartitionOpInterface` (SpmdInterfaces.td) and builds its local
// form itself from what `PartitionContext` offers: the global view of its
// values and the index arithmetic of a device's block. Tessera's models for
// upstream ops are in Extensions/PartitionExtensions.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_IR_PARTITIONING_H
#define TESSERA_DIALECT_SPMD_IR_PARTITIONING_H

#include "tessera/Dialect/Spmd/IR/SpmdAttrs.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/PatternMatch.h"

#include <utility>

namespace mlir::tessera::spmd {

/// What spmd-partition offers an op's PartitionOpInterface. The pass
/// partitions ops in order, so when an op's hook runs its operands are
/// already local (their types divided by their shardings) while its
/// results still have their global types.
class PartitionContext {
public:
  virtual ~PartitionContext();

  /// The sharding of `value` in the global view (null: replicated).
  virtual TensorShardingAttr getSharding(Value value) = 0;

  /// The global type of `value`, an operand of the op being partitioned
  /// (already local). (The op's results still have their global types.)
  virtual Type getGlobalType(Value value) = 0;

  /// The mesh `sharding` names and its symbol, or failure (an error
  /// reported at `op`).
  virtual FailureOr<std::pair<FlatSymbolRefAttr, MeshAttr>>
  resolveMesh(TensorShardingAttr sharding, Operation *op) = 0;

  /// The offset of this device's block along `axes` of `mesh`: its index
  /// along them times `blockSize`, as an index.
  virtual Value buildBlockOffset(OpBuilder &builder, Location loc,
                                 FlatSymbolRefAttr meshRef, MeshAttr mesh,
                                 ArrayRef<AxisRefAttr> axes,
                                 int64_t blockSize) = 0;

  /// This device's block of `whole` (a value of a global type, the same on
  /// every device) under `sharding`: dimensions the axes do not divide are
  /// padded with zeros to a multiple of the parts first.
  virtual FailureOr<Value> buildLocalBlock(OpBuilder &builder, Location loc,
                                           Value whole,
                                           TensorShardingAttr sharding,
                                           Operation *op) = 0;

  /// Whether some dimension of `value` is padded: its sharding's axes do
  /// not divide its global size.
  virtual bool isPadded(Value value) = 0;
};

/// Gives `op`'s results the types `resultTypes`, in place (its operands are
/// local already): the local form of an op that changes only its types.
void setLocalResultTypes(RewriterBase &rewriter, Operation *op,
                         TypeRange resultTypes);

} // namespace mlir::tessera::spmd

#endif // TESSERA_DIALECT_SPMD_IR_PARTITIONING_H
