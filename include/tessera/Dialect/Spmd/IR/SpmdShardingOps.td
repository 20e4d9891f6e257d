//===- SpmdShardingOps.td - spmd sharding/collective ops ---*- tablegen -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Included from SpmdOps.td. The ops that attach shardings to values:
// sharding_constraint, reshard, sharding_group and propagation_barrier.
// Implemented in SpmdShardingOps.cpp; canonicalization patterns in
// SpmdCanonicalization.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_IR_SPMDSHARDINGOPS_TD
#define TESSERA_DIALECT_SPMD_IR_SPMDSHARDINGOPS_TD

//===----------------------------------------------------------------------===//
// ShardingConstraintOp
//===----------------------------------------------------------------------===//

def Spmd_ShardingConstraintOp : Spmd_MeshUserOp<"sharding_constraint",
    [Elementwise, SameOperandsAndResultType,
     DeclareOpInterfaceMethods<Spmd_ResultShardingOpInterface>]> {
  let summary = "constrains a tensor to a sharding";
  let description = [{
    Attaches a sharding to an intermediate value (JAX's
    `with_sharding_constraint`). The result is the operand; only its
    sharding is constrained:

    ```mlir
    spmd.mesh @mesh = <["x"=2, "y"=4]>
    %1 = spmd.sharding_constraint %0 <@mesh, [{"x"}, {?} ]> : tensor<8x16xf32>
    ```

    Open dimensions (`{?}`, `{"x", ?}`) may be sharded further by
    propagation; closed ones are final.

    - A constraint without uses (dangling) says how the operand itself is
      sharded.
    - A constraint with uses says how those uses see the value; other uses of
      the operand may see a different sharding.

    The op is not `Pure`: a dangling constraint carries information and must
    not be removed as dead code. Propagation consumes constraints; the
    partitioner never sees them (`spmd.reshard` is the explicit form).

    Verification: the sharding is valid for the type (see `#spmd.sharding`),
    uses no axis bound by an enclosing `spmd.manual_computation`, and, when
    the operand has a sharding, keeps the reduction kind of the unreduced
    axes that both shardings list and introduces new unreduced axes only as
    `sum`.
  }];
  let arguments = (ins AnyTensor:$input, Spmd_TensorShardingAttr:$sharding);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input $sharding attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// ReshardOp
//===----------------------------------------------------------------------===//

def Spmd_ReshardOp : Spmd_MeshUserOp<"reshard",
    [Pure, Elementwise, SameOperandsAndResultType,
     DeclareOpInterfaceMethods<Spmd_ResultShardingOpInterface>]> {
  let summary = "reshards a tensor to a different sharding";
  let description = [{
    Moves the data of a tensor to another sharding (JAX's `jax.reshard`).
    Inserted by `spmd-insert-reshards` where an op's operands or results
    disagree, and lowered to global-view collectives by
    `spmd-reshard-to-collectives`:

    ```mlir
    %1 = spmd.reshard %0 <@mesh, [{}, {"y"} ]> : tensor<8x16xf32>
    ```

    A reshard may also reduce unreduced axes (dropping them from
    `unreduced`) or introduce new `sum`-unreduced axes; it never changes the
    reduction kind of an axis that stays unreduced.

    Canonicalization removes a reshard to exactly the operand's own sharding
    (identical attribute: open/closed dimensions, priorities and replicated
    axes included, since a reshard that only closes a dimension still stops
    propagation) and folds `reshard(reshard(x))` into one reshard of `x`.
  }];
  let arguments = (ins AnyTensor:$input, Spmd_TensorShardingAttr:$sharding);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input $sharding attr-dict `:` type($result)";
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// ShardingGroupOp
//===----------------------------------------------------------------------===//

def Spmd_ShardingGroupOp : Spmd_Op<"sharding_group", []> {
  let summary = "puts a tensor in a group of identically sharded tensors";
  let description = [{
    Adds `input` to the sharding group `group_id` (JAX's `shard_alike`):
    propagation gives every member of a group the same sharding. The op has
    no result and is not removed as dead code.

    ```mlir
    spmd.sharding_group %0 group_id=0 : tensor<8x8xf32>
    spmd.sharding_group %1 group_id=0 : tensor<8x8xf32>
    ```

    Verification: `group_id` is non-negative; all members of a group (in the
    enclosing module) have the same shape and live in the same
    `spmd.manual_computation` scope (a group cannot mix values of a
    manual body with values outside it, since their shapes are local on one
    side and global on the other).

    Canonicalization removes an op that repeats an earlier op of the same
    block with the same input and group.
  }];
  let arguments = (ins AnyRankedTensor:$input, I64Attr:$group_id);
  let results = (outs);
  let assemblyFormat =
      "$input `group_id` `` `=` `` $group_id attr-dict `:` type($input)";
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// PropagationBarrierOp
//===----------------------------------------------------------------------===//

def Spmd_PropagationBarrierOp : Spmd_Op<"propagation_barrier",
    [Pure, Elementwise, SameOperandsAndResultType,
     DeclareOpInterfaceMethods<Spmd_ResultShardingOpInterface>]> {
  let summary = "an identity that lets shardings flow in one direction";
  let description = [{
    Returns its operand. For sharding propagation it only lets shardings flow
    in `allowed_direction`:

    ```mlir
    %1 = spmd.propagation_barrier %0 allowed_direction=FORWARD : tensor<8xf32>
    ```

    - `FORWARD`: from the operand to the result;
    - `BACKWARD`: from the result to the operand;
    - `NONE`: in neither direction;
    - `BOTH` is rejected: a barrier that blocks nothing is redundant.

    The barrier has no sharding of its own; its result is sharded by the
    discardable `spmd.sharding` attribute, like any other op.
  }];
  let arguments = (ins
    AnyRankedTensor:$input,
    Spmd_PropagationDirectionAttr:$allowed_direction
  );
  let results = (outs AnyRankedTensor:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

#endif // TESSERA_DIALECT_SPMD_IR_SPMDSHARDINGOPS_TD
