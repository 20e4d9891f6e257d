//===- SpmdOps.td - spmd operations ------------------------*- tablegen -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_IR_SPMDOPS_TD
#define TESSERA_DIALECT_SPMD_IR_SPMDOPS_TD

include "tessera/Dialect/Spmd/IR/SpmdBase.td"
include "tessera/Dialect/Spmd/IR/SpmdAttrs.td"
include "tessera/Dialect/Spmd/IR/SpmdInterfaces.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

class Spmd_Op<string mnemonic, list<Trait> traits = []>
    : Op<Spmd_Dialect, mnemonic, traits>;

// An op whose verification resolves meshes. Inside a symbol table (a module)
// it is verified by `verifySymbolUses`, which the module's verifier calls
// with one `SymbolTableCollection` shared by every symbol user: each mesh
// symbol is then found with a hash lookup instead of a scan of the module.
// Outside any symbol table, `verify` runs the same checks directly. Both call
// `verifyWithMeshes`, defined in SpmdShardingOpsVerifiers.cpp.
class Spmd_MeshUserOp<string mnemonic, list<Trait> traits = []>
    : Spmd_Op<mnemonic, !listconcat(traits,
        [DeclareOpInterfaceMethods<SymbolUserOpInterface>])> {
  let hasVerifier = 1;
  code meshUserDeclaration = [{
    /// The checks of `verify`/`verifySymbolUses`; resolves meshes through
    /// `symbolTables` when given.
    ::llvm::LogicalResult
    verifyWithMeshes(::mlir::SymbolTableCollection *symbolTables);
  }];
  let extraClassDeclaration = meshUserDeclaration;
}

//===----------------------------------------------------------------------===//
// MeshOp
//===----------------------------------------------------------------------===//

def Spmd_MeshOp : Spmd_Op<"mesh",
    [Symbol, HasParent<"::mlir::ModuleOp">]> {
  let summary = "a named mesh of devices";
  let description = [{
    Declares a mesh symbol at module level, referenced by shardings:

    ```mlir
    spmd.mesh @mesh = <["x"=2, "y"=4]>
    spmd.mesh @ordered = <["a"=3, "b"=2], device_ids=[0, 2, 4, 1, 3, 5]>
    spmd.mesh @typed = <["x"=2, "y"=2], axis_types=[explicit, auto]>
    spmd.mesh @maximal = <[], device_ids=[3]>
    spmd.mesh @empty = <[]>
    ```

    As in Shardy, a module may declare meshes of different sizes (each
    sharding names its mesh). A program that runs on devices needs one device
    count: `verifyOneDeviceCount` (SpmdVerifiers.h) checks that all
    non-maximal meshes of a module agree, for the passes and tools that
    assign devices.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Spmd_MeshAttr:$mesh);
  let assemblyFormat = "$sym_name `=` $mesh attr-dict";
}

include "tessera/Dialect/Spmd/IR/SpmdShardingOps.td"

#endif // TESSERA_DIALECT_SPMD_IR_SPMDOPS_TD
