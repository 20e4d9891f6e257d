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
// `verifyWithMeshes`, defined with the op (SpmdShardingOps.cpp,
// SpmdRegionOps.cpp, SpmdCollectiveOps.cpp).
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
  code meshUserDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      // Inside a symbol table the checks run later, from verifySymbolUses.
      if ((*this)->getParentWithTrait<::mlir::OpTrait::SymbolTable>())
        return ::mlir::success();
      return verifyWithMeshes(/*symbolTables=*/nullptr);
    }
    ::llvm::LogicalResult $cppClass::verifySymbolUses(
        ::mlir::SymbolTableCollection &symbolTables) {
      return verifyWithMeshes(&symbolTables);
    }
  }];
  let extraClassDefinition = meshUserDefinition;
}

include "tessera/Dialect/Spmd/IR/SpmdMeshOps.td"
include "tessera/Dialect/Spmd/IR/SpmdShardingOps.td"
include "tessera/Dialect/Spmd/IR/SpmdRegionOps.td"
include "tessera/Dialect/Spmd/IR/SpmdCollectiveOps.td"

#endif // TESSERA_DIALECT_SPMD_IR_SPMDOPS_TD
