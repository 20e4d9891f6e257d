//===- KernelPipelines.cpp - the kernel-lower-* pipelines -----------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Pipelines/Pipelines.h"

#include "tessera/Conversion/Passes.h"
#include "tessera/Dialect/Kernel/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

namespace mlir::tessera {

void buildKernelLoweringPipeline(OpPassManager &pm,
                                 kernel::KernelLoweringMode mode) {
  pm.addPass(kernel::createKernelInferVectorLayoutPass());
  // The loops over tiles compute one row of a tile per iteration: an
  // (8, 128) f32 tile is 4 KiB, more than a CPU's vector registers hold
  // (64 of AVX-512's 32 registers), and a chain of elementwise ops on whole
  // tiles spills; a (1, 128) row is 8 AVX-512 (16 AVX2) registers.
  kernel::KernelApplyVectorLayoutPassOptions layout;
  layout.rowsPerStep = 1;
  pm.addPass(kernel::createKernelApplyVectorLayoutPass(layout));
  ConvertKernelToRuntimePassOptions options;
  options.mode = mode;
  pm.addPass(createConvertKernelToRuntimePass(options));
}

void registerKernelLoweringPipelines() {
  PassPipelineRegistration<>(
      "kernel-lower-pipelined",
      "Lowers kernel.calls to loops over double-buffered VMEM windows (the "
      "Pallas TPU pipeline): kernel-infer-vector-layout, "
      "kernel-apply-vector-layout{rows-per-step=1}, "
      "convert-kernel-to-runtime{mode=pipelined}",
      [](OpPassManager &pm) {
        buildKernelLoweringPipeline(pm, kernel::KernelLoweringMode::Pipelined);
      });
  PassPipelineRegistration<>(
      "kernel-lower-interpret",
      "Lowers kernel.calls to sequential code with run-time checks (Pallas's "
      "interpret mode): kernel-infer-vector-layout, "
      "kernel-apply-vector-layout{rows-per-step=1}, "
      "convert-kernel-to-runtime{mode=interpret}",
      [](OpPassManager &pm) {
        buildKernelLoweringPipeline(pm, kernel::KernelLoweringMode::Interpret);
      });
}

} // namespace mlir::tessera
