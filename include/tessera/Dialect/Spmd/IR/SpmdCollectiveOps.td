//===- SpmdCollectiveOps.td - spmd collectives -------------*- tablegen -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Included from SpmdOps.td. The global-view collectives produced by the
// partitioner (all_gather, all_slice, all_to_all, collective_permute,
// all_reduce, reduce_scatter, sharded_to_unreduced, replicated_to_unreduced).
// Implemented in SpmdCollectiveOps.cpp; canonicalization patterns in
// SpmdCanonicalization.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_IR_SPMDCOLLECTIVEOPS_TD
#define TESSERA_DIALECT_SPMD_IR_SPMDCOLLECTIVEOPS_TD

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
  let extraClassDefinition = meshUserDefinition # [{
    ::mlir::tessera::spmd::TensorShardingAttr
    $cppClass::getResultSharding(unsigned index) {
      return index == 0 ? getOutSharding() : TensorShardingAttr();
    }
  }];
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
    name. Canonicalization merges a collective_permute into its single
    user collective_permute when neither moves partial sums.

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

#endif // TESSERA_DIALECT_SPMD_IR_SPMDCOLLECTIVEOPS_TD
