/*===- SymbolicShape.h - Tessera C API: symbolic dimensions -------*- C -*-===*\
|*                                                                            *|
|* Part of the Tessera project, under the Apache License v2.0.                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * The jax.export dimension calculator: a scope of dimension variables with
 * explicit constraints; normalizing, comparing and solving expressions in it.
 * Errors are JAX's messages, handed to the caller's callback.
 */

#ifndef TESSERA_C_SYMBOLICSHAPE_H
#define TESSERA_C_SYMBOLICSHAPE_H

#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A symbolic scope with its own storage. Create with
/// tesseraSymbolicScopeCreate, free with tesseraSymbolicScopeDestroy.
typedef struct TesseraSymbolicScope {
  void *ptr;
} TesseraSymbolicScope;

/// The answer of a comparison.
typedef enum TesseraCompareResult {
  TesseraCompareFalse = 0,
  TesseraCompareTrue = 1,
  /// The decision procedure cannot tell (JAX's InconclusiveDimensionOperation).
  TesseraCompareInconclusive = 2,
  /// The input was invalid (syntax, unknown operator, ...).
  TesseraCompareError = 3,
} TesseraCompareResult;

/// True if the scope is null (creation failed).
static inline bool tesseraSymbolicScopeIsNull(TesseraSymbolicScope scope) {
  return !scope.ptr;
}

/// A scope with `numConstraints` explicit constraints (`"a >= b"`,
/// `"4*d == a - m"`). `jaxExact` selects JAX's decision procedure instead of
/// Tessera's stronger one. On error (a syntax error, unsatisfiable
/// constraints) calls `errorCallback` with JAX's message, if not NULL, and
/// returns a null scope.
MLIR_CAPI_EXPORTED TesseraSymbolicScope tesseraSymbolicScopeCreate(
    intptr_t numConstraints, const MlirStringRef *constraints, bool jaxExact,
    MlirStringCallback errorCallback, void *userData);

/// Frees a scope (a null scope is ignored).
MLIR_CAPI_EXPORTED void tesseraSymbolicScopeDestroy(TesseraSymbolicScope scope);

/// Parses `expr` (one dimension expression, or a shape spec such as
/// `"b, 2*d"`) and calls `callback` with its normal form. On error calls it
/// with JAX's message instead and returns failure.
MLIR_CAPI_EXPORTED MlirLogicalResult
tesseraSymbolicNormalize(TesseraSymbolicScope scope, MlirStringRef expr,
                         MlirStringCallback callback, void *userData);

/// Compares two expressions with `op`, one of `>=`, `<=`, `>`, `<`, `==`,
/// `!=`. For an inconclusive answer or an error, calls `errorCallback` (if
/// not NULL) with the message.
MLIR_CAPI_EXPORTED TesseraCompareResult tesseraSymbolicCompare(
    TesseraSymbolicScope scope, MlirStringRef lhs, MlirStringRef op,
    MlirStringRef rhs, MlirStringCallback errorCallback, void *userData);

/// Called once per solved dimension variable, in name order.
typedef void (*TesseraDimVarCallback)(MlirStringRef name, int64_t value,
                                      void *userData);

/// Solves the dimension variables of the shape spec `spec` from the concrete
/// shape `dims[0..rank)`, checking every shape assertion JAX checks. On
/// success calls `callback` for each variable; on failure calls
/// `errorCallback` (if not NULL) with JAX's message and returns failure.
MLIR_CAPI_EXPORTED MlirLogicalResult tesseraSymbolicSolve(
    TesseraSymbolicScope scope, MlirStringRef spec, intptr_t rank,
    const int64_t *dims, TesseraDimVarCallback callback,
    MlirStringCallback errorCallback, void *userData);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_C_SYMBOLICSHAPE_H */
