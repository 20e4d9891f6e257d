//===- CommOps.td - comm operations ------------------------*- tablegen -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_COMM_IR_COMMOPS_TD
#define TESSERA_DIALECT_COMM_IR_COMMOPS_TD

include "tessera/Dialect/Comm/IR/CommBase.td"
include "tessera/Dialect/Comm/IR/CommInterfaces.td"
include "tessera/Dialect/Spmd/IR/SpmdAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Base classes
//===----------------------------------------------------------------------===//

/// A `comm` op: it names a mesh symbol and a group of its axes. The mesh and
/// everything that depends on it (axes, group size, local shapes) are
/// checked in `verifySymbolUses`, which resolves the mesh through a cached
/// symbol table; the rest is checked by `verify`.
class Comm_Op<string mnemonic, list<Trait> traits = []>
    : Op<Comm_Dialect, mnemonic, !listconcat(traits, [
        DeclareOpInterfaceMethods<SymbolUserOpInterface>,
        Comm_MeshAxesOpInterface])> {
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

/// The resource collectives synchronize on (see CollectiveResource).
def Comm_CollectiveResource
    : Resource<"::mlir::tessera::comm::CollectiveResource">;

/// A collective: every device of a group executes it together. Its only
/// effect is a read of CollectiveResource: an unused collective is erased
/// and equal collectives in a block CSE (every device of an SPMD program
/// does the same), but, unlike an effect-free op, it is never moved into a
/// conditional region (control-flow sinking) or out of a loop, where devices
/// could disagree on whether it runs.
class Comm_CollectiveOp<string mnemonic, list<Trait> traits = []>
    : Comm_Op<mnemonic, !listconcat(traits,
        [MemoryEffects<[MemRead<Comm_CollectiveResource>]>])>;

defvar Comm_AxesAttr = Spmd_AxisRefListAttr;
/// The C++ type of the axes argument of the builders.
defvar Comm_AxesParam = "::llvm::ArrayRef<::mlir::tessera::spmd::AxisRefAttr>";

//===----------------------------------------------------------------------===//
// AllReduceOp
//===----------------------------------------------------------------------===//

def Comm_AllReduceOp : Comm_CollectiveOp<"all_reduce",
    [AllTypesMatch<["operand", "result"]>]> {
  let summary = "element-wise reduction across a device group";
  let description = [{
    Every device of a group receives the element-wise reduction (`sum`,
    `prod`, `max` or `min`) of the operands of all devices of the group. The
    result has the operand's type.

    ```mlir
    %r = comm.all_reduce sum %x over @mesh {"x", "y"} : tensor<4x8xf32>
    ```

    JAX: `lax.psum(x, ("x", "y"))`; `max`/`min` are `lax.pmax`/`lax.pmin`,
    `prod` has no JAX collective but is a runtime reduction.

    Element types: `sum` and `prod` take integers wider than `i1` (wrapping
    on overflow), `index`, floats and complex numbers; `max` and `min` take
    integers, `index` and floats. Signless integers and `index` compare as
    signed, `ui` types as unsigned, and `i1` is a boolean (`max` is `or`,
    `min` is `and`). `i1` has no `sum`/`prod`: JAX's `psum` counts
    booleans, so extend them to a wider integer type first. Reducing floats
    does not fix an association order.

    The axis list may be empty (JAX's `psum(x, ())`): the op is then the
    identity, as is any all_reduce over a group of one device.
  }];
  let arguments = (ins AnyRankedTensor:$operand,
                       Comm_ReductionKindAttr:$kind,
                       FlatSymbolRefAttr:$mesh,
                       Comm_AxesAttr:$axes);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    custom<ReductionKind>($kind) $operand `over` $mesh custom<Axes>($axes)
    attr-dict `:` type($result)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$operand, "ReductionKind":$kind,
                   "::mlir::FlatSymbolRefAttr":$mesh,
                   Comm_AxesParam:$axes)>
  ];
}

//===----------------------------------------------------------------------===//
// AllGatherOp
//===----------------------------------------------------------------------===//

def Comm_AllGatherOp : Comm_CollectiveOp<"all_gather"> {
  let summary = "concatenates the operands of a device group along a dimension";
  let description = [{
    Every device of a group receives the concatenation, along dimension
    `dim`, of the operands of all devices of the group, in the order of
    their linearized group index (the first listed axis is the most major).
    Result dimension `dim` is the operand's times the group size; the other
    dimensions and the element type are the operand's.

    ```mlir
    %g = comm.all_gather %x over @mesh {"x"} dim 0
        : tensor<4x8xf32> -> tensor<8x8xf32>
    ```

    JAX: `lax.all_gather(x, "x", axis=0, tiled=True)`. The untiled form
    (a new leading dimension) is this op followed by `tensor.expand_shape`.

    With `valid N`, only the first N elements of the concatenation along
    `dim` are gathered: the operands are blocks of a dimension of size N
    padded at the end (ceil-sized blocks, the last ones partly or wholly
    past N), member `i` sends only its valid part, `min(b, max(0, N - i *
    b))` of its `b` rows, and result dimension `dim` is N. This is the op
    followed by an `extract_slice` of the first N rows, without moving the
    padding.

    ```mlir
    %g = comm.all_gather %x over @mesh {"x"} dim 0 valid 10
        : tensor<3x8xf32> -> tensor<10x8xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand,
                       FlatSymbolRefAttr:$mesh,
                       Comm_AxesAttr:$axes,
                       I64Attr:$gather_dim,
                       OptionalAttr<I64Attr>:$valid_size);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $operand `over` $mesh custom<Axes>($axes) `dim` $gather_dim
    (`valid` $valid_size^)? attr-dict `:` type($operand) `->` type($result)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$operand,
                   "::mlir::FlatSymbolRefAttr":$mesh,
                   Comm_AxesParam:$axes,
                   "int64_t":$gatherDim,
                   CArg<"std::optional<int64_t>", "std::nullopt">:$validSize)>
  ];
}

//===----------------------------------------------------------------------===//
// ReduceScatterOp
//===----------------------------------------------------------------------===//

def Comm_ReduceScatterOp : Comm_CollectiveOp<"reduce_scatter"> {
  let summary = "reduces across a device group, scatters along a dimension";
  let description = [{
    Reduces the operands of a group element-wise (as `comm.all_reduce`),
    splits the reduced tensor along dimension `dim` into as many equal
    blocks as the group has devices, and gives block `i` to the device with
    linearized group index `i`. Operand dimension `dim` must be divisible by
    the group size; result dimension `dim` is the quotient.

    ```mlir
    %s = comm.reduce_scatter sum %x over @mesh {"x"} dim 0
        : tensor<8x8xf32> -> tensor<4x8xf32>
    ```

    JAX: `lax.psum_scatter(x, "x", scatter_dimension=0, tiled=True)`. The
    element types allowed for each reduction are those of
    `comm.all_reduce`.
  }];
  let arguments = (ins AnyRankedTensor:$operand,
                       Comm_ReductionKindAttr:$kind,
                       FlatSymbolRefAttr:$mesh,
                       Comm_AxesAttr:$axes,
                       I64Attr:$scatter_dim);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    custom<ReductionKind>($kind) $operand `over` $mesh custom<Axes>($axes)
    `dim` $scatter_dim attr-dict `:` type($operand) `->` type($result)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Type":$result, "ReductionKind":$kind,
                   "::mlir::Value":$operand,
                   "::mlir::FlatSymbolRefAttr":$mesh,
                   Comm_AxesParam:$axes,
                   "int64_t":$scatterDim)>
  ];
}

//===----------------------------------------------------------------------===//
// AllToAllOp
//===----------------------------------------------------------------------===//

def Comm_AllToAllOp : Comm_CollectiveOp<"all_to_all"> {
  let summary = "exchanges blocks of the operand across a device group";
  let description = [{
    Every device splits its operand along dimension `split` into as many
    equal blocks as the group has devices and sends block `j` to the device
    with linearized group index `j`; it then concatenates the blocks it
    received along dimension `concat`, ordered by the sender's group index.
    Operand dimension `split` must be divisible by the group size; in the
    result it is divided by the group size and dimension `concat` is
    multiplied by it (with `split == concat` the shape is unchanged and the
    op transposes blocks across the group).

    ```mlir
    %t = comm.all_to_all %x over @mesh {"x"} split 0 concat 1
        : tensor<8x4xf32> -> tensor<4x8xf32>
    ```

    JAX: `lax.all_to_all(x, "x", split_axis=0, concat_axis=1, tiled=True)`.
  }];
  let arguments = (ins AnyRankedTensor:$operand,
                       FlatSymbolRefAttr:$mesh,
                       Comm_AxesAttr:$axes,
                       I64Attr:$split_dim,
                       I64Attr:$concat_dim);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $operand `over` $mesh custom<Axes>($axes) `split` $split_dim
    `concat` $concat_dim attr-dict `:` type($operand) `->` type($result)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$operand,
                   "::mlir::FlatSymbolRefAttr":$mesh,
                   Comm_AxesParam:$axes,
                   "int64_t":$splitDim, "int64_t":$concatDim)>
  ];
}

//===----------------------------------------------------------------------===//
// PermuteOp
//===----------------------------------------------------------------------===//

def Comm_PermuteOp : Comm_CollectiveOp<"permute",
    [AllTypesMatch<["operand", "result"]>]> {
  let summary = "sends each device's operand to another device of its group";
  let description = [{
    For every pair `s -> t`, the device with linearized group index `s`
    sends its operand to the device with group index `t` (in every group).
    A device that is no pair's target receives zeros. Indices lie in
    `[0, group size)`, and no index is a source twice or a target twice.

    ```mlir
    // A cyclic shift over the four devices of "y".
    %p = comm.permute %x over @mesh {"y"} pairs [0 -> 1, 1 -> 2, 2 -> 3, 3 -> 0]
        : tensor<4x8xf32>
    ```

    JAX: `lax.ppermute(x, "y", perm=[(0, 1), (1, 2), (2, 3), (3, 0)])`
    (JAX also takes negative indices modulo the group size; here they are
    written normalized).
  }];
  let arguments = (ins AnyRankedTensor:$operand,
                       FlatSymbolRefAttr:$mesh,
                       Comm_AxesAttr:$axes,
                       DenseI64ArrayAttr:$sources,
                       DenseI64ArrayAttr:$targets);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $operand `over` $mesh custom<Axes>($axes) `pairs`
    custom<Pairs>($sources, $targets) attr-dict `:` type($result)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$operand,
                   "::mlir::FlatSymbolRefAttr":$mesh,
                   Comm_AxesParam:$axes,
                   "::llvm::ArrayRef<int64_t>":$sources,
                   "::llvm::ArrayRef<int64_t>":$targets)>
  ];
  let extraClassDeclaration = [{
    /// True if every index of a group of `groupSize` devices sends to
    /// itself, i.e. the op is the identity.
    bool isIdentity(int64_t groupSize);
  }];
}

//===----------------------------------------------------------------------===//
// AxisIndexOp / AxisSizeOp
//===----------------------------------------------------------------------===//

def Comm_AxisIndexOp : Comm_Op<"axis_index", [Pure]> {
  let summary = "the device's linearized index within its group";
  let description = [{
    The index of the executing device in its group, linearized over the
    listed axes with the first one most major: over `{"x", "y"}` it is
    `index("x") * size("y") + index("y")`. A sub-axis `"x":(m)k` has index
    `(index("x") floordiv m) mod k`. With no axes it is 0.

    ```mlir
    %i = comm.axis_index over @mesh {"x", "y"} : index
    ```

    JAX: `lax.axis_index(("x", "y"))`.
  }];
  let arguments = (ins FlatSymbolRefAttr:$mesh, Comm_AxesAttr:$axes);
  let results = (outs AnyTypeOf<[Index, I32, I64]>:$result);
  let hasVerifier = 0;
  let assemblyFormat = [{
    `over` $mesh custom<Axes>($axes) attr-dict `:` type($result)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Type":$result,
                   "::mlir::FlatSymbolRefAttr":$mesh,
                   Comm_AxesParam:$axes)>
  ];
}

def Comm_AxisSizeOp : Comm_Op<"axis_size", [Pure]> {
  let summary = "the number of devices in a group";
  let description = [{
    The product of the sizes of the listed axes (1 with no axes); it always
    folds to a constant.

    ```mlir
    %n = comm.axis_size over @mesh {"x", "y"} : i32
    ```

    JAX: `lax.axis_size(("x", "y"))` (formerly `lax.psum(1, ...)`).
  }];
  let arguments = (ins FlatSymbolRefAttr:$mesh, Comm_AxesAttr:$axes);
  let results = (outs AnyTypeOf<[Index, I32, I64]>:$result);
  let hasVerifier = 0;
  // Always folds to a constant; there is nothing left to canonicalize.
  let hasCanonicalizer = 0;
  let assemblyFormat = [{
    `over` $mesh custom<Axes>($axes) attr-dict `:` type($result)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Type":$result,
                   "::mlir::FlatSymbolRefAttr":$mesh,
                   Comm_AxesParam:$axes)>
  ];
}

#endif // TESSERA_DIALECT_COMM_IR_COMMOPS_TD
