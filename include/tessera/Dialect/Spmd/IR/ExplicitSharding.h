//===- ExplicitSharding.h - JAX's sharding in types, per op ------*- C++
//-*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The op-level half of `spmd-infer-explicit`: a value's type in JAX's sense
// (its Explicit axes, `ExplicitSpec`), what a rule sees of an op
// (`ExplicitRuleContext`, with JAX's printers for messages), and the rule
// every op with a sharding rule gets: the result types follow from the
// factors of its `#spmd.op_sharding_rule` with JAX's consensus semantics
// (n-ary broadcasting, dot_general, reductions), so a new op needs only its
// sharding-rule model. Ops whose JAX rule a factor rule cannot express
// (reshape, slicing, concatenate, dynamic_update_slice, select, gather,
// scatter) implement `ExplicitShardingOpInterface` (SpmdInterfaces.td)
// through external models (Extensions/ExplicitShardingExtensions.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_IR_EXPLICITSHARDING_H
#define TESSERA_DIALECT_SPMD_IR_EXPLICITSHARDING_H

#include "tessera/Dialect/Spmd/IR/SpmdAttrs.h"
#include "tessera/Dialect/Spmd/IR/SpmdShardingRule.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/ValueRange.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::tessera::spmd {

/// The Explicit axes of one dimension, major to minor (JAX's PartitionSpec
/// entry: empty is `None`).
using ExplicitDimAxes = SmallVector<AxisRefAttr>;

/// The explicit-axes view of a value's sharding: its type in JAX's sense.
struct ExplicitSpec {
  /// The mesh as seen where the value is used (axis types in context), or
  /// null for a value on no mesh (replicated everywhere).
  MeshAttr mesh;
  /// How shardings name that mesh (a symbol or an inlined mesh).
  Attribute meshRef;
  SmallVector<ExplicitDimAxes> dims;
  /// Explicit axes over which the value holds partial sums (JAX's
  /// `unreduced`, printed `{U:x}`), in mesh order.
  SmallVector<AxisRefAttr> unreduced;
  /// Explicit axes the value is replicated over and typed as reduced (JAX's
  /// `reduced`, printed `{R:x}`: the counterpart of unreduced, so that a
  /// product with a value unreduced over them is typed), in mesh order.
  SmallVector<AxisRefAttr> reduced;

  /// A spec of `rank` unsharded dimensions on no mesh.
  static ExplicitSpec replicated(int64_t rank) {
    ExplicitSpec spec;
    spec.dims.resize(rank);
    return spec;
  }
  bool isReplicated() const {
    return llvm::all_of(dims,
                        [](const ExplicitDimAxes &d) { return d.empty(); });
  }
  bool operator==(const ExplicitSpec &other) const {
    return dims == other.dims && unreduced == other.unreduced &&
           reduced == other.reduced;
  }
};

/// The result of a rule: one spec per result, or failure (error emitted).
using ExplicitSpecs = FailureOr<SmallVector<ExplicitSpec>>;

/// How an op treats unreduced (partial-sum) inputs: JAX's separate
/// unreduced rule of the primitive it implements.
enum class UnreducedRule {
  /// No rule: an unreduced input is an error (JAX's NotImplementedError).
  NotImplemented,
  /// `add`: both inputs unreduced over the same axes, kept.
  Add,
  /// `mul`: bilinear, an unreduced input needs the other reduced.
  Mul,
  /// dot_general: unreduced inputs are rejected.
  DotGeneral,
  /// A reduction of one input: the operand's partial sums are kept.
  Reduce,
  /// Ops that only move data (reshape, transpose, broadcast, casts): the
  /// partial sums pass through.
  PassThrough,
};

/// What a rule sees of an op: the op, its data inputs (getExplicitInputs)
/// and their types, and JAX's printers for messages.
class ExplicitRuleContext {
public:
  /// `rule`, when given, is the op's sharding rule (a pass that caches
  /// rules passes it; otherwise getShardingRule computes it when asked).
  ExplicitRuleContext(Operation *op, ValueRange inputs,
                      ArrayRef<ExplicitSpec> inputSpecs,
                      OpShardingRuleAttr rule = {})
      : op(op), inputs(inputs), inputSpecs(inputSpecs), rule(rule) {}

  Operation *getOp() const { return op; }
  /// The op's sharding rule (null if it has none).
  OpShardingRuleAttr getShardingRule() const;
  ValueRange getInputs() const { return inputs; }
  ArrayRef<ExplicitSpec> getInputSpecs() const { return inputSpecs; }
  const ExplicitSpec &getInputSpec(unsigned i) const { return inputSpecs[i]; }
  /// The mesh and its name of the first input on a mesh (null if none).
  std::pair<MeshAttr, Attribute> getInputMesh() const;
  /// A replicated spec of `rank` on the inputs' mesh.
  ExplicitSpec replicatedOnInputMesh(int64_t rank) const;

  //===--------------------------------------------------------------------===//
  // JAX's printers
  //===--------------------------------------------------------------------===//

  /// A value's type as JAX prints it in messages: `f32[8@x,4]`
  /// (`float32[8@x,4]` without short dtypes).
  static std::string typeString(Type type, const ExplicitSpec &spec,
                                bool shortDtypes = true);
  /// JAX's repr of an abstract value: `ShapedArray(float32[8@x])`.
  static std::string avalString(Type type, const ExplicitSpec &spec);
  /// `('x', None)` for a spec.
  static std::string tupleString(const ExplicitSpec &spec);
  /// `P('x', None)` for a spec.
  static std::string partitionSpecString(const ExplicitSpec &spec);
  /// Python's repr of a frozenset of axis names: `frozenset({'x'})`.
  static std::string frozensetString(ArrayRef<AxisRefAttr> axes);
  /// Python's repr of a shape tuple: `(8,)`, `(8, 4)`.
  static std::string shapeString(ArrayRef<int64_t> shape);

  /// The sharding a spec stands for (its Explicit axes, closed unless the
  /// mesh has Auto axes, on `spec.meshRef`).
  static TensorShardingAttr toSharding(MLIRContext *ctx,
                                       const ExplicitSpec &spec);

  /// JAX's error for an op without a sharding rule (asks for auto_axes).
  LogicalResult emitNotImplemented(llvm::StringRef detail = "") const;

private:
  Operation *op;
  ValueRange inputs;
  ArrayRef<ExplicitSpec> inputSpecs;
  mutable OpShardingRuleAttr rule;
};

/// The product of the sizes of `axes` in `mesh`.
int64_t getAxesSize(ArrayRef<AxisRefAttr> axes, MeshAttr mesh);

/// The result types of an op from its sharding rule, with JAX's consensus
/// semantics:
/// - the Explicit axes of every input dimension are handed to the factors
///   of that dimension, major to minor (an axis must divide what remains of
///   its factor, else it is not implemented);
/// - a factor the inputs shard differently is an error: JAX's broadcasting
///   error (`<op> got incompatible shardings for broadcasting: ...`) for ops
///   without reduction factors, where an unsharded input yields to a
///   sharded one and a size-1 unsharded dimension (a broadcast) takes no
///   part; dot_general's batch error for factors several inputs of a
///   contraction share (which must be sharded identically);
/// - a reduction factor sharded in two inputs of a one-result op is
///   dot_general's ambiguity error; one sharded in one input only is
///   dropped (gathered), and so is every reduced factor of a one-input
///   reduction and of a reduction with several results (JAX's variadic
///   reduce, argmax/argmin);
/// - a permutation or need-replication factor that is sharded is not
///   implemented;
/// - each result dimension takes the axes of its factors, major to minor.
ExplicitSpecs inferExplicitFromShardingRule(const ExplicitRuleContext &context,
                                            OpShardingRuleAttr rule);

/// The unreduced rule an op gets from its sharding rule when its
/// ExplicitShardingOpInterface does not say: DotGeneral for a contraction
/// (reduction factors and two or more data inputs), Reduce for a reduction
/// of one input into one result, else NotImplemented (a reduction with
/// several results is JAX's variadic reduce or argmax, which have none).
UnreducedRule getUnreducedRuleFromShardingRule(OpShardingRuleAttr rule,
                                               unsigned numInputs);

/// The data inputs of `op` for explicit inference: the ins of a
/// destination-style op with a payload region (a linalg op, whose outs
/// never change a result's type), otherwise all operands (the destination
/// of tensor.insert_slice is the data it updates).
SmallVector<Value> getExplicitInputs(Operation *op);

/// The indices of `rule`'s operands that are `op`'s data inputs (see
/// getExplicitInputs), in order.
SmallVector<unsigned> getExplicitInputOperandIndices(Operation *op);

} // namespace mlir::tessera::spmd

#endif // TESSERA_DIALECT_SPMD_IR_EXPLICITSHARDING_H
