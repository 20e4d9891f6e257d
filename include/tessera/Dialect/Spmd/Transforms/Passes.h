//===- Passes.h - spmd passes -------------------------------------*- C++
//-*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_TRANSFORMS_PASSES_H
#define TESSERA_DIALECT_SPMD_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace mlir::tessera::spmd {

#define GEN_PASS_DECL
#include "tessera/Dialect/Spmd/Transforms/Passes.h.inc"

/// Registers every spmd pass with the global pass registry.
#define GEN_PASS_REGISTRATION
#include "tessera/Dialect/Spmd/Transforms/Passes.h.inc"

/// Adds `tessera-propagate` to `pm`: spmd-flatten-call-graph,
/// spmd-infer-explicit, spmd-apply-sharding-constraints, spmd-propagate
/// (default options), spmd-unflatten-call-graph.
void buildTesseraPropagatePipeline(OpPassManager &pm);

/// Registers the `tessera-propagate` pipeline.
void registerTesseraPropagatePipeline();

/// Adds `tessera-partition` to `pm`: spmd-lift-inlined-meshes,
/// tessera-propagate, spmd-check-vma, spmd-insert-reshards,
/// spmd-reshard-to-collectives, spmd-partition.
void buildTesseraPartitionPipeline(OpPassManager &pm);

/// Registers the `tessera-partition` pipeline.
void registerTesseraPartitionPipeline();

} // namespace mlir::tessera::spmd

#endif // TESSERA_DIALECT_SPMD_TRANSFORMS_PASSES_H
