//===- CpuPipeline.cpp - the tessera-cpu pipeline -------------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Pipelines/Pipelines.h"

#include "tessera/Conversion/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::tessera {

void buildTesseraCpuPipeline(OpPassManager &pm,
                             const TesseraCpuPipelineOptions &options) {
  (void)options;
  // Collectives become runtime calls while values are still tensors.
  pm.addPass(createConvertCommToRuntimePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Elementwise arith/math on tensors become linalg.generic, fused with
  // their elementwise producers.
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  pm.addNestedPass<func::FuncOp>(createLinalgElementwiseOpFusionPass());

  // Buffers: identity layouts at function boundaries (the calling
  // convention tessera-run and AOT users rely on), then deallocation.
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  // Loops may carry freshly allocated buffers (a tensor loop-carried value
  // that is not updated in place).
  bufferize.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addNestedPass<func::FuncOp>(bufferization::createBufferHoistingPass());
  pm.addNestedPass<func::FuncOp>(bufferization::createBufferLoopHoistingPass());
  bufferization::BufferDeallocationPipelineOptions deallocation;
  bufferization::buildBufferDeallocationPipeline(pm, deallocation);
  pm.addPass(createConvertBufferizationToMemRefPass());

  // Loops, then LLVM. Allocation goes through the generic functions, which
  // the runtime implements with per-device accounting.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void registerTesseraCpuPipeline() {
  PassPipelineRegistration<TesseraCpuPipelineOptions>(
      "tessera-cpu",
      "A per-device program on tensors to the LLVM dialect: comm ops to "
      "runtime calls, bufferization, linalg to loops, LLVM",
      buildTesseraCpuPipeline);
}

} // namespace mlir::tessera
