//===- PolyInterfaces.td - poly op interfaces --------------*- tablegen -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_POLY_IR_POLYINTERFACES_TD
#define TESSERA_DIALECT_POLY_IR_POLYINTERFACES_TD

include "mlir/IR/OpBase.td"

def Poly_SymbolicShapeOpInterface : OpInterface<"SymbolicShapeOpInterface"> {
  let cppNamespace = "::mlir::tessera::poly";
  let description = [{
    The symbolic shape rule of an op (JAX's `shape_rule` of a primitive):
    from the symbolic shapes of the op's shaped operands and the symbolic
    values of its index/integer operands, compute the symbolic shapes of its
    shaped results and the symbolic values of its index/integer results, or
    report the error JAX reports for the same program.

    `poly-infer` calls it for every op of a polymorphic function, in order;
    an op that touches a symbolic value and has no model is rejected. Ops
    with regions run inference over their regions through
    `SymbolicShapeContext::inferRegion`. Upstream dialects get it through
    external models (`registerSymbolicShapeExternalModels`).
  }];
  let methods = [
    InterfaceMethod<[{
        Computes the symbolic value of every result from `operands` (one per
        operand of the op, in order; `SymbolicValue()` when nothing is
        known) and appends exactly one entry per result to `results`.
        Reports errors at the op (JAX's text; see `SymbolicShapeContext`)
        and returns failure.
      }],
      "::llvm::LogicalResult", "inferSymbolicShapes",
      (ins "::llvm::ArrayRef<::mlir::tessera::poly::SymbolicValue>":$operands,
           "::llvm::SmallVectorImpl<::mlir::tessera::poly::SymbolicValue> &"
               :$results,
           "::mlir::tessera::poly::SymbolicShapeContext &":$context)>,
    InterfaceMethod<[{
        The name of the JAX primitive with this op's semantics (`add` for
        `arith.addf`), used in JAX's error messages; the op name when JAX
        has no such primitive.
      }],
      "::llvm::StringRef", "getJaxPrimitiveName", (ins), [{}], [{
        return $_op->getName().getStringRef();
      }]>
  ];
}

#endif // TESSERA_DIALECT_POLY_IR_POLYINTERFACES_TD
