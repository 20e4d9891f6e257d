//===- PolyAttrs.td - poly attributes ----------------------*- tablegen -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_POLY_IR_POLYATTRS_TD
#define TESSERA_DIALECT_POLY_IR_POLYATTRS_TD

include "tessera/Dialect/Poly/IR/PolyBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

def Poly_ShapeAttr : Poly_Attr<"Shape", "shape"> {
  let summary = "a symbolic shape spec (JAX's export.symbolic_shape)";
  let description = [{
    A shape spec in JAX's grammar: comma-separated dimension expressions,
    optionally in parentheses, with the placeholders `_` (one dimension)
    and `...` (all remaining dimensions) taken from the static sizes of the
    value's type.

    ```mlir
    #poly.shape<"b, 2*d">
    #poly.shape<"(b, _)">
    #poly.shape<"floordiv(b, 4), mod(b, 4) + 1, ...">
    #poly.shape<"">            // rank 0
    ```

    Where it may appear:
    - `poly.shape` on a function argument (user-written, JAX's argument
      spec): the argument type uses `?` for each symbolic dimension. A
      placeholder or a constant must match the type's static size (a `?` is
      JAX's `None`), a symbolic dimension must be a `?`, and the rank must
      be the type's.
    - `poly.shape` on a function result (written by `poly-infer`, or by the
      user on a declaration): JAX's `out_avals`.
    - `poly.shape` on an op (written by `poly-infer`): the symbolic shape of
      its result when it has one result, or an array with one entry per
      result (`#poly.shape` for a ranked shaped result, `unit` otherwise)
      when it has several. A constant may stand at a `?` of a result type
      (the inferred size is more precise than the type); a static size must
      be matched exactly.

    The spec is parsed in the scope of the enclosing function (its
    `poly.constraints`); syntax errors carry JAX's `syntax error in
    symbolic shape ...` text.
  }];
  let parameters = (ins "::mlir::StringAttr":$spec);
  let assemblyFormat = "`<` $spec `>`";
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "::llvm::StringRef":$spec), [{
      return $_get($_ctxt, ::mlir::StringAttr::get($_ctxt, spec));
    }]>
  ];
  let extraClassDeclaration = [{
    /// The attribute printing `dims` in JAX's normal form, comma-separated
    /// (`b, 2*d`; the empty spec for rank 0).
    static ShapeAttr get(::mlir::MLIRContext *context,
                         ::llvm::ArrayRef<::mlir::tessera::symbolic::DimExpr>
                             dims);
    /// Parses the spec in `scope`; with `like`, placeholders are resolved
    /// and constants checked against it (JAX's `like` shape).
    ::mlir::tessera::symbolic::DimResult<
        ::llvm::SmallVector<::mlir::tessera::symbolic::DimExpr>>
    parse(::mlir::tessera::symbolic::SymbolicScope &scope,
          std::optional<::llvm::ArrayRef<::mlir::tessera::symbolic::LikeDim>>
              like = std::nullopt) const;
    /// The spec split at its top-level commas, without surrounding
    /// parentheses and whitespace: one string per dimension of a spec
    /// without placeholders (`"b, 2*d"` -> `b`, `2*d`). The strings point
    /// into the attribute's storage.
    ::llvm::SmallVector<::llvm::StringRef> getDimStrings() const;
  }];
}

def Poly_ExprAttr : Poly_Attr<"Expr", "expr"> {
  let summary = "a symbolic dimension expression";
  let description = [{
    One dimension expression in JAX's grammar, e.g. the symbolic value of an
    index computed from dimension sizes. `poly-infer` writes it as
    `poly.value` on ops with index or integer results whose value it knows
    and which is not a constant.

    ```mlir
    %d = tensor.dim %x, %c0 {poly.value = #poly.expr<"b">} : tensor<?x4xf32>
    %n = arith.muli %d, %c2 {poly.value = #poly.expr<"2*b">} : index
    ```
  }];
  let parameters = (ins "::mlir::StringAttr":$expr);
  let assemblyFormat = "`<` $expr `>`";
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "::llvm::StringRef":$expr), [{
      return $_get($_ctxt, ::mlir::StringAttr::get($_ctxt, expr));
    }]>
  ];
  let extraClassDeclaration = [{
    /// The attribute printing `expr` in JAX's normal form.
    static ExprAttr get(::mlir::MLIRContext *context,
                        const ::mlir::tessera::symbolic::DimExpr &expr);
    /// Parses the expression in `scope`.
    ::mlir::tessera::symbolic::DimResult<::mlir::tessera::symbolic::DimExpr>
    parse(::mlir::tessera::symbolic::SymbolicScope &scope) const;
  }];
}

#endif // TESSERA_DIALECT_POLY_IR_POLYATTRS_TD
