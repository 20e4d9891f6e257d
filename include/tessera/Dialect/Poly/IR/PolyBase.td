//===- PolyBase.td - poly dialect definition ---------------*- tablegen -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_POLY_IR_POLYBASE_TD
#define TESSERA_DIALECT_POLY_IR_POLYBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Poly_Dialect : Dialect {
  let name = "poly";
  let cppNamespace = "::mlir::tessera::poly";
  let summary = "Symbolic shapes: JAX's jax.export shape polymorphism";
  let description = [{
    The `poly` dialect gives the dynamic dimensions (`?`) of a program the
    symbolic meaning JAX's shape polymorphism gives them: every `?` of a
    function argument is a *dimension expression* over *dimension
    variables* (`b`, `2*d`, `floordiv(b, 4)`), written in JAX's grammar and
    checked with JAX's rules and error messages.

    ```mlir
    func.func @f(%x: tensor<?x4xf32> {poly.shape = #poly.shape<"b, 4">},
                 %y: tensor<?xf32> {poly.shape = #poly.shape<"2*b">})
        -> tensor<?x4xf32> attributes {poly.constraints = ["b >= 8"]} {
      ...
    }
    ```

    The `poly-infer` pass computes the symbolic shape of every value through
    the `SymbolicShapeOpInterface` (implemented by external models for the
    upstream dialects), checks every op's shape rule symbolically and writes
    the results back as `poly.shape` / `poly.value` annotations.
    `poly.shape_assertion` is the runtime check JAX's exported modules carry
    (`stablehlo.custom_call @shape_assertion`).
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The attribute with the symbolic shape of a function argument or
    /// result (`#poly.shape`) or of op results (`#poly.shape`, or an array of
    /// them for several results).
    static constexpr ::llvm::StringLiteral kShapeAttrName = "poly.shape";
    /// The attribute with the symbolic value of index or integer op results
    /// (`#poly.expr`, or an array for several results).
    static constexpr ::llvm::StringLiteral kValueAttrName = "poly.value";
    /// The array of explicit constraints of a function.
    static constexpr ::llvm::StringLiteral kConstraintsAttrName =
        "poly.constraints";
    /// The unit attribute `poly-insert-assertions` puts on a function whose
    /// entry holds its runtime shape assertions (the pass is idempotent).
    static constexpr ::llvm::StringLiteral kAssertionsInsertedAttrName =
        "poly.assertions_inserted";

    /// Registers the attributes (defined in PolyAttrs.cpp).
    void registerAttributes();

    /// The cache the attribute verifiers share (parsed specs and scopes of
    /// constraint lists). Thread-safe.
    ::mlir::tessera::poly::detail::VerifierCache &getVerifierCache() {
      return *verifierCache;
    }

  private:
    std::unique_ptr<::mlir::tessera::poly::detail::VerifierCache>
        verifierCache;
  }];
}

class Poly_Op<string mnemonic, list<Trait> traits = []>
    : Op<Poly_Dialect, mnemonic, traits>;

class Poly_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Poly_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

#endif // TESSERA_DIALECT_POLY_IR_POLYBASE_TD
