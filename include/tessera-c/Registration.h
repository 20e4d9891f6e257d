/*===- Registration.h - Tessera C API: registration and version ---*- C -*-===*\
|*                                                                            *|
|* Part of the Tessera project, under the Apache License v2.0.                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TESSERA_C_REGISTRATION_H
#define TESSERA_C_REGISTRATION_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Adds Tessera's dialects (spmd, comm, poly), the upstream dialects Tessera
/// programs use, and Tessera's external models (shape rules and, as they
/// land, sharding rules) to `registry`.
MLIR_CAPI_EXPORTED void
tesseraRegisterAllDialects(MlirDialectRegistry registry);

/// Registers every Tessera pass and pipeline (and MLIR's) with the global
/// pass registry, so textual pipelines can name them.
MLIR_CAPI_EXPORTED void tesseraRegisterAllPasses(void);

/// The version of Tessera, e.g. "0.1.0".
MLIR_CAPI_EXPORTED MlirStringRef tesseraGetVersion(void);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_C_REGISTRATION_H */
