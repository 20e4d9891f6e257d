//===- Propagation.h - spmd-propagate internals -----------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Dialect/Spmd/Transforms/Propagation: what the files of
// spmd-propagate share. Propagate.cpp holds the core (the worklist of ops,
// projecting shardings onto factors and writing back what grew) and the
// pass; PropagationShardings.cpp reads and writes the shardings where they
// are stored (values, function results, manual computations), and
// PropagationOrigins.cpp records the debug origins.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_PROPAGATION_PROPAGATION_H
#define TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_PROPAGATION_PROPAGATION_H

#include "tessera/Dialect/Spmd/IR/DataFlow.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"
#include "tessera/Dialect/Spmd/Transforms/FactorPropagation.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"

#include <string>

namespace mlir::tessera::spmd::detail {

//===----------------------------------------------------------------------===//
// Where a sharding lives
//===----------------------------------------------------------------------===//

/// A value, or a function's result attribute (`func` set), or a manual
/// computation's sharding (`manual` set): the local view of an
/// out_sharding, or (`isInput`) the global view of an in_sharding.
struct Slot {
  // Op handles are mutable: their accessors are not const.
  mutable Value value;
  mutable FunctionOpInterface func;
  mutable ManualComputationOp manual;
  unsigned index = 0;
  bool isInput = false;

  static Slot ofValue(Value v) { return Slot{v, {}, {}, 0}; }
  static Slot ofFuncResult(FunctionOpInterface f, unsigned i) {
    return Slot{{}, f, {}, i};
  }
  static Slot ofManualResult(ManualComputationOp m, unsigned i) {
    return Slot{{}, {}, m, i};
  }
  static Slot ofManualInput(ManualComputationOp m, unsigned i) {
    return Slot{{}, {}, m, i, /*isInput=*/true};
  }

  TensorShardingAttr get() const {
    if (func)
      return getFuncResultSharding(func, index);
    if (manual && isInput)
      return manual.getInSharding(index);
    if (manual)
      return removeManualAxes(manual.getOutSharding(index),
                              manual.getManualAxes().getValue());
    return getSharding(value);
  }

  /// Where to resolve the mesh from.
  Operation *scope() const {
    if (func)
      return func;
    if (manual)
      return manual;
    if (Operation *def = value.getDefiningOp())
      return def;
    return value.getParentBlock()->getParentOp();
  }

  Type getType() const {
    if (func)
      return func.getResultTypes()[index];
    if (manual && isInput)
      return manual->getOperand(index).getType();
    if (manual)
      return manual.getBody()
          .front()
          .getTerminator()
          ->getOperand(index)
          .getType();
    return value.getType();
  }
};

/// Writes `sharding` where `slot` keeps it; false if it has no place.
bool setSlotSharding(const Slot &slot, TensorShardingAttr sharding);

//===----------------------------------------------------------------------===//
// User priorities
//===----------------------------------------------------------------------===//

/// Visits every stored sharding of the module; `fn` returns the
/// replacement (or the same attribute).
void transformShardings(
    ArrayRef<Operation *> holders,
    function_ref<TensorShardingAttr(TensorShardingAttr, Operation *, unsigned)>
        fn);

/// `dim` without its priority.
DimensionShardingAttr dropPriority(DimensionShardingAttr dim);

//===----------------------------------------------------------------------===//
// Debug origins
//===----------------------------------------------------------------------===//

/// Where each axis of each sharding came from (`debug-origins`), as
/// Shardy's debug mode records it: per value (or function result), axis
/// name -> origin.
class ShardingOrigins {
public:
  explicit ShardingOrigins(ModuleOp module) : module(module) {}

  /// Names the shardings the module starts with (Shardy's names, in walk
  /// order: `input: N`, `output: N`, `constraint_N`, `mc_N_input: N`...).
  void seed();
  /// Attaches `spmd.sharding_origins` (and `spmd.sharding_origin_name`).
  void save();
  /// Records where the axes tensor `t` of an op gains come from: the first
  /// operand (else result) whose factor already had all the new axes of that
  /// factor. The op's tensors are `operands` then `results`, projected before
  /// and after the update.
  void recordFactorOrigins(ArrayRef<Slot> operands, ArrayRef<Slot> results,
                           const ShardingProjection &oldProjection,
                           const ShardingProjection &newProjection, int64_t t,
                           TensorShardingAttr updated);
  /// Gives `to` (a member of `from`'s sharding group) the origins of the axes
  /// `from` has and it lacks.
  void copyOrigins(const Slot &from, const Slot &to);

private:
  /// The key of an axis in `spmd.sharding_origins`: `a`, or `c:(1)4` for a
  /// sub-axis (as Shardy prints it); the string lives in the context.
  StringRef originKey(AxisRefAttr ref);
  /// The origin recorded for `ref` (under `key`), or else for any piece of
  /// the same axis (the whole axis or one of its sub-axes); null if none.
  static const std::string *
  findOrigin(const llvm::MapVector<StringRef, std::string> &origins,
             AxisRefAttr ref, StringRef key);
  /// The origins of the axes of `slot`'s sharding.
  llvm::MapVector<StringRef, std::string> &originsOf(const Slot &slot);

  ModuleOp module;
  llvm::DenseMap<Operation *, std::string> originNames, manualNames;
  llvm::DenseMap<Value, llvm::MapVector<StringRef, std::string>> valueOrigins;
  llvm::DenseMap<std::pair<Operation *, unsigned>,
                 llvm::MapVector<StringRef, std::string>>
      resultOrigins;
};

} // namespace mlir::tessera::spmd::detail

#endif // TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_PROPAGATION_PROPAGATION_H
