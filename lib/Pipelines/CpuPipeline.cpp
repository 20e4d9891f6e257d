//===- CpuPipeline.cpp - the tessera-cpu pipeline -------------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Pipelines/Pipelines.h"

#include "tessera/Conversion/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/MathToFuncs/MathToFuncs.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
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
  // Run-time checks of indexing and division, on the per-device tensors.
  if (options.runtimeChecks)
    pm.addNestedPass<func::FuncOp>(createTesseraInsertRuntimeChecksPass());
  // Collectives become runtime calls while values are still tensors.
  pm.addPass(createConvertCommToRuntimePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Elementwise arith/math on tensors become linalg.generic, fused with
  // their elementwise producers.
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  pm.addNestedPass<func::FuncOp>(createLinalgElementwiseOpFusionPass());
  // Tiling and vectorization, on tensors.
  if (options.vectorize)
    pm.addNestedPass<func::FuncOp>(
        createTesseraCpuCodegenPass(options.getCodegenOptions()));

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
  // Vector ops to the forms the LLVM conversion takes, before deallocation
  // (which does not look into `vector.mask` regions).
  if (options.vectorize)
    pm.addNestedPass<func::FuncOp>(createTesseraCpuLowerVectorsPass());
  pm.addNestedPass<func::FuncOp>(bufferization::createBufferHoistingPass());
  pm.addNestedPass<func::FuncOp>(bufferization::createBufferLoopHoistingPass());
  bufferization::BufferDeallocationPipelineOptions deallocation;
  bufferization::buildBufferDeallocationPipeline(pm, deallocation);
  pm.addPass(createConvertBufferizationToMemRefPass());

  // Loops (what was not vectorized), then LLVM. Vectors: contractions to
  // FMAs and n-D transfers unrolled to 1-D loads and stores (no loops, no
  // stack buffers). Allocation goes through the generic functions, which the
  // runtime implements with per-device accounting.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  if (options.vectorize) {
    pm.addNestedPass<func::FuncOp>(createConvertVectorToSCFPass(
        VectorTransferToSCFOptions().enableFullUnroll()));
    pm.addPass(createCanonicalizerPass());
  }
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // Integer powers (math.fpowi/ipowi, scalars or vectors) become calls of
  // outlined loops: LLVM's powi intrinsic takes a scalar exponent only.
  pm.addPass(createConvertMathToFuncs());
  pm.addPass(createSCFToControlFlowPass());
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  if (options.vectorize) {
    ConvertVectorToLLVMPassOptions vectorToLLVM;
    vectorToLLVM.vectorContractLowering =
        vector::VectorContractLowering::ParallelArith;
    pm.addPass(createConvertVectorToLLVMPass(vectorToLLVM));
  }
  // Failed assertions report their message and device through the runtime.
  pm.addPass(createTesseraCpuLowerAssertsPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void registerTesseraCpuPipeline() {
  PassPipelineRegistration<TesseraCpuPipelineOptions>(
      "tessera-cpu",
      "A per-device program on tensors to the LLVM dialect: comm ops to "
      "runtime calls, tiling and vectorization, bufferization, LLVM",
      buildTesseraCpuPipeline);
}

} // namespace mlir::tessera
