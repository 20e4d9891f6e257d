/*===- Spmd.h - Tessera C API: meshes, shardings, JAX types -------*- C -*-===*\
|*                                                                            *|
|* Part of the Tessera project, under the Apache License v2.0.                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TESSERA_C_SPMD_H
#define TESSERA_C_SPMD_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Spmd, spmd);

/*===----------------------------------------------------------------------===
 * Meshes (#spmd.mesh)
 *===----------------------------------------------------------------------===*/

/// True if `attr` is a `#spmd.mesh`.
MLIR_CAPI_EXPORTED bool tesseraAttributeIsAMesh(MlirAttribute attr);

/// A mesh with `numAxes` named axes (major to minor) and iota device ids.
/// Returns a null attribute, after emitting an error diagnostic on the
/// context, if the mesh is invalid (duplicate names, sizes below 1, too many
/// devices).
MLIR_CAPI_EXPORTED MlirAttribute tesseraMeshAttrGet(MlirContext ctx,
                                                    intptr_t numAxes,
                                                    const MlirStringRef *names,
                                                    const int64_t *sizes);

/// The number of axes of a mesh.
MLIR_CAPI_EXPORTED intptr_t tesseraMeshAttrGetNumAxes(MlirAttribute mesh);
/// The name of axis `pos`.
MLIR_CAPI_EXPORTED MlirStringRef tesseraMeshAttrGetAxisName(MlirAttribute mesh,
                                                            intptr_t pos);
/// The size of axis `pos`.
MLIR_CAPI_EXPORTED int64_t tesseraMeshAttrGetAxisSize(MlirAttribute mesh,
                                                      intptr_t pos);
/// The number of devices (the product of the axis sizes, 1 for none).
MLIR_CAPI_EXPORTED int64_t tesseraMeshAttrGetNumDevices(MlirAttribute mesh);

/*===----------------------------------------------------------------------===
 * Tensor shardings (#spmd.sharding)
 *===----------------------------------------------------------------------===*/

/// True if `attr` is a `#spmd.sharding`.
MLIR_CAPI_EXPORTED bool tesseraAttributeIsATensorSharding(MlirAttribute attr);

/// A sharding over the mesh symbol `meshName` of a tensor of rank `rank`.
/// Dimension `d` is sharded by the `numAxes[d]` full axes that follow in
/// `axes` (all dimensions' axes concatenated, major to minor) and is closed
/// if `isClosed[d]`. Returns a null attribute, after emitting an error
/// diagnostic, if `meshName` is empty. Like every sharding, the result is
/// checked against its mesh and tensor type (unknown or duplicate axes,
/// rank) where it is used, by the verifier of the op or function carrying it.
MLIR_CAPI_EXPORTED MlirAttribute tesseraTensorShardingAttrGet(
    MlirContext ctx, MlirStringRef meshName, intptr_t rank,
    const intptr_t *numAxes, const MlirStringRef *axes, const bool *isClosed);

/// The mesh symbol name, or an empty string for an inlined mesh.
MLIR_CAPI_EXPORTED MlirStringRef
tesseraTensorShardingAttrGetMeshName(MlirAttribute sharding);
/// The rank (number of dimension shardings).
MLIR_CAPI_EXPORTED intptr_t
tesseraTensorShardingAttrGetRank(MlirAttribute sharding);
/// The number of axes sharding dimension `dim`.
MLIR_CAPI_EXPORTED intptr_t
tesseraTensorShardingAttrGetDimNumAxes(MlirAttribute sharding, intptr_t dim);
/// Axis `pos` of dimension `dim`, as the attribute prints it (`"x"` or
/// `"x":(2)4`, with the quotes).
MLIR_CAPI_EXPORTED void
tesseraTensorShardingAttrGetDimAxis(MlirAttribute sharding, intptr_t dim,
                                    intptr_t pos, MlirStringCallback callback,
                                    void *userData);
/// Whether dimension `dim` is closed.
MLIR_CAPI_EXPORTED bool
tesseraTensorShardingAttrIsDimClosed(MlirAttribute sharding, intptr_t dim);
/// The priority of dimension `dim`, or -1 if it has none.
MLIR_CAPI_EXPORTED int64_t
tesseraTensorShardingAttrGetDimPriority(MlirAttribute sharding, intptr_t dim);

/*===----------------------------------------------------------------------===
 * JAX-style types
 *===----------------------------------------------------------------------===*/

/// Calls `callback` with the JAX-style type of `value` (`f32[8@x,16]`), the
/// string `spmd-print-types` prints: its sharding comes from the function
/// argument or the op that defines it; only Explicit axes are shown unless
/// `allAxes`.
MLIR_CAPI_EXPORTED void tesseraValueGetJaxType(MlirValue value, bool allAxes,
                                               MlirStringCallback callback,
                                               void *userData);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_C_SPMD_H */
