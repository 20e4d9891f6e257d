/*===- Execution.h - Tessera C API: compile and run programs -------*- C
-*-===*\
|*                                                                            *|
|* Part of the Tessera project, under the Apache License v2.0.                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TESSERA_C_EXECUTION_H
#define TESSERA_C_EXECUTION_H

#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// How `tesseraRunProgram` runs a program. Start from
/// `tesseraRunOptionsGetDefault()` and set the fields you need; a string
/// field with a null `data` is unset.
typedef struct {
  /// The function to run (unset: the only public function, else `main`).
  MlirStringRef entry;
  /// New sizes of mesh axes, `data=4,model=2` (unset: the module's).
  MlirStringRef meshSizes;
  /// The seed of the generated inputs.
  uint64_t seed;
  /// Also run the unpartitioned program on one device and compare.
  bool check;
  /// LLVM's optimization level of the compiled code, 0 to 3.
  unsigned optLevel;
} TesseraRunOptions;

/// The defaults: the module's entry and mesh, seed 0, no check, -O3.
MLIR_CAPI_EXPORTED TesseraRunOptions tesseraRunOptionsGetDefault(void);

/// Compiles the global-view program `source` (MLIR text; `sourceName` names
/// it in diagnostics) for its mesh and runs it on the emulated mesh with
/// generated inputs, as `tessera-run --random-inputs` does: the report goes
/// to stdout. On failure, `onError` receives the diagnostics and the error
/// message (each piece once, in order) and the result is a failure; a failed
/// check is a failure too.
MLIR_CAPI_EXPORTED MlirLogicalResult
tesseraRunProgram(MlirStringRef source, MlirStringRef sourceName,
                  const TesseraRunOptions *options, MlirStringCallback onError,
                  void *userData);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_C_EXECUTION_H */
