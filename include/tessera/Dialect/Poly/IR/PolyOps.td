//===- PolyOps.td - poly operations ------------------------*- tablegen -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_POLY_IR_POLYOPS_TD
#define TESSERA_DIALECT_POLY_IR_POLYOPS_TD

include "tessera/Dialect/Poly/IR/PolyAttrs.td"
include "tessera/Dialect/Poly/IR/PolyInterfaces.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

/// The resource shape assertions write (see ShapeAssertionResource).
def Poly_ShapeAssertionResource
    : Resource<"::mlir::tessera::poly::ShapeAssertionResource">;

def Poly_ShapeAssertionOp : Poly_Op<"shape_assertion",
    [MemoryEffects<[MemWrite<Poly_ShapeAssertionResource>]>,
     DeclareOpInterfaceMethods<Poly_SymbolicShapeOpInterface,
                               ["getJaxPrimitiveName"]>]> {
  let summary = "a runtime shape check with JAX's error message";
  let description = [{
    Asserts that `pred` is true; otherwise execution stops with
    `error_message`, in which every `{N}` is replaced by the decimal value
    of input `N` (`{{` is a literal `{`). This is JAX's
    `stablehlo.custom_call @shape_assertion` (`has_side_effect = true`),
    which `jax.export` emits for the shape checks that cannot be decided at
    export time (input shapes against the polymorphic specification, and
    the explicit constraints).

    ```mlir
    poly.shape_assertion %ok, %d0, %d1 {error_message = "Input shapes do not match the polymorphic shapes specification. Found inconsistency between dimension size args[0].shape[1] (= {0}) and the specification 'b' (= {1})."} : index, index
    ```

    Inputs: at most 32 index or signless-integer values, as in JAX. Every
    placeholder must name an existing input. A message whose values need
    more than 32 inputs is built with the literal text `N/A` in place of the
    values beyond the 32nd (JAX's `error_message_and_inputs`, provided by
    `symbolic::ShapeCheck::getAssertionTemplate`), so the op never refers to
    a missing input.

    The op writes a dedicated side-effect resource: it is never erased as
    dead, hoisted out of a loop, sunk into a region or merged with an equal
    assertion. Canonicalization erases an assertion whose predicate is the
    constant `true`; one whose predicate is the constant `false` is kept
    (it fails at run time, with its message).
  }];
  let arguments = (ins I1:$pred,
                       Variadic<AnySignlessIntegerOrIndex>:$inputs,
                       StrAttr:$error_message);
  let assemblyFormat = [{
    $pred (`,` $inputs^)? attr-dict (`:` type($inputs)^)?
  }];
  let hasVerifier = 1;
  let hasCanonicalizeMethod = 1;
  let extraClassDeclaration = [{
    /// The most inputs a shape assertion takes (JAX's limit).
    static constexpr unsigned kMaxInputs = 32;
  }];
}

#endif // TESSERA_DIALECT_POLY_IR_POLYOPS_TD
