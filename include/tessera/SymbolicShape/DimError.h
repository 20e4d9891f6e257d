//===- DimError.h - errors and results of symbolic-shape operations -*- C++
//-*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Every fallible operation of the symbolic-shape library returns a
// `DimResult<T>` (a value or a `DimError`) or a `DimStatus`. Errors carry the
// kind of the Python exception JAX raises for the same situation and JAX's
// message text, so that tools and passes can report them verbatim.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_SYMBOLICSHAPE_DIMERROR_H
#define TESSERA_SYMBOLICSHAPE_DIMERROR_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace mlir::tessera::symbolic {

/// The kind of a symbolic-shape error. The first four mirror the Python
/// exception classes JAX raises; the others are Tessera-specific (JAX computes
/// with unbounded Python integers and has no resource limits).
enum class DimErrorKind {
  /// JAX `ValueError`: syntax errors, unsatisfiable or invalid constraints,
  /// scope mixing, unsolvable dimension variables, shape-assertion failures.
  ValueError,
  /// JAX `InconclusiveDimensionOperation`; the message ends with JAX's help
  /// text (see `DimError::inconclusive`).
  Inconclusive,
  /// JAX `NotImplementedError`, e.g. two equality constraints with the same
  /// left-hand side.
  NotImplemented,
  /// JAX `UnexpectedDimVar`: a dimension variable without a value.
  UnexpectedDimVar,
  /// Python `ZeroDivisionError` (division or modulo by the constant 0).
  DivisionByZero,
  /// A 64-bit integer overflow (Tessera computes with int64_t).
  Overflow,
  /// A resource limit was exceeded (expression size, nesting depth).
  LimitExceeded,
};

/// A symbolic-shape error: a kind and the complete user-facing message.
class DimError {
public:
  DimError(DimErrorKind kind, std::string message)
      : kind(kind), message(std::move(message)) {}

  /// A `ValueError` with `message`.
  static DimError value(const llvm::Twine &message) {
    return DimError(DimErrorKind::ValueError, message.str());
  }
  /// An `InconclusiveDimensionOperation`: `message` followed by JAX's fixed
  /// help text (which starts with a newline and ends with one).
  static DimError inconclusive(const llvm::Twine &message);
  /// A `NotImplementedError` with `message`.
  static DimError notImplemented(const llvm::Twine &message) {
    return DimError(DimErrorKind::NotImplemented, message.str());
  }
  /// The Python `ZeroDivisionError` for integer division by 0.
  static DimError divisionByZero() {
    return DimError(DimErrorKind::DivisionByZero,
                    "integer division or modulo by zero");
  }
  /// An int64 overflow while computing `what`.
  static DimError overflow(const llvm::Twine &what);
  /// A resource limit error with `message`.
  static DimError limit(const llvm::Twine &message) {
    return DimError(DimErrorKind::LimitExceeded, message.str());
  }

  /// The kind of the error.
  DimErrorKind getKind() const { return kind; }
  /// The complete message.
  const std::string &getMessage() const { return message; }
  /// The name of the Python exception JAX raises for this kind
  /// (`ValueError`, `InconclusiveDimensionOperation`, ...).
  llvm::StringRef getKindName() const;

private:
  DimErrorKind kind;
  std::string message;
};

/// The outcome of an operation that produces no value: success or an error.
class [[nodiscard]] DimStatus {
public:
  /// Success.
  DimStatus() = default;
  /// Failure with `error`.
  DimStatus(DimError error) : error(std::move(error)) {}

  /// A successful status.
  static DimStatus success() { return DimStatus(); }

  /// True on success.
  bool succeeded() const { return !error.has_value(); }
  /// True on failure.
  bool failed() const { return error.has_value(); }
  /// True on success.
  explicit operator bool() const { return succeeded(); }
  /// The error; only valid on failure.
  const DimError &getError() const {
    assert(failed() && "no error in a successful DimStatus");
    return *error;
  }

private:
  std::optional<DimError> error;
};

/// A value of type `T` or a `DimError`.
template <typename T> class [[nodiscard]] DimResult {
public:
  /// A successful result holding `value`.
  DimResult(T value) : storage(std::in_place_index<0>, std::move(value)) {}
  /// A failed result holding `error`.
  DimResult(DimError error)
      : storage(std::in_place_index<1>, std::move(error)) {}

  /// True when a value is held.
  bool succeeded() const { return storage.index() == 0; }
  /// True when an error is held.
  bool failed() const { return storage.index() == 1; }
  /// True when a value is held.
  explicit operator bool() const { return succeeded(); }

  /// The value; only valid on success.
  T &operator*() {
    assert(succeeded() && "dereferencing a failed DimResult");
    return std::get<0>(storage);
  }
  const T &operator*() const {
    assert(succeeded() && "dereferencing a failed DimResult");
    return std::get<0>(storage);
  }
  T *operator->() { return &**this; }
  const T *operator->() const { return &**this; }

  /// The error; only valid on failure.
  const DimError &getError() const {
    assert(failed() && "no error in a successful DimResult");
    return std::get<1>(storage);
  }

private:
  std::variant<T, DimError> storage;
};

} // namespace mlir::tessera::symbolic

#endif // TESSERA_SYMBOLICSHAPE_DIMERROR_H
