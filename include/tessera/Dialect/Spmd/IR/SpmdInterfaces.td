//===- SpmdInterfaces.td - spmd op interfaces --------------*- tablegen -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_IR_SPMDINTERFACES_TD
#define TESSERA_DIALECT_SPMD_IR_SPMDINTERFACES_TD

include "mlir/IR/OpBase.td"

def Spmd_ResultShardingOpInterface : OpInterface<"ResultShardingOpInterface"> {
  let cppNamespace = "::mlir::tessera::spmd";
  let description = [{
    Implemented by ops whose result shardings are part of the op itself
    (e.g. `spmd.sharding_constraint`, `spmd.reshard`, the global-view
    collectives' `out_sharding`) rather than a discardable `spmd.sharding`
    attribute. `getSharding(Value)` asks this interface first. Only ops of
    the spmd dialect implement it (`getSharding` asks no other op).
  }];
  let methods = [
    InterfaceMethod<
      "Returns the sharding of result `index`, or null if it has none.",
      "::mlir::tessera::spmd::TensorShardingAttr", "getResultSharding",
      (ins "unsigned":$index)>
  ];
}

def Spmd_ShardingRuleOpInterface : OpInterface<"ShardingRuleOpInterface"> {
  let cppNamespace = "::mlir::tessera::spmd";
  let description = [{
    The factor-based sharding rule of an op (`#spmd.op_sharding_rule`): how
    its operand and result dimensions map to shared factors, which factors
    are reductions, must stay replicated, or need a permutation.
    Propagation, explicit-mode inference and reshard insertion read rules
    only through `spmd::getShardingRule(Operation *)`, which prefers a
    user-written `spmd.sharding_rule` attribute and otherwise asks this
    interface; passes never switch on op names.

    Tessera implements it for upstream ops as external models
    (`registerShardingRuleExternalModels`); other dialects' ops take part by
    attaching their own model or by carrying `spmd.sharding_rule`.
  }];
  let methods = [
    InterfaceMethod<
      [{Returns the rule of this op instance, or null if it has none (for
        example a dynamic dimension whose factor size is unknown).}],
      "::mlir::tessera::spmd::OpShardingRuleAttr", "getShardingRule", (ins)>,
    InterfaceMethod<
      [{Returns how the partial values of result `resultIndex` over a
        reduction factor combine (the combiner of a reduction's body), or
        `None`. Passes read it through `spmd::getReductionCombiner`: reshard
        insertion chooses the all-reduce from it, explicit inference JAX's
        reduction name and unreduced kind.}],
      "::mlir::tessera::spmd::ReductionCombiner", "getReductionCombiner",
      (ins "unsigned":$resultIndex), [{}],
      /*defaultImplementation=*/[{
        return ::mlir::tessera::spmd::ReductionCombiner::None;
      }]>
  ];
}

def Spmd_ExplicitShardingOpInterface
    : OpInterface<"ExplicitShardingOpInterface"> {
  let cppNamespace = "::mlir::tessera::spmd";
  let description = [{
    How `spmd-infer-explicit` reads an op, for what the op's factor-based
    sharding rule cannot say: JAX's own rule for the primitive the op
    implements (with JAX's messages), and how it treats unreduced inputs.
    An op without this interface gets both from its sharding rule
    (`inferExplicitFromShardingRule`, `getUnreducedRuleFromShardingRule`);
    an op that implements it only for its unreduced rule (arith.addf, the
    copies among linalg ops) keeps the default inference.

    Tessera implements it as external models for the tensor ops JAX gives
    special rules (reshape, slicing, pad, concatenate, dynamic update,
    gather, scatter), `arith.select` and the arith adds and multiplies
    (`registerExplicitShardingExternalModels`).
  }];
  let methods = [
    InterfaceMethod<
      [{Returns the types (Explicit axes) of the op's results from those of
        its data inputs in `context`, or fails with JAX's error.}],
      "::mlir::tessera::spmd::ExplicitSpecs", "inferExplicitShardings",
      (ins "const ::mlir::tessera::spmd::ExplicitRuleContext &":$context),
      [{}],
      /*defaultImplementation=*/[{
        return ::mlir::tessera::spmd::inferExplicitFromShardingRule(
            context, context.getShardingRule());
      }]>,
    InterfaceMethod<
      [{Returns how the op treats unreduced (partial-sum) inputs.}],
      "::mlir::tessera::spmd::UnreducedRule", "getUnreducedRule", (ins), [{}],
      /*defaultImplementation=*/[{
        return ::mlir::tessera::spmd::getUnreducedRuleFromShardingRule(
            ::mlir::tessera::spmd::getShardingRule($_op),
            ::mlir::tessera::spmd::getExplicitInputs($_op).size());
      }]>
  ];
}

def Spmd_PartitionOpInterface : OpInterface<"PartitionOpInterface"> {
  let cppNamespace = "::mlir::tessera::spmd";
  let description = [{
    How `spmd-partition` builds the local form of an op whose attributes or
    operands spell shapes or global positions: a splat or sliced constant,
    `tensor.expand_shape`'s output shape, slice sizes, `linalg.index` in a
    body, a reduction over a padded dimension. Ops without it only change
    their types (the pass gives their results their local types in place).
    See Partitioning.h; Tessera's models for upstream ops are
    `registerPartitionExternalModels`.
  }];
  let methods = [
    InterfaceMethod<
      [{Gives this op its local form with `rewriter` (inserting before
        the op), its results taking `resultTypes` (their local types), and
        returns the values that replace its results: its own results when
        it updated the op in place. Or fails with an error at the op,
        having changed nothing. When it runs, the op's operands are local
        already (partitioned) and its results still have their global
        types; `context` gives the global view of its values (shardings,
        global types) and the index arithmetic of a device's block.}],
      "::mlir::FailureOr<::llvm::SmallVector<::mlir::Value>>", "partition",
      (ins "::mlir::tessera::spmd::PartitionContext &":$context,
           "::mlir::RewriterBase &":$rewriter,
           "::mlir::TypeRange":$resultTypes)>
  ];
}

#endif // TESSERA_DIALECT_SPMD_IR_SPMDINTERFACES_TD
