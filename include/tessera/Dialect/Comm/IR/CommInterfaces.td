//===- CommInterfaces.td - comm op interfaces --------------*- tablegen -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_COMM_IR_COMMINTERFACES_TD
#define TESSERA_DIALECT_COMM_IR_COMMINTERFACES_TD

include "mlir/IR/OpBase.td"

def Comm_MeshAxesOpInterface : OpInterface<"MeshAxesOpInterface"> {
  let cppNamespace = "::mlir::tessera::comm";
  let description = [{
    Implemented by every `comm` op: the op works on the group of devices
    formed by a list of axes (or sub-axes) of an `spmd.mesh`. Passes that
    lower or rewrite collectives (e.g. `convert-comm-to-runtime`) use this
    interface instead of switching on op names.
  }];
  let methods = [
    InterfaceMethod<"Returns the symbol of the `spmd.mesh` the op uses.",
      "::mlir::FlatSymbolRefAttr", "getMeshAttr">,
    InterfaceMethod<"Returns the mesh axes that form the device group, "
                    "major to minor.",
      "::mlir::tessera::spmd::AxisRefListAttr", "getAxesAttr">,
    InterfaceMethod<"Replaces the mesh axes.",
      "void", "setAxesAttr",
      (ins "::mlir::tessera::spmd::AxisRefListAttr":$axes)>
  ];
  let extraClassDeclaration = [{
    /// The axis refs of the group, major to minor.
    ::llvm::ArrayRef<::mlir::tessera::spmd::AxisRefAttr> getAxisRefs() {
      return getAxesAttr().getValue();
    }
    /// Resolves the mesh symbol from the op (nearest symbol table upwards),
    /// through `symbolTables` when given. Null if there is no such
    /// `spmd.mesh`.
    ::mlir::tessera::spmd::MeshAttr
    resolveMesh(::mlir::SymbolTableCollection *symbolTables = nullptr);
    /// The number of devices in each group, or nullopt if the mesh cannot
    /// be resolved.
    std::optional<int64_t>
    getGroupSize(::mlir::SymbolTableCollection *symbolTables = nullptr);
  }];
}

#endif // TESSERA_DIALECT_COMM_IR_COMMINTERFACES_TD
