//===- SymbolicShapeTestBase.h - fixture for symbolic-shape tests -*- C++
//-*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_UNITTESTS_SYMBOLICSHAPE_SYMBOLICSHAPETESTBASE_H
#define TESSERA_UNITTESTS_SYMBOLICSHAPE_SYMBOLICSHAPETESTBASE_H

#include "tessera/SymbolicShape/Decision.h"
#include "tessera/SymbolicShape/DimExpr.h"
#include "tessera/SymbolicShape/Evaluate.h"
#include "tessera/SymbolicShape/Parser.h"
#include "tessera/SymbolicShape/Scope.h"
#include "tessera/SymbolicShape/Solve.h"

#include "gtest/gtest.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir::tessera::symbolic::testing {

/// The help text JAX appends to every inconclusive message.
inline const char *kInconclusiveHelp =
    "\nThis error arises for comparison operations with shapes that\n"
    "are non-constant, and the result of the operation cannot be represented "
    "as\na boolean value for all values of the symbolic dimensions "
    "involved.\n\nPlease see "
    "https://docs.jax.dev/en/latest/export/"
    "shape_poly.html#comparison-of-symbolic-dimensions-is-partially-supported"
    "\nfor more details.\n";

/// Owns a context and the scopes a test creates.
class SymbolicShapeTest : public ::testing::Test {
protected:
  /// A new scope with `constraints`; fails the test if that fails.
  SymbolicScope &scope(std::vector<std::string> constraints = {},
                       DecisionMode mode = DecisionMode::Strong) {
    ScopeOptions options;
    options.mode = mode;
    auto s = SymbolicScope::create(ctx, constraints, options);
    EXPECT_TRUE(s.succeeded()) << (s.failed() ? s.getError().getMessage() : "");
    if (s.failed()) {
      auto fallback = SymbolicScope::create(ctx, {}, options);
      scopes.push_back(std::move(*fallback));
    } else {
      scopes.push_back(std::move(*s));
    }
    return *scopes.back();
  }

  /// The error message of creating a scope with `constraints`.
  std::string scopeError(std::vector<std::string> constraints) {
    auto s = SymbolicScope::create(ctx, constraints);
    if (s.succeeded()) {
      scopes.push_back(std::move(*s));
      return "<no error>";
    }
    return s.getError().getMessage();
  }

  /// Parses one expression in `s`; fails the test on error.
  DimExpr expr(SymbolicScope &s, llvm::StringRef text) {
    auto e = parseDimExpr(text, s);
    EXPECT_TRUE(e.succeeded())
        << text.str() << ": " << (e.failed() ? e.getError().getMessage() : "");
    return e.succeeded() ? *e : DimExpr(0);
  }

  /// Parses one expression in the default scope.
  DimExpr expr(llvm::StringRef text) { return expr(defaultScope(), text); }

  /// The printed normal form of `text` in `s`.
  std::string norm(SymbolicScope &s, llvm::StringRef text) {
    return expr(s, text).str();
  }
  std::string norm(llvm::StringRef text) { return norm(defaultScope(), text); }

  /// The printed result or the error message.
  static std::string str(const DimResult<DimExpr> &r) {
    return r.succeeded() ? r->str() : "error: " + r.getError().getMessage();
  }

  /// A scope without constraints, shared by a test.
  SymbolicScope &defaultScope() {
    if (!defaultScopePtr)
      defaultScopePtr = &scope();
    return *defaultScopePtr;
  }

  /// `(lo, hi)` of `text` in `s`, or the error message.
  std::string bounds(SymbolicScope &s, llvm::StringRef text) {
    auto b = getBounds(expr(s, text));
    return b.succeeded() ? b->str() : "error: " + b.getError().getMessage();
  }

  /// "true", "false", "inconclusive" or "error: <message>".
  std::string cmp(SymbolicScope &s, llvm::StringRef lhs, CompareOp op,
                  llvm::StringRef rhs) {
    auto r = compare(expr(s, lhs), op, expr(s, rhs));
    if (r.succeeded())
      return *r ? "true" : "false";
    if (r.getError().getKind() == DimErrorKind::Inconclusive)
      return "inconclusive";
    return "error: " + r.getError().getMessage();
  }

  DimContext ctx;
  std::vector<std::unique_ptr<SymbolicScope>> scopes;
  SymbolicScope *defaultScopePtr = nullptr;
};

/// The chain of constraints `v1 >= v0 + 1`, ..., `v<n> >= v<n-1> + 1`.
inline std::vector<std::string> unitChain(unsigned n) {
  std::vector<std::string> constraints;
  for (unsigned i = 1; i <= n; ++i)
    constraints.push_back("v" + std::to_string(i) + " >= v" +
                          std::to_string(i - 1) + " + 1");
  return constraints;
}

} // namespace mlir::tessera::symbolic::testing

#endif // TESSERA_UNITTESTS_SYMBOLICSHAPE_SYMBOLICSHAPETESTBASE_H
