//===- Parser.h - parsing shape specs and dimension expressions -*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// JAX's grammar for symbolic shape specs (`jax.export.symbolic_shape`, the
// `_Parser` of JAX's shape_poly.py):
//
//   shape_spec ::= '(' shape_body ')' | shape_body
//   shape_body ::= empty | item { ',' item } [ ',' ]
//   item       ::= expr | '_' | '...'             ('...' must be last)
//   expr       ::= [ '+' | '-' ] term { ( '+' | '-' ) term }
//   term       ::= pfactor { '*' pfactor }
//   pfactor    ::= factor [ '^' INTEGER ]
//   factor     ::= NAME | [ '-' ] INTEGER | OP '(' expr ',' expr ')'
//   OP         ::= 'mod' | 'floordiv' | 'max' | 'min'
//
// Tokens follow Python's tokenizer (the token names in messages are Python's:
// NAME, NUMBER, STAR, LPAR, ...). `mod`/`floordiv` are built as written;
// `max`/`min` are simplified with `maxDim`/`minDim`. `non_negative(e)` is not
// accepted: JAX removed it in January 2025 and `non_negative` is an ordinary
// variable name, so `non_negative(a - 2)` is a syntax error (write
// `max(a - 2, 0)`).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_SYMBOLICSHAPE_PARSER_H
#define TESSERA_SYMBOLICSHAPE_PARSER_H

#include "tessera/SymbolicShape/Scope.h"

#include <optional>

namespace mlir::tessera::symbolic {

/// One dimension of a `like` shape: a known size, or std::nullopt for an
/// unknown size (Python `None`).
using LikeDim = std::optional<int64_t>;

/// Parses a shape spec in `scope`. With `like`, the placeholders `_` (one
/// dimension) and `...` (all remaining dimensions) take their sizes from
/// `like`, and constant dimensions must equal the `like` entry. Errors are
/// JAX's: `syntax error in symbolic shape '<spec>' in dimension <i>: <detail>.
/// Parsed '<prefix>', remaining '<rest>'.`
DimResult<llvm::SmallVector<DimExpr>>
parseShapeSpec(llvm::StringRef spec, SymbolicScope &scope,
               std::optional<llvm::ArrayRef<LikeDim>> like = std::nullopt);

/// Parses exactly one dimension expression in `scope` (how JAX parses each
/// side of a constraint). A spec with zero or several dimensions fails with
/// Python's `not enough values to unpack (expected 1, got 0)` /
/// `too many values to unpack (expected 1)`.
DimResult<DimExpr> parseDimExpr(llvm::StringRef text, SymbolicScope &scope);

/// Python's `repr` of a string (quotes and escapes), used in messages.
std::string pythonRepr(llvm::StringRef text);

/// Formats a `like` shape as a Python tuple: `(None, 4)`, `(3,)`.
std::string formatLikeShape(llvm::ArrayRef<LikeDim> like);

} // namespace mlir::tessera::symbolic

#endif // TESSERA_SYMBOLICSHAPE_PARSER_H
