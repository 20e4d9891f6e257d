//===- ExplicitInference.h - spmd-infer-explicit internals ------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Dialect/Spmd/Transforms/Explicit: what the files of
// spmd-infer-explicit share. InferExplicit.cpp holds the driver (the ops of
// a function, user-given out_shardings, control flow, function results) and
// the pass, InferExplicitRules.cpp JAX's per-primitive sharding rules, and
// InferExplicitUnreduced.cpp JAX's rules for unreduced axes.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_EXPLICIT_EXPLICITINFERENCE_H
#define TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_EXPLICIT_EXPLICITINFERENCE_H

#include "tessera/Dialect/Spmd/IR/ExplicitSharding.h"
#include "tessera/Dialect/Spmd/IR/JaxType.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallBitVector.h"

#include <optional>
#include <string>

namespace mlir::tessera::spmd::detail {

using DimAxes = ExplicitDimAxes;
using Spec = ExplicitSpec;
using Specs = ExplicitSpecs;

/// The rank of `type` (0 for non-tensors).
int64_t rankOf(Type type);

/// spmd-infer-explicit on the functions of a module, one at a time.
class ExplicitInference {
public:
  ExplicitInference(MLIRContext *ctx) : ctx(ctx) {}

  LogicalResult runOnFunction(FunctionOpInterface func);

private:
  //===--------------------------------------------------------------------===//
  // Specs of values
  //===--------------------------------------------------------------------===//

  /// The type of `value` as seen by `user`.
  Spec getSpec(Value value, Operation *user);

  static bool isExplicit(MeshAttr mesh, AxisRefAttr ref) {
    return mesh && mesh.hasAxis(ref.getName()) &&
           mesh.getAxisType(ref.getName()) == AxisType::Explicit;
  }

  static bool hasExplicitAxes(MeshAttr mesh) {
    return mesh && mesh.hasAxisOfType(AxisType::Explicit);
  }

  /// Builds the sharding of a value whose type has `spec`, keeping the
  /// non-explicit axes `previous` had per dimension.
  TensorShardingAttr toSharding(const Spec &spec, TensorShardingAttr previous);

  /// JAX's repr of an abstract value in messages: `ShapedArray(float32[8@x])`.
  std::string avalString(Value value, Operation *user);

  /// How `op` treats unreduced inputs (its ExplicitShardingOpInterface,
  /// else its sharding rule).
  UnreducedRule getUnreducedRule(Operation *op, unsigned numInputs);

  /// JAX's unreduced rule of the op (`rule`) for its result (one set for
  /// all results): add keeps equal unreduced sets, mul and dot_general
  /// reject unreduced inputs, reductions and ops that only move data pass
  /// them on, and every other op with an unreduced input is not
  /// implemented.
  FailureOr<SmallVector<AxisRefAttr>> inferUnreduced(Operation *op,
                                                     UnreducedRule rule,
                                                     ValueRange inputs,
                                                     ArrayRef<Spec> specs);

  /// JAX's reduced rule of the op (`rule` is its unreduced rule) for its
  /// results: elementwise ops, add and mul take the one reduced set of
  /// their inputs (none of which may be replicated or sharded over it),
  /// reductions and ops that only move data keep their operand's,
  /// dot_general drops it, and every other op with a reduced input is not
  /// implemented.
  FailureOr<SmallVector<AxisRefAttr>> inferReduced(Operation *op,
                                                   UnreducedRule rule,
                                                   ValueRange inputs,
                                                   ArrayRef<Spec> specs);

  /// Whether `op` is elementwise (JAX's unary and n-ary ops).
  static bool isElementwise(Operation *op);

  /// JAX's str() of an abstract value in messages: `float32[8@x]{R:y}`.
  std::string strString(Value value, Operation *user);

  /// JAX's checks of an `out_sharding` with unreduced axes on a
  /// contraction (`rule` is its sharding rule).
  LogicalResult checkDotUnreducedOut(Operation *op, OpShardingRuleAttr rule,
                                     ArrayRef<Spec> inputs, const Spec &given);

  /// JAX's check of an `out_sharding` with unreduced axes on a reduction:
  /// they must come from the reduced dims' axes or the operand's own
  /// unreduced axes.
  LogicalResult checkReduceUnreducedOut(Operation *op, OpShardingRuleAttr rule,
                                        Value operand, const Spec &input,
                                        const Spec &given);

  /// The specs of the contracting dims (reduction factors two inputs map)
  /// of a contraction.
  std::pair<SmallVector<DimAxes>, SmallVector<DimAxes>>
  getContractingSpecs(Operation *op, OpShardingRuleAttr rule,
                      ArrayRef<Spec> inputs);

  /// Prints a value's type as JAX prints it in messages.
  static std::string typeString(Type type, const Spec &spec,
                                bool shortDtypes = true) {
    return ExplicitRuleContext::typeString(type, spec, shortDtypes);
  }
  static std::string tupleString(const Spec &spec) {
    return ExplicitRuleContext::tupleString(spec);
  }
  static std::string partitionSpecString(const Spec &spec) {
    return ExplicitRuleContext::partitionSpecString(spec);
  }
  static std::string frozensetString(ArrayRef<AxisRefAttr> axes) {
    return ExplicitRuleContext::frozensetString(axes);
  }

  //===--------------------------------------------------------------------===//
  // Ops
  //===--------------------------------------------------------------------===//

  LogicalResult processBlock(Block &block);
  LogicalResult processOp(Operation *op);
  LogicalResult processControlFlow(Operation *op);
  LogicalResult processReturn(Operation *op);

  /// The common mesh of the operands' types (`values`), or an error when
  /// two differ. `meshRef` receives how it is named.
  FailureOr<std::pair<MeshAttr, Attribute>>
  getCommonMesh(Operation *op, ArrayRef<Spec> operandSpecs);

  /// The result types of `op` from its data inputs: its
  /// ExplicitShardingOpInterface, a call's callee's declared results, or
  /// its sharding rule.
  Specs inferRule(Operation *op, ArrayRef<Spec> inputs, ValueRange inputValues);

  /// Checks and returns a user-given `spmd.out_sharding` (JAX's
  /// out_sharding=), or std::nullopt if the op has none.
  FailureOr<std::optional<SmallVector<Spec>>> getOutSharding(Operation *op);
  /// The shardings of `op`'s `spmd.out_sharding`, one per result (empty if
  /// it has none).
  static SmallVector<TensorShardingAttr> getOutShardingAttrs(Operation *op);

  /// The "illegally sharded result" check (JAX's unique-axis check).
  LogicalResult checkUniqueAxes(Operation *op, ValueRange inputs,
                                ArrayRef<Spec> inputSpecs, Value result,
                                const Spec &spec);

  MLIRContext *ctx;
  SymbolTableCollection symbolTables;
  /// The rules of the ops (many ops of a module share one).
  ShardingRuleCache rules;
  /// Specs computed by this pass (results, and block arguments of regions
  /// whose sharding lives elsewhere).
  llvm::DenseMap<Value, Spec> specs;
};

} // namespace mlir::tessera::spmd::detail

#endif // TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_EXPLICIT_EXPLICITINFERENCE_H
