//===- Passes.td - conversion passes -----------------------*- tablegen -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_CONVERSION_PASSES_TD
#define TESSERA_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertCommToRuntimePass
    : Pass<"convert-comm-to-runtime", "ModuleOp"> {
  let summary = "Lowers comm collectives to calls of the runtime's C ABI";
  let description = [{
    Replaces every `comm` op of a per-device program by a call of the
    runtime's C ABI (`tessera_rt_*`, declared in `tessera/Runtime/Runtime.h`):

    | op | call |
    |---|---|
    | `comm.all_reduce` | `tessera_rt_all_reduce(in, out, n, dtype, kind, group, parts, site)` |
    | `comm.all_gather` | `tessera_rt_all_gather(in, out, shape, rank, dtype, dim, group, parts, site)` |
    | `comm.reduce_scatter` | `tessera_rt_reduce_scatter(in, out, shape, rank, dtype, kind, dim, group, parts, site)` |
    | `comm.all_to_all` | `tessera_rt_all_to_all(in, out, shape, rank, dtype, split, concat, group, parts, site)` |
    | `comm.permute` | `tessera_rt_permute(in, out, bytes, sources, targets, pairs, group, parts, site)` |
    | `comm.axis_index` | `tessera_rt_axis_index(group, parts)` |
    | `comm.axis_size` | a constant |

    The pass runs on tensors, before bufferization: the operand becomes a
    read-only buffer (`bufferization.to_buffer` with the identity layout, so
    one-shot bufferization copies a strided operand into a contiguous one),
    the result a freshly allocated contiguous buffer wrapped back into a
    tensor (`bufferization.to_tensor restrict writable`). Pointers are
    passed as `!llvm.ptr`.

    A group is a constant array of `(axis, pre-size, size)` triples, one
    per listed axis (a full axis is `(axis, 1, size)`), major to minor, with
    axes numbered in mesh order; `site` is a constant string naming the op
    and its location, which the runtime's watchdog prints when devices
    diverge. Element types map to the runtime's dtype codes (`index` is
    `i64`); complex and other element types are rejected with an error.
    Afterwards the `spmd.mesh` symbols, no longer used, are erased.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def ConvertKernelToRuntimePass
    : Pass<"convert-kernel-to-runtime", "ModuleOp"> {
  let summary = "Lowers kernel.calls to loops over VMEM windows and calls of "
                "the runtime's kernel C ABI";
  let description = [{
    Turns every `kernel.call` on tensors into ordinary code that the
    `tessera-cpu` pipeline compiles, in one of two modes (`mode=pipelined`,
    the default, or `mode=interpret`); the `kernel-lower-pipelined` and
    `kernel-lower-interpret` pipelines run it after the vector layout
    passes. It is a dialect conversion with two pattern sets
    (`populateKernelCallToRuntimePatterns`,
    `populateKernelBodyToRuntimePatterns` in
    `tessera/Conversion/KernelToRuntime/KernelToRuntime.h`): what cannot be
    lowered is reported before anything changes.

    - The call becomes a call of the runtime's `tessera_rt_kernel_call`
      with a core function (`@<body>_pipelined<N>_core`,
      `@<body>_interpret<N>_core`) holding the steps of one TensorCore, run
      by the runtime on each TensorCore as a thread with its own VMEM/SMEM
      arenas of the target's sizes (`kernel.target`, needed) and DMA
      engine; in the pipelined mode on a megacore target (v4, v5p) the
      leading `parallel` grid axes are split across the TensorCores.
    - The grid becomes one `scf.for` over the core's steps in lexicographic
      order (last axis fastest); `kernel.program_id` /
      `kernel.num_programs` become the step's grid indices and the grid
      bounds.
    - Pipelined: per blocked operand in VMEM or SMEM a window of two buffers
      in the arena (one with `buffers = 1` or for a trivial window, whole
      array and constant index map); the body gets the current one. Inputs:
      the first block's DMA is started before the loop; every step waits for
      its block's DMA, then starts the next step's block into the other
      buffer before the body runs, or skips it when the next block index
      equals the current one. Outputs: the window stays resident while the
      block index does not change (so a consecutively revisited block
      accumulates), and its DMA back (without its part outside the array)
      is started when the next step's block index differs and at the last
      step.
    - Interpret (Pallas's TPU interpret mode): one buffer per blocked
      operand; at every step the input blocks are copied in at the block
      index of their index map; the part of a partial edge block or of
      element padding outside the array is NaN for floats (the largest
      value for integers). An output block starts NaN-poisoned whenever its
      block index changes and is written back after every step. Scratch
      buffers start NaN-poisoned. Non-consecutive revisits of an output
      block are reported (`Revisited block [0:8, 0:128] of output 0 in
      iteration (1, 0). The block was previously visited in iterations
      (0, 0) through (0, 0)`).
    - The body is cloned once per call with the grid indices as leading
      arguments and the memory spaces dropped from its types, and called at
      every step. `kernel.load` / `kernel.store` become `vector` loads and
      stores (masked ones `vector.maskedload`/`maskedstore`, masked-out
      lanes NaN), `kernel.async_copy` a DMA on the core's engine that adds
      the bytes of its target to the DMA semaphore and a runtime wait
      (pipelined) or a synchronous `memref.copy` (interpret), semaphores
      counters in memory, `kernel.run_scoped` buffers in the arenas released
      at the end of the scope, the body's `linalg` ops on buffers the same
      ops on tensors read from them (materialized back into their
      destinations, so `tessera-cpu` tiles and vectorizes them).
    - Run-time checks call `tessera_rt_kernel_error`, which fails the run
      with Pallas's words naming the kernel, the grid point and the operand,
      and the failing access is skipped: out-of-bounds block indices,
      unmasked loads and stores and DMA views, semaphore waits that would
      hang, and non-zero semaphores at kernel exit.

    Operands become buffers through `bufferization.to_buffer` and results
    tensors through `bufferization.to_tensor`, so the function around the
    call is still a tensor program for one-shot bufferization. Aliased
    outputs (`input_output_aliases`) start as a copy of their input.

    ```mlir
    %0 = kernel.call @add_body(%x, %y) grid = [4, 2] ...
    // becomes
    %fn = constant @add_body_pipelined0_core : (i64, i32) -> ()
    call @tessera_rt_kernel_call(%name, %target, %info, %args, %fn)
        : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, (i64, i32) -> ()) -> ()
    %0 = bufferization.to_tensor %out restrict writable
        : memref<1024x1024xf32> to tensor<1024x1024xf32>
    ```
  }];
  let options = [
    Option<"mode", "mode", "::mlir::tessera::kernel::KernelLoweringMode",
           /*default=*/"::mlir::tessera::kernel::KernelLoweringMode::Pipelined",
           "How blocks move between the arrays and their windows",
           [{::llvm::cl::values(
             clEnumValN(::mlir::tessera::kernel::KernelLoweringMode::Pipelined,
                        "pipelined",
                        "double-buffered windows, Pallas's TPU pipeline"),
             clEnumValN(::mlir::tessera::kernel::KernelLoweringMode::Interpret,
                        "interpret",
                        "sequential, with the checks of Pallas's TPU "
                        "interpret mode"))}]>
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

#endif // TESSERA_CONVERSION_PASSES_TD
