//===- DimExpr.h - symbolic dimension expressions (jax.export) --*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Dimension expressions as JAX's shape polymorphism defines them: integer
// polynomials over *factors* (a dimension variable, floordiv(E1, E2),
// mod(E1, E2), max(E1, E2) or min(E1, E2)), kept in JAX's normal form, with
// JAX's canonical order and printing.
//
// Expressions are immutable and hash-consed in a `DimContext`: equal
// structures share one storage object, so structural comparison is a pointer
// comparison. A `DimExpr` is a small value (storage pointer, scope pointer,
// constant) and is cheap to copy. A constant expression has no storage and no
// scope, like the plain Python integers JAX returns for constant results.
//
// Arithmetic can fail (scope mixing, int64 overflow, division by zero), so it
// returns `DimResult<DimExpr>`. The operators `+`, `-`, `*` accept `DimExpr`,
// integers and `DimResult<DimExpr>` and propagate the first error, so chains
// like `(a + 1) * b - 2` need one check at the end.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_SYMBOLICSHAPE_DIMEXPR_H
#define TESSERA_SYMBOLICSHAPE_DIMEXPR_H

#include "tessera/SymbolicShape/DimError.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMapInfo.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mlir::tessera::symbolic {

class DimContext;
class DimExpr;
class DimFactor;
class DimTerm;
class SymbolicScope;

/// The kind of a factor.
enum class FactorKind {
  /// A dimension variable, e.g. `b`.
  Variable,
  /// `floordiv(E1, E2)`: Python floor division.
  FloorDiv,
  /// `mod(E1, E2)`: Python modulo (the result has the sign of E2).
  Mod,
  /// `max(E1, E2)`.
  Max,
  /// `min(E1, E2)`.
  Min,
};

/// The operation name JAX prints for `kind` (`floordiv`, `mod`, `max`, `min`);
/// empty for variables.
llvm::StringRef getFactorKindName(FactorKind kind);

namespace detail {
struct ExprStorage;

/// Uniqued storage of a factor. Owned by a DimContext.
struct FactorStorage {
  FactorKind kind;
  /// JAX's syntactic size: 1 for a variable, 1 + operand sizes otherwise.
  uint64_t size;
  /// The variable name (variables only).
  llvm::StringRef name;
  /// The two operands (operations only).
  const ExprStorage *operands[2];
};

/// A factor raised to a positive exponent, as stored in a term.
struct FactorPower {
  const FactorStorage *factor;
  int64_t exponent;
};

/// Uniqued storage of a term: a product of factor powers, largest factor
/// first. The empty product is the constant term 1.
struct TermStorage {
  llvm::ArrayRef<FactorPower> factors;
  /// Sum over factors of (1 + exponent * size(factor)).
  uint64_t size;
};

/// A term with its coefficient, as stored in an expression.
struct TermCoeff {
  const TermStorage *term;
  int64_t coeff;
};

/// Uniqued storage of an expression: terms sorted largest first, the constant
/// term (if any) last. A constant expression (used only as an operand of a
/// factor) has exactly one term, the constant term, possibly with coefficient
/// 0.
struct ExprStorage {
  llvm::ArrayRef<TermCoeff> terms;
  /// Sum over terms of (1 + |coeff| * size(term)); 1 for a constant.
  uint64_t size;
};
} // namespace detail

/// Owns and uniques the storage of all factors, terms and expressions. Scopes
/// refer to a context; a context must outlive its scopes and expressions.
/// Interning is thread-safe; everything else about an expression is
/// immutable.
class DimContext {
public:
  DimContext();
  ~DimContext();
  DimContext(const DimContext &) = delete;
  DimContext &operator=(const DimContext &) = delete;

  /// \name Storage uniquing (implementation detail of the library).
  /// @{
  /// The uniqued variable factor named `name`.
  const detail::FactorStorage *getVariableFactor(llvm::StringRef name);
  /// The uniqued operation factor `kind(lhs, rhs)`.
  const detail::FactorStorage *
  getOperationFactor(FactorKind kind, const detail::ExprStorage *lhs,
                     const detail::ExprStorage *rhs);
  /// The uniqued term with `factors` (sorted largest first, exponents > 0).
  const detail::TermStorage *
  getTerm(llvm::ArrayRef<detail::FactorPower> factors);
  /// The uniqued expression with `terms` (sorted largest first).
  const detail::ExprStorage *getExpr(llvm::ArrayRef<detail::TermCoeff> terms);
  /// The uniqued constant expression `value` (used as a factor operand).
  const detail::ExprStorage *getConstantExpr(int64_t value);
  /// A fresh scope identifier (1, 2, ...).
  unsigned getNextScopeId();
  /// @}

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
  const detail::TermStorage *oneTerm;
};

/// A factor: a variable or an operation on two expressions.
class DimFactor {
public:
  DimFactor(const detail::FactorStorage *storage, SymbolicScope *scope)
      : impl(storage), scope(scope) {}

  /// The kind of the factor.
  FactorKind getKind() const { return impl->kind; }
  /// True for a dimension variable.
  bool isVariable() const { return impl->kind == FactorKind::Variable; }
  /// The variable name (variables only).
  llvm::StringRef getVariableName() const {
    assert(isVariable() && "not a variable");
    return impl->name;
  }
  /// Operand `i` (0 or 1) of an operation, as an expression in the scope.
  DimExpr getOperand(unsigned i) const;
  /// JAX's syntactic size.
  uint64_t getSize() const { return impl->size; }
  /// The storage.
  const detail::FactorStorage *getImpl() const { return impl; }
  /// Prints `b` or `mod(b + 1, 4)`.
  void print(llvm::raw_ostream &os) const;
  /// The printed form.
  std::string str() const;
  bool operator==(const DimFactor &other) const { return impl == other.impl; }
  bool operator!=(const DimFactor &other) const { return impl != other.impl; }

private:
  const detail::FactorStorage *impl;
  SymbolicScope *scope;
};

/// A term of an expression: a product of factor powers (the constant term 1
/// has no factors).
class DimTerm {
public:
  DimTerm(const detail::TermStorage *storage, SymbolicScope *scope)
      : impl(storage), scope(scope) {}

  /// True for the constant term 1.
  bool isConstant() const { return impl->factors.empty(); }
  /// The number of factors.
  unsigned getNumFactors() const { return impl->factors.size(); }
  /// Factor `i`, largest first.
  DimFactor getFactor(unsigned i) const;
  /// The exponent (>= 1) of factor `i`.
  int64_t getExponent(unsigned i) const { return impl->factors[i].exponent; }
  /// All (factor, exponent) pairs, largest factor first.
  llvm::SmallVector<std::pair<DimFactor, int64_t>> getFactors() const;
  /// The term as an expression (coefficient 1), normalized in its scope.
  DimResult<DimExpr> toExpr() const;
  /// JAX's syntactic size.
  uint64_t getSize() const { return impl->size; }
  /// The storage.
  const detail::TermStorage *getImpl() const { return impl; }
  /// The scope of the expression this term came from.
  SymbolicScope *getScope() const { return scope; }
  /// Prints the factors in ascending order joined by `*`: `a^2*b`.
  void print(llvm::raw_ostream &os) const;
  /// The printed form.
  std::string str() const;
  bool operator==(const DimTerm &other) const { return impl == other.impl; }
  bool operator!=(const DimTerm &other) const { return impl != other.impl; }

private:
  const detail::TermStorage *impl;
  SymbolicScope *scope;
};

/// A dimension expression: an integer constant, or a polynomial over factors
/// that belongs to a `SymbolicScope`.
class DimExpr {
public:
  /// The constant 0.
  DimExpr() = default;
  /// The constant `value`.
  explicit DimExpr(int64_t value) : constant(value) {}
  /// Wraps uniqued storage; `storage` must be a non-constant normalized
  /// expression of `scope`. Use the arithmetic functions to build expressions.
  DimExpr(const detail::ExprStorage *storage, SymbolicScope *scope)
      : impl(storage), scope(scope) {}

  /// True for a constant expression.
  bool isConstant() const { return impl == nullptr; }
  /// The value of a constant expression, or std::nullopt.
  std::optional<int64_t> getConstant() const {
    if (impl)
      return std::nullopt;
    return constant;
  }
  /// The value of a constant expression; otherwise JAX's
  /// `InconclusiveDimensionOperation` "Symbolic dimension '<e>' used in a
  /// context that requires a constant".
  DimResult<int64_t> requireConstant() const;
  /// The scope of a symbolic expression; null for a constant.
  SymbolicScope *getScope() const { return scope; }
  /// The storage of a symbolic expression; null for a constant.
  const detail::ExprStorage *getImpl() const { return impl; }

  /// \name Structure
  /// @{
  /// The number of terms, counting a non-zero constant term (0 for the
  /// constant 0).
  unsigned getNumTerms() const;
  /// Term `i` (largest first; the constant term, if any, is last).
  DimTerm getTerm(unsigned i) const;
  /// The coefficient of term `i`.
  int64_t getCoefficient(unsigned i) const;
  /// All (term, coefficient) pairs, largest term first.
  llvm::SmallVector<std::pair<DimTerm, int64_t>> getTerms() const;
  /// The constant term's coefficient (the value for a constant expression).
  int64_t getConstantTerm() const;
  /// The leading (largest) term and its coefficient; only for symbolic
  /// expressions.
  std::pair<DimTerm, int64_t> getLeadingTerm() const;
  /// The variable name if the expression is exactly one variable.
  std::optional<llvm::StringRef> getVariable() const;
  /// The factor if the expression is exactly one factor (coefficient 1,
  /// exponent 1, no constant term).
  std::optional<DimFactor> getSingleFactor() const;
  /// The term if the expression is exactly one term with coefficient 1.
  std::optional<DimTerm> getSingleTerm() const;
  /// The names of all variables, recursively, sorted.
  llvm::SmallVector<std::string> getVariables() const;
  /// JAX's syntactic size (1 for constants).
  uint64_t getSize() const;
  /// @}

  /// JAX's syntactic comparison: negative, zero or positive when this
  /// expression sorts before, equal to or after `other` (not related to the
  /// values of the expressions).
  int compareSyntactic(const DimExpr &other) const;
  /// True when both are the same structure in the same scope (or equal
  /// constants). Cheaper and stricter than `==`.
  bool isIdenticalTo(const DimExpr &other) const {
    return impl == other.impl && scope == other.scope &&
           (impl || constant == other.constant);
  }

  /// JAX's equality: true exactly when both are in the same scope (or one is
  /// a constant) and their difference normalizes to the constant 0. It is
  /// false, never an error, when the difference is not constant, so it is
  /// unsound for `!=` decisions (see docs/SymbolicShapes.md).
  bool operator==(const DimExpr &other) const;
  bool operator!=(const DimExpr &other) const { return !(*this == other); }
  bool operator==(int64_t value) const { return *this == DimExpr(value); }
  bool operator!=(int64_t value) const { return !(*this == value); }

  /// Prints as JAX does: `b + 2*a`, `- b + a`, `3*a*mod(a + 2, b + 2)`; a
  /// constant prints as an integer.
  void print(llvm::raw_ostream &os) const;
  /// The printed form.
  std::string str() const;

  /// A hash consistent with `isIdenticalTo`.
  friend llvm::hash_code hash_value(const DimExpr &e) {
    return llvm::hash_combine(e.impl, e.scope, e.impl ? 0 : e.constant);
  }

private:
  const detail::ExprStorage *impl = nullptr;
  SymbolicScope *scope = nullptr;
  int64_t constant = 0;
};

inline llvm::raw_ostream &operator<<(llvm::raw_ostream &os, const DimExpr &e) {
  e.print(os);
  return os;
}
inline llvm::raw_ostream &operator<<(llvm::raw_ostream &os, const DimTerm &t) {
  t.print(os);
  return os;
}
inline llvm::raw_ostream &operator<<(llvm::raw_ostream &os,
                                     const DimFactor &f) {
  f.print(os);
  return os;
}

/// Prints a shape as a Python tuple, as JAX does: `()`, `(a,)`, `(3, b + a)`.
std::string formatShape(llvm::ArrayRef<DimExpr> shape);

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

/// An operand of the arithmetic functions: an expression, an integer, or the
/// result of an earlier operation (whose error is propagated).
class DimOperand {
public:
  DimOperand(const DimExpr &e) : value(e) {}
  DimOperand(int64_t c) : value(DimExpr(c)) {}
  DimOperand(const DimResult<DimExpr> &r) : value(r) {}
  /// The held expression or error.
  const DimResult<DimExpr> &get() const { return value; }

private:
  DimResult<DimExpr> value;
};

/// `lhs + rhs`.
DimResult<DimExpr> add(DimOperand lhs, DimOperand rhs);
/// `lhs - rhs`.
DimResult<DimExpr> sub(DimOperand lhs, DimOperand rhs);
/// `lhs * rhs`.
DimResult<DimExpr> mul(DimOperand lhs, DimOperand rhs);
/// `-e`.
DimResult<DimExpr> neg(DimOperand e);
/// `lhs * lk + rhs * rk` in one normalization step (as JAX's
/// `_linear_combination`).
DimResult<DimExpr> linearCombination(DimOperand lhs, int64_t lk, DimOperand rhs,
                                     int64_t rk);
/// `base ** exponent` for `exponent >= 0` (`e ** 0 == 1`). A negative
/// exponent gives JAX's "Symbolic dimension cannot be raised to negative
/// powers: '<e>' ** '<k>'".
DimResult<DimExpr> pow(DimOperand base, int64_t exponent);

/// Python's `divmod` generalized to expressions (JAX's `_DimExpr._divmod`
/// in shape_poly.py): exact polynomial division when possible, otherwise the
/// opaque factors `(floordiv(E, D), mod(E, D))`. Division by the constant 0
/// fails.
DimResult<std::pair<DimExpr, DimExpr>> divMod(DimOperand dividend,
                                              DimOperand divisor);
/// `dividend // divisor` (first component of `divMod`).
DimResult<DimExpr> floorDiv(DimOperand dividend, DimOperand divisor);
/// `dividend % divisor` (second component of `divMod`).
DimResult<DimExpr> mod(DimOperand dividend, DimOperand divisor);

/// JAX's `core.max_dim`: `lhs` if `lhs - rhs >= 0` can be decided, `rhs` if
/// `lhs - rhs <= 0`, otherwise the factor `max(lhs, rhs)` (a constant
/// argument is kept first). Uses the scope's decision procedure.
DimResult<DimExpr> maxDim(DimOperand lhs, DimOperand rhs);
/// JAX's `core.min_dim`, symmetric to `maxDim`.
DimResult<DimExpr> minDim(DimOperand lhs, DimOperand rhs);

/// Builds the factor `kind(lhs, rhs)` exactly as written, without
/// simplification (what the parser does for `mod(...)`/`floordiv(...)`), but
/// with the scope's normalization rules applied to the resulting term. At
/// least one operand must be symbolic, or `scope` must be given.
DimResult<DimExpr> makeOperation(FactorKind kind, DimOperand lhs,
                                 DimOperand rhs,
                                 SymbolicScope *scope = nullptr);

DimResult<DimExpr> operator+(DimOperand lhs, DimOperand rhs);
DimResult<DimExpr> operator-(DimOperand lhs, DimOperand rhs);
DimResult<DimExpr> operator*(DimOperand lhs, DimOperand rhs);
DimResult<DimExpr> operator-(DimOperand e);

} // namespace mlir::tessera::symbolic

namespace llvm {
/// DimExpr as a DenseMap key, by identity (`isIdenticalTo`).
template <> struct DenseMapInfo<mlir::tessera::symbolic::DimExpr> {
  using DimExpr = mlir::tessera::symbolic::DimExpr;
  static DimExpr getEmptyKey() {
    return DimExpr(
        reinterpret_cast<const mlir::tessera::symbolic::detail::ExprStorage *>(
            uintptr_t(-1) << 4),
        nullptr);
  }
  static DimExpr getTombstoneKey() {
    return DimExpr(
        reinterpret_cast<const mlir::tessera::symbolic::detail::ExprStorage *>(
            uintptr_t(-2) << 4),
        nullptr);
  }
  static unsigned getHashValue(const DimExpr &e) { return hash_value(e); }
  static bool isEqual(const DimExpr &a, const DimExpr &b) {
    return a.isIdenticalTo(b);
  }
};
} // namespace llvm

#endif // TESSERA_SYMBOLICSHAPE_DIMEXPR_H
