//===- SpmdInterfaces.td - spmd op interfaces --------------*- tablegen -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_IR_SPMDINTERFACES_TD
#define TESSERA_DIALECT_SPMD_IR_SPMDINTERFACES_TD

include "mlir/IR/OpBase.td"

def Spmd_ResultShardingOpInterface : OpInterface<"ResultShardingOpInterface"> {
  let cppNamespace = "::mlir::tessera::spmd";
  let description = [{
    Implemented by ops whose result shardings are part of the op itself
    (e.g. `spmd.sharding_constraint`, `spmd.reshard`, the global-view
    collectives' `out_sharding`) rather than a discardable `spmd.sharding`
    attribute. `getSharding(Value)` asks this interface first.
  }];
  let methods = [
    InterfaceMethod<
      "Returns the sharding of result `index`, or null if it has none.",
      "::mlir::tessera::spmd::TensorShardingAttr", "getResultSharding",
      (ins "unsigned":$index)>
  ];
}

#endif // TESSERA_DIALECT_SPMD_IR_SPMDINTERFACES_TD
