//===- CommBase.td - comm dialect and enums ----------------*- tablegen -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_COMM_IR_COMMBASE_TD
#define TESSERA_DIALECT_COMM_IR_COMMBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Comm_Dialect : Dialect {
  let name = "comm";
  let cppNamespace = "::mlir::tessera::comm";
  let summary = "Per-device (local view) collectives over named mesh axes";
  let description = [{
    The `comm` dialect holds collectives as one device sees them: every
    operand and result is the device's own local tensor, and every op names
    an `spmd.mesh` and a list of its axes. The devices that agree on the
    coordinates of all the other mesh axes form a *group*; a collective
    exchanges data within each group, and every device of a group must
    execute it.

    ```mlir
    spmd.mesh @mesh = <["x"=2, "y"=4]>
    func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
      %0 = comm.all_reduce sum %x over @mesh {"x", "y"} : tensor<4x8xf32>
      return %0 : tensor<4x8xf32>
    }
    ```

    The ops are those of JAX's `shard_map` bodies (`psum`, `pmax`, `pmin`,
    `all_gather`, `psum_scatter`, `all_to_all`, `ppermute`, `axis_index`,
    `axis_size`), and `spmd-partition` emits them when it turns a
    global-view program into a per-device one.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::tessera::spmd::SpmdDialect"
  ];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    /// Registers the attributes (defined in CommDialect.cpp).
    void registerAttributes();
  }];
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Comm_ReductionSum : I32EnumAttrCase<"Sum", 0, "sum">;
def Comm_ReductionProd : I32EnumAttrCase<"Prod", 1, "prod">;
def Comm_ReductionMax : I32EnumAttrCase<"Max", 2, "max">;
def Comm_ReductionMin : I32EnumAttrCase<"Min", 3, "min">;
def Comm_ReductionKind : I32EnumAttr<"ReductionKind",
    "element-wise reduction applied by a collective",
    [Comm_ReductionSum, Comm_ReductionProd, Comm_ReductionMax,
     Comm_ReductionMin]> {
  let cppNamespace = "::mlir::tessera::comm";
  let genSpecializedAttr = 0;
}

def Comm_ReductionKindAttr
    : EnumAttr<Comm_Dialect, Comm_ReductionKind, "reduction"> {
  let summary = "the reduction of an all_reduce or reduce_scatter";
  let description = [{
    `sum`, `prod`, `max` or `min`, written `#comm.reduction<sum>` on its own
    and as the bare keyword in the ops' syntax.
  }];
  let assemblyFormat = "`<` $value `>`";
}

#endif // TESSERA_DIALECT_COMM_IR_COMMBASE_TD
