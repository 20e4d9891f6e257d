//===- SpmdAttrs.td - spmd attributes ----------------------*- tablegen -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_IR_SPMDATTRS_TD
#define TESSERA_DIALECT_SPMD_IR_SPMDATTRS_TD

include "tessera/Dialect/Spmd/IR/SpmdBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/SymbolInterfaces.td"

class Spmd_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Spmd_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

//===----------------------------------------------------------------------===//
// Meshes
//===----------------------------------------------------------------------===//

def Spmd_MeshAxisAttr : Spmd_Attr<"MeshAxis", "mesh_axis"> {
  let summary = "a named axis of a mesh";
  let description = [{
    A mesh axis has a name and a size, written `"x"=4`. Size-1 axes are
    allowed.
  }];
  let parameters = (ins StringRefParameter<"axis name">:$name,
                        "int64_t":$size);
  let hasCustomAssemblyFormat = 1;
}

def Spmd_MeshAttr : Spmd_Attr<"Mesh", "mesh"> {
  let summary = "a grid of devices with named axes";
  let description = [{
    A mesh is a list of named axes, major to minor, an optional device order
    and a type per axis:

    ```mlir
    #spmd.mesh<["x"=2, "y"=4]>                                  // ids iota(8)
    #spmd.mesh<["a"=3, "b"=2], device_ids=[0, 2, 4, 1, 3, 5]>
    #spmd.mesh<["x"=2, "y"=2], axis_types=[explicit, auto]>
    #spmd.mesh<[], device_ids=[3]>                              // maximal
    #spmd.mesh<[]>                                              // empty
    ```

    Invariants (checked by the verifier):
    - axis names are unique and sizes are at least 1;
    - `device_ids`, when present, has one id per device (the product of the
      axis sizes), its sorted list is `iota(product)`, and ids are
      non-negative; an iota list is dropped when printed;
    - a mesh without axes may have a single device id (a maximal mesh);
    - `axis_types` has one entry per axis; missing means every axis is
      `auto`, and an all-`auto` list is dropped when printed.
  }];
  let parameters = (ins
    OptionalArrayRefParameter<"MeshAxisAttr", "mesh axes">:$axes,
    OptionalArrayRefParameter<"int64_t", "device order">:$device_ids,
    OptionalArrayRefParameter<"AxisType", "axis types">:$axis_types
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "::llvm::ArrayRef<MeshAxisAttr>":$axes), [{
      return $_get($_ctxt, axes, ::llvm::ArrayRef<int64_t>(),
                   ::llvm::ArrayRef<AxisType>());
    }]>
  ];
  let extraClassDeclaration = [{
    /// True if the mesh has neither axes nor device ids (`<[]>`).
    bool empty() const;
    /// True if the mesh has no axes and a single device id.
    bool isMaximal() const;
    /// The device id of a maximal mesh.
    std::optional<int64_t> getMaximalDeviceId() const;
    /// True if the mesh has an axis named `name`.
    bool hasAxis(::llvm::StringRef name) const;
    /// The index of axis `name`, if present.
    std::optional<unsigned> getAxisIndex(::llvm::StringRef name) const;
    /// The size of axis `name`; the axis must exist.
    int64_t getAxisSize(::llvm::StringRef name) const;
    /// The type of axis `name`; the axis must exist.
    AxisType getAxisType(::llvm::StringRef name) const;
    /// The type of axis `i` (defaults to `auto`).
    AxisType getAxisType(unsigned i) const;
    /// The number of devices: the product of the axis sizes, or 1.
    int64_t getTotalSize() const;
    /// The device order: `device_ids` or iota.
    ::llvm::SmallVector<int64_t> getDeviceIdsOrIota() const;
    /// True if some axis has type `type`.
    bool hasAxisOfType(AxisType type) const;
    /// Returns this mesh with the types of the axes in `names` set to `type`.
    MeshAttr withAxisTypes(::llvm::ArrayRef<::llvm::StringRef> names,
                           AxisType type) const;
    /// True if both meshes have the same axis names and sizes, in order
    /// (device order and axis types may differ).
    bool hasSameAxes(MeshAttr other) const;
  }];
}

//===----------------------------------------------------------------------===//
// Axis references
//===----------------------------------------------------------------------===//

def Spmd_SubAxisInfoAttr : Spmd_Attr<"SubAxisInfo", "sub_axis_info"> {
  let summary = "how a sub-axis is cut out of its full axis";
  let description = [{
    Splitting an axis of size n into `[k1, ..., kr]` (major to minor), the
    i-th sub-axis has size `ki` and pre-size `m = k1 * ... * k(i-1)`; it is
    written `(m)k`. The verifier rejects a pre-size and size whose product
    does not fit in 64 bits; the remaining rules (sizes at least 1 and 2,
    the product dividing the axis size) need the mesh and are checked where
    the sub-axis is used.
  }];
  let parameters = (ins "int64_t":$pre_size, "int64_t":$size);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// `pre_size * size`: the pre-size of the next more-minor sub-axis
    /// (never overflows: the verifier rejects such sub-axes).
    int64_t getNextPreSize() const { return getPreSize() * getSize(); }
  }];
}

def Spmd_AxisRefAttr : Spmd_Attr<"AxisRef", "axis_ref"> {
  let summary = "a reference to a mesh axis or a sub-axis of it";
  let description = [{
    `"x"` refers to the full axis `x`; `"x":(2)4` to the sub-axis of size 4
    and pre-size 2 of `x`.
  }];
  let parameters = (ins
    StringRefParameter<"axis name">:$name,
    OptionalParameter<"SubAxisInfoAttr", "sub-axis info">:$sub_axis_info
  );
  let hasCustomAssemblyFormat = 1;
  let builders = [
    AttrBuilder<(ins "::llvm::StringRef":$name), [{
      return $_get($_ctxt, name, SubAxisInfoAttr());
    }]>,
    AttrBuilder<(ins "::llvm::StringRef":$name, "int64_t":$preSize,
                     "int64_t":$size), [{
      return $_get($_ctxt, name, SubAxisInfoAttr::get($_ctxt, preSize, size));
    }]>
  ];
  let extraClassDeclaration = [{
    /// The size of the referenced axis or sub-axis in `mesh`.
    int64_t getSize(MeshAttr mesh) const;
    /// The pre-size of a sub-axis, 1 for a full axis.
    int64_t getPreSize() const;
    /// `pre-size * size`; for a full axis, its size in `mesh`.
    int64_t getNextPreSize(MeshAttr mesh) const;
    /// The textual form, e.g. `"x":(2)4`.
    std::string toString() const;
    /// True if the two refs share at least one device coordinate.
    bool overlaps(AxisRefAttr other) const;
    /// True if `other` is the same as or a part of this ref.
    bool contains(AxisRefAttr other) const;
    /// True if this ref is a major prefix of `other` (or equal).
    bool prefixOf(AxisRefAttr other) const;
    /// True if the two refs can be used together in one sharding: other
    /// axes, a full axis, or sub-axes of one axis that come from a common
    /// factorization (`"a":(1)2` and `"a":(3)2` of an axis of size 6 cannot:
    /// no split of 6 has both).
    bool canCoexist(AxisRefAttr other) const;
    /// True if this ref and `other` are consecutive sub-axes of one axis,
    /// this one major to `other`.
    bool canMerge(AxisRefAttr other) const;
    /// Merges two refs for which `canMerge` holds; gives the full axis when
    /// the merge covers it.
    AxisRefAttr merge(AxisRefAttr other, MeshAttr mesh) const;
    /// Orders refs by the position of their axis in `mesh`, then by
    /// pre-size, then by size (full axis last among equal pre-sizes).
    static bool lessInMesh(MeshAttr mesh, AxisRefAttr lhs, AxisRefAttr rhs);
  }];
}

def Spmd_AxisRefListAttr : Spmd_Attr<"AxisRefList", "axis_ref_list"> {
  let summary = "a list of axis references, written `{\"x\", \"y\":(1)2}`";
  let parameters = (ins
    OptionalArrayRefParameter<"AxisRefAttr", "axes">:$value);
  let hasCustomAssemblyFormat = 1;
}

def Spmd_ListOfAxisRefListsAttr
    : Spmd_Attr<"ListOfAxisRefLists", "list_of_axis_ref_lists"> {
  let summary = "one axis list per tensor dimension, `[{\"x\"}, {}]`";
  let parameters = (ins
    OptionalArrayRefParameter<"AxisRefListAttr", "per-dim axes">:$value);
  let hasCustomAssemblyFormat = 1;
}

def Spmd_ManualAxesAttr : Spmd_Attr<"ManualAxes", "manual_axes"> {
  let summary = "the full mesh axes a manual computation is manual on";
  let description = [{ Written `{"x", "y"}`. }];
  let parameters = (ins
    OptionalArrayRefParameter<"::mlir::StringAttr", "axis names">:$value);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    bool contains(::llvm::StringRef name) const;
  }];
}

def Spmd_AllToAllParamAttr : Spmd_Attr<"AllToAllParam", "all_to_all_param"> {
  let summary = "one all-to-all move: `{\"x\"}: 0->2`";
  let parameters = (ins OptionalArrayRefParameter<"AxisRefAttr", "axes">:$axes,
                        "int64_t":$src_dim, "int64_t":$tgt_dim);
  let hasCustomAssemblyFormat = 1;
}

def Spmd_AllToAllParamListAttr
    : Spmd_Attr<"AllToAllParamList", "all_to_all_param_list"> {
  let summary = "a list of all-to-all moves";
  let parameters = (ins
    OptionalArrayRefParameter<"AllToAllParamAttr", "moves">:$value);
  let hasCustomAssemblyFormat = 1;
}

//===----------------------------------------------------------------------===//
// Shardings
//===----------------------------------------------------------------------===//

def Spmd_DimensionShardingAttr
    : Spmd_Attr<"DimensionSharding", "dimension_sharding"> {
  let summary = "how one tensor dimension is sharded";
  let description = [{
    The axes that shard a dimension, major to minor, whether the dimension is
    closed, and an optional priority: `{"x", "y"}`, `{"x", ?}`, `{?}`,
    `{}`, `{"x"}p2`. `?` marks an open dimension that propagation may shard
    further; p0 is the highest priority and the default.
  }];
  let parameters = (ins
    OptionalArrayRefParameter<"AxisRefAttr", "axes">:$axes,
    "bool":$is_closed,
    OptionalParameter<"std::optional<int64_t>", "priority">:$priority
  );
  let hasCustomAssemblyFormat = 1;
  let builders = [
    AttrBuilder<(ins "::llvm::ArrayRef<AxisRefAttr>":$axes,
                     "bool":$isClosed), [{
      return $_get($_ctxt, axes, isClosed, std::nullopt);
    }]>
  ];
  let extraClassDeclaration = [{
    bool emptyAxes() const { return getAxes().empty(); }
    bool isOpen() const { return !getIsClosed(); }
    /// The product of the sizes of the axes.
    int64_t getShardedSize(MeshAttr mesh) const;
  }];
}

def Spmd_TensorShardingAttr : Spmd_Attr<"TensorSharding", "sharding",
    [DeclareAttrInterfaceMethods<SymbolUserAttrInterface>]> {
  let summary = "the sharding of a tensor over a mesh";
  let description = [{
    ```mlir
    #spmd.sharding<@mesh, [{"x"}, {"y", ?}p1, {} ], replicated={"z"}>
    #spmd.sharding<@mesh, [{}, {"x"} ], unreduced=max{"y"}>
    #spmd.sharding<@mesh, [{}, {} ], reduced={"x"}>
    #spmd.sharding<mesh<["x"=2]>, [{"x"}, {} ]>      // inlined mesh
    #spmd.sharding<@maximal_mesh, []>
    ```

    One dimension sharding per tensor dimension; mesh axes not mentioned
    are implicitly replicated. `replicated` lists axes that are explicitly
    replicated (propagation never adds them to a dimension), `unreduced`
    axes that hold partial results still to be reduced with the given kind
    (`sum`, the default, `max` or `min`), and `reduced` JAX's reduced axes:
    the data is replicated over them, and the type says so (JAX's
    `P(reduced={...})`, `{R:x}`), so that a product with a value unreduced
    over the same axes is typed. The lists are sorted in mesh order. The mesh is a symbol naming an `spmd.mesh` or an inlined
    `mesh<...>`.

    The context-free invariants (priorities, closed-empty dimensions) are
    checked when the attribute is built; everything that needs the mesh or
    the tensor type (unknown axes, duplicates, sub-axes, rank) is checked
    by the op or function that carries the attribute.
  }];
  let parameters = (ins
    "::mlir::Attribute":$mesh_or_ref,
    OptionalArrayRefParameter<"DimensionShardingAttr", "dims">:$dim_shardings,
    OptionalArrayRefParameter<"AxisRefAttr", "replicated">:$replicated_axes,
    OptionalArrayRefParameter<"AxisRefAttr", "unreduced">:$unreduced_axes,
    DefaultValuedParameter<"ReductionKind", "ReductionKind::Sum",
                           "unreduced reduction">:$unreduced_kind,
    OptionalArrayRefParameter<"AxisRefAttr", "reduced">:$reduced_axes
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "::llvm::StringRef":$meshName,
                     "::llvm::ArrayRef<DimensionShardingAttr>":$dims,
                     CArg<"::llvm::ArrayRef<AxisRefAttr>", "{}">:$replicated,
                     CArg<"::llvm::ArrayRef<AxisRefAttr>", "{}">:$unreduced,
                     CArg<"ReductionKind", "ReductionKind::Sum">:$kind), [{
      return $_get($_ctxt, ::mlir::FlatSymbolRefAttr::get($_ctxt, meshName),
                   dims, replicated, unreduced, kind,
                   ::llvm::ArrayRef<AxisRefAttr>());
    }]>
  ];
  let extraClassDeclaration = [{
    /// A fully open (`fullyOpen`) or fully closed replicated sharding.
    static TensorShardingAttr getReplicated(::mlir::MLIRContext *ctx,
                                            ::mlir::Attribute meshOrRef,
                                            int64_t rank, bool closed);
    int64_t getRank() const { return getDimShardings().size(); }
    DimensionShardingAttr getDimSharding(int64_t dim) const {
      return getDimShardings()[dim];
    }
    /// The symbol name of the mesh, or null for an inlined mesh.
    ::mlir::FlatSymbolRefAttr getMeshSymName() const;
    /// The inlined mesh, or null.
    MeshAttr getInlinedMesh() const;
    /// Resolves the mesh: the inlined one, or the `spmd.mesh` symbol looked
    /// up from `from` (nearest symbol table upwards). Null if not found.
    /// Passes and verifiers that resolve many shardings pass a
    /// `SymbolTableCollection`: each symbol table is then indexed once, and
    /// every later lookup is a hash-table hit instead of a scan of the
    /// module.
    MeshAttr getMesh(::mlir::Operation *from,
                     ::mlir::SymbolTableCollection *symbolTables = nullptr)
        const;
    /// True if no dimension is sharded and there are no unreduced axes.
    bool isFullyReplicated() const;
    /// True if every dimension is closed.
    bool isFullyClosed() const;
    /// Every axis ref used by dims, replicated and unreduced.
    ::llvm::SmallVector<AxisRefAttr> getAllAxisRefs() const;
    /// The local (per-device) shape of `globalShape`; a non-divisible dim
    /// rounds up. Dynamic dims stay dynamic.
    ::llvm::SmallVector<int64_t>
    getLocalShape(::llvm::ArrayRef<int64_t> globalShape, MeshAttr mesh) const;
    /// Returns this sharding with each dimension's axes replaced.
    TensorShardingAttr withDimAxes(
        ::llvm::ArrayRef<::llvm::SmallVector<AxisRefAttr>> axes) const;
    /// Returns this sharding with `unreduced` and its kind replaced.
    TensorShardingAttr withUnreduced(::llvm::ArrayRef<AxisRefAttr> axes,
                                     ReductionKind kind) const;
    /// Returns this sharding with `reduced` replaced.
    TensorShardingAttr withReduced(::llvm::ArrayRef<AxisRefAttr> axes) const;
  }];
}

def Spmd_TensorShardingPerValueAttr
    : Spmd_Attr<"TensorShardingPerValue", "sharding_per_value",
                [DeclareAttrInterfaceMethods<SymbolUserAttrInterface>]> {
  let summary = "one sharding per op result";
  let description = [{
    ```mlir
    %0 = arith.addf %a, %b {spmd.sharding =
        #spmd.sharding_per_value<[<@mesh, [{"x", ?}, {?} ]>]>} : tensor<8x8xf32>
    ```
  }];
  let parameters = (ins
    OptionalArrayRefParameter<"TensorShardingAttr", "shardings">:$shardings);
  let hasCustomAssemblyFormat = 1;
}

include "tessera/Dialect/Spmd/IR/SpmdShardingRuleAttr.td"

#endif // TESSERA_DIALECT_SPMD_IR_SPMDATTRS_TD
