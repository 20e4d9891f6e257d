//===- Pipelines.cpp - the spmd pass pipelines
//-----------------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

namespace mlir::tessera::spmd {

void buildTesseraPropagatePipeline(OpPassManager &pm) {
  // Explicit axes first (sharding in types), then the import step and
  // propagation over Auto axes.
  pm.addPass(createSpmdInferExplicitPass());
  pm.addPass(createSpmdApplyShardingConstraintsPass());
  pm.addPass(createSpmdPropagatePass());
}

void registerTesseraPropagatePipeline() {
  PassPipelineRegistration<>(
      "tessera-propagate",
      "Shardings for every value: explicit inference (spmd-infer-explicit), "
      "then closed constraints applied (spmd-apply-sharding-constraints) and "
      "propagation over Auto axes (spmd-propagate)",
      buildTesseraPropagatePipeline);
}

void buildTesseraPartitionPipeline(OpPassManager &pm) {
  pm.addPass(createSpmdLiftInlinedMeshesPass());
  buildTesseraPropagatePipeline(pm);
  pm.addPass(createSpmdCheckVmaPass());
  pm.addPass(createSpmdInsertReshardsPass());
  pm.addPass(createSpmdReshardToCollectivesPass());
  pm.addPass(createSpmdPartitionPass());
}

void registerTesseraPartitionPipeline() {
  PassPipelineRegistration<>(
      "tessera-partition",
      "The per-device program of a global-view module: meshes lifted "
      "(spmd-lift-inlined-meshes), tessera-propagate, then spmd-check-vma, "
      "spmd-insert-reshards, spmd-reshard-to-collectives and spmd-partition",
      buildTesseraPartitionPipeline);
}

} // namespace mlir::tessera::spmd
