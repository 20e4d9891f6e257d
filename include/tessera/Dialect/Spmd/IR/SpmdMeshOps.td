//===- SpmdMeshOps.td - spmd.mesh --------------------------*- tablegen -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Included from SpmdOps.td. The mesh symbol op; implemented in SpmdOps.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_IR_SPMDMESHOPS_TD
#define TESSERA_DIALECT_SPMD_IR_SPMDMESHOPS_TD

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

#endif // TESSERA_DIALECT_SPMD_IR_SPMDMESHOPS_TD
