//===- InitAllPasses.cpp - register every Tessera pass and pipeline -------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/InitAllPasses.h"

#include "tessera/Conversion/Passes.h"
#include "tessera/Dialect/Kernel/Transforms/Passes.h"
#include "tessera/Dialect/Poly/Transforms/Passes.h"
#include "tessera/Dialect/Spmd/Transforms/Passes.h"
#include "tessera/Pipelines/Pipelines.h"

#include "mlir/InitAllPasses.h"

void mlir::tessera::registerAllPasses() {
  // Upstream passes (canonicalize, cse, bufferization, lowering to LLVM...).
  mlir::registerAllPasses();
  // Tessera's own passes.
  spmd::registerSpmdPasses();
  spmd::registerTesseraPropagatePipeline();
  spmd::registerTesseraPartitionPipeline();
  poly::registerPolyPasses();
  kernel::registerKernelPasses();
  registerTesseraConversionPasses();
  registerTesseraCpuPasses();
  registerTesseraCpuPipeline();
  registerKernelLoweringPipelines();
}
