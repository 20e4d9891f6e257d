/*===- Artifact.h - Tessera C API: exported artifacts -------------*- C -*-===*\
|*                                                                            *|
|* Part of the Tessera project, under the Apache License v2.0.                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * Exported artifacts (jax.export for Tessera; docs/Tools/tessera-export.md):
 * export a function of a program, serialize and deserialize the artifact,
 * inspect it, and call it on arrays as JAX's Exported.call does. Errors are
 * one-line messages handed to the caller's callback.
 */

#ifndef TESSERA_C_ARTIFACT_H
#define TESSERA_C_ARTIFACT_H

#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A deserialized artifact with its own MLIR context. Create with
/// tesseraArtifactDeserialize, free with tesseraArtifactDestroy.
typedef struct TesseraArtifact {
  void *ptr;
} TesseraArtifact;

/// An array passed to or returned by tesseraArtifactCall: the dtype as the
/// runtime names it (`f32`, `f64`, `f16`, `bf16`, `bool`, `i8` ... `i64`,
/// `u8` ... `u64`), the shape and the row-major data. Results are valid only
/// during the callback that receives them.
typedef struct TesseraArray {
  MlirStringRef dtype;
  intptr_t rank;
  const int64_t *shape;
  const void *data;
} TesseraArray;

/// Called with each result of a call, in order.
typedef void (*TesseraArrayCallback)(TesseraArray array, void *userData);

/// True if the artifact is null (deserialization failed).
static inline bool tesseraArtifactIsNull(TesseraArtifact artifact) {
  return !artifact.ptr;
}

/// Exports `entry` (empty: the only public function, else `main`) of the
/// global-view program `source` (MLIR text; `sourceName` names it in
/// messages), with zstd level `compressionLevel` (1 to 19), as
/// `tessera-export` does, and hands the artifact's bytes to `onBytes`. On
/// failure hands the diagnostics and the message to `onError`.
MLIR_CAPI_EXPORTED MlirLogicalResult tesseraArtifactExport(
    MlirStringRef source, MlirStringRef sourceName, MlirStringRef entry,
    int compressionLevel, MlirStringCallback onBytes,
    MlirStringCallback onError, void *userData);

/// Reads an artifact from its bytes: the header, checksums, versions and
/// metadata are checked (the module is read and checked against the metadata
/// when it is first compiled). On failure calls `onError` with the message
/// and returns a null artifact.
MLIR_CAPI_EXPORTED TesseraArtifact tesseraArtifactDeserialize(
    MlirStringRef bytes, MlirStringCallback onError, void *userData);

/// Frees an artifact (a null one is ignored).
MLIR_CAPI_EXPORTED void tesseraArtifactDestroy(TesseraArtifact artifact);

/// Hands the artifact's bytes to `onBytes` (the bytes it was read from).
MLIR_CAPI_EXPORTED void tesseraArtifactSerialize(TesseraArtifact artifact,
                                                 MlirStringCallback onBytes,
                                                 void *userData);

/// Hands what `tessera-export inspect` prints (with `json`, one JSON
/// object) to `callback`.
MLIR_CAPI_EXPORTED void tesseraArtifactInspect(TesseraArtifact artifact,
                                               bool json,
                                               MlirStringCallback callback,
                                               void *userData);

/// The exported function's name (valid while the artifact lives).
MLIR_CAPI_EXPORTED MlirStringRef
tesseraArtifactGetFunctionName(TesseraArtifact artifact);

/// The numbers of inputs and outputs, and of devices the function was
/// exported for.
MLIR_CAPI_EXPORTED intptr_t
tesseraArtifactGetNumInputs(TesseraArtifact artifact);
MLIR_CAPI_EXPORTED intptr_t
tesseraArtifactGetNumOutputs(TesseraArtifact artifact);
MLIR_CAPI_EXPORTED intptr_t
tesseraArtifactGetNumDevices(TesseraArtifact artifact);

/// Calls the function on `inputs` as JAX's Exported.call does: the inputs
/// are checked (rank, dtype, constant dimensions, the dimension variables,
/// the device count of `meshSizes`, the calling context's mesh as
/// `name=size,...`, unset for the artifact's own), the program is compiled
/// for their shapes (or taken from the compiled-code cache unless
/// `noCache`) at LLVM level `optLevel` and run on the emulated mesh; each
/// result goes to `onResult`. On failure `onError` gets the message (JAX's
/// for the checks).
MLIR_CAPI_EXPORTED MlirLogicalResult tesseraArtifactCall(
    TesseraArtifact artifact, intptr_t numInputs, const TesseraArray *inputs,
    MlirStringRef meshSizes, unsigned optLevel, bool noCache,
    TesseraArrayCallback onResult, MlirStringCallback onError, void *userData);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_C_ARTIFACT_H */
