//===- ReshardPlan.h - the collectives of one reshard -----------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The collectives that move a tensor from one sharding to another on one
// mesh, as steps without IR: spmd-reshard-to-collectives builds one op per
// step, and spmd-auto-partition's cost model prices the same steps.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_TRANSFORMS_RESHARDPLAN_H
#define TESSERA_DIALECT_SPMD_TRANSFORMS_RESHARDPLAN_H

#include "tessera/Dialect/Spmd/IR/SpmdAttrs.h"

#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::tessera::spmd {

/// One collective of a reshard, from sharding `in` to sharding `out`.
struct ReshardStep {
  enum class Kind {
    AllReduce,
    CollectivePermute,
    AllGather,
    AllToAll,
    AllSlice,
    ReplicatedToUnreduced,
  };
  ReshardStep(Kind kind, TensorShardingAttr in, TensorShardingAttr out)
      : kind(kind), in(in), out(out) {}

  Kind kind;
  TensorShardingAttr in;
  TensorShardingAttr out;
  /// AllReduce and ReplicatedToUnreduced: the axes.
  llvm::SmallVector<AxisRefAttr> axes;
  /// AllGather and AllSlice: the axes of every dimension.
  llvm::SmallVector<AxisRefListAttr> perDim;
  /// AllToAll: the moves.
  llvm::SmallVector<AllToAllParamAttr> moves;
  /// AllReduce: the reduction.
  ReductionKind reduction = ReductionKind::Sum;
};

/// Plans the collectives that move a tensor from `current` to `target` on
/// `mesh` one phase at a time (the order spmd-reshard-to-collectives uses:
/// reduce, permute, move and slice, introduce unreduced axes). Every phase
/// appends its steps to `steps()` and updates `current()`; a phase fails
/// with a message in `error()` when no collective can do it.
class ReshardPlanner {
public:
  ReshardPlanner(TensorShardingAttr current, TensorShardingAttr target,
                 MeshAttr mesh);

  /// All-reduce of the unreduced axes of `current` that `target` does not
  /// keep.
  LogicalResult reduce();
  /// One collective_permute when every dimension keeps its number of parts
  /// but not its axes (and the target keeps every unreduced axis: partial
  /// sums move as they are).
  LogicalResult permute();
  /// Per dimension, keeps the common prefix (and a sub-axis that is the
  /// major part of the target's axis); whole lists moving between
  /// dimensions become one all_to_all, other leaving axes one all_gather,
  /// joining axes one all_slice.
  LogicalResult moveAndSlice();
  /// replicated_to_unreduced of the target's unreduced axes not yet
  /// unreduced.
  LogicalResult introduceUnreduced();
  /// The four phases in order.
  LogicalResult planAll();

  TensorShardingAttr current() const { return currentSharding; }
  void setCurrent(TensorShardingAttr sharding) { currentSharding = sharding; }
  void setTarget(TensorShardingAttr sharding) { targetSharding = sharding; }
  void setMesh(MeshAttr newMesh) { mesh = newMesh; }
  llvm::ArrayRef<ReshardStep> steps() const { return planned; }
  const std::string &error() const { return message; }

private:
  LogicalResult fail(const std::string &text);
  void add(ReshardStep step);

  MLIRContext *ctx;
  TensorShardingAttr currentSharding;
  TensorShardingAttr targetSharding;
  MeshAttr mesh;
  llvm::SmallVector<ReshardStep> planned;
  std::string message;
};

} // namespace mlir::tessera::spmd

#endif // TESSERA_DIALECT_SPMD_TRANSFORMS_RESHARDPLAN_H
