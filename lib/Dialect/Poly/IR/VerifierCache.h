//===- VerifierCache.h - caches of the poly attribute verifiers -*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The attribute verifiers run after every pass and, for functions, in
// parallel. They parse specs with the symbolic-shape library, whose scopes
// are not thread-safe, so the dialect keeps one cache, guarded by a mutex:
// the scope of every constraint list and the outcome of every
// (spec, scope, type) check, so each distinct annotation is parsed once per
// context.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_DIALECT_POLY_IR_VERIFIERCACHE_H
#define TESSERA_LIB_DIALECT_POLY_IR_VERIFIERCACHE_H

#include "tessera/Dialect/Poly/IR/PolyAttrs.h"
#include "tessera/SymbolicShape/Scope.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>

namespace mlir::tessera::poly::detail {

class VerifierCache {
public:
  VerifierCache();
  ~VerifierCache();

  /// The error of the syntax check of a `#poly.shape` spec (`isExpr`
  /// false) or a `#poly.expr` expression, parsed without constraints;
  /// std::nullopt if it parses. A shape spec with a placeholder that fails
  /// only for want of a `like` shape is accepted here: placeholders are
  /// resolved where the spec is attached.
  std::optional<std::string> checkSyntax(StringAttr text, bool isExpr);

  /// The error of `constraints` (a `poly.constraints` value; null for
  /// none), or std::nullopt if the scope they define is valid.
  std::optional<std::string> checkConstraints(Attribute constraints);

  /// The error of `spec` attached to a value of type `type` in the scope of
  /// `constraints`, or std::nullopt. When the constraints themselves are
  /// invalid the spec is not checked (their own verifier reports them).
  std::optional<std::string> checkShape(ShapeAttr spec, ShapedType type,
                                        SpecKind kind, Attribute constraints);

  /// The error of `expr` in the scope of `constraints`, or std::nullopt.
  std::optional<std::string> checkExpr(ExprAttr expr, Attribute constraints);

private:
  /// The scope of `constraints`, or null (with `error` set) if invalid.
  /// Requires the lock.
  symbolic::SymbolicScope *getScope(Attribute constraints,
                                    std::optional<std::string> &error);

  std::mutex mutex;
  symbolic::DimContext context;
  std::unique_ptr<symbolic::SymbolicScope> unconstrained;
  llvm::DenseMap<Attribute, std::unique_ptr<symbolic::SymbolicScope>> scopes;
  llvm::DenseMap<Attribute, std::string> scopeErrors;
  llvm::DenseMap<std::pair<Attribute, unsigned>, std::optional<std::string>>
      syntax;
  llvm::DenseMap<std::tuple<Attribute, Type, int, Attribute>,
                 std::optional<std::string>>
      shapes;
  llvm::DenseMap<std::pair<Attribute, Attribute>, std::optional<std::string>>
      exprs;
};

} // namespace mlir::tessera::poly::detail

#endif // TESSERA_LIB_DIALECT_POLY_IR_VERIFIERCACHE_H
