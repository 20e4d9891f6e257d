//===- SpmdShardingOps.td - spmd sharding/collective ops ---*- tablegen -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Included from SpmdOps.td. The ops that attach shardings to values
// (constraints, reshards, groups, barriers), the ops with regions that change
// how mesh axes are treated (manual_computation, auto_axes, explicit_axes) and
// the global-view collectives produced by the partitioner.
//
// Verifiers live in SpmdShardingOpsVerifiers.cpp, parsers/printers and
// interface methods in SpmdShardingOps.cpp, canonicalization patterns in
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
// ReturnOp
//===----------------------------------------------------------------------===//

def Spmd_ReturnOp : Spmd_Op<"return",
    [Pure, Terminator,
     ParentOneOf<["ManualComputationOp", "AutoAxesOp", "ExplicitAxesOp"]>]> {
  let summary = "terminates the region of an spmd op";
  let description = [{
    Returns the values of the body of `spmd.manual_computation`,
    `spmd.auto_axes` and `spmd.explicit_axes`:

    ```mlir
    spmd.return %0, %1 : tensor<4x8xf32>, tensor<8xf32>
    spmd.return
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$results);
  let builders = [
    OpBuilder<(ins), [{ build($_builder, $_state, ::mlir::ValueRange()); }]>
  ];
  let assemblyFormat = "attr-dict ($results^ `:` type($results))?";
}

//===----------------------------------------------------------------------===//
// ManualComputationOp
//===----------------------------------------------------------------------===//

def Spmd_ManualComputationOp : Spmd_MeshUserOp<"manual_computation",
    [RecursiveMemoryEffects, SingleBlockImplicitTerminator<"ReturnOp">,
     IsolatedFromAbove, RecursivelySpeculatable,
     DeclareOpInterfaceMethods<Spmd_ResultShardingOpInterface>]> {
  let summary = "per-device computation with manual collectives (shard_map)";
  let description = [{
    JAX's `shard_map`: the body is written per device for the `manual_axes`,
    with local shapes and explicit `comm.*` collectives; on the other (free)
    axes it stays a global-view program that propagation may still shard.

    ```mlir
    spmd.mesh @mesh = <["x"=2, "y"=2]>
    %r = spmd.manual_computation(%a, %b)
        in_shardings=[<@mesh, [{"x"}, {} ]>, <@mesh, [{}, {"y"} ]>]
        out_shardings=[<@mesh, [{"x"}, {"y"} ]>]
        manual_axes={"x", "y"}
        (%la: tensor<4x16xf32>, %lb: tensor<16x4xf32>) {
      %e = tensor.empty() : tensor<4x4xf32>
      %p = linalg.matmul ins(%la, %lb : tensor<4x16xf32>, tensor<16x4xf32>)
                         outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
      spmd.return %p : tensor<4x4xf32>
    } : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
    ```

    `in_shardings` give the sharding of each operand (global type) and
    `out_shardings` the sharding of each result; the region arguments and
    returned values have the local types: each dimension divided by the
    product of the manual axes that shard it. Free axes may appear in the
    shardings after the manual ones of each dimension (the "stripped" form
    Shardy uses); they do not change local shapes.

    Inside the body the manual axes are `manual`: no sharding of a nested op
    may use them, and a nested `spmd.manual_computation` cannot bind them
    again. Free axes keep their type.

    Verification (Shardy's rules):
    - the shardings are valid for the global types, one per operand/result,
      all on the same mesh or an empty mesh, with no axis already bound by an
      enclosing manual computation;
    - the manual axes exist in that mesh and are unique (so `manual_axes`
      is empty when there are no in/out shardings to name the mesh); no
      sharding is on a maximal mesh;
    - the number of region arguments/returned values equals the number of
      operands/results;
    - in every dimension sharding the manual axes come before the free axes,
      manual axes are never split into sub-axes, and every static dimension
      is divisible by the size of its manual axes (no padding);
    - every local type equals the global type with each static dimension
      divided by its manual axes (dynamic dimensions stay dynamic).

    Canonicalization removes unused operands (and their in_shardings).
  }];
  let arguments = (ins
    Variadic<AnyType>:$tensors,
    Spmd_TensorShardingPerValueAttr:$in_shardings,
    Spmd_TensorShardingPerValueAttr:$out_shardings,
    Spmd_ManualAxesAttr:$manual_axes
  );
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = meshUserDeclaration # [{
    /// The sharding of operand `index`.
    TensorShardingAttr getInSharding(unsigned index) {
      return getInShardings().getShardings()[index];
    }
    /// The sharding of result `index`.
    TensorShardingAttr getOutSharding(unsigned index) {
      return getOutShardings().getShardings()[index];
    }
    /// True if `axisName` is one of the manual axes.
    bool isManualAxis(::llvm::StringRef axisName) {
      return getManualAxes().contains(axisName);
    }
  }];
}

//===----------------------------------------------------------------------===//
// AutoAxesOp / ExplicitAxesOp
//===----------------------------------------------------------------------===//

def Spmd_AutoAxesOp : Spmd_MeshUserOp<"auto_axes",
    [RecursiveMemoryEffects, SingleBlockImplicitTerminator<"ReturnOp">,
     IsolatedFromAbove, RecursivelySpeculatable,
     DeclareOpInterfaceMethods<Spmd_ResultShardingOpInterface>]> {
  let summary = "runs a region with some explicit mesh axes made auto";
  let description = [{
    JAX's `jax.sharding.auto_axes(f, axes=..., out_sharding=...)`: the body
    runs with the listed mesh axes of type `auto`, so their shardings are
    chosen by the compiler (propagation) instead of being part of the types;
    the results are then resharded to `out_shardings`.

    ```mlir
    spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>
    %r = spmd.auto_axes(%x) axes={"x"}
        out_shardings=[<@mesh, [{"x"}, {} ]>]
        (%arg: tensor<8x4xf32>) {
      %0 = arith.negf %arg : tensor<8x4xf32>
      spmd.return %0 : tensor<8x4xf32>
    } : (tensor<8x4xf32>) -> tensor<8x4xf32>
    ```

    Axis types: outside the op every axis has the type its context gives it
    (the mesh's `axis_types`, changed by enclosing `spmd.manual_computation`,
    `spmd.auto_axes` and `spmd.explicit_axes` ops). Inside the body the
    listed axes are `auto`; all other axes keep their outside type. An axis
    that is already `auto` outside stays `auto` (the op changes nothing for
    it). The body works on the global shapes: region arguments and returned
    values have exactly the operand and result types; the operands enter the
    body with the listed axes erased from their (explicit) shardings.

    `out_shardings` is required, one per result, all on one mesh; it is the
    sharding of each result outside the op and may therefore only use axes
    that are `explicit` outside (including the listed ones, which are
    explicit again after the op).

    Verification: the axes exist in the mesh of the shardings and are
    unique; no listed axis is `manual` (JAX: going from `Manual` to `Auto`
    is not allowed); `out_shardings` is present with one valid sharding per
    result using only explicit axes; the region argument and returned value
    types match the operand and result types.
  }];
  let arguments = (ins
    Variadic<AnyRankedTensor>:$tensors,
    StrArrayAttr:$axes,
    OptionalAttr<Spmd_TensorShardingPerValueAttr>:$out_shardings
  );
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Spmd_ExplicitAxesOp : Spmd_MeshUserOp<"explicit_axes",
    [RecursiveMemoryEffects, SingleBlockImplicitTerminator<"ReturnOp">,
     IsolatedFromAbove, RecursivelySpeculatable,
     DeclareOpInterfaceMethods<Spmd_ResultShardingOpInterface>]> {
  let summary = "runs a region with some auto mesh axes made explicit";
  let description = [{
    JAX's `jax.sharding.explicit_axes(f, axes=..., in_sharding=...)`: the
    operands are resharded to `in_shardings` and the body runs with the
    listed mesh axes of type `explicit`, so their shardings are part of the
    types there (sharding in types, `spmd-infer-explicit`).

    ```mlir
    spmd.mesh @mesh = <["x"=2, "y"=2]>
    %r = spmd.explicit_axes(%x) axes={"x", "y"}
        in_shardings=[<@mesh, [{"x"}, {"y"} ]>]
        (%arg: tensor<8x4xf32>) {
      %0 = arith.negf %arg : tensor<8x4xf32>
      spmd.return %0 : tensor<8x4xf32>
    } : (tensor<8x4xf32>) -> tensor<8x4xf32>
    ```

    Axis types: inside the body the listed axes are `explicit`; all other
    axes keep the type they have outside (see `spmd.auto_axes`). After the
    op the listed axes are `auto` again, so the sharding of each result
    outside is the sharding of the returned value with the listed axes
    erased (JAX: inside `P('x', 'y')`, outside `P('x', None)` when only `y`
    was listed and `x` is explicit outside).

    `in_shardings` is required, one per operand, all on one mesh; it is the
    sharding of each region argument and may only use axes that are
    `explicit` inside the body. The body works on global shapes: region
    arguments and returned values have exactly the operand and result types.

    Verification: the axes exist in the mesh of the shardings and are
    unique; no listed axis is `manual`; `in_shardings` is present with one
    valid sharding per operand using only axes that are explicit inside; the
    region argument and returned value types match the operand and result
    types.
  }];
  let arguments = (ins
    Variadic<AnyRankedTensor>:$tensors,
    StrArrayAttr:$axes,
    OptionalAttr<Spmd_TensorShardingPerValueAttr>:$in_shardings
  );
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
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

//===----------------------------------------------------------------------===//
// Global-view collectives
//===----------------------------------------------------------------------===//

class Spmd_CollectiveOp<string mnemonic, list<Trait> traits = []>
    : Spmd_MeshUserOp<mnemonic, !listconcat(traits,
        [Pure, SameOperandsAndResultType, InferTypeOpInterface,
         DeclareOpInterfaceMethods<Spmd_ResultShardingOpInterface>])> {
  let results = (outs AnyRankedTensor:$result);
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  code collectiveDescription = [{
    Global-view collectives are produced by `spmd-reshard-to-collectives`
    and `spmd-insert-reshards`. The result has the global type of the
    operand; `out_sharding` is the sharding of the result, and it must equal
    the sharding the op derives from its input sharding. The input sharding
    is the optional `in_sharding=<...>` written after the operand, which
    makes the op self-contained: its validity no longer depends on how the
    producer of its operand is annotated, so rewrites of the producer (a
    fold of `arith.addf %x, -0.0` into `%x`, say) cannot invalidate it. The
    passes that create collectives always write it. Without `in_sharding`,
    the op takes the sharding of its operand as Shardy does
    (`getSharding(operand)`: a function argument's `spmd.sharding`, the
    `out_sharding` of a producing collective, an op's `spmd.sharding`, ...).
    Unless stated otherwise, the input must have a sharding, the result
    stays on the input's mesh, and unreduced axes are unchanged. The
    functions of CollectiveShardings.h (`inferAllGatherSharding`, ...)
    compute the result sharding for verifiers, builders and passes alike.
  }];
}

def Spmd_AllGatherOp : Spmd_CollectiveOp<"all_gather"> {
  let summary = "all-gathers a tensor along mesh axes";
  let description = collectiveDescription # [{

    `gathering_axes` has one axis list per dimension; each list must be a
    suffix of the axes that shard that dimension in the operand, and is
    removed from it (a sub-axis may be gathered out of a larger axis or
    sub-axis, leaving its major part):

    ```mlir
    spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=2]>
    // %0 is sharded <@mesh, [{"a", "b", "c"}, {}, {"d"} ]>
    %1 = spmd.all_gather [{"b", "c"}, {}, {"d"} ] %0
        out_sharding=<@mesh, [{"a"}, {}, {} ]> : tensor<8x8x8xf32>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$tensor,
    Spmd_ListOfAxisRefListsAttr:$gathering_axes,
    Spmd_TensorShardingAttr:$out_sharding,
    OptionalAttr<Spmd_TensorShardingAttr>:$in_sharding
  );
  let hasCustomAssemblyFormat = 1;
}

def Spmd_AllSliceOp : Spmd_CollectiveOp<"all_slice"> {
  let summary = "slices a tensor along mesh axes (no communication)";
  let description = collectiveDescription # [{

    The dual of `spmd.all_gather`: `slicing_axes` has one axis list per
    dimension, appended to the axes that shard that dimension in the operand
    (consecutive sub-axes are merged). Each device keeps its slice; nothing
    is communicated. An operand without a sharding is taken as fully
    replicated on the mesh of `out_sharding`.

    ```mlir
    // %0 is sharded <@mesh, [{"a"}, {}, {} ]>
    %1 = spmd.all_slice [{"b", "c"}, {}, {"d"} ] %0
        out_sharding=<@mesh, [{"a", "b", "c"}, {}, {"d"} ]> : tensor<8x8x8xf32>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$tensor,
    Spmd_ListOfAxisRefListsAttr:$slicing_axes,
    Spmd_TensorShardingAttr:$out_sharding,
    OptionalAttr<Spmd_TensorShardingAttr>:$in_sharding
  );
  let hasCustomAssemblyFormat = 1;
}

def Spmd_AllToAllOp : Spmd_CollectiveOp<"all_to_all"> {
  let summary = "moves sharding axes from one dimension to another";
  let description = collectiveDescription # [{

    Each parameter `{axes}: src->tgt` moves `axes`, which must be a suffix
    of the axes sharding dimension `src` in the operand, to the end of the
    axes sharding dimension `tgt` (an all-gather along `src` followed by an
    all-slice along `tgt`, done as one all-to-all). The parameter list is
    not empty, every `src` and `tgt` is a dimension of the tensor, all of
    them are distinct, and the `src` dimensions are sorted ascending. Other
    dimensions keep their axes.

    ```mlir
    // %0 is sharded <@mesh, [{"a", "b"}, {"c"}, {}, {} ]>
    %1 = spmd.all_to_all [{"b"}: 0->2, {"c"}: 1->3] %0
        out_sharding=<@mesh, [{"a"}, {}, {"b"}, {"c"} ]> : tensor<8x8x4x4xf32>
    ```

    Canonicalization merges an all-to-all into its single user all-to-all
    when their dimensions are disjoint.
  }];
  let arguments = (ins
    AnyRankedTensor:$tensor,
    Spmd_AllToAllParamListAttr:$params,
    Spmd_TensorShardingAttr:$out_sharding,
    OptionalAttr<Spmd_TensorShardingAttr>:$in_sharding
  );
  let hasCustomAssemblyFormat = 1;
}

def Spmd_CollectivePermuteOp : Spmd_CollectiveOp<"collective_permute"> {
  let summary = "sends shards between devices to reorder or replace axes";
  let description = collectiveDescription # [{

    Every dimension stays as sharded as it was (the product of its axis
    sizes is unchanged), but the axes may be reordered within a dimension,
    swapped across dimensions, or replaced by others of the same size. The
    result may also move to another mesh with the same axes and a different
    device order (a permutation of the devices); a different mesh with the
    same device order is rejected, as it would be a no-op under another
    name.

    ```mlir
    spmd.mesh @mesh = <["a"=2, "b"=2, "c"=4, "d"=2, "e"=2, "f"=2]>
    // %0 is sharded <@mesh, [{"a", "c"}, {"f"}, {"d", "e"} ]>
    %1 = spmd.collective_permute %0
        out_sharding=<@mesh, [{"c":(1)2, "b", "f"}, {"a"}, {"e", "d"} ]>
        : tensor<8x8x8xf32>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$tensor,
    Spmd_TensorShardingAttr:$out_sharding,
    OptionalAttr<Spmd_TensorShardingAttr>:$in_sharding
  );
  let assemblyFormat = [{
    $tensor (`in_sharding` `` `=` `` $in_sharding^)?
    `out_sharding` `` `=` `` $out_sharding attr-dict `:` type($result)
  }];
}

def Spmd_AllReduceOp : Spmd_CollectiveOp<"all_reduce"> {
  let summary = "all-reduces a tensor over mesh axes";
  let description = collectiveDescription # [{

    Reduces the values of the devices along `reduction_axes` with
    `reduction_kind` (`sum` by default; `max` and `min` are written before
    the axes). Dimension shardings are unchanged. The reduction axes
    must not overlap the operand's dimension shardings or explicitly
    replicated axes. Reduction axes that the operand lists as `unreduced`
    must have been left unreduced by the same kind, and they are removed from
    the result's `unreduced` list (the other unreduced axes stay, with their
    kind). An operand without a sharding has unsharded dimensions (each
    device holds a full-size partial result along the reduction axes).

    ```mlir
    // %0 is sharded <@mesh, [{"x"}, {} ], unreduced={"y"}>
    %1 = spmd.all_reduce {"y"} %0 out_sharding=<@mesh, [{"x"}, {} ]>
        : tensor<8x8xf32>
    %2 = spmd.all_reduce max {"z"} %1 out_sharding=<@mesh, [{"x"}, {} ]>
        : tensor<8x8xf32>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$tensor,
    Spmd_AxisRefListAttr:$reduction_axes,
    Spmd_TensorShardingAttr:$out_sharding,
    OptionalAttr<Spmd_TensorShardingAttr>:$in_sharding,
    DefaultValuedAttr<Spmd_ReductionKindAttr,
                      "::mlir::tessera::spmd::ReductionKind::Sum">:
        $reduction_kind
  );
  let hasCustomAssemblyFormat = 1;
}

def Spmd_ReduceScatterOp : Spmd_CollectiveOp<"reduce_scatter"> {
  let summary = "reduces over mesh axes and scatters the result along them";
  let description = collectiveDescription # [{

    An `spmd.all_reduce` over all the axes of `reduce_scatter_axes`
    followed by an `spmd.all_slice` along the same axes: each dimension's
    axes are appended to the operand's dimension sharding (one list per
    dimension), the reduction rules of `spmd.all_reduce` apply to the union
    of the axes (including an operand without a sharding), and the optional
    kind is written first (`max [{"y"}, {} ]`).

    ```mlir
    // %0 is sharded <@mesh, [{"x"}, {} ], unreduced={"y"}>
    %1 = spmd.reduce_scatter [{}, {"y"} ] %0
        out_sharding=<@mesh, [{"x"}, {"y"} ]> : tensor<8x8xf32>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$tensor,
    Spmd_ListOfAxisRefListsAttr:$reduce_scatter_axes,
    Spmd_TensorShardingAttr:$out_sharding,
    OptionalAttr<Spmd_TensorShardingAttr>:$in_sharding,
    DefaultValuedAttr<Spmd_ReductionKindAttr,
                      "::mlir::tessera::spmd::ReductionKind::Sum">:
        $reduction_kind
  );
  let hasCustomAssemblyFormat = 1;
}

def Spmd_ShardedToUnreducedOp : Spmd_CollectiveOp<"sharded_to_unreduced"> {
  let summary = "turns sharding axes into unreduced axes";
  let description = collectiveDescription # [{

    `axes` has one axis list per dimension; each must be a suffix of the
    axes that shard that dimension in the input (as for `spmd.all_gather`).
    They are removed from the dimension and become `sum`-unreduced axes of
    the result (sorted in mesh order, consecutive sub-axes merged): each
    device keeps its own shard in place and zeros elsewhere, so that an
    `spmd.all_reduce` over the same axes gives what an `spmd.all_gather`
    would. The input's unreduced axes must be `sum` ones, and the result's
    unreduced axes are exactly the input's plus `axes`
    (`out_unreduced_axes should be in_unreduced_axes +
    sharded_to_unreduced_axes`).

    ```mlir
    // %0 is sharded <@mesh, [{"a", "b"}, {"c"} ], unreduced={"d"}>
    %1 = spmd.sharded_to_unreduced [{"b"}, {"c"} ] %0
        out_sharding=<@mesh, [{"a"}, {} ], unreduced={"b", "c", "d"}>
        : tensor<8x8xf32>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$tensor,
    Spmd_ListOfAxisRefListsAttr:$axes,
    Spmd_TensorShardingAttr:$out_sharding,
    OptionalAttr<Spmd_TensorShardingAttr>:$in_sharding
  );
  let hasCustomAssemblyFormat = 1;
}

def Spmd_ReplicatedToUnreducedOp
    : Spmd_CollectiveOp<"replicated_to_unreduced"> {
  let summary = "turns replicated axes into unreduced axes";
  let description = collectiveDescription # [{

    `axes` (not empty, sorted in mesh order) must be replicated in the input,
    implicitly or explicitly: no dimension is sharded on them and they are
    not unreduced. They become `sum`-unreduced axes of the result (one device
    of each group along them keeps the value, the others hold zeros, so that
    an `spmd.all_reduce` over them gives the input back); dimension shardings
    are unchanged and the result's unreduced axes are exactly the input's
    plus `axes`.

    ```mlir
    // %0 is sharded <@mesh, [{"a"}, {} ], replicated={"c"}>
    %1 = spmd.replicated_to_unreduced {"b", "c"} %0
        out_sharding=<@mesh, [{"a"}, {} ], unreduced={"b", "c"}>
        : tensor<8x8xf32>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$tensor,
    Spmd_AxisRefListAttr:$axes,
    Spmd_TensorShardingAttr:$out_sharding,
    OptionalAttr<Spmd_TensorShardingAttr>:$in_sharding
  );
  let hasCustomAssemblyFormat = 1;
}

#endif // TESSERA_DIALECT_SPMD_IR_SPMDSHARDINGOPS_TD
