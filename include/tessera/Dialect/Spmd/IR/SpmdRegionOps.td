//===- SpmdRegionOps.td - spmd region ops ------------------*- tablegen -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Included from SpmdOps.td. The ops with a region that change how mesh axes
// are treated: manual_computation (shard_map), auto_axes, explicit_axes, and
// their terminator spmd.return. Implemented in SpmdRegionOps.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_IR_SPMDREGIONOPS_TD
#define TESSERA_DIALECT_SPMD_IR_SPMDREGIONOPS_TD

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

#endif // TESSERA_DIALECT_SPMD_IR_SPMDREGIONOPS_TD
