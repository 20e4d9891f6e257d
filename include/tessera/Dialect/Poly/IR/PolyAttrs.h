//===- PolyAttrs.h - poly attributes ----------------------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// `#poly.shape<"b, 2*d">` (a symbolic shape spec) and `#poly.expr<"2*b">` (a
// dimension expression), and the checks of a spec against a type.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_POLY_IR_POLYATTRS_H
#define TESSERA_DIALECT_POLY_IR_POLYATTRS_H

#include "tessera/Dialect/Poly/IR/PolyDialect.h"
#include "tessera/SymbolicShape/DimExpr.h"
#include "tessera/SymbolicShape/Parser.h"
#include "tessera/SymbolicShape/Scope.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"

#define GET_ATTRDEF_CLASSES
#include "tessera/Dialect/Poly/IR/PolyAttrs.h.inc"

namespace mlir::tessera::poly {

/// How a spec relates to the type it annotates.
enum class SpecKind {
  /// A function argument (JAX's argument spec with the argument as `like`):
  /// placeholders and constants must match static sizes, a `?` is JAX's
  /// `None` (no placeholder, no constant), a symbolic dimension must be a
  /// `?`.
  Argument,
  /// An inferred or declared result: static sizes must be matched exactly;
  /// a `?` may hold any expression, including a constant.
  Result,
};

/// The `like` shape of `type` for JAX's parser: the static sizes, with
/// std::nullopt for each `?`.
SmallVector<symbolic::LikeDim> getLikeShape(ShapedType type);

/// Parses `spec` in `scope` as the spec of a value of type `type` and checks
/// it against the type (see SpecKind): the rank, and for each dimension the
/// rule of `kind`. Syntax and placeholder errors carry JAX's text. `type`
/// must be a ranked shaped type.
symbolic::DimResult<SmallVector<symbolic::DimExpr>>
parseShapeForType(ShapeAttr spec, ShapedType type, SpecKind kind,
                  symbolic::SymbolicScope &scope);

/// Checks already-parsed `dims` against `type` (the rank and the per-dim rule
/// of `kind`). `spec` is printed in messages.
symbolic::DimStatus checkShapeAgainstType(ArrayRef<symbolic::DimExpr> dims,
                                          StringRef spec, ShapedType type,
                                          SpecKind kind);

/// True if `spec` contains a placeholder (`_` or `...`) token.
bool specHasPlaceholder(StringRef spec);

} // namespace mlir::tessera::poly

#endif // TESSERA_DIALECT_POLY_IR_POLYATTRS_H
