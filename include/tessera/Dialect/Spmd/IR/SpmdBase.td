//===- SpmdBase.td - spmd dialect and enums ----------------*- tablegen -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_IR_SPMDBASE_TD
#define TESSERA_DIALECT_SPMD_IR_SPMDBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Spmd_Dialect : Dialect {
  let name = "spmd";
  let cppNamespace = "::mlir::tessera::spmd";
  let summary = "Global-view sharding: meshes, shardings, sharding rules";
  let description = [{
    The `spmd` dialect describes how the tensors of a global-view program are
    laid out over a named mesh of devices. Its textual syntax follows Shardy's
    `sdy` dialect: a module-level `spmd.mesh` symbol names the axes of the
    device grid, `#spmd.sharding` attributes say which mesh axes shard which
    tensor dimension (with open/closed dimensions, priorities, sub-axes and
    replicated/unreduced axis lists), and a handful of ops constrain,
    reshard, or switch to a per-device (manual) view.

    ```mlir
    spmd.mesh @mesh = <["x"=2, "y"=4]>
    func.func @f(%arg0: tensor<8x16xf32>
        {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y", ?} ]>})
        -> tensor<8x16xf32> {
      %0 = spmd.sharding_constraint %arg0 <@mesh, [{}, {"y"} ]> : tensor<8x16xf32>
      return %0 : tensor<8x16xf32>
    }
    ```

    Each mesh axis also has a type (`explicit`, `auto` or `manual`), which
    selects between JAX's sharding-in-types mode and compiler propagation.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let hasConstantMaterializer = 0;
  let extraClassDeclaration = [{
    /// Registers the attributes (defined in SpmdAttrs.cpp).
    void registerAttributes();

    /// Name of the discardable attribute that holds shardings: a
    /// `#spmd.sharding_per_value` on ops, a `#spmd.sharding` on func
    /// arguments and results.
    static constexpr ::llvm::StringLiteral kShardingAttrName = "spmd.sharding";
    /// Name of the attribute that holds an op's `#spmd.op_sharding_rule`.
    static constexpr ::llvm::StringLiteral kShardingRuleAttrName =
        "spmd.sharding_rule";
    /// Name of the attribute a user puts on an op whose explicit-mode
    /// sharding is ambiguous (JAX's `out_sharding=`).
    static constexpr ::llvm::StringLiteral kOutShardingAttrName =
        "spmd.out_sharding";

    /// Marks `name` (a function op) as verifying the `spmd.sharding`
    /// attributes of its arguments and results in its `verifySymbolUses`
    /// hook (see registerFunctionShardingVerifierModels), so that the
    /// dialect's argument/result attribute hooks skip the mesh lookups.
    void addFunctionWithShardingSymbolUses(::mlir::OperationName name) {
      functionsWithShardingSymbolUses.insert(name);
    }
    /// True if `name` was marked by addFunctionWithShardingSymbolUses.
    bool hasShardingSymbolUses(::mlir::OperationName name) const {
      return functionsWithShardingSymbolUses.contains(name);
    }

  private:
    ::llvm::DenseSet<::mlir::OperationName> functionsWithShardingSymbolUses;

  public:
  }];
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Spmd_AxisTypeExplicit : I32EnumAttrCase<"Explicit", 0, "explicit">;
def Spmd_AxisTypeAuto     : I32EnumAttrCase<"Auto", 1, "auto">;
def Spmd_AxisTypeManual   : I32EnumAttrCase<"Manual", 2, "manual">;
def Spmd_AxisType : I32EnumAttr<"AxisType",
    "type of a mesh axis (JAX's AxisType)",
    [Spmd_AxisTypeExplicit, Spmd_AxisTypeAuto, Spmd_AxisTypeManual]> {
  let cppNamespace = "::mlir::tessera::spmd";
  let genSpecializedAttr = 0;
}
def Spmd_AxisTypeAttr : EnumAttr<Spmd_Dialect, Spmd_AxisType, "axis_type"> {
  let assemblyFormat = "`<` $value `>`";
}

def Spmd_ReductionSum : I32EnumAttrCase<"Sum", 0, "sum">;
def Spmd_ReductionMax : I32EnumAttrCase<"Max", 1, "max">;
def Spmd_ReductionMin : I32EnumAttrCase<"Min", 2, "min">;
def Spmd_ReductionKind : I32EnumAttr<"ReductionKind",
    "reduction applied to unreduced axes or by a global-view collective",
    [Spmd_ReductionSum, Spmd_ReductionMax, Spmd_ReductionMin]> {
  let cppNamespace = "::mlir::tessera::spmd";
  let genSpecializedAttr = 0;
}
def Spmd_ReductionKindAttr
    : EnumAttr<Spmd_Dialect, Spmd_ReductionKind, "reduction_kind"> {
  let assemblyFormat = "`<` $value `>`";
}

def Spmd_DirNone     : I32EnumAttrCase<"NONE", 0>;
def Spmd_DirForward  : I32EnumAttrCase<"FORWARD", 1>;
def Spmd_DirBackward : I32EnumAttrCase<"BACKWARD", 2>;
def Spmd_DirBoth     : I32EnumAttrCase<"BOTH", 3>;
def Spmd_PropagationDirection : I32EnumAttr<"PropagationDirection",
    "direction in which sharding propagation may flow",
    [Spmd_DirNone, Spmd_DirForward, Spmd_DirBackward, Spmd_DirBoth]> {
  let cppNamespace = "::mlir::tessera::spmd";
  let genSpecializedAttr = 0;
}
def Spmd_PropagationDirectionAttr
    : EnumAttr<Spmd_Dialect, Spmd_PropagationDirection,
               "propagation_direction"> {
  let assemblyFormat = "`<` $value `>`";
}

#endif // TESSERA_DIALECT_SPMD_IR_SPMDBASE_TD
