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
  // Every call site its own callee, explicit axes first (sharding in
  // types), then the import step and propagation over Auto axes; the callee
  // copies that agree are merged again (one per sharding signature).
  pm.addPass(createSpmdFlattenCallGraphPass());
  pm.addPass(createSpmdInferExplicitPass());
  pm.addPass(createSpmdApplyShardingConstraintsPass());
  pm.addPass(createSpmdPropagatePass());
  pm.addPass(createSpmdUnflattenCallGraphPass());
}

void registerTesseraPropagatePipeline() {
  PassPipelineRegistration<>(
      "tessera-propagate",
      "Shardings for every value: one callee copy per call site "
      "(spmd-flatten-call-graph), explicit inference (spmd-infer-explicit), "
      "closed constraints applied (spmd-apply-sharding-constraints), "
      "propagation over Auto axes (spmd-propagate), and the copies with the "
      "same shardings merged (spmd-unflatten-call-graph)",
      buildTesseraPropagatePipeline);
}

void buildTesseraPartitionPipeline(OpPassManager &pm) {
  pm.addPass(createSpmdLiftInlinedMeshesPass());
  buildTesseraPropagatePipeline(pm);
  // (spmd-insert-reshards checks each manual computation as spmd-check-vma
  // would, before changing it, without a walk of its own.)
  SpmdInsertReshardsPassOptions reshards;
  reshards.checkVma = true;
  pm.addPass(createSpmdInsertReshardsPass(reshards));
  pm.addPass(createSpmdReshardToCollectivesPass());
  pm.addPass(createSpmdPartitionPass());
}

void registerTesseraPartitionPipeline() {
  PassPipelineRegistration<>(
      "tessera-partition",
      "The per-device program of a global-view module: meshes lifted "
      "(spmd-lift-inlined-meshes), tessera-propagate, then "
      "spmd-insert-reshards{check-vma=true} (spmd-check-vma's check), "
      "spmd-reshard-to-collectives and spmd-partition",
      buildTesseraPartitionPipeline);
}

} // namespace mlir::tessera::spmd
